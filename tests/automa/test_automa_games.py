"""Automa scoring through the engine's final scoring, and whole seeded games."""

import random

import pytest

from companion.actions import SeatConfig
from companion.engine import Card, EXPERT, State, final_scores

from automa.play import automa_seat, play, random_table

PR = ("europe", "asia", "america", "oceania", "africa")
BY_CONT = {c: [n for n, e in EXPERT.items() if e.continent == c] for c in PR}


def finished_state(scoring):
    """A finished 2-seat game: the automa holds 3 Europe + 1 Asia animals, experts 2 Europe,
    1 Asia, 1 Africa, 50 VP on the track, 7 coins, 2 tokens, 1 seal."""
    st = State()
    from companion.engine import Seat

    st.seats = [Seat("Joelle"), Seat("the Automa", "automa", "carl-von-linne", scoring, PR)]
    st.cards = [Card(0, "europe"), Card(1, "europe"), Card(2, "europe"), Card(3, "asia")]
    a = st.seats[1]
    a.animals = [0, 1, 2, 3]
    a.experts = BY_CONT["europe"][:2] + BY_CONT["asia"][:1] + BY_CONT["africa"][:1]
    a.vp, a.coins, a.tokens, a.seals = 50, 7, 2, 1
    st.tasks = []
    return st


# hand-computed: continents europe (3+2)×3 = 15, asia (1+1)×1 = 2, africa (0+1)×0 = 0 → 17
#   La Boudeuse: experts 2×3 + 1×2 + 1×1 = 9, coins 7//2 = 3, tokens 2×2 = 4, seals 4 → 50+17+9+3+4+4 = 87
#   HMS Resolution: 2×4 + 1×3 + 1×2 = 13, coins 3, tokens 2×3 = 6, seals 5 → 94
#   L'Astrolabe: 2×5 + 1×4 + 1×3 = 17, coins 7, tokens 2×4 = 8, seals 6 → 105
@pytest.mark.parametrize("scoring,total", [("la-boudeuse", 87), ("hms-resolution", 94), ("l-astrolabe", 105)])
def test_scoring_cards_against_hand_computed_totals(scoring, total):
    breakdowns, ranking = final_scores(finished_state(scoring))
    b = breakdowns[1]
    assert b.kind == "automa" and b.total == total
    items = {i.category_key: i.vp for i in b.items}
    assert items["continent:europe"] == 15 and items["continent:asia"] == 2 and items["track"] == 50


def test_automa_keeps_its_animals_for_final_scoring():
    seats = [SeatConfig("Joelle"), automa_seat("the Automa", 1, 1, PR)]
    res = play(seats, seed=3)
    b = final_scores(res.state)[0][1]
    assert any(i.category_key.startswith("continent:") and i.vp > 0 for i in b.items)


def test_200_seeded_games_no_illegal_automa_action():
    """1-3 automas, 0-3 random humans, at most 4 boards; every action through the checked
    ``apply`` (an illegal automa action would raise)."""
    seen = set()
    decisions = 0
    for g in range(200):
        rng = random.Random(g)
        na = rng.randint(1, 3)
        nh = rng.randint(0, 4 - na)
        if na + nh < 2:
            nh = 1
        seats = random_table(rng, na, nh)
        res = play(seats, seed=g, first_player=rng.randrange(len(seats)), sepultus=rng.random() < 0.5)
        assert res.state.finished
        decisions += res.automa_decisions
        seen.add((na, nh))
        breakdowns, _ = final_scores(res.state)
        for s, b in zip(res.state.seats, breakdowns):
            assert b.kind == s.kind and b.total >= s.vp
    assert decisions > 200 * 24
    assert {(1, 1), (2, 0), (3, 0), (1, 3), (3, 1)} <= seen
