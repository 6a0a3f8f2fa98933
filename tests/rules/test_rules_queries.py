"""The legal-option queries agree with the rules as ``apply`` enforces them: every option offered
is legal, and the "highest expedition value reachable" is really the highest (checked by trying
every spend through ``apply`` on a copy)."""

import itertools

import pytest

from companion.actions import Expedition, Spend, TakeDie
from companion.engine import apply, die_options, max_expedition_value, research_options
from companion.errors import RuleError

from rulekit import COLOUR, eric_game, setup


def brute_max_expedition(st, seat, continent):
    """The highest research budget any spend gives (None if no spend is legal)."""
    s = st.seats[seat]
    need = COLOUR[continent]
    best = None
    recolours = [(None, None)] if st.hand[0] == need else [(need, "token"), (need, "seal")]
    for (colour, by), seals, tokens in itertools.product(recolours, range(s.seals + 1), range(s.tokens + 1)):
        sp = Spend(coins=s.coins, tokens=tokens, seals=seals, colour=colour, colour_by=by)
        trial = st.copy()
        try:
            apply(trial, Expedition(seat, continent, sp))
        except RuleError:
            continue
        assert trial.pending.kind == "research"  # no reputation card bonus in these tables
        v = trial.pending.value
        best = v if best is None else max(best, v)
    return best


def test_max_expedition_value_with_a_token_and_a_seal_recolours_with_the_seal():
    # Eric's table: blue 4, 5 coins, 1 token, 1 seal. To Africa (second space, +1) the best is
    # the seal changing the colour (+5) AND the token for +2: 4 + 5 + 5 + 2 + 1 = 17.
    t, c = eric_game()
    assert brute_max_expedition(t.st, 0, "africa") == 17
    assert max_expedition_value(t.st, 0, "africa") == 17


@pytest.mark.parametrize("continent", ["europe", "asia"])
def test_max_expedition_value_matches_the_best_spend(continent):
    t, c = eric_game()
    assert max_expedition_value(t.st, 0, continent) == brute_max_expedition(t.st, 0, continent)


def _tables():
    t, c = eric_game()
    yield t
    t = setup(token="coins")
    t.do(TakeDie(0, 0, 0))
    yield t


def test_every_die_option_is_legal():
    for t in _tables():
        opts = die_options(t.st, 0)
        assert {o.kind for o in opts} >= {"embassy", "bank"}
        for o in opts:
            trial = t.st.copy()
            apply(trial, o.action)  # must not raise
            if o.kind == "expedition" and trial.pending.kind == "research":
                assert research_options(trial, 0), o  # the value offered buys at least one cube
