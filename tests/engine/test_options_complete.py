"""``die_options`` against ``apply`` at every human action point of seeded random games: every
option is legal as given, and every target some spend makes legal is offered (rules audit #2:
the FAQ expedition completed by a reputation-track animal was missing)."""

import random

import pytest

from companion.actions import Academy, Expedition, Publish, Spend
from companion.engine import apply, die_options, next_action
from companion.errors import RuleError

from .helpers import random_game


def _legal(st, action) -> bool:
    try:
        apply(st.copy(), action)
    except RuleError:
        return False
    return True


def _colour_spends(st, seat, need):
    """The ways to count the die in hand as ``need``: ((colour, colour_by, tokens used, seals used), ...)."""
    s = st.seats[seat]
    if st.hand[0] == need:
        return [(None, None, 0, 0)]
    out = []
    if s.tokens >= 1:
        out.append((need, None, 1, 0))
    if s.seals >= 1:
        out.append((need, "seal", 0, 1))
    return out


def _max_spends(st, seat, need, expedition):
    """Everything spent, for each way of paying the colour (the highest value reachable)."""
    s = st.seats[seat]
    for colour, by, t, k in _colour_spends(st, seat, need):
        yield Spend(coins=s.coins, tokens=(s.tokens - t) if expedition else 0, seals=s.seals,
                    colour=colour, colour_by=by)


def _exact_spends(st, seat):
    """Every (coins, seals) combination: for the exact value of a Sepultus card."""
    s = st.seats[seat]
    for k in range(s.seals + 1):
        for c in range(s.coins + 1):
            yield Spend(coins=c, seals=k)


def _check_point(st, seat):
    b = st.board
    opts = die_options(st, seat)
    for o in opts:
        assert _legal(st, o.action), f"offered but refused: {o}"
    offered = {(o.kind, o.target) for o in opts}
    for cont in b.continents:
        need = b.colour_of_continent[cont]
        if any(_legal(st, Expedition(seat, cont, sp)) for sp in _max_spends(st, seat, need, True)):
            assert ("expedition", cont) in offered, f"a legal expedition to {cont} is not offered"
    for cid in st.animal_display:
        if cid is None:
            continue
        c = st.cards[cid]
        if c.sepultus:
            legal = any(_legal(st, Academy(seat, cid, sp)) for sp in _exact_spends(st, seat))
        else:
            need = b.colour_of_continent[c.continent]
            legal = any(_legal(st, Academy(seat, cid, Spend(colour=col, colour_by=by, seals=k)))
                        for col, by, _, k in _colour_spends(st, seat, need))
        if legal:
            assert ("academy", cid) in offered, f"a legal Academy for card #{cid} is not offered"
    for cid in st.seats[seat].animals:
        c = st.cards[cid]
        if c.sepultus:
            continue
        need = b.colour_of_continent[c.continent]
        if any(_legal(st, Publish(seat, cid, sp)) for sp in _max_spends(st, seat, need, False)):
            assert ("publish", cid) in offered, f"a legal publication of card #{cid} is not offered"
    for name in st.expert_display:
        if name is not None:
            assert ("university", name) in offered
    assert ("embassy", None) in offered and ("bank", None) in offered
    return len(opts)


@pytest.mark.parametrize("seed", range(6))
def test_die_options_are_legal_and_complete_at_every_human_action_point(seed):
    rng = random.Random(500 + seed)
    seats = 2 + seed % 3
    st, chance, players = random_game(rng, seats, seed % 2, 0.05)
    points = 0
    while not st.finished:
        p = st.pending
        if p.kind == "action" and st.seats[p.seat].kind == "human":
            _check_point(st, p.seat)
            points += 1
        apply(st, next_action(st, chance, players))
    assert points >= 20
