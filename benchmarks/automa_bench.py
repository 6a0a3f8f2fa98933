"""How long the Automa takes to decide, on one core.

    python benchmarks/automa_bench.py [--games 20] [--seed 0]

Plays seeded games (1 automa + 1-3 random humans, and 3 automas + 1 human) and times every
``automa.decide`` call on the real game states met along the way (its whole turn: die, row,
card, reputation bonuses, wording, and the checked ``apply`` of its actions on a copy).
Prints median / p95 / max per decision kind. Target: a turn < 1 ms.

Then the reference player of the tournament (``automa.reference.ReferencePlayer``): CPU seconds
per whole two-seat game against an automa (``--reference-games``, default 5; 0 skips it) and
what that makes for ``python -m automa tournament --games 40`` (9 × 40 games).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

try:  # one core, as the issue asks
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
except (AttributeError, OSError):  # pragma: no cover
    pass

from automa.decide import decide  # noqa: E402
from automa.play import play, random_table  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reference-games", type=int, default=5)
    args = ap.parse_args(argv)
    states = []

    def grab(st, d):
        states.append((st.pending.kind, st.copy(), d.seat))

    for g in range(args.games):
        rng = random.Random(args.seed + g)
        na, nh = (1, rng.randint(1, 3)) if g % 2 == 0 else (3, 1)
        play(random_table(rng, na, nh), seed=args.seed + g, on_decision=grab)
    by_kind: dict[str, list[float]] = {}
    for kind, st, seat in states:
        best = None
        for _ in range(5):  # best of 5 per state, to drop scheduler noise
            t0 = time.perf_counter()
            decide(st, seat)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        by_kind.setdefault(kind, []).append(best)
    print(f"automa.decide on {len(states)} real states from {args.games} seeded games (one core, Python {sys.version.split()[0]})")
    for kind, xs in sorted(by_kind.items()):
        xs.sort()
        p95 = xs[int(0.95 * (len(xs) - 1))]
        label = {"take_die": "its turn", "action": "die in hand", "choose_animal": "animal choice",
                 "choose_expert": "expert choice"}.get(kind, kind)
        print(f"  {label:14s} n={len(xs):5d}  median {statistics.median(xs) * 1e6:7.0f} µs  "
              f"p95 {p95 * 1e6:7.0f} µs  max {xs[-1] * 1e6:7.0f} µs")
    turns = sorted(by_kind.get("take_die", [0.0]))
    ok = turns[int(0.95 * (len(turns) - 1))] < 1e-3
    print(f"target: a turn < 1 ms (p95) — {'met' if ok else 'NOT met'}")
    if args.reference_games > 0:
        reference_figures(args.reference_games, args.seed)
    return 0


def reference_figures(games: int, seed: int) -> None:
    from companion.actions import SeatConfig
    from automa.content import Priority, all_combinations
    from automa.reference import ReferencePlayer

    combos = list(all_combinations())
    t0 = time.process_time()
    turns = 0
    for g in range(games):
        b, s = combos[g % len(combos)]
        pr = Priority.shuffled(random.Random((seed + g) * 7919 + 1))
        seats = [SeatConfig("Reference"), SeatConfig("Automa", "automa", b.key, s.key, pr.order)]
        res = play(seats, seed=seed + g, first_player=g % 2, human_factory=lambda rng, i: ReferencePlayer(rng))
        turns += sum(1 for a in res.actions if type(a).__name__ == "TakeDie" and a.seat == 0)
    per_game = (time.process_time() - t0) / games
    print(f"reference player: {per_game:.2f} s CPU per whole game ({games} games, {turns / games:.0f} of its turns each, "
          f"automa and engine included) → tournament --games 40 ≈ {per_game * 360 / 60:.1f} min on one core")


if __name__ == "__main__":
    sys.exit(main())
