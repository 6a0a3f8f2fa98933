"""Set-up, chance events, taking dice, the six actions and their spends: legal and illegal cases."""

import pytest

from companion.actions import (
    Academy, Bank, ChooseAnimal, Embassy, PlaceDice, RevealAnimal, RevealExpert,
    RevealRoundToken, RollDice, SeatConfig, Spend, StartGame, TakeDie, University,
)
from companion.engine import State, apply
from companion.errors import (
    BadActionError, CardUnavailableError, ChanceError, ExpertSlotError, NoSuchDieError,
    NotEnoughError, NotYourTurnError, SetupError, WrongColourError,
)

from .helpers import Table, bank_turns, hand, new_game, refused


# ---------------------------------------------------------------- set-up


def test_setup_coins_by_position_and_starting_draft_from_the_last_seat():
    st = State()
    apply(st, StartGame((SeatConfig("A"), SeatConfig("B"), SeatConfig("C")), first_player=1))
    assert [s.coins for s in st.seats] == [3, 1, 2]  # B is 1st, C 2nd, A 3rd
    assert [s.tokens for s in st.seats] == [1, 1, 1]
    t = Table(st)
    p = t.run(stop=("choose_animal",))
    assert len(st.expert_display) == 6 and len(st.animal_display) == 7
    order = []
    while p.kind == "choose_animal":
        order.append(p.seat)
        assert p.reason == "start"
        apply(st, ChooseAnimal(p.seat, next(c for c in st.animal_display if c is not None)))
        p = st.pending
    assert order == [0, 0, 2, 2, 1, 1]  # last seat (A) first, the first player (B) last
    assert p.kind == "reveal_animal"  # the display is refilled
    p = t.run(stop=("reveal_round_token",))
    assert p.kind == "reveal_round_token" and all(c is not None for c in st.animal_display)
    p = t.run(stop=("roll_dice",))
    assert (p.kind, p.seat, p.count) == ("roll_dice", 1, 4)  # the first player draws first


@pytest.mark.parametrize("seats, match", [
    ((SeatConfig("A"),), "2 to 4 seats"),
    (tuple(SeatConfig(x) for x in "ABCDE"), "2 to 4 seats"),
    ((SeatConfig("A"), SeatConfig("A")), "different name"),
    ((SeatConfig("A"), SeatConfig("B", "automa")), "Behavior card"),
    ((SeatConfig("A"), SeatConfig("B", "automa", "carl-von-linne", "la-boudeuse", ("asia",))), "priority"),
    ((SeatConfig("A"), SeatConfig("B", "robot")), "kind"),
])
def test_bad_setups_are_refused(seats, match):
    st = State()
    refused(st, StartGame(seats), SetupError, match)


def test_chance_events_must_be_possible():
    st = State()
    apply(st, StartGame((SeatConfig("A"), SeatConfig("B"))))
    apply(st, RevealExpert("Rogério Luz"))
    refused(st, RevealExpert("Rogério Luz"), ChanceError, "already come out")
    refused(st, RevealExpert("rogerio luz"), BadActionError, "Rogério Luz")
    refused(st, RevealExpert("Nobody"), BadActionError, "unknown expert")
    t = Table(st, animals=[RevealAnimal("africa", f"af{i}") for i in range(15)])
    t.run(stop=("choose_animal",))
    refused(st, ChooseAnimal(1, 99), CardUnavailableError)
    refused(st, ChooseAnimal(0, 0), NotYourTurnError)  # seat 1 (the last seat) picks first
    while st.pending.kind == "choose_animal":
        apply(st, ChooseAnimal(st.pending.seat, next(c for c in st.animal_display if c is not None)))
    for _ in range(4):
        apply(st, RevealAnimal("europe"))
    assert st.pending.kind == "reveal_round_token"
    refused(st, RevealRoundToken("dragons"), BadActionError)
    apply(st, RevealRoundToken("coins"))
    assert [s.coins for s in st.seats] == [1 + 3, 2 + 3]
    refused(st, RollDice(1, (("red", 1),) * 4), NotYourTurnError)  # the first player draws first
    # a third "coins" token does not exist (2 of each effect)
    st.round_tokens.append("coins")
    st.tasks.append(("round_token",))
    refused(st, RevealRoundToken("coins"), ChanceError, "already been turned over")


def test_sixteenth_animal_of_a_continent_is_refused():
    st, t = new_game(animals=[RevealAnimal("africa", f"af{i}") for i in range(15)])
    assert sum(1 for c in st.cards if c.continent == "africa") == 10

    def refill_one(action, error=None):
        # scenario: one display card discarded, the table reveals the next one
        st.discarded_animals.append(st.animal_display[0])
        st.animal_display[0] = None
        st.tasks.append(("reveal_animal",))
        if error is None:
            apply(st, action)
        else:
            refused(st, action, error, "all 15 animals of Africa")

    for _ in range(5):
        refill_one(RevealAnimal("africa"))
    refill_one(RevealAnimal("africa"), ChanceError)


def test_dice_from_the_bag_are_limited_and_placement_is_one_per_slot():
    st, t = new_game(stop=("roll_dice",))
    p = st.pending
    refused(st, RollDice(p.seat, (("red", 1),) * 5), ChanceError, "draws 4 dice")
    refused(st, RollDice(p.seat, (("red", 7),) * 4), BadActionError, "1 to 6")
    refused(st, RollDice(p.seat, (("pink", 1),) * 4), BadActionError, "colour")
    apply(st, RollDice(p.seat, (("red", 1),) * 4))
    refused(st, PlaceDice(p.seat, (0, 0, 1, 2)), BadActionError, "one die per slot")
    refused(st, PlaceDice(p.seat, (0, 1, 2)), BadActionError, "one slot for each")
    apply(st, PlaceDice(p.seat, (3, 2, 1, 0)))
    other = st.pending.seat
    refused(st, RollDice(other, (("red", 1),) * 4), ChanceError, "only 0 red dice")


# ---------------------------------------------------------------- taking dice


@pytest.mark.parametrize("slot, gain", [(0, {}), (1, {"coins": 2}), (2, {"rep": 2}), (3, {"vp": 3})])
def test_taking_an_opponents_die_gives_the_slot_effect(slot, gain):
    st, _ = new_game()
    b = st.seats[1]
    before = dict(coins=b.coins, rep=b.rep, vp=b.vp)
    apply(st, TakeDie(0, 1, slot, 0))
    after = dict(coins=b.coins, rep=b.rep, vp=b.vp)
    assert {k: after[k] - before[k] for k in after if after[k] != before[k]} == gain


def test_own_die_gives_nothing_and_bad_dice_are_refused():
    st, _ = new_game()
    refused(st, TakeDie(1, 1, 0, 0), NotYourTurnError)
    refused(st, TakeDie(0, 2, 0, 0), NoSuchDieError)
    refused(st, TakeDie(0, 0, 0, 1), NoSuchDieError)
    refused(st, Bank(0), NotYourTurnError, "take a die")
    coins = st.seats[0].coins
    apply(st, TakeDie(0, 0, 3, 0))
    assert st.seats[0].coins == coins and st.hand == ("blue", 4)
    refused(st, TakeDie(0, 0, 2, 0), NotYourTurnError)


def test_turns_go_round_until_every_board_is_empty_and_empty_boards_still_play():
    st, _ = new_game()
    seen = []
    # seat 0 takes ALL of seat 1's dice first, so seat 1 plays with an empty board
    while st.pending.kind == "take_die":
        p = st.pending
        seen.append(p.seat)
        other = st.seats[1 - p.seat]
        src = (1 - p.seat, next(i for i, d in enumerate(other.slots) if d)) if other.dice_on_board() else \
            (p.seat, next(i for i, d in enumerate(st.seats[p.seat].slots) if d))
        apply(st, TakeDie(p.seat, src[0], src[1], 0))
        apply(st, Embassy(p.seat))
    assert seen == [0, 1] * 4


# ---------------------------------------------------------------- embassy / bank


@pytest.mark.parametrize("value, coins, tokens", [(1, 0, 1), (2, 0, 1), (3, 0, 2), (2, 2, 2), (4, 1, 3), (6, 0, 3), (6, 4, 3)])
def test_embassy_tokens_by_value(value, coins, tokens):
    st, _ = new_game()
    s = st.seats[0]
    s.coins = 10
    hand(st, 0, ("green", value))
    t0 = s.tokens
    apply(st, Embassy(0, Spend(coins=coins)))
    assert s.tokens - t0 == tokens and s.coins == 10 - coins


def test_spends_are_checked():
    st, _ = new_game()
    s = st.seats[0]
    hand(st, 0, ("green", 2))
    refused(st, Embassy(0, Spend(coins=s.coins + 1)), NotEnoughError, "coin")
    refused(st, Embassy(0, Spend(tokens=1)), BadActionError, "only to an Expedition")
    refused(st, Embassy(0, Spend(seals=1)), NotEnoughError, "royal seal")
    refused(st, Embassy(0, Spend(colour="red", colour_by="seal")), BadActionError, "seal")
    refused(st, Embassy(0, Spend(colour_by="token")), BadActionError, "already green")
    refused(st, Embassy(0, Spend(coins=-1)), BadActionError)
    s.seals = 1
    coins = s.coins
    apply(st, Embassy(0, Spend(seals_for_coins=1, coins=3)))  # 5 coins from the seal, 3 spent: value 5
    assert s.coins == coins + 5 - 3 and s.seals == 0 and s.tokens == 1 + 3


def test_bank_gives_5_coins_and_the_first_player_token_once_per_round():
    st, t = new_game(("A", "B", "C"), first=0)
    apply(st, TakeDie(0, 0, 0, 0))
    apply(st, Embassy(0))
    apply(st, TakeDie(1, 1, 0, 0))
    c = st.seats[1].coins
    apply(st, Bank(1))
    assert st.seats[1].coins == c + 5 and st.first_player == 1
    apply(st, TakeDie(2, 2, 0, 0))
    apply(st, Bank(2))
    assert st.first_player == 1  # the token was already claimed this round
    assert st.pending.seat == 0  # this round's order is unchanged
    bank_turns(st, until=("reveal_round_token",), table=t)
    t.run(stop=("take_die",))
    assert st.turn_start == 1 and st.pending.seat == 1  # next round starts with the claimer


# ---------------------------------------------------------------- university


def test_university_expert_colour_match_and_slots():
    st, _ = new_game(experts=["Rogério Luz", "Yaban Peker", "Thao Trí Hùng", "Mathieu Aubert", "Etano Palamo",
                              "Safi Limbila"])
    s = st.seats[0]
    hand(st, 0, ("red", 1))
    tokens = s.tokens
    apply(st, University(0, "Rogério Luz"))
    assert s.tokens == tokens + 1 and s.face_up[0] == "Rogério Luz"  # red die, American expert
    apply(st, TakeDie(1, 1, 0, 0))
    apply(st, Embassy(1))
    hand(st, 0, ("red", 1))
    tokens = s.tokens
    apply(st, University(0, "Yaban Peker"))
    assert s.tokens == tokens and s.face_up[:2] == ["Rogério Luz", "Yaban Peker"]


def test_university_refusals_and_covering():
    st, _ = new_game(experts=["Rogério Luz", "Yaban Peker", "Thao Trí Hùng", "Mathieu Aubert", "Etano Palamo",
                              "Safi Limbila"])
    s = st.seats[0]
    s.experts = ["Audrey Morton", "Cristian Miller", "Elena Lewis"]
    s.face_up = ["Audrey Morton", None, "Cristian Miller", "Elena Lewis"]
    st.experts_seen += s.experts
    hand(st, 0, ("red", 1))
    refused(st, University(0, "Nargiz Tatilian"), CardUnavailableError, "not in the expert display")
    refused(st, University(0, "Yaban Peker", slot=0), ExpertSlotError, "slot 1 is free")
    refused(st, University(0, "Yaban Peker", use_now=True), ExpertSlotError, "not a one-shot")
    apply(st, University(0, "Yaban Peker"))
    assert s.face_up[1] == "Yaban Peker"
    apply(st, TakeDie(1, 1, 0, 0))
    apply(st, Embassy(1))
    hand(st, 0, ("red", 1))
    refused(st, University(0, "Thao Trí Hùng"), ExpertSlotError, "choose the slot")
    apply(st, University(0, "Thao Trí Hùng", slot=0))
    assert s.face_up[0] == "Thao Trí Hùng" and "Audrey Morton" in s.covered()
    # a one-shot expert used at once: 5 coins, face down, no slot
    apply(st, TakeDie(1, 1, 1, 0))
    apply(st, Embassy(1))
    hand(st, 0, ("red", 1))
    coins = s.coins
    apply(st, University(0, "Safi Limbila", use_now=True))
    assert s.coins == coins + 2 + 5  # Cristian Miller (University +2 coins) is face up, then Safi
    assert "Safi Limbila" in s.used and "Safi Limbila" not in s.face_up


def test_university_with_an_empty_display_is_refused():
    st, _ = new_game()
    st.discarded_experts += [x for x in st.expert_display]
    st.expert_display = [None] * 6
    hand(st, 0, ("red", 1))
    refused(st, University(0, "Rogério Luz"), CardUnavailableError, "no expert left")


# ---------------------------------------------------------------- academy


def test_academy_colour_and_refusals():
    st, _ = new_game(animals=[RevealAnimal("africa", "Lemur catta")] * 1 + [RevealAnimal("europe", f"e{i}") for i in range(12)])
    lemur = 0
    # the lemur was drafted by seat 1 (it picks second... put it back in the display as set-up)
    owner = next(i for i, s in enumerate(st.seats) if lemur in s.animals)
    st.seats[owner].animals.remove(lemur)
    slot = next(i for i, c in enumerate(st.animal_display) if c is not None)
    st.discarded_animals.append(st.animal_display[slot])
    st.animal_display[slot] = lemur
    s = st.seats[0]
    s.tokens = 0
    s.seals = 0
    hand(st, 0, ("purple", 4))
    e = refused(st, Academy(0, lemur), WrongColourError)
    assert str(e) == "the Academy needs a yellow die for Lemur catta: spend 1 expedition token to change colour"
    refused(st, Academy(0, lemur, Spend(colour="yellow")), NotEnoughError, "expedition token")
    refused(st, Academy(0, 77), CardUnavailableError)
    s.tokens = 1
    apply(st, Academy(0, lemur, Spend(colour="yellow")))
    assert lemur in s.animals and s.rep == 2 and lemur not in st.animal_display


def test_academy_with_an_empty_display_is_refused():
    st, _ = new_game()
    st.discarded_animals += [c for c in st.animal_display if c is not None]
    st.animal_display = [None] * len(st.animal_display)
    hand(st, 0, ("red", 6))
    refused(st, Academy(0, 3), CardUnavailableError, "no animal left")
