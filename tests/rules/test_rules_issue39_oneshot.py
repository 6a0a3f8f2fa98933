"""Issue 39, item 6: one-shot experts on the bonus step.

EN p.10 "Using experts": "An ⚡ Expert card has an immediate, one-time effect that can be
activated at any time during your turn." The bonus card a player chooses after their own
action is part of their turn (DIGEST §5).
"""

from companion.actions import Academy, Bank, ChooseExpert, TakeDie, University, UseExpert
from companion.errors import ExpertSlotError, NotYourTurnError
from companion.engine import die_options

from rulekit import animal, setup

ONE_SHOT = "Safi Limbila"  # ⚡ gain 5 coins


def _at_own_bonus_step():
    """Seat 0 holds Safi Limbila face up and, on its own turn, has just reached the expert
    bonus of the reputation track (space 6) with an Academy: it chooses the bonus card now."""
    t = setup(experts=[ONE_SHOT, "Ishiwata Eiko"],
              display=[animal("africa", name="A1"), animal("africa", name="A2")], picks=[2, 3, 4, 5],
              dice={0: [("red", 1), ("yellow", 5), ("yellow", 5), ("green", 1)],
                    1: [("red", 2), ("blue", 2), ("purple", 3), ("green", 4)]})
    t.do(TakeDie(0, 0, 0), University(0, ONE_SHOT))
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.do(TakeDie(0, 0, 1), Academy(0, t.card("A1")))  # +3 reputation
    t.do(TakeDie(1, 1, 1), Bank(1))
    t.do(TakeDie(0, 0, 2), Academy(0, t.card("A2")))  # +3: space 6, an expert
    assert t.p.kind == "choose_expert" and t.p.seat == 0 and t.p.reason == "reputation"
    return t


def test_a_one_shot_expert_may_be_used_while_choosing_the_bonus_card_of_ones_own_turn():
    # "can be activated at any time during your turn"
    t = _at_own_bonus_step()
    s = t.seat(0)
    assert "use_expert" in t.p.accepts
    coins = s.coins
    t.do(UseExpert(0, ONE_SHOT))
    assert s.coins == coins + 5 and ONE_SHOT in s.used and ONE_SHOT not in s.face_up
    assert t.p.kind == "choose_expert" and t.p.seat == 0  # the bonus card is still to choose
    t.do(ChooseExpert(0, "Ishiwata Eiko"))


def test_not_on_another_seats_step():
    t = _at_own_bonus_step()
    t.refuse(UseExpert(1, ONE_SHOT), NotYourTurnError)
