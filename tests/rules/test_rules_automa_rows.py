"""The engine's side of the automa (DIGEST §6, EN p.21-24): the Behavior-card row is read by the
die's VALUE (colour never matters), only the card's gains apply, and the automa's board
behaves like a human's for slot effects and the reputation track."""

import pytest

from companion.actions import AutomaAction, Bank, ChooseExpert, Embassy, SeatConfig, TakeDie
from companion.errors import BadActionError, ExpeditionError, ExpertSlotError, NotYourTurnError

from rulekit import animal, automa_seat, setup


def automa_table(behaviour, value, colour="blue", **kw):
    """Seat 0 human (plays an Embassy), seat 1 an automa holding (colour, value)."""
    dice1 = [(colour, value)] + [("green", v) for v in (1, 2, 3)] if colour != "green" else \
        [(colour, value)] + [("purple", v) for v in (1, 2, 3)]
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Auto", behaviour=behaviour)],
              dice={0: [("red", 1), ("red", 2), ("red", 3), ("yellow", 1)], 1: dice1}, **kw)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    a = t.seat(1)
    slot = next(i for i, sl in enumerate(a.slots) if (colour, value) in sl)
    idx = a.slots[slot].index((colour, value))
    t.do(TakeDie(1, 1, slot, idx))
    return t


def test_humans_and_automas_use_their_own_kind_of_action():
    t = automa_table("carl-von-linne", 3)
    t.refuse(Embassy(1), NotYourTurnError, "automa")
    t2 = setup(seats=[SeatConfig("Hugo"), automa_seat("Auto")])
    t2.do(TakeDie(0, 0, 0))
    t2.refuse(AutomaAction(0), NotYourTurnError, "human")


@pytest.mark.parametrize("behaviour,value,tokens", [("carl-von-linne", 3, 2), ("abraham-trembley", 2, 2),
                                                    ("louis-jean-marie-daubenton", 6, 3)])
def test_embassy_rows(behaviour, value, tokens):
    t = automa_table(behaviour, value)
    a = t.seat(1)
    before = a.tokens
    t.do(AutomaAction(1))
    assert a.tokens == before + tokens


@pytest.mark.parametrize("behaviour,value,extra", [("carl-von-linne", 2, {}),
                                                   ("abraham-trembley", 3, {"tokens": 1}),
                                                   ("louis-jean-marie-daubenton", 1, {"seals": 1})])
def test_bank_rows_claim_first_player(behaviour, value, extra):
    t = automa_table(behaviour, value)
    a = t.seat(1)
    before = (a.coins, a.tokens, a.seals)
    t.do(AutomaAction(1))
    assert a.coins == before[0] + 5
    assert a.tokens == before[1] + extra.get("tokens", 0)
    assert a.seals == before[2] + extra.get("seals", 0)
    assert t.st.first_player == 1


def test_bank_row_after_a_human_claim_does_not_take_the_token():
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Auto")],
              dice={1: [("blue", 2), ("green", 1), ("green", 3), ("green", 4)]}, first=1)
    # seat 1 (automa) plays first: give it a non-bank die, then the human banks, then the automa
    a = t.seat(1)
    t.do(TakeDie(1, 1, a.slots.index([("green", 1)])), AutomaAction(1, "europe"))  # Carl 1: expedition
    t.do(TakeDie(0, 0, 0), Bank(0))
    assert t.st.first_player == 0
    t.do(TakeDie(1, 1, a.slots.index([("blue", 2)])), AutomaAction(1))  # Carl 2: Bank
    assert t.st.first_player == 0


def test_expedition_row_discards_all_tokens_for_vp_and_takes_the_space_reputation():
    t = automa_table("carl-von-linne", 4, token="token")  # 2 tokens each
    a = t.seat(1)
    assert a.tokens == 2
    vp = a.vp
    t.refuse(AutomaAction(1), ExpeditionError, "continent")
    t.refuse(AutomaAction(1, "atlantis"), BadActionError)
    t.do(AutomaAction(1, "asia"))  # colour of the die (blue) does not matter
    # card order: "Gains the Reputation points from that space. Discards all of their
    # Expedition tokens." The first space's 3 reputation passes space 2 (+1 token), then all 3
    # tokens are discarded for 4 VP each.
    assert a.rep == 3 and t.st.expedition["asia"] == 1
    assert a.vp == vp + 3 * 4 and a.tokens == 0


def test_automa_row_by_value_not_colour_and_non_expedition_rows_take_no_continent():
    t = automa_table("carl-von-linne", 3, colour="green")
    t.refuse(AutomaAction(1, "oceania"), BadActionError, "embassy")


def test_university_row_expert_without_slot_and_card_gains_only():
    t = automa_table("abraham-trembley", 4)  # University + 1 seal
    a = t.seat(1)
    seals, tokens = a.seals, a.tokens
    t.do(AutomaAction(1))
    assert t.p.kind == "choose_expert" and t.p.seat == 1
    name = t.st.expert_display[0]
    t.refuse(ChooseExpert(1, name, slot=0), ExpertSlotError)
    t.do(ChooseExpert(1, name))
    assert a.seals == seals + 1 and a.tokens == tokens and name in a.experts


def test_academy_row_any_colour_and_card_reputation():
    display = [animal("africa", name="Gnu")]
    t = automa_table("carl-von-linne", 6, colour="blue", display=display, picks=[1, 2, 3, 4])
    a = t.seat(1)
    t.do(AutomaAction(1))
    assert a.rep == 3
    assert t.p.kind == "choose_animal" and t.p.seat == 1
    from companion.actions import ChooseAnimal
    t.do(ChooseAnimal(1, t.card("Gnu")))  # blue die, African animal: fine for the automa
    assert t.card("Gnu") in a.animals


def test_slot_effect_for_the_automa_when_a_human_takes_its_die():
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Auto")],
              dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                    1: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)]})
    a = t.seat(1)
    vp = a.vp
    t.do(TakeDie(0, 1, 3))  # the automa's 3 VP slot (its highest die)
    assert a.vp == vp + 3


def test_automa_animals_count_at_the_end_of_the_game():
    # DIGEST §3 discards unpublished animals at the end, but the automa never publishes and its
    # Scoring card multiplies "the number of Animal cards they have": the engine keeps them
    # (docs/engine.md; automa request). Checked through a whole game.
    from companion.engine import score_inputs
    t = automa_table("carl-von-linne", 6)
    t.do(AutomaAction(1))
    t.choose_first()
    a = t.seat(1)
    assert len(a.animals) == 3  # 2 starting + 1 from the Academy row
    t.play_to_end()
    inp = score_inputs(t.st)[1]
    assert sum(inp.animals.values()) == len(a.animals) >= 3
