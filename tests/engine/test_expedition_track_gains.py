"""An expedition's own space reputation is gained when the die is placed, before its value is
raised (EN p.12; rules audit #3, N1): coins, tokens and seals from the track pay its spends; an
expert taken at space 6 counts for its research value; the colour change is paid from what was
held before."""

import pytest

from companion.actions import ChooseExpert, Expedition, Research, Spend
from companion.engine import apply, die_options, max_expedition_value
from companion.errors import NotEnoughError

from .helpers import give, hand, new_game, refused

ASIA = ("bird", "omnivore", "arboreal", "temperate")


def _table(rep, coins=0, tokens=0, seals=0, die=("purple", 4), experts=None):
    st, _ = new_game(experts=experts)
    s = st.seats[0]
    s.rep, s.coins, s.tokens, s.seals = rep, coins, tokens, seals
    st.discarded_animals.extend(s.animals)  # scenario: the only animal under study is ``cid``
    s.animals = []
    cid = give(st, 0, "asia", ASIA)
    hand(st, 0, die)
    return st, s, cid


def test_coins_from_space_4_pay_this_expeditions_value():
    st, s, cid = _table(rep=3, coins=1)  # Asia's first space: +3 reputation, passes 4 (+3 coins)
    e = refused(st, Expedition(0, "asia", Spend(coins=5)), NotEnoughError, "from this action's reputation")
    assert "has 1" in str(e)
    assert max_expedition_value(st, 0, "asia") == 4 + 1 + 3
    apply(st, Expedition(0, "asia", Spend(coins=4)))
    while st.pending.kind == "choose_expert":  # space 6 reached too: a neutral expert
        apply(st, ChooseExpert(0, next(n for n in st.expert_display if n)))
    assert st.pending.kind == "research" and st.pending.value == 8
    assert s.coins == 1 + 3 - 4
    apply(st, Research(0, ((cid, "arboreal"),)))  # Type III: 7


def test_a_token_from_space_2_gives_plus_2_but_cannot_pay_the_colour():
    st, s, cid = _table(rep=0, tokens=0, die=("red", 4))
    refused(st, Expedition(0, "asia", Spend(colour="purple")), NotEnoughError, "changing the die's colour")
    st2, s2, _ = _table(rep=0, tokens=0, die=("purple", 4))
    apply(st2, Expedition(0, "asia", Spend(tokens=1)))  # the first space passes 2: +1 token, spent for +2
    assert st2.pending.value == 4 + 2 and s2.tokens == 0


def test_a_seal_from_space_14_gives_plus_5_and_wraps():
    st, s, cid = _table(rep=12, seals=0)  # +3: 13, 14 (a seal), 15
    assert max_expedition_value(st, 0, "asia") == 4 + 5
    apply(st, Expedition(0, "asia", Spend(seals=1)))
    assert st.pending.value == 9 and s.seals == 0 and s.rep == 15
    refused_st, _, _ = _table(rep=13, seals=0)  # +3: 14 (seal), 15, 0
    apply(refused_st, Expedition(0, "asia", Spend(seals=1)))
    assert refused_st.seats[0].rep == 0 and refused_st.pending.value == 9


@pytest.mark.parametrize("expert, gain", [("Pu Geun-Young", 2), ("Thao Trí Hùng", 1), ("Katie MacSweeney", 0)])
def test_an_expert_taken_at_space_6_counts_for_this_expeditions_research(expert, gain):
    st, s, cid = _table(rep=4, experts=[expert, "Maddalena Rotella", "Salvador Ortíz", "Gidea Grobbelaar",
                                        "Habib Abdalla", "Gangesh Mukerji", "Lotte Paulsen"])
    apply(st, Expedition(0, "asia"))  # +3: passes 6 (an expert)
    assert st.pending.kind == "choose_expert"
    apply(st, ChooseExpert(0, expert))
    assert st.pending.kind == "research" and st.pending.value == 4 + gain


def test_the_option_query_counts_the_track_coins():
    # no cube affordable with what is held (value 4 < 7 for Type III on the only open category
    # left), but the 3 coins from space 4 reach it: the option is offered with that spend
    st, s, cid = _table(rep=3, coins=0)
    s.cubes[cid] = ["bird", "omnivore"]
    s.cubes_placed += 2
    opts = {o.target: o for o in die_options(st, 0) if o.kind == "expedition"}
    assert opts["asia"].action.spend == Spend(coins=3) and opts["asia"].value == 7
    apply(st, opts["asia"].action)
