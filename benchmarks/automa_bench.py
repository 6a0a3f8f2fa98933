"""How long the Automa takes to decide, on one core.

    python benchmarks/automa_bench.py [--games 20] [--seed 0]

Plays seeded games (1 automa + 1-3 random humans, and 3 automas + 1 human) and times every
``automa.decide`` call on the real game states met along the way (its whole turn: die, row,
card, reputation bonuses, wording, and the checked ``apply`` of its actions on a copy).
Prints median / p95 / max per decision kind. Target: a turn < 1 ms.
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
