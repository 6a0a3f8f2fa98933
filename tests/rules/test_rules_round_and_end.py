"""Set-up, the round (tokens, dice, turns, slot effects), the reputation track, the end of the
round (royal-seal extra actions) and the end of the game (DIGEST §1-3, EN p.5-7, 11, 17)."""

import pytest

from companion.actions import (
    Academy, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy, Expedition, Pass, PlaceDice,
    Publish, Research, RevealExpert, RevealRoundToken, RollDice, RollDie, SealAction, SeatConfig,
    TakeDie, University,
)
from companion.errors import (
    BadActionError, CardUnavailableError, ChanceError, GameOverError, NoSuchDieError,
    NotYourTurnError,
)
from companion.engine import final_scores

from rulekit import FILLER_EXPERTS, Table, animal, automa_seat, setup, setup_six_in_the_display

# --------------------------------------------------------------------------- set-up


def test_setup_coins_by_position_from_the_first_player_and_one_token():
    t = Table().start(n=4, first=2)
    assert [s.coins for s in t.st.seats] == [3, 4, 1, 2]
    assert [s.tokens for s in t.st.seats] == [1, 1, 1, 1]
    assert t.st.first_player == 2


@pytest.mark.parametrize("n,size", [(2, 6), (3, 7), (4, 8)])
def test_display_sizes(n, size):
    t = Table().start(n=n)
    t.reveal_experts()
    assert len(t.st.expert_display) == 6 and all(t.st.expert_display)
    k = 0
    while t.p.kind == "reveal_animal":
        t.do(animal("asia", name=f"x{k}"))
        k += 1
    assert k == size


def test_starting_draft_last_seat_first_then_refill_then_round_token():
    t = Table().start(n=3, first=1)
    t.reveal_experts().reveal_animals()
    order = []
    while t.p.kind == "choose_animal":
        order.append(t.p.seat)
        t.choose_first()
    assert order == [0, 0, 2, 2, 1, 1]  # last seat (seat 0) first, the first player (1) last
    reveals = 0
    while t.p.kind == "reveal_animal":
        t.do(animal("asia", name=f"r{reveals}"))
        reveals += 1
    assert reveals == 6
    assert t.p.kind == "reveal_round_token"  # round 1: no display refill before the token
    assert [len(s.animals) for s in t.st.seats] == [2, 2, 2]


def test_seat_set_up_errors():
    from companion.actions import StartGame
    from companion.errors import SetupError
    t = Table()
    t.refuse(StartGame((SeatConfig("A"),)), SetupError, "2 to 4")
    t.refuse(StartGame((SeatConfig("A"), SeatConfig("A"))), SetupError, "different name")
    t.refuse(StartGame(tuple(automa_seat(f"A{i}") for i in range(4))), SetupError, "automa")


# --------------------------------------------------------------------------- round tokens


def test_round_token_expedition_token_and_coins():
    t = setup(token="token", roll=False)
    assert [s.tokens for s in t.st.seats] == [2, 2]
    t = setup(token="coins", roll=False)
    assert [s.coins for s in t.st.seats] == [4, 5]
    t = setup(token="nothing", roll=False)
    assert [(s.coins, s.tokens) for s in t.st.seats] == [(1, 1), (2, 1)]
    assert t.p.kind == "roll_dice" and t.p.count == 4


def test_round_token_expert_draft_in_seat_order_from_the_first_player_then_refill():
    t = setup(n=3, first=1, token="expert", roll=False)
    order = []
    while t.p.kind == "choose_expert":
        assert t.p.reason == "round"
        order.append(t.p.seat)
        t.choose_first()
    assert order == [1, 2, 0]
    assert [len(s.experts) for s in t.st.seats] == [1, 1, 1]
    refills = 0
    while t.p.kind == "reveal_expert":
        t.do(RevealExpert(FILLER_EXPERTS[10 + refills]))
        refills += 1
    assert refills == 3 and all(t.st.expert_display)


def test_round_token_animal_draft_in_seat_order_from_the_first_player_then_refill():
    t = setup(n=3, first=2, token="animal", roll=False)
    order = []
    while t.p.kind == "choose_animal":
        assert t.p.reason == "round"
        order.append(t.p.seat)
        t.choose_first()
    assert order == [2, 0, 1]
    assert [len(s.animals) for s in t.st.seats] == [3, 3, 3]
    n = 0
    while t.p.kind == "reveal_animal":
        t.do(animal("asia", name=f"z{n}"))
        n += 1
    assert n == 3


def test_round_token_draft_order_follows_a_bank_claim_of_the_previous_round():
    t = setup(n=3, first=0)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(2, 2, 0), Bank(2))
    t.finish_turns()
    t.reveal_experts().reveal_animals()
    t.do(RevealRoundToken("expert"))
    order = []
    while t.p.kind == "choose_expert":
        order.append(t.p.seat)
        t.choose_first()
    assert order == [2, 0, 1]


def test_round_token_each_effect_twice_at_most():
    t = setup(token="nothing")
    t.finish_turns()
    t.new_round(token="nothing")
    t.finish_turns()
    t.reveal_experts().reveal_animals()
    t.refuse(RevealRoundToken("nothing"), ChanceError, "nothing")
    t.refuse(RevealRoundToken("storm"), BadActionError, "storm")


def test_extra_die_five_dice_two_share_one_slot_and_each_gives_the_slot_effect():
    t = setup(token="extra_die", roll=False)
    assert t.p.kind == "roll_dice" and t.p.count == 5
    dice = (("red", 1), ("red", 2), ("yellow", 3), ("yellow", 4), ("blue", 5))
    t.refuse(RollDice(0, dice[:4]), ChanceError, "5")
    t.do(RollDice(0, dice))
    t.refuse(PlaceDice(0, (0, 1, 2, 3)), BadActionError)
    t.refuse(PlaceDice(0, (0, 0, 1, 1, 2)), BadActionError, "share")
    t.refuse(PlaceDice(0, (0, 0, 0, 1, 2)), BadActionError)
    t.do(PlaceDice(0, (0, 1, 3, 2, 3)))  # yellow 3 and blue 5 share the 3 VP slot
    assert t.seat(0).slots == [[("red", 1)], [("red", 2)], [("yellow", 4)], [("yellow", 3), ("blue", 5)]]
    t.roll()
    s0 = t.seat(0)
    t.do(TakeDie(0, 1, 0), Embassy(0))
    vp = s0.vp
    t.do(TakeDie(1, 0, 3, index=1))  # the blue 5 of the shared slot
    assert t.p.die == ("blue", 5) and s0.vp == vp + 3
    t.do(Embassy(1))
    t.do(TakeDie(0, 1, 1), Embassy(0))
    t.do(TakeDie(1, 0, 3))  # the yellow 3, alone now: 3 VP again
    assert s0.vp == vp + 6


def test_extra_die_automa_two_lowest_share_the_leftmost_slot():
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Carl")], token="extra_die", roll=False)
    t.roll({0: [("red", 1), ("red", 2), ("red", 3), ("red", 4), ("yellow", 1)],
            1: [("blue", 6), ("blue", 2), ("green", 3), ("green", 1), ("purple", 5)]})
    a = t.seat(1)
    assert sorted(a.slots[0]) == [("blue", 2), ("green", 1)]
    assert a.slots[1:] == [[("green", 3)], [("purple", 5)], [("blue", 6)]]


# --------------------------------------------------------------------------- dice and turns


def test_roll_dice_checks():
    t = setup(roll=False)
    t.refuse(RollDice(1, (("red", 1),) * 4), NotYourTurnError)
    t.refuse(RollDice(0, (("red", 1),) * 3), ChanceError, "4")
    t.refuse(RollDice(0, (("red", 7), ("red", 1), ("red", 2), ("red", 3))), BadActionError, "1 to 6")
    t.refuse(RollDice(0, (("pink", 1), ("red", 1), ("red", 2), ("red", 3))), BadActionError, "pink")
    t.do(RollDice(0, (("red", 1), ("red", 2), ("red", 3), ("red", 4))))
    t.refuse(PlaceDice(0, (0, 0, 1, 2)), BadActionError, "one die per slot")
    t.refuse(PlaceDice(0, (0, 1, 2, 4)), BadActionError, "0..3")
    t.do(PlaceDice(0, (3, 2, 1, 0)))
    assert t.seat(0).slots == [[("red", 4)], [("red", 3)], [("red", 2)], [("red", 1)]]
    t.refuse(RollDice(1, (("red", 5), ("yellow", 1), ("yellow", 2), ("yellow", 3))), ChanceError, "red")


def test_dice_drawn_from_the_first_player():
    t = setup(n=3, first=2, roll=False)
    order = []
    while t.p.kind == "roll_dice":
        order.append(t.p.seat)
        t.do(RollDice(t.p.seat, tuple(_dice_for(t.p.seat))))
        if t.p.kind == "place_dice":
            t.do(PlaceDice(t.p.seat, (0, 1, 2, 3)))
    assert order == [2, 0, 1]
    assert t.p.kind == "take_die" and t.p.seat == 2


def _dice_for(seat):
    c = ["red", "yellow", "purple", "blue", "green"]
    return [(c[(seat + i) % 5], 1 + i) for i in range(4)]


def test_turns_go_on_until_no_die_is_left_a_seat_with_an_empty_board_still_plays():
    t = setup()
    # seat 0 uses its own dice, seat 1 also takes seat 0's dice: seat 0's board empties first
    t.do(TakeDie(0, 0, 0), Bank(0))
    t.do(TakeDie(1, 0, 1), Bank(1))
    t.do(TakeDie(0, 0, 2), Bank(0))
    t.do(TakeDie(1, 0, 3), Bank(1))
    assert t.seat(0).dice_on_board() == 0
    assert t.p.kind == "take_die" and t.p.seat == 0
    t.refuse(TakeDie(0, 0, 0), NoSuchDieError)
    for k in range(4):
        seat = k % 2
        t.do(TakeDie(seat, 1, k), Bank(seat))
    assert t.st.round == 2 and t.p.kind == "reveal_expert"


def test_slot_effects_for_the_owner_when_an_opponent_takes_the_die():
    t = setup(dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                    1: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)]})
    s0, s1 = t.seat(0), t.seat(1)

    def snap(s):
        return (s.coins, s.rep, s.vp)

    # own die: nothing; opponent's slot 0: nothing; slot 1: 2 coins; slot 2: 2 rep; slot 3: 3 VP
    b = snap(s0)
    t.do(TakeDie(0, 0, 0))
    assert snap(s0) == b
    t.do(Embassy(0))
    b = snap(s0)
    t.do(TakeDie(1, 0, 1))
    assert snap(s0) == (b[0] + 2, b[1], b[2])
    t.do(Embassy(1))
    b1 = snap(s1)
    t.do(TakeDie(0, 1, 0))
    assert snap(s1) == b1
    t.do(Embassy(0))
    b = snap(s0)
    tokens = s0.tokens
    t.do(TakeDie(1, 0, 2))
    assert snap(s0) == (b[0], b[1] + 2, b[2]) and s0.tokens == tokens + 1  # space 2: token
    t.do(Embassy(1))
    t.do(TakeDie(0, 1, 3))
    assert s1.vp == b1[2] + 3
    t.do(Embassy(0))


def test_displays_discarded_and_dice_back_in_the_bag_at_the_end_of_the_round():
    t = setup()
    left_animals = [x for x in t.st.animal_display if x is not None]
    left_experts = [x for x in t.st.expert_display if x is not None]
    t.finish_turns()
    assert t.st.round == 2
    assert set(left_animals) <= set(t.st.discarded_animals)
    assert set(left_experts) <= set(t.st.discarded_experts)
    assert all(v == 4 for v in t.st.bag.values()) and not any(t.st.central.values())
    n = 0
    while t.p.kind == "reveal_expert":
        t.do(RevealExpert(FILLER_EXPERTS[8 + n]))
        n += 1
    assert n == 6


# --------------------------------------------------------------------------- reputation


def test_reputation_passing_several_bonuses_at_once():
    # Academy value 5 from space 3: 3 -> 6 passes 4 (3 coins) and reaches 6 (an expert)
    display = [animal("asia", name="A1"), animal("asia", name="A2")]
    t = setup(display=display, picks=[2, 3, 4, 5],
              dice={0: [("purple", 5), ("purple", 6), ("green", 1), ("green", 2)]})
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("A1")))
    assert s.rep == 3 and s.tokens == 2
    t.do(TakeDie(1, 1, 0), Embassy(1))
    coins = s.coins
    t.do(TakeDie(0, 0, 1), Academy(0, t.card("A2")))
    assert s.rep == 6 and s.coins == coins + 3
    assert t.p.kind == "choose_expert" and t.p.seat == 0 and t.p.reason == "reputation"
    t.refuse(TakeDie(1, 1, 1), NotYourTurnError)
    name = t.st.expert_display[3]
    t.do(ChooseExpert(0, name))
    assert s.face_up[0] == name
    assert t.st.expert_display[3] is None  # not replaced during the round


def test_reputation_card_bonus_earned_on_another_turn_is_chosen_at_the_end_of_that_turn():
    # seat 1 at reputation 4; seat 0 takes seat 1's reputation-slot die (+2 -> 6: an expert for
    # seat 1). Seat 0 finishes its turn first (and takes the expert seat 1 wanted); seat 1
    # chooses at the end of seat 0's turn.
    display = [animal("africa", name="Y1"), animal("africa", name="Y2")]
    t = setup(display=display, picks=[2, 3, 4, 5], experts=["Cristian Miller"],
              dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                    1: [("yellow", 5), ("yellow", 1), ("blue", 2), ("blue", 3)]})
    s1 = t.seat(1)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    t.do(TakeDie(1, 1, 0), Academy(1, t.card("Y1")))  # +3 -> 3
    t.do(TakeDie(0, 0, 1), Embassy(0))
    t.do(TakeDie(1, 1, 1), Academy(1, t.card("Y2")))  # +1 -> 4
    assert s1.rep == 4
    t.do(TakeDie(0, 1, 2))  # seat 1's reputation slot: +2 -> 6
    assert s1.rep == 6
    assert t.p.kind == "action" and t.p.seat == 0  # not seat 1's choice yet
    t.do(University(0, "Cristian Miller"))
    assert t.p.kind == "choose_expert" and t.p.seat == 1 and t.p.reason == "reputation"
    t.refuse(ChooseExpert(1, "Cristian Miller"), CardUnavailableError)
    t.choose_first()
    assert len(s1.experts) == 1
    assert t.p.kind == "take_die" and t.p.seat == 1


def test_reputation_animal_bonus_with_an_empty_display_takes_the_deck_top_and_counts_for_the_expedition():
    # the display is emptied by six Academy actions; seat 0's expedition then reaches space 8:
    # the animal comes from the top of the deck, and (FAQ) it may be researched at once
    t = setup_six_in_the_display({0: [("red", 5), ("yellow", 1), ("purple", 3), ("red", 4)],
                                 1: [("green", 1), ("red", 2), ("blue", 2), ("yellow", 2)]})
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("am1")))  # 3
    t.do(TakeDie(1, 1, 0), Academy(1, t.card("oc1")))
    t.do(TakeDie(0, 0, 1), Academy(0, t.card("af1")))  # 4
    t.do(TakeDie(1, 1, 1), Academy(1, t.card("am2")))
    t.do(TakeDie(0, 0, 2), Academy(0, t.card("as1")))  # 6: an expert
    t.choose_first()
    t.do(TakeDie(1, 1, 2), Academy(1, t.card("eu1")))
    assert not any(x is not None for x in t.st.animal_display)
    assert s.rep == 6
    t.do(TakeDie(0, 0, 3), Expedition(0, "america"))  # +3 -> 9: passes 8
    assert t.p.kind == "choose_animal" and t.p.from_deck and t.p.accepts == ("draw_animal", "use_expert")
    t.refuse(ChooseAnimal(0, t.card("am1")), CardUnavailableError)
    t.do(DrawAnimal(0, "america", "Deck top", ("bird", "carnivore", "aquatic", "cold")))
    deck = t.card("Deck top")
    assert deck in s.animals
    assert t.p.kind == "research" and t.p.value == 4
    t.do(Research(0, ((deck, "carnivore"),)))
    assert s.cubes[deck] == ["carnivore"]


def test_reputation_wraps_after_the_last_space():
    # from Eric's table (reputation 15): Academy +2 -> 1 (wraps to 0 then 1), no bonus
    from rulekit import eric_game
    t, c = eric_game()
    s = t.seat(0)
    assert s.rep == 15
    e4 = t.card("E4")
    tokens, coins, seals = s.tokens, s.coins, s.seals
    t.do(Academy(0, e4))  # blue 4 -> 2 reputation
    assert s.rep == 1
    assert (s.tokens, s.coins, s.seals) == (tokens, coins, seals)


# --------------------------------------------------------------------------- end of round


def _both_publish_table():
    """Both seats publish once in round 1 (1 seal each); seat 1 claims the Bank first."""
    display = [animal("america", name="Am0"), animal("africa", name="Af1")]
    t = setup(display=display, picks=[1, 2, 0, 3],
              dice={0: [("red", 2), ("green", 1), ("green", 2), ("green", 3)],
                    1: [("yellow", 2), ("blue", 1), ("blue", 2), ("blue", 3)]})
    t.do(TakeDie(0, 0, 0), Publish(0, t.card("Am0")))
    t.do(TakeDie(1, 1, 1), Bank(1))
    t.do(TakeDie(0, 0, 1), Embassy(0))
    t.do(TakeDie(1, 1, 0), Publish(1, t.card("Af1")))
    t.do(TakeDie(0, 0, 2), Embassy(0))
    t.do(TakeDie(1, 1, 2), Embassy(1))
    t.do(TakeDie(0, 0, 3), Embassy(0))
    t.do(TakeDie(1, 1, 3), Embassy(1))
    return t


def test_end_of_round_seal_actions_from_the_first_player():
    t = _both_publish_table()
    assert [s.seals for s in t.st.seats] == [1, 1]
    assert t.st.first_player == 1
    assert t.p.kind == "seal_action" and t.p.seat == 1
    t.refuse(SealAction(0, "red"), NotYourTurnError)
    t.refuse(SealAction(1, "purple"), NoSuchDieError, "purple")
    s1 = t.seat(1)
    t.do(SealAction(1, "red"))
    assert s1.seals == 0 and t.st.central["red"] == 0
    assert t.p.kind == "roll_die" and t.p.seat == 1
    t.refuse(RollDie(1, 0), BadActionError)
    t.do(RollDie(1, 6))
    assert t.p.kind == "action" and t.p.seat == 1 and t.p.die == ("red", 6)
    tokens = s1.tokens
    t.do(Embassy(1))
    assert s1.tokens == tokens + 3
    assert t.p.kind == "seal_action" and t.p.seat == 0
    t.do(Pass(0))
    assert t.seat(0).seals == 1
    assert t.st.round == 2 and t.p.kind == "reveal_expert"


def test_end_of_round_seal_action_skipped_without_a_seal():
    t = setup()
    t.finish_turns(seal_pass=False)
    assert t.st.round == 2 and t.p.kind == "reveal_expert"


def test_end_of_round_automa_never_takes_a_seal_action():
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Abe", behaviour="louis-jean-marie-daubenton")],
              dice={1: [("blue", 1), ("green", 1), ("purple", 1), ("yellow", 1)]})
    # Daubenton's row 1: Bank + 1 seal
    t.do(TakeDie(0, 1, 0))
    t.do(Embassy(0))
    t.finish_turns(seal_pass=False)
    assert t.seat(1).seals >= 1
    assert t.st.round == 2 and t.p.kind == "reveal_expert"


# --------------------------------------------------------------------------- end of game


def test_end_of_game_unpublished_animals_discarded_with_their_cubes():
    display = [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Kept"),
               animal("asia", "bird", "omnivore", "aquatic", "hot", "Studied")]
    t = setup(display=display, picks=[2, 3, 0, 1],
              dice={0: [("purple", 6), ("purple", 2), ("green", 1), ("green", 2)]})
    s = t.seat(0)
    kept, studied = t.card("Kept"), t.card("Studied")
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"), Research(0, ((kept, "mammal"), (studied, "omnivore"))))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Publish(0, kept, up_to=0))
    assert s.animals == [studied] and s.cubes == {studied: ["omnivore"]}
    lost = s.cubes_lost
    t.play_to_end()
    assert t.p.kind == "game_over" and t.st.round == 6
    assert s.animals == [] and s.cubes == {}
    assert studied in t.st.discarded_animals
    assert s.cubes_lost == lost + 1
    assert s.published == [kept]
    t.refuse(TakeDie(0, 0, 0), GameOverError)
    breakdowns, ranking = final_scores(t.st)
    for b, seat in zip(breakdowns, t.st.seats):
        assert b.total == seat.vp + 4 * seat.seals + seat.coins // 2 + seat.tokens
    order = sorted(range(2), key=lambda i: -breakdowns[i].total)
    assert ranking.winners and set(ranking.winners) <= {b.name for b in breakdowns}
    assert breakdowns[order[0]].name in ranking.winners


def test_reputation_expert_bonus_with_an_empty_display_takes_the_deck_top():
    # six University actions empty the expert display; seat 0 (Leonardas Vaikutis: +2
    # reputation per University die) then reaches space 6 with an Academy: the expert comes
    # from the top of the deck (EN p.11)
    names = ["Leonardas Vaikutis"] + list(FILLER_EXPERTS[:5])
    t = setup(experts=names, dice={0: [("red", 1), ("red", 2), ("red", 3), ("green", 3)],
                                   1: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)]})
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), University(0, names[0]))
    t.do(TakeDie(1, 1, 0), University(1, names[1]))
    t.do(TakeDie(0, 0, 1), University(0, names[2]))
    t.do(TakeDie(1, 1, 1), University(1, names[3]))
    t.do(TakeDie(0, 0, 2), University(0, names[4]))
    t.do(TakeDie(1, 1, 2), University(1, names[5]))
    assert s.rep == 4 and not any(t.st.expert_display)
    card = next(x for x in t.st.animal_display if x is not None)
    t.do(TakeDie(0, 0, 3), Academy(0, card))
    assert s.rep == 6
    assert t.p.kind == "choose_expert" and t.p.from_deck and t.p.seat == 0
    t.refuse(ChooseExpert(0, names[1]), ChanceError, "already")
    t.do(ChooseExpert(0, "Cristian Miller"))
    assert s.face_up[3] == "Cristian Miller" and "Cristian Miller" in t.st.experts_seen
