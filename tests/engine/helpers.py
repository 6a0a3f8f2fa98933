"""Scenario helpers for the engine tests: drive the table's inputs quickly, and set up a seat's
holdings directly when an example starts in the middle of a game (documented scenario set-ups;
the example's own steps always go through ``apply``)."""

from __future__ import annotations

import itertools
import json

import pytest

from companion.actions import (
    ChooseAnimal, ChooseExpert, PlaceDice, RevealAnimal, RevealExpert, RevealRoundToken, RollDice,
    SeatConfig, StartGame,
)
from companion.content.experts import EXPERTS
from companion.engine import Card, State, apply
from companion.errors import RuleError

CONTINENTS = ("america", "africa", "asia", "europe", "oceania")
DEFAULT_CATS = {
    "america": ("mammal", "herbivore", "arboreal", "hot"),
    "africa": ("mammal", "carnivore", "terrestrial", "hot"),
    "asia": ("bird", "omnivore", "arboreal", "temperate"),
    "europe": ("bird", "omnivore", "aquatic", "cold"),
    "oceania": ("reptile", "carnivore", "aquatic", "hot"),
}
# experts with no effect on the counts the tests look at unless taken on purpose
NEUTRAL_EXPERTS = ("Fernanda Brito Pedroso", "Maddalena Rotella", "Salvador Ortíz",
                   "Gidea Grobbelaar", "Habib Abdalla", "Gangesh Mukerji",
                   "Suriani binti Sulung", "Lotte Paulsen", "Manuel Núñez", "Arnold Schuman",
                   "Ilmatar Iivonen", "Kiteni Sariman")
DEFAULT_DICE = (("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4))
PRIORITY = ("america", "africa", "asia", "europe", "oceania")


def random_game(rng, seats: int, automas: int, unknown_categories: float, sepultus: bool = True):
    """A game started for random players, every draw from ``rng`` in this order: the seats
    (``automas`` of them automas), the first player, then the chance source that reveals cards
    and rolls dice, of which ``unknown_categories`` have unknown categories. Returns (state, chance,
    one RandomPlayer per seat) for ``next_action``."""
    from companion.engine import ChanceSource, RandomPlayer
    from companion.simulate import seat_configs

    st = State()
    apply(st, StartGame(seat_configs(seats, automas, rng), rng.randrange(seats), sepultus))
    return st, ChanceSource(rng, unknown_categories=unknown_categories), [RandomPlayer(rng) for _ in range(seats)]


def animal_stream():
    for i in itertools.count():
        c = CONTINENTS[i % 5]
        yield RevealAnimal(c, f"{c}-{i}", DEFAULT_CATS[c])


class Table:
    """Answers the table's inputs (and the default choices) until something else is pending."""

    def __init__(self, st: State, experts=None, animals=None, tokens=("nothing", "nothing", "token", "token", "coins", "coins"), dice=None, place=None):
        self.st = st
        self.experts = iter(experts or list(NEUTRAL_EXPERTS) + [e.name for e in EXPERTS if e.name not in NEUTRAL_EXPERTS])
        self.animals = iter(animals) if animals is not None else animal_stream()
        self.tokens = iter(tokens)
        self.dice = dice or {}
        self.place = place or {}

    def run(self, stop=()):
        st = self.st
        while True:
            p = st.pending
            if p.kind in stop:
                return p
            if p.kind == "reveal_expert":
                seen = set(st.experts_seen)
                name = next(self.experts)
                while name in seen:
                    name = next(self.experts)
                apply(st, RevealExpert(name))
            elif p.kind == "reveal_animal":
                apply(st, next(self.animals))
            elif p.kind == "choose_animal" and not p.from_deck:
                apply(st, ChooseAnimal(p.seat, next(c for c in st.animal_display if c is not None)))
            elif p.kind == "choose_expert" and not p.from_deck:
                name = next(n for n in st.expert_display if n is not None)
                slot = None
                s = st.seats[p.seat]
                if s.kind == "human" and all(x is not None for x in s.face_up):
                    slot = 0
                apply(st, ChooseExpert(p.seat, name, slot))
            elif p.kind == "reveal_round_token":
                apply(st, RevealRoundToken(next(self.tokens)))
            elif p.kind == "roll_dice":
                dice = self.dice.get((st.round, p.seat)) or self.dice.get(p.seat) or DEFAULT_DICE
                if len(dice) < p.count:
                    dice = tuple(dice) + (("green", 6),)
                apply(st, RollDice(p.seat, tuple(dice)))
            elif p.kind == "place_dice":
                slots = self.place.get((st.round, p.seat)) or tuple(range(4)) + (0,) * (p.count - 4)
                apply(st, PlaceDice(p.seat, tuple(slots)))
            else:
                return p


def new_game(names=("Ann", "Bob"), first=0, automas=(), sepultus=False, behaviour="carl-von-linne",
             priority=PRIORITY, **table) -> tuple[State, Table]:
    """A game at the first ``take_die`` of round 1 (unless the table stops earlier)."""
    seats = []
    for i, n in enumerate(names):
        if i in automas:
            seats.append(SeatConfig(n, "automa", behaviour, "la-boudeuse", priority))
        else:
            seats.append(SeatConfig(n))
    st = State()
    apply(st, StartGame(tuple(seats), first, sepultus))
    stop = table.pop("stop", ())
    t = Table(st, **table)
    t.run(stop)
    return st, t


def give(st: State, seat: int, continent: str | None, categories=None, cubes=(), name="", sepultus=False,
         die=None, cost=None) -> int:
    """Scenario set-up: a card already under study by ``seat`` with cubes on ``cubes``."""
    cid = len(st.cards)
    if categories is None and not sepultus:
        categories = DEFAULT_CATS[continent]
    st.cards.append(Card(cid, continent, name, tuple(categories), sepultus, die, cost))
    s = st.seats[seat]
    s.animals.append(cid)
    if cubes:
        s.cubes[cid] = list(cubes)
        s.cubes_placed += len(cubes)
    return cid


def snapshot(st: State) -> str:
    return json.dumps(st.to_json(), sort_keys=True)


def refused(st: State, action, error=RuleError, match: str | None = None):
    """Assert ``action`` is refused with ``error`` and the state is unchanged; returns the error."""
    before = snapshot(st)
    with pytest.raises(error, match=match) as info:
        apply(st, action)
    assert snapshot(st) == before
    return info.value


def hand(st: State, seat: int, die, owner=None, slot=0):
    """Scenario set-up: put ``die`` on ``owner``'s (default: seat's) board slot and take it."""
    from companion.actions import TakeDie

    owner = seat if owner is None else owner
    s = st.seats[owner]
    # swap the die into the slot (keeps the 20 dice: the old die goes back to the bag,
    # the new one comes out of it)
    old = s.slots[slot].pop(0) if s.slots[slot] else None
    if old:
        st.bag[old[0]] += 1
    st.bag[die[0]] -= 1
    s.slots[slot].insert(0, tuple(die))
    apply(st, TakeDie(seat, owner, slot, 0))


def first_die(st: State, seat: int):
    """(owner, slot, index) of the seat's own leftmost die, else anyone's."""
    s = st.seats[seat]
    for sl, dice in enumerate(s.slots):
        if dice:
            return seat, sl, 0
    for si, x in enumerate(st.seats):
        for sl, dice in enumerate(x.slots):
            if dice:
                return si, sl, 0
    raise AssertionError("no die on any board")


def bank_turns(st: State, until=("seal_action", "reveal_round_token", "game_over", "reveal_expert"), table=None):
    """Every seat takes a die (its own first) and goes to the Bank (automas: their row) until
    ``until``; the table's inputs in between are answered by ``table``."""
    from companion.actions import AutomaAction, Bank, Pass, TakeDie
    from companion.engine import automa_expedition_continent, automa_row

    while True:
        p = st.pending
        if p.kind in until:
            return p
        if p.kind == "take_die":
            apply(st, TakeDie(p.seat, *first_die(st, p.seat)))
        elif p.kind == "action":
            if st.seats[p.seat].kind == "automa":
                row = automa_row(st, p.seat)
                apply(st, AutomaAction(p.seat, automa_expedition_continent(st, p.seat) if row["kind"] == "expedition" else None))
            else:
                apply(st, Bank(p.seat))
        elif p.kind == "seal_action":
            apply(st, Pass(p.seat))
        elif table is not None:
            p2 = table.run(stop=("take_die", "action", "seal_action") + tuple(until))
            if p2.kind == p.kind:
                raise AssertionError(f"stuck at {p}")
        else:
            raise AssertionError(f"unexpected pending {p}")
