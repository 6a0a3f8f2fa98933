"""The Automa's card data and its pure choice functions (no engine needed)."""

import random

import pytest

from automa.content import (
    BEHAVIORS,
    CONTINENTS,
    Priority,
    behavior,
    distinct_priorities,
    scoring_card,
    all_combinations,
)
from automa.logic import (
    DieView,
    arrange_dice,
    choose_card,
    choose_cards,
    choose_die,
    choose_expedition_continent,
)
from automa import words

P = Priority(("america", "europe", "asia", "oceania", "africa"))  # red blue purple green yellow


# ----------------------------------------------------------------- Behavior cards, row by row

EXPECTED_ROWS = {
    # value: (location, card, reputation, tokens, seals, coins, first_player, vp_per_token)
    "carl-von-linne": {
        6: ("academy", 1, 3, 0, 0, 0, False, 0),
        5: ("university", 1, 0, 1, 0, 0, False, 0),
        4: ("expedition", 0, 0, 0, 0, 0, False, 4),
        3: ("embassy", 0, 0, 2, 0, 0, False, 0),
        2: ("bank", 0, 0, 0, 0, 5, True, 0),
        1: ("expedition", 0, 0, 0, 0, 0, False, 3),
    },
    "abraham-trembley": {
        6: ("expedition", 0, 0, 0, 0, 0, False, 5),
        5: ("academy", 1, 3, 0, 0, 0, False, 0),
        4: ("university", 1, 0, 0, 1, 0, False, 0),
        3: ("bank", 0, 0, 1, 0, 5, True, 0),
        2: ("embassy", 0, 0, 2, 0, 0, False, 0),
        1: ("academy", 1, 1, 0, 0, 0, False, 0),
    },
    "louis-jean-marie-daubenton": {
        6: ("embassy", 0, 0, 3, 0, 0, False, 0),
        5: ("expedition", 0, 0, 0, 0, 0, False, 6),
        4: ("academy", 1, 2, 0, 0, 0, False, 0),
        3: ("university", 1, 2, 0, 0, 0, False, 0),
        2: ("expedition", 0, 0, 0, 0, 0, False, 5),
        1: ("bank", 0, 0, 0, 1, 5, True, 0),
    },
}


@pytest.mark.parametrize("key", sorted(EXPECTED_ROWS))
@pytest.mark.parametrize("value", range(1, 7))
def test_every_behavior_row_matches_the_printed_card(key, value):
    r = BEHAVIORS[key].row(value)
    got = (r.location, r.card, r.reputation, r.tokens, r.seals, r.coins, r.first_player, r.vp_per_token)
    assert got == EXPECTED_ROWS[key][value]


def test_behavior_lookup_by_name_stars_and_errors():
    assert behavior("Carl von Linné").key == "carl-von-linne"
    assert behavior("carl von linne").key == "carl-von-linne"
    assert behavior(2).key == "abraham-trembley"
    assert behavior("Daubenton").stars == 3
    with pytest.raises(ValueError, match="unknown Behavior card"):
        behavior("Buffon")
    with pytest.raises(ValueError, match="stars"):
        behavior(4)
    with pytest.raises(ValueError, match="1..6"):
        BEHAVIORS["carl-von-linne"].row(0)
    assert scoring_card("L'Astrolabe").key == "l-astrolabe"
    assert scoring_card(1).key == "la-boudeuse"
    assert scoring_card("HMS Resolution").stars == 2
    with pytest.raises(ValueError, match="unknown Scoring card"):
        scoring_card("Beagle")
    assert len(list(all_combinations())) == 9


def test_row_summary_reads_like_the_card():
    assert BEHAVIORS["carl-von-linne"].row(5).summary() == "University: 1 expert, +1 token"
    assert BEHAVIORS["abraham-trembley"].row(3).summary() == "Bank: 5 coins, first player, +1 token"
    assert BEHAVIORS["louis-jean-marie-daubenton"].row(5).summary() == "Expedition: 6 VP per token discarded"


# ----------------------------------------------------------------- priorities


def test_priority_parse_and_validation():
    assert Priority.parse("Europe, asia AMERICA oceania africa").order[0] == "europe"
    assert Priority.parse("blue purple red green yellow").order == ("europe", "asia", "america", "oceania", "africa")
    with pytest.raises(ValueError, match="missing africa"):
        Priority(("america", "europe", "asia", "oceania"))
    with pytest.raises(ValueError, match="repeated europe"):
        Priority(("america", "europe", "europe", "oceania", "asia"))
    with pytest.raises(ValueError, match="unknown 'atlantis'"):
        Priority.parse("america europe asia oceania atlantis")


def test_shuffled_priorities_are_seeded_and_distinct():
    a = distinct_priorities(3, random.Random(7))
    b = distinct_priorities(3, random.Random(7))
    assert a == b
    assert len(set(a)) == 3
    for p in a:
        assert sorted(p.order) == sorted(CONTINENTS)
    with pytest.raises(ValueError, match="at most 3"):
        distinct_priorities(4, random.Random(0))


# ----------------------------------------------------------------- dice on its board


def test_rulebook_example_two_equal_dice_ordered_by_priority():
    # Rulebook: two 2s, yellow (lower priority) furthest left, red (higher) on its right.
    pr = Priority(("america", "asia", "europe", "oceania", "africa"))
    dice = [("red", 2), ("blue", 5), ("yellow", 2), ("green", 4)]
    slots = arrange_dice(dice, pr)
    assert [[dice[i] for i in s] for s in slots] == [
        [("yellow", 2)], [("red", 2)], [("green", 4)], [("blue", 5)]
    ]


def test_lowest_value_left_regardless_of_priority():
    dice = [("red", 6), ("yellow", 1), ("purple", 3), ("blue", 2)]
    slots = arrange_dice(dice, P)
    assert [dice[s[0]][1] for s in slots] == [1, 2, 3, 6]


def test_five_dice_two_lowest_share_leftmost_slot():
    dice = [("red", 4), ("yellow", 3), ("purple", 3), ("blue", 6), ("green", 1)]
    slots = arrange_dice(dice, P)
    # P: america > europe > asia > oceania > africa; the two 3s: yellow (africa, lowest) before purple
    assert [[dice[i] for i in s] for s in slots] == [
        [("green", 1), ("yellow", 3)], [("purple", 3)], [("red", 4)], [("blue", 6)]
    ]


def test_arrange_dice_rejects_bad_counts():
    with pytest.raises(ValueError, match="4 dice"):
        arrange_dice([("red", 1)] * 6, P)


# ----------------------------------------------------------------- which die it takes


def d(colour, value, owner, slot):
    return DieView(colour, value, owner, slot, ref=(owner, slot, colour, value))


def test_highest_value_wins_over_everything():
    dice = [d("red", 5, 0, 3), d("yellow", 6, 1, 3)]
    assert choose_die(dice, 0, P, 2).value == 6


def test_equal_values_priority_colour():
    dice = [d("yellow", 6, 0, 0), d("blue", 6, 1, 3), d("purple", 6, 1, 1)]
    # P: america > europe(blue) > asia(purple) ...
    assert choose_die(dice, 0, P, 2).colour == "blue"


def test_equal_value_and_colour_own_die_first():
    dice = [d("red", 4, 1, 0), d("red", 4, 0, 3)]
    assert choose_die(dice, 0, P, 2).owner == 0


@pytest.mark.parametrize("slots,expected", [((0, 1), 0), ((1, 2), 1), ((2, 3), 2), ((3, 1), 1)])
def test_equal_value_and_colour_least_gift_for_others(slots, expected):
    dice = [d("green", 3, 1, slots[0]), d("green", 3, 2, slots[1])]
    assert choose_die(dice, 0, P, 3).slot == expected


def test_fully_identical_dice_choose_deterministically_clockwise():
    dice = [d("green", 3, 2, 1), d("green", 3, 1, 1)]
    assert choose_die(dice, 0, P, 3).owner == 1
    assert choose_die(list(reversed(dice)), 0, P, 3).owner == 1


def test_no_die_is_an_error():
    with pytest.raises(ValueError, match="no die"):
        choose_die([], 0, P, 2)


# ----------------------------------------------------------------- cards


def test_card_by_priority_then_reading_order():
    display = ["asia", "europe", "africa", "europe", "america"]
    assert choose_card(display, P) == 4  # america first
    display = ["asia", "europe", "africa", "europe"]
    assert choose_card(display, P) == 1  # first europe in reading order


def test_card_skips_sepultus_and_handles_empty():
    assert choose_card([None, "africa", None], P) == 1
    assert choose_card([None, None], P) is None
    assert choose_card([], P) is None


def test_starting_animals_two_by_priority():
    display = ["africa", "europe", "asia", "europe", "oceania", "asia"]
    assert choose_cards(display, P, 2) == [1, 3]
    assert choose_cards(["africa"], P, 2) == [0]


# ----------------------------------------------------------------- expedition continent


def test_expedition_most_animals():
    assert choose_expedition_continent({"africa": 2, "america": 1}, set(), P) == "africa"


def test_expedition_ties_by_priority():
    assert choose_expedition_continent({"africa": 2, "asia": 2}, set(), P) == "asia"


def test_expedition_no_animals_by_priority():
    assert choose_expedition_continent({}, set(), P) == "america"


def test_expedition_full_continent_skipped():
    assert choose_expedition_continent({"africa": 3, "asia": 1}, {"africa"}, P) == "asia"
    assert choose_expedition_continent({}, {"america", "europe"}, P) == "asia"


def test_expedition_all_full_is_none():
    assert choose_expedition_continent({"asia": 1}, set(CONTINENTS), P) is None


# ----------------------------------------------------------------- words


def test_wording_helpers():
    assert words.ordinal(1) == "1st" and words.ordinal(3) == "3rd" and words.ordinal(11) == "11th"
    assert words.take_die("blue", 5, owner_name="Joelle", own=False, slot=1, actor="the Automa") == (
        "Take the blue 5 from Joelle's board (Joelle gains 2 coins)."
    )
    assert words.card_position(2, "expert") == "3rd expert from the left"
    assert words.join_and(["a", "b", "c"]) == "a, b and c"
    assert words.gains(tokens=1) == ["1 expedition token"]
