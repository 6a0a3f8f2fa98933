"""``automa.decide`` over real engine states (scenarios set up through engine actions)."""

import pytest

from companion.actions import (
    ChooseAnimal, DrawAnimal, RevealAnimal, RevealExpert, RevealRoundToken, RollDice, SeatConfig,
    StartGame, TakeDie, PlaceDice,
)
from companion.engine import (
    BEHAVIOURS as ENGINE_BEHAVIOURS, EXPERT, State, apply, automa_card_choice, automa_expedition_continent,
    automa_row,
)
from companion.errors import RuleError

from automa.content import BEHAVIORS, CONTINENTS, Priority
from automa.decide import NotAutomaInputError, decide, dice_instructions, gift_instructions
from automa.logic import arrange_dice
from automa.play import automa_seat

PR = ("europe", "asia", "america", "oceania", "africa")  # blue > purple > red > green > yellow

EXPERTS_BY_CONT = {c: [n for n, e in EXPERT.items() if e.continent == c] for c in CONTINENTS}
# the University display used by default: no Europe expert, Asia at index 2
DISPLAY_EXPERTS = [EXPERTS_BY_CONT["africa"][0], EXPERTS_BY_CONT["oceania"][0], EXPERTS_BY_CONT["asia"][0],
                   EXPERTS_BY_CONT["america"][0], EXPERTS_BY_CONT["asia"][1], EXPERTS_BY_CONT["africa"][1]]
DISPLAY_ANIMALS = ["africa", "oceania", "america", "asia", "asia", "africa"]  # 2 seats: 6 cards
START_ANIMALS = ["africa", "africa", "oceania", "america", "asia", "asia"]  # refill after the draft


def human_first_card(st, seat):
    return ChooseAnimal(seat, next(c for c in st.animal_display if c is not None))


def setup(seats, *, first=0, token="nothing", experts=DISPLAY_EXPERTS, animals=DISPLAY_ANIMALS,
          refill=START_ANIMALS, dice=None, sepultus=False):
    """A game through its set-up to the first turn. ``dice``: seat -> rolled dice."""
    st = State()
    apply(st, StartGame(tuple(seats), first, sepultus))
    experts, animals, refill = list(experts), list(animals), list(refill)
    while True:
        p = st.pending
        if p.kind == "reveal_expert":
            apply(st, RevealExpert(experts.pop(0)))
        elif p.kind == "reveal_animal":
            src = animals if animals else refill
            apply(st, RevealAnimal(continent=src.pop(0)))
        elif p.kind == "choose_animal":
            if st.seats[p.seat].kind == "automa":
                for a in decide(st, p.seat).actions:
                    apply(st, a)
            else:
                apply(st, human_first_card(st, p.seat))
            if st.pending.kind == "reveal_animal":
                animals = []  # the display is now refilled from ``refill``
        elif p.kind == "reveal_round_token":
            apply(st, RevealRoundToken(token))
        elif p.kind in ("choose_expert",):
            return st  # round-token draft: left to the test
        elif p.kind == "roll_dice":
            apply(st, RollDice(p.seat, tuple(dice[p.seat])))
        elif p.kind == "place_dice":
            apply(st, PlaceDice(p.seat, tuple(min(i, 3) for i in range(len(st.seats[p.seat].rolled)))))
        else:
            return st


def solo(behaviour="carl-von-linne", scoring="la-boudeuse", priority=PR, **kw):
    seats = [SeatConfig("Joelle"), automa_seat("the Automa", behaviour, scoring, priority)]
    kw.setdefault("dice", {0: [("red", 1), ("red", 2), ("red", 3), ("green", 1)],
                           1: [("yellow", 1), ("yellow", 2), ("green", 2), ("purple", 3)]})
    return setup(seats, **kw)


def play_decision(st, seat):
    d = decide(st, seat)
    for a in d.actions:
        apply(st, a)
    return d


def give_automa_die(st, colour, value, slot=3, owner=1):
    """Scenario set-up: replace the die in ``owner``'s ``slot`` (plain state edit)."""
    st.seats[owner].slots[slot] = [(colour, value)]


# ----------------------------------------------------------------- data agrees with the engine


def test_behavior_table_matches_the_engine_rows():
    for key, b in BEHAVIORS.items():
        for v in range(1, 7):
            mine, theirs = b.row(v), ENGINE_BEHAVIOURS[key][v]
            assert mine.location == theirs["kind"]
            for k in ("reputation", "tokens", "seals", "coins", "vp_per_token"):
                assert getattr(mine, k) == theirs.get(k, 0), (key, v, k)


# ----------------------------------------------------------------- setup


def test_setup_two_starting_animals_by_priority():
    st = solo()
    # display africa, oceania, america, asia, asia, africa; priority europe > asia > america...
    cont = sorted(st.cards[c].continent for c in st.seats[1].animals)
    assert cont == ["asia", "asia"]
    # the human (seat 0, first player) drafts after the automa (last seat first)
    assert len(st.seats[0].animals) == 2


def test_setup_instructions_name_the_cards():
    st = State()
    seats = [SeatConfig("Joelle"), automa_seat("the Automa", 1, 1, PR)]
    apply(st, StartGame(tuple(seats), 0))
    for n in DISPLAY_EXPERTS:
        apply(st, RevealExpert(n))
    for c in DISPLAY_ANIMALS:
        apply(st, RevealAnimal(continent=c, name=f"{c} beast"))
    d = decide(st, 1)
    assert d.instructions == (
        "Set-up: the Automa takes asia beast (4th animal from the left).",
        "Set-up: the Automa takes asia beast (5th animal from the left).",
    )
    assert [type(a) for a in d.actions] == [ChooseAnimal, ChooseAnimal]


# ----------------------------------------------------------------- the two rulebook examples


@pytest.mark.parametrize("colour", ["red", "yellow", "purple", "blue", "green"])
def test_rulebook_value_5_university_one_token_for_carl(colour):
    st = solo()
    give_automa_die(st, colour, 5, slot=3, owner=0)  # Joelle's 3 VP slot
    apply(st, TakeDie(0, 0, 0))  # Joelle takes her own red 1 ...
    from companion.actions import Embassy
    apply(st, Embassy(0))  # ... for the Embassy; now the Automa's turn
    before = st.seats[1].tokens
    d = play_decision(st, 1)
    assert d.plan.location == "university"
    # europe: none shown; asia next: the first Asian expert in reading order (index 2)
    assert st.seats[1].experts[-1] == DISPLAY_EXPERTS[2]
    assert st.seats[1].tokens == before + 1  # exactly the card's 1 token, whatever the colours
    assert d.instructions[0] == f"Take the {colour} 5 from Joelle's board (Joelle gains 3 VP)."
    assert d.instructions[1:] == ("Place it on the University.",
                                  f"The Automa takes {DISPLAY_EXPERTS[2]} (3rd expert from the left) and 1 expedition token.")


def test_rulebook_two_equal_dice_lower_priority_further_left():
    pr = ("america", "europe", "asia", "oceania", "africa")  # red above yellow
    st = solo(priority=pr, dice={0: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)],
                                 1: [("red", 2), ("purple", 6), ("yellow", 2), ("green", 4)]})
    assert st.seats[1].slots == [[("yellow", 2)], [("red", 2)], [("green", 4)], [("purple", 6)]]
    rolled = [("red", 2), ("purple", 6), ("yellow", 2), ("green", 4)]
    assert [[rolled[i] for i in s] for s in arrange_dice(rolled, Priority(pr))] == st.seats[1].slots
    assert dice_instructions(st, 1) == (
        "Place the Automa's dice, left to right — slot 1: yellow 2; slot 2: red 2; slot 3: green 4; slot 4: purple 6."
    )


def test_five_dice_extra_die_token_two_lowest_share_the_left_slot():
    st = solo(token="extra_die", dice={0: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4), ("red", 5)],
                                      1: [("red", 3), ("purple", 6), ("yellow", 2), ("green", 4), ("yellow", 1)]})
    assert [sorted(x) for x in st.seats[1].slots] == [[("yellow", 1), ("yellow", 2)], [("red", 3)], [("green", 4)], [("purple", 6)]]


# ----------------------------------------------------------------- every row, through the engine


@pytest.mark.parametrize("key", sorted(BEHAVIORS))
@pytest.mark.parametrize("value", range(1, 7))
def test_every_row_through_the_engine(key, value):
    st = solo(behaviour=key, first=1)
    for seat in st.seats:
        seat.slots = [[], [], [], []]
    give_automa_die(st, "green", value, slot=3, owner=1)  # its own: Joelle gains nothing
    give_automa_die(st, "yellow", 1, slot=0, owner=0)  # keeps the round going; never preferred
    s = st.seats[1]
    s.tokens = 2
    s.rep = 14  # +1..+3 from here (15, 0, 1) crosses no bonus space
    st.first_player = 0
    before = s.copy()
    row = BEHAVIORS[key].row(value)
    assert st.pending.kind == "take_die" and st.pending.seat == 1
    d = play_decision(st, 1)
    assert d.plan.row == row and d.actions[0] == TakeDie(1, 1, 3, 0)
    assert automa_row(st, 1, value)["kind"] == row.location
    after = st.seats[1]
    gained_rep = row.reputation
    if row.location == "academy":
        assert len(after.animals) == len(before.animals) + 1
        # priority europe (none shown), asia (none left: the automa took both at set-up) → america
        assert st.cards[after.animals[-1]].continent == "america"
    elif row.location == "university":
        assert after.experts[-1] == DISPLAY_EXPERTS[2]
    elif row.location == "bank":
        assert after.coins == before.coins + 5 and st.first_player == 1 and st.bank_claimed
    elif row.location == "expedition":
        # it holds 2 Asian animals: Asia, leftmost space (3 reputation)
        assert d.plan.continent == "asia" and st.expedition["asia"] == 1
        assert after.vp == before.vp + 2 * row.vp_per_token
        gained_rep = 3
    if row.location != "bank":
        assert after.coins == before.coins
    if row.location == "expedition":
        assert after.tokens == 0
    else:
        assert after.tokens == before.tokens + row.tokens
        assert after.vp == before.vp
    assert after.seals == before.seals + row.seals
    assert after.rep == (14 + gained_rep) % 16
    if gained_rep:
        assert d.instructions[-1].startswith("Move the Automa's reputation marker")


# ----------------------------------------------------------------- tie-breaks through the engine


def test_tie_same_value_priority_colour_across_boards():
    st = solo(first=1, dice={0: [("red", 6), ("blue", 6), ("red", 3), ("green", 1)],
                             1: [("yellow", 6), ("yellow", 2), ("green", 2), ("purple", 3)]})
    d = decide(st, 1)
    assert d.actions[0] == TakeDie(1, 0, 1, 0)  # the blue 6 (europe first), Joelle's 2nd slot
    assert d.instructions[0] == "Take the blue 6 from Joelle's board (Joelle gains 2 coins)."


def test_tie_same_value_and_colour_own_die_first():
    st = solo(first=1, dice={0: [("red", 1), ("red", 2), ("red", 3), ("purple", 6)],
                             1: [("yellow", 1), ("yellow", 2), ("green", 2), ("purple", 6)]})
    d = decide(st, 1)
    assert d.actions[0] == TakeDie(1, 1, 3, 0)
    assert d.instructions[0] == "Take the purple 6 from the Automa's own board."


def test_tie_least_gift_between_two_opponents():
    seats = [SeatConfig("Ann"), SeatConfig("Bo"), automa_seat("the Automa", 1, 1, PR)]
    st = setup(seats, first=2, animals=DISPLAY_ANIMALS + ["europe"], refill=START_ANIMALS * 2,
               dice={0: [("purple", 1), ("purple", 5), ("red", 3), ("red", 4)],
                     1: [("purple", 5), ("green", 1), ("red", 2), ("red", 6)],
                     2: [("yellow", 1), ("yellow", 2), ("green", 2), ("green", 3)]})
    # red 6 is highest: taken first
    assert decide(st, 2).actions[0] == TakeDie(2, 1, 3, 0)
    st.seats[1].slots[3] = []
    # now purple 5 on Ann's slot 2 (gift: 2 coins... ) vs Bo's slot 2; make them differ
    st.seats[0].slots = [[("purple", 1)], [("red", 3)], [("red", 4)], [("purple", 5)]]  # 3 VP slot
    st.seats[1].slots = [[("green", 1)], [("purple", 5)], [("red", 2)], []]  # 2 coins slot
    d = decide(st, 2)
    assert d.actions[0] == TakeDie(2, 1, 1, 0)
    assert d.instructions[0] == "Take the purple 5 from Bo's board (Bo gains 2 coins)."


# ----------------------------------------------------------------- fallbacks


def test_empty_display_academy_takes_top_of_deck():
    st = solo(behaviour="carl-von-linne", first=1)
    give_automa_die(st, "green", 6, owner=1)
    for i, c in enumerate(st.animal_display):
        if c is not None:
            st.discarded_animals.append(c)
            st.animal_display[i] = None
    d = play_decision(st, 1)
    assert d.waits_for == "animal_from_deck"
    assert "the top animal of the deck" in d.instructions[2]
    assert d.instructions[-1] == "Draw that animal card and enter it in the app."
    p = st.pending
    assert (p.kind, p.seat, p.from_deck) == ("choose_animal", 1, True)
    apply(st, DrawAnimal(1, continent="oceania"))
    assert st.cards[st.seats[1].animals[-1]].continent == "oceania"


def test_display_with_only_sepultus_is_empty_for_the_automa():
    st = solo(first=1, sepultus=True)
    give_automa_die(st, "green", 6, owner=1)
    for i, c in enumerate(st.animal_display):
        if c is not None:
            st.discarded_animals.append(c)
            st.animal_display[i] = None
    apply_rev = RevealAnimal(sepultus=True, die=3, cost=4, categories=("bird",))
    # put one Sepultus card into the display through the engine's card list
    from companion.engine import Card
    cid = len(st.cards)
    st.cards.append(Card(cid, None, "Bones", ("bird",), True, 3, 4))
    st.animal_display[0] = cid
    d = play_decision(st, 1)
    assert d.waits_for == "animal_from_deck"
    # a Sepultus card drawn from the deck is set aside and the automa draws again
    apply(st, DrawAnimal(1, sepultus=True, die=2, cost=5, categories=("mammal",)))
    assert st.pending.kind == "choose_animal" and st.pending.seat == 1
    apply(st, DrawAnimal(1, continent="europe"))
    assert st.cards[st.seats[1].animals[-1]].continent == "europe"
    del apply_rev


def test_empty_expert_display_university_waits_for_top_expert():
    st = solo(first=1)
    give_automa_die(st, "green", 5, owner=1)
    st.discarded_experts.extend(x for x in st.expert_display if x)
    st.expert_display = [None] * len(st.expert_display)
    d = play_decision(st, 1)
    assert d.waits_for == "expert_from_deck" and d.plan.card == "deck"
    assert st.pending.kind == "choose_expert" and st.pending.from_deck


def test_full_continent_skipped_and_all_full():
    st = solo(first=1)
    give_automa_die(st, "green", 4, owner=1)  # Carl: expedition, 4 VP per token
    st.expedition["asia"] = 4  # where it holds its 2 animals: full
    d = decide(st, 1)
    assert d.plan.continent == "europe"  # zero everywhere else: priority
    st.expedition.update({c: 4 for c in CONTINENTS})
    st.seats[1].tokens = 3
    d = play_decision(st, 1)
    assert d.plan.continent is None
    assert st.seats[1].vp == 12 and st.seats[1].tokens == 0
    assert "set the die beside the board" in d.instructions[1]


def test_no_animals_expedition_by_priority():
    st = solo(first=1)
    st.seats[1].animals = []
    give_automa_die(st, "red", 4, owner=1)
    assert decide(st, 1).plan.continent == "europe"
    assert automa_expedition_continent(st, 1) == "europe"


# ----------------------------------------------------------------- round tokens and reputation


def test_round_token_animal_draft_by_priority():
    st = solo(token="animal", animals=DISPLAY_ANIMALS, refill=["europe", "africa", "oceania", "europe", "asia", "europe"])
    # set-up refill into the 4 emptied spaces 0, 1, 3, 4: europe, africa, oceania, europe.
    # Round token: Joelle (first player) drafts first and takes space 0; the automa (europe
    # first) takes the europe card in space 4, then the display is refilled.
    taken = st.seats[1].animals[-1]
    assert len(st.seats[1].animals) == 3 and st.cards[taken].continent == "europe"
    assert taken == 9  # card ids: 0-5 first display, 6-9 the refill (space 4 = 4th refilled)


def test_round_token_expert_draft_by_priority():
    experts = [EXPERTS_BY_CONT["africa"][0], EXPERTS_BY_CONT["europe"][0], EXPERTS_BY_CONT["asia"][0],
               EXPERTS_BY_CONT["europe"][1], EXPERTS_BY_CONT["america"][0], EXPERTS_BY_CONT["oceania"][0]]
    st = solo(token="expert", experts=experts + [EXPERTS_BY_CONT["africa"][2]] * 0)
    p = st.pending
    assert p.kind == "choose_expert" and p.seat == 0  # first player drafts first
    from companion.actions import ChooseExpert
    apply(st, ChooseExpert(0, experts[1]))  # Joelle takes the first Europe expert
    d = decide(st, 1)
    assert d.actions == (ChooseExpert(1, experts[3]),)
    assert d.instructions == (f"Round token: the Automa takes {experts[3]} (4th expert from the left).",)


def test_round_token_tokens_and_coins_for_the_automa():
    st = solo(token="token")
    assert st.seats[1].tokens == 2  # 1 at set-up + 1
    st = solo(token="coins")
    assert st.seats[1].coins == st.board.starting_coins[1] + 3


def test_reputation_bonus_expert_on_its_turn():
    st = solo(first=1)
    give_automa_die(st, "green", 6, owner=1)  # Carl 6: Academy +3 reputation
    st.seats[1].rep = 4  # 5, 6 (expert), 7
    d = play_decision(st, 1)
    assert st.seats[1].rep == 7
    assert st.seats[1].experts == [DISPLAY_EXPERTS[2]]  # asia first (no europe expert shown)
    assert d.instructions[-2] == "Move the Automa's reputation marker 3 spaces, from 4 to 7: on 6 it gains 1 expert (by its priorities)."
    assert d.instructions[-1] == f"Reputation bonus: the Automa takes {DISPLAY_EXPERTS[2]} (3rd expert from the left)."


def test_reputation_bonus_off_turn_when_a_human_takes_its_die():
    st = solo(first=0)
    st.seats[1].rep = 6  # slot 3 (2 reputation) → 8: an animal
    take = TakeDie(0, 1, 2, 0)
    text = gift_instructions(st, take)
    assert text == ("The Automa gains 2 reputation. Move the Automa's reputation marker 2 spaces, from 6 to 8: "
                    "on 8 it gains 1 animal (by its priorities). It takes those cards at the end of this turn.")
    apply(st, take)
    from companion.actions import Embassy
    apply(st, Embassy(0))
    p = st.pending
    assert (p.kind, p.seat, p.reason) == ("choose_animal", 1, "reputation")
    d = play_decision(st, 1)
    assert d.instructions[0].startswith("Reputation bonus: the Automa takes the America animal")
    assert gift_instructions(st, TakeDie(0, 0, 1, 0)) is None  # own die
    assert gift_instructions(st, TakeDie(0, 1, 0, 0)) is None  # slot 1 gives nothing


# ----------------------------------------------------------------- several automas, humans


def test_multiple_automas_distinct_priorities_pick_differently():
    seats = [SeatConfig("Joelle"), automa_seat("Linné", 1, 1, "europe asia america oceania africa"),
             automa_seat("Trembley", 2, 2, "africa oceania america asia europe")]
    st = setup(seats, animals=DISPLAY_ANIMALS + ["europe"], refill=START_ANIMALS * 2,
               dice={i: [(c, 1), (c, 2), (c, 3), (c, 4)] for i, c in enumerate(["red", "blue", "green"])})
    c = lambda seat: sorted(st.cards[x].continent for x in st.seats[seat].animals)
    # draft from the last seat: Trembley (africa first) takes both africa, Linné europe + asia
    assert c(2) == ["africa", "africa"]
    assert c(1) == ["asia", "europe"]


def test_automa_in_a_three_human_game_plays_to_the_end():
    from automa.play import play

    seats = [SeatConfig("Ann"), SeatConfig("Bo"), SeatConfig("Cy"), automa_seat("the Automa", 3, 3, PR)]
    res = play(seats, seed=11, first_player=2)
    assert res.state.finished and res.automa_decisions >= 24
    assert res.automa_actions >= 48  # at least a TakeDie and an AutomaAction per turn


def test_engine_queries_agree_with_the_automa_choices():
    from automa.play import play

    def check(st, d):
        p = st.pending
        if p.kind == "take_die" and d.plan is not None:
            trial = st.copy()
            apply(trial, d.actions[0])
            if d.plan.location == "expedition":
                assert automa_expedition_continent(trial, p.seat) == d.plan.continent
        if p.kind in ("choose_animal", "choose_expert") and d.actions:
            kind = "animal" if p.kind == "choose_animal" else "expert"
            a = d.actions[0]
            assert automa_card_choice(st, p.seat, kind) == (a.card if kind == "animal" else a.name)

    seats = [SeatConfig("Ann"), automa_seat("A1", 1, 1, PR), automa_seat("A2", 3, 2, PR[::-1])]
    play(seats, seed=5, on_decision=check)


# ----------------------------------------------------------------- refusals


def test_decide_refuses_when_not_its_input():
    st = solo(first=0)
    with pytest.raises(NotAutomaInputError, match="not waiting for the Automa"):
        decide(st, 1)
    with pytest.raises(NotAutomaInputError, match="human seat"):
        decide(st, 0)
    with pytest.raises(NotAutomaInputError, match="no seat 5"):
        decide(st, 5)


def test_decide_does_not_change_the_state():
    st = solo(first=1)
    before = st.to_json()
    d = decide(st, 1)
    assert st.to_json() == before and d.actions
    with pytest.raises(RuleError):
        apply(st, TakeDie(0, 0, 0))  # still the automa's turn
