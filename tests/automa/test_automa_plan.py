"""Whole Automa turns planned over a plain table view (engine-neutral)."""

import pytest

from automa.content import BEHAVIORS, CONTINENTS, Priority
from automa.logic import DieView
from automa.plan import DECK, CardView, TableView, describe_turn, plan_turn

P = Priority(("america", "europe", "asia", "oceania", "africa"))
CARL = BEHAVIORS["carl-von-linne"]
TREMBLEY = BEHAVIORS["abraham-trembley"]
DAUBENTON = BEHAVIORS["louis-jean-marie-daubenton"]

FREE = {c: (0, 3) for c in CONTINENTS}


def view(dice, *, experts=None, animals_disp=None, expert_deck=30, animal_deck=40, free=None,
         bank=False, animals=None, tokens=0):
    return TableView(
        n_seats=2,
        names=("Joelle", "the Automa"),
        dice=tuple(dice),
        expert_display=tuple(experts if experts is not None else [
            CardView("asia", "Ishiwata Eiko"), CardView("africa", "Safi Limbila"),
            CardView("europe", "Katie MacSweeney"), CardView("europe", "Someone Else"),
        ]),
        animal_display=tuple(animals_disp if animals_disp is not None else [
            CardView("oceania"), CardView(None), CardView("asia", "Lemur"), CardView("africa"),
        ]),
        expert_deck=expert_deck,
        animal_deck=animal_deck,
        expedition_free=dict(free if free is not None else FREE),
        bank_claimed=bank,
        animals=dict(animals or {}),
        tokens=tokens,
    )


def one(colour, value, owner=1, slot=0):
    return [DieView(colour, value, owner, slot)]


@pytest.mark.parametrize("colour", ["red", "yellow", "purple", "blue", "green"])
def test_rulebook_carl_value_5_university_one_token_whatever_the_colours(colour):
    v = view(one(colour, 5, owner=0, slot=1))
    plan = plan_turn(v, 1, CARL, P)
    assert plan.location == "university"
    assert plan.card == 2  # Katie MacSweeney: europe is the highest-priority continent shown
    assert plan.row.tokens == 1 and plan.row.card == 1
    text = describe_turn(v, plan)
    assert text == (
        f"Take the {colour} 5 from Joelle's board (Joelle gains 2 coins).",
        "Place it on the University.",
        "The Automa takes Katie MacSweeney (3rd expert from the left) and 1 expedition token.",
    )


@pytest.mark.parametrize("behavior", [CARL, TREMBLEY, DAUBENTON], ids=lambda b: b.key)
@pytest.mark.parametrize("value", range(1, 7))
def test_every_row_plans_its_location_and_gains(behavior, value):
    v = view(one("green", value), animals={"asia": 2}, tokens=3)
    plan = plan_turn(v, 1, behavior, P)
    row = behavior.row(value)
    assert plan.row == row and plan.location == row.location
    if row.location == "academy":
        assert plan.card == 2  # asia before oceania/africa; the Sepultus card is invisible
    elif row.location == "university":
        assert plan.card == 2
    elif row.location == "expedition":
        assert (plan.continent, plan.space, plan.space_reputation) == ("asia", 0, 3)
        assert plan.tokens_discarded == 3 and plan.vp == 3 * row.vp_per_token
    elif row.location == "bank":
        assert plan.first_player
    text = " ".join(describe_turn(v, plan))
    assert "Take the green" in text


def test_bank_first_player_only_if_unclaimed():
    v = view(one("red", 2), bank=True)
    plan = plan_turn(v, 1, CARL, P)
    assert plan.location == "bank" and not plan.first_player
    assert describe_turn(v, plan)[-1] == "The Automa takes 5 coins."
    v = view(one("red", 2))
    assert describe_turn(v, plan_turn(v, 1, CARL, P))[-1] == "The Automa takes 5 coins and the first-player token."


def test_empty_display_takes_top_of_deck():
    v = view(one("red", 6), animals_disp=[])
    plan = plan_turn(v, 1, CARL, P)
    assert plan.card == DECK
    assert "the top animal of the deck and 3 reputation" in describe_turn(v, plan)[2]
    # A display holding only Sepultus cards is empty for the Automa
    v = view(one("red", 6), animals_disp=[CardView(None), CardView(None)])
    assert plan_turn(v, 1, CARL, P).card == DECK
    v = view(one("red", 5), experts=[])
    assert plan_turn(v, 1, CARL, P).card == DECK


def test_empty_display_and_deck_takes_rest_of_row():
    v = view(one("red", 6), animals_disp=[], animal_deck=0)
    plan = plan_turn(v, 1, CARL, P)
    assert plan.card is None and plan.location == "academy" and plan.notes
    assert "No animal is left" in describe_turn(v, plan)[2]


def test_expedition_full_continent_skipped_and_all_full():
    free = dict(FREE, asia=None)
    v = view(one("red", 4), free=free, animals={"asia": 3, "africa": 1}, tokens=2)
    plan = plan_turn(v, 1, CARL, P)
    assert plan.continent == "africa" and plan.vp == 8
    v = view(one("red", 4), free={c: None for c in CONTINENTS}, animals={"asia": 3}, tokens=2)
    plan = plan_turn(v, 1, CARL, P)
    assert plan.continent is None and plan.vp == 8 and plan.space_reputation == 0
    assert "beside the board" in describe_turn(v, plan)[1]


def test_expedition_no_animals_goes_by_priority_and_no_tokens():
    free = dict(FREE, america=(2, 1))
    v = view(one("yellow", 1), free=free)
    plan = plan_turn(v, 1, CARL, P)
    assert (plan.continent, plan.space, plan.space_reputation, plan.vp) == ("america", 2, 1, 0)
    assert describe_turn(v, plan)[1:] == (
        "Place it on the 3rd Expedition space of America.",
        "The Automa gains 1 reputation and has no expedition token to discard (0 VP).",
    )


def test_highest_die_over_all_boards():
    dice = [DieView("red", 3, 1, 3), DieView("blue", 6, 0, 3), DieView("green", 6, 0, 0)]
    v = view(dice)
    plan = plan_turn(v, 1, CARL, P)
    assert plan.die.colour == "blue"  # europe above oceania in P
    assert describe_turn(v, plan)[0] == "Take the blue 6 from Joelle's board (Joelle gains 3 VP)."
