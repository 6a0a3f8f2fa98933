"""Whole games with automas through the engine's checked ``apply`` (tests, tournament, bench).

``play(seats, seed, humans=...)``: chance from the engine's seeded ``ChanceSource``; automa seats
answered by ``automa.decide``; human seats by a player object with ``action(state)`` (the
engine's ``RandomPlayer`` or ``automa.reference.ReferencePlayer``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from companion.actions import Action, ChooseExpert, SeatConfig, StartGame
from companion.engine import CHANCE_KINDS, ChanceSource, EXPERT, RandomPlayer, State, apply

from .content import Priority, behavior, distinct_priorities, scoring_card
from .decide import decide


def automa_seat(name: str, behaviour: str | int, scoring: str | int, priority) -> SeatConfig:
    """A ``SeatConfig`` for an automa: Behavior/Scoring card by key, name or stars; priority as a
    ``Priority``, a list of continents, or text as entered ("europe asia ...")."""
    pr = priority if isinstance(priority, Priority) else Priority.parse(priority)
    return SeatConfig(name, "automa", behavior(behaviour).key, scoring_card(scoring).key, pr.order)


@dataclass
class GameResult:
    state: State
    actions: list[Action]
    automa_decisions: int = 0
    automa_actions: int = 0
    decision_seconds: list[float] = field(default_factory=list)


def play(seats: Sequence[SeatConfig], seed: int, first_player: int = 0, sepultus: bool = True,
         human_factory: Optional[Callable[[random.Random, int], object]] = None,
         max_actions: int = 6000, on_decision: Optional[Callable] = None, time_decisions: bool = False) -> GameResult:
    """Play one seeded game to the end. Every action goes through the checked ``apply`` (an
    illegal automa decision raises the engine's ``RuleError``)."""
    import time

    rng = random.Random(seed)
    st = State()
    start = StartGame(tuple(seats), first_player, sepultus)
    apply(st, start)
    actions: list[Action] = [start]
    chance = ChanceSource(rng, unknown_categories=0.0)
    make = human_factory or (lambda r, i: RandomPlayer(r))
    players = {i: make(random.Random(rng.randrange(1 << 30)), i) for i, s in enumerate(seats) if s.kind != "automa"}
    res = GameResult(st, actions)
    while st.tasks:
        p = st.pending
        if p.kind in CHANCE_KINDS or (p.kind == "choose_animal" and p.from_deck):
            a = chance.action(st)
            apply(st, a)
            actions.append(a)
        elif st.seats[p.seat].kind == "automa":
            if p.kind == "choose_expert" and p.from_deck:
                # chance: the top card of the expert deck
                seen = set(st.experts_seen)
                a = ChooseExpert(p.seat, rng.choice([n for n in EXPERT if n not in seen]))
                apply(st, a)
                actions.append(a)
                continue
            t0 = time.perf_counter() if time_decisions else 0.0
            d = decide(st, p.seat)
            if time_decisions:
                res.decision_seconds.append(time.perf_counter() - t0)
            if on_decision is not None:
                on_decision(st, d)
            res.automa_decisions += 1
            if not d.actions and d.waits_for is None:  # pragma: no cover
                raise AssertionError(f"automa decision with no action and nothing to wait for: {d}")
            for a in d.actions:
                apply(st, a)
                actions.append(a)
                res.automa_actions += 1
        else:
            a = players[p.seat].action(st)
            apply(st, a)
            actions.append(a)
        if len(actions) > max_actions:  # pragma: no cover
            raise AssertionError(f"game seed {seed} did not end after {max_actions} actions")
    return res


def random_table(rng: random.Random, n_automas: int, n_humans: int) -> list[SeatConfig]:
    """Seats for a random mixed game: humans first, then automas with distinct priorities and
    random cards."""
    from .content import BEHAVIORS, SCORING_CARDS

    seats = [SeatConfig(f"Player {i + 1}") for i in range(n_humans)]
    for k, pr in enumerate(distinct_priorities(n_automas, rng)):
        seats.append(SeatConfig(f"Automa {k + 1}", "automa", rng.choice(sorted(BEHAVIORS)),
                                rng.choice(sorted(SCORING_CARDS)), pr.order))
    return seats


def scores(res: GameResult):
    """``(breakdowns, ranking)`` of a finished game through ``companion.scoring``."""
    from companion.engine import final_scores

    return final_scores(res.state)
