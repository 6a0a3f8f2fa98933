"""Queries the UI shows before a confirmation: University choices when the expert slots are full
(which slot each choice covers; one-shots used at once) and the publication preview including
what the placement triggers (experts, reputation-track bonuses)."""

import pytest

from companion.actions import Publish, Spend
from companion.engine import apply, die_options, preview_publication, refresh_effects
from companion.errors import WrongColourError

from .helpers import give, hand, new_game, snapshot

ONESHOT = "Safi Limbila"  # ⚡ 5 coins


def _with_expert(st, seat, name, slot=None):
    s = st.seats[seat]
    s.experts.append(name)
    st.experts_seen.append(name)
    s.face_up[s.face_up.index(None) if slot is None else slot] = name
    refresh_effects(s)


def _university_options(st, seat=0):
    return [o for o in die_options(st, seat) if o.kind == "university"]


def test_university_options_offer_each_slot_to_cover_when_all_four_are_full():
    st, _ = new_game()
    s = st.seats[0]
    for name in ("Suriani binti Sulung", "Lotte Paulsen", "Manuel Núñez", "Arnold Schuman"):
        _with_expert(st, 0, name)
    hand(st, 0, ("red", 3))
    shown = [n for n in st.expert_display if n]
    opts = _university_options(st)
    for name in shown:
        mine = [o for o in opts if o.target == name and not o.action.use_now and not o.action.under]
        assert [o.action.slot for o in mine] == [0, 1, 2, 3]
        # or placed under one (issue 39): one more choice, no slot
        assert [o.action.slot for o in opts if o.target == name and o.action.under] == [None]
        assert [o.covers for o in mine] == s.face_up
        for o in mine:
            assert f"covers {o.covers} (slot {o.action.slot})" in o.gain
    # every choice is legal as given and covers exactly the slot it names
    before = snapshot(st)
    for o in opts:
        trial = st.copy()
        apply(trial, o.action)
        t = trial.seats[0]
        if o.action.use_now:
            assert t.face_up == s.face_up and o.target in t.used
        elif o.action.under:
            assert t.face_up == s.face_up and o.target in t.experts and o.target not in t.used
        else:
            assert t.face_up[o.action.slot] == o.target and o.covers in t.experts
            assert o.covers not in t.face_up  # covered: owned, no longer active
    assert snapshot(st) == before


def test_university_options_with_a_free_slot_name_it_and_cover_nothing():
    st, _ = new_game()
    _with_expert(st, 0, "Lotte Paulsen")
    hand(st, 0, ("red", 3))
    for o in _university_options(st):
        if not o.action.use_now:
            assert o.action.slot is None and o.covers is None and o.gain.endswith("in slot 1")


def test_a_one_shot_expert_at_the_university_is_offered_placed_and_used_at_once():
    st, t = new_game(experts=[ONESHOT, "Maddalena Rotella", "Salvador Ortíz", "Gidea Grobbelaar",
                              "Habib Abdalla", "Gangesh Mukerji", "Lotte Paulsen"])
    assert ONESHOT in st.expert_display
    hand(st, 0, ("red", 3))
    mine = [o for o in _university_options(st) if o.target == ONESHOT]
    assert [(o.action.slot, o.action.use_now) for o in mine] == [(None, False), (None, True)]
    assert "used at once (+5 coins)" in mine[1].gain
    coins = st.seats[0].coins
    apply(st, mine[1].action)
    assert st.seats[0].coins == coins + 5 and ONESHOT in st.seats[0].used


def _publication_table(experts=(), rep=0, die=("blue", 3)):
    st, _ = new_game()
    s = st.seats[0]
    for name in experts:
        _with_expert(st, 0, name)
    s.rep = rep
    s.coins = 4
    ref = give(st, 0, "europe", ("bird", "omnivore", "aquatic", "cold"), ("bird",))
    hand(st, 0, die)  # value 3: Type I at most
    return st, s, ref


def _applied_delta(st, action):
    s0 = st.seats[action.seat]
    trial = st.copy()
    apply(trial, action)
    s1 = trial.seats[action.seat]
    return {k: getattr(s1, k) - getattr(s0, k) for k in ("coins", "tokens", "seals", "vp")}, trial


def test_the_publication_preview_without_experts_is_the_publication_alone():
    st, s, ref = _publication_table()
    pv = preview_publication(st, Publish(0, ref))
    assert pv.vp_by_type == {0: 1, 1: 2} and pv.vp == pv.publication_vp == 3
    assert pv.expert_gains == () and pv.gains == {} and pv.seals == 1


@pytest.mark.parametrize("experts, rep, gains", [
    (("Gao Zhelan",), 0, {"coins": 3}),
    (("Gao Zhelan", "Egbert Rensing"), 0, {"coins": 6}),
    # +2 reputation from 0: reaches space 2 (1 expedition token)
    (("Elena Lewis",), 0, {"reputation": 2, "tokens": 1}),
    # both +2: 4 spaces from 3: passes 4 (3 coins) and 6 (an expert card to choose next)
    (("Elena Lewis", "Adriana Zarek", "Gao Zhelan"), 3, {"reputation": 4, "coins": 6, "expert": 1}),
    # wrap-around: from 13, +4 passes 14 (a royal seal) and 0
    (("Elena Lewis", "Adriana Zarek"), 13, {"reputation": 4, "seals": 1}),
])
def test_the_publication_preview_includes_what_the_die_placement_triggers(experts, rep, gains):
    st, s, ref = _publication_table(experts, rep)
    action = Publish(0, ref, Spend(coins=1))
    before = snapshot(st)
    pv = preview_publication(st, action)
    assert snapshot(st) == before
    assert pv.gains == gains
    assert [n for n, _ in pv.expert_gains] == list(experts)
    # the preview agrees with what apply does
    delta, trial = _applied_delta(st, action)
    assert delta["coins"] == gains.get("coins", 0) - 1
    assert delta["tokens"] == gains.get("tokens", 0)
    assert delta["seals"] == gains.get("seals", 0) + pv.seals
    assert delta["vp"] == pv.vp
    assert (trial.pending.kind == "choose_expert") == ("expert" in gains)


def test_the_preview_counts_a_recolouring_token_as_spent_not_as_gained_or_lost():
    st, s, ref = _publication_table(("Elena Lewis",), die=("green", 3))
    s.tokens = 1
    with pytest.raises(WrongColourError):  # refused exactly like apply
        preview_publication(st, Publish(0, ref, Spend(colour="red")))
    action = Publish(0, ref, Spend(colour="blue"))
    pv = preview_publication(st, action)
    assert pv.gains == {"reputation": 2, "tokens": 1}  # space 2 of the track: 1 token
    delta, _ = _applied_delta(st, action)
    assert delta["tokens"] == 0  # one paid for the colour, one gained on the track
