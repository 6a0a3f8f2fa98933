"""Random malformed and illegal actions of every type, at every kind of moment of seeded random
games: the checked ``apply`` either accepts (and the invariants still hold) or raises a
``RuleError`` leaving the state exactly as it was; never another exception (issue 2, "Done
when": illegal actions always refused with the state unchanged).

Two sources: (1) an action of a random type with random field values (right and wrong types,
out-of-range numbers, unknown words); (2) the legal action the random player chose, with one
field changed at random (reaches the deep checks of each handler)."""

import dataclasses
import json
import random

import pytest

from companion.actions import ACTION_TYPES, SeatConfig, Spend, StartGame
from companion.content.experts import EXPERTS
from companion.content.vocab import CATEGORIES, COLOURS, CONTINENTS
from companion.engine import State, apply, next_action
from companion.errors import RuleError
from companion.simulate import check_invariants, seat_configs

from .helpers import random_game

WORDS = (COLOURS + CONTINENTS + CATEGORIES + ("", "nothing", "token", "coins", "expert", "animal", "extra_die",
                                             "seal", "carl-von-linne", "la-boudeuse", "human", "automa", "Zz")
         + tuple(e.name for e in EXPERTS[::5]))
INTS = (-3, -1, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 9, 12, 40, 10 ** 9)
WRONG = (None, "1", 1.0, True, [1], (), {}, -0.5, b"x")


def _int(rng):
    return rng.choice(INTS)


def _word(rng):
    return rng.choice(WORDS)


def _spend(rng):
    if rng.random() < 0.3:
        return Spend()
    return Spend(coins=_int(rng) if rng.random() < 0.5 else 0, tokens=_int(rng) if rng.random() < 0.3 else 0,
                 seals=_int(rng) if rng.random() < 0.3 else 0,
                 seals_for_coins=_int(rng) if rng.random() < 0.2 else 0,
                 colour=rng.choice((None, None) + COLOURS + ("pink", "")),
                 colour_by=rng.choice((None, None, "token", "seal", "coin")))


def _value(rng, cls, name, st):
    """A random value for field ``name`` of ``cls``: mostly of the right type, sometimes wrong."""
    if rng.random() < 0.08:
        return rng.choice(WRONG)
    n_cards = max(1, len(st.cards))
    if name in ("seat", "owner"):
        return rng.choice((-1, 0, 1, 2, 3, 4, 7))
    if name in ("card", "reference"):
        return rng.choice((-1, 0, n_cards - 1, n_cards, rng.randrange(n_cards), 500))
    if name in ("slot", "index", "value", "first_player", "up_to", "die", "cost"):
        if name in ("slot", "up_to", "die", "cost") and rng.random() < 0.2:
            return None
        return _int(rng)
    if name in ("name", "effect", "colour", "continent"):
        if name == "continent" and rng.random() < 0.2:
            return None
        return _word(rng)
    if name in ("sepultus", "use_now", "under"):
        return rng.random() < 0.5
    if name == "category":
        return rng.choice(CATEGORIES + ("", "fish"))
    if name == "categories":
        if rng.random() < 0.2:
            return None
        return tuple(rng.choice(CATEGORIES + ("", "fish")) for _ in range(rng.choice((0, 1, 2, 3, 4, 4, 4, 5))))
    if name == "dice":
        return tuple((rng.choice(COLOURS + ("pink",)), rng.choice((0, 1, 3, 6, 7))) for _ in range(rng.choice((0, 3, 4, 5, 6))))
    if name in ("slots", "keep"):
        return tuple(rng.choice((-1, 0, 1, 2, 3, 4, rng.randrange(n_cards))) for _ in range(rng.choice((0, 1, 3, 4, 5))))
    if name in ("cubes", "extra"):
        return tuple((rng.randrange(-1, n_cards + 1), rng.choice(CATEGORIES + ("fish",))) for _ in range(rng.choice((0, 1, 2, 4))))
    if name == "spend":
        return _spend(rng)
    if name == "seats":
        return tuple(SeatConfig(rng.choice(("A", "B", "", "A", 5)), rng.choice(("human", "human", "automa", "robot")),
                                rng.choice((None, "carl-von-linne", "x")), rng.choice((None, "la-boudeuse")),
                                rng.choice((None, tuple(CONTINENTS), ("asia",)))) for _ in range(rng.choice((0, 1, 2, 4, 5))))
    if name == "board":
        return rng.choice((None, {}, {"rounds": 3}, {"starting_coins": [0, 0, 0, 0]}, {"research_vp": "x"}))
    raise AssertionError(f"no generator for {cls.__name__}.{name}")


def _random_action(rng, st):
    cls = rng.choice(list(ACTION_TYPES.values()))
    return cls(**{f.name: _value(rng, cls, f.name, st) for f in dataclasses.fields(cls)})


def _mutated(rng, st, legal):
    f = rng.choice(dataclasses.fields(legal))
    return dataclasses.replace(legal, **{f.name: _value(rng, type(legal), f.name, st)})


def _text(st):
    return json.dumps(st.to_json(), sort_keys=True)


@pytest.mark.parametrize("seed", range(8))
def test_random_and_mutated_actions_are_accepted_legally_or_refused_cleanly(seed):
    rng = random.Random(9000 + seed)
    fuzz = random.Random(seed)
    seats = 2 + seed % 3
    st = State()
    for _ in range(60):  # the set-up itself, before the real one
        bad = _mutated(fuzz, st, StartGame(seat_configs(seats, 1, fuzz)))
        trial = State()
        try:
            apply(trial, bad)
        except RuleError:
            assert _text(trial) == _text(st)
        else:
            check_invariants(trial)
    st, chance, players = random_game(rng, seats, seed % 3 if seed % 3 < seats else 0, 0.1, sepultus=seed % 2 == 0)
    refused = accepted = 0
    kinds = set()
    while not st.finished:
        legal = next_action(st, chance, players)
        before = _text(st)
        for _ in range(4 if st.tasks[-1][0] in ("action", "research") else 2):  # more where checks are deep
            bad = _random_action(fuzz, st) if fuzz.random() < 0.5 else _mutated(fuzz, st, legal)
            trial = st.copy()
            try:
                apply(trial, bad)
            except RuleError:
                refused += 1
                assert _text(trial) == before, f"{bad} was refused but changed the state"
            else:
                accepted += 1
                check_invariants(trial)
            kinds.add(type(bad).__name__)
        assert _text(st) == before
        apply(st, legal)
    assert refused > 300 and kinds == set(c.__name__ for c in ACTION_TYPES.values())
