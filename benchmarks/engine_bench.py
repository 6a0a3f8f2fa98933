"""Engine speed figures (prints them; no assertion).

    python benchmarks/engine_bench.py [--games N]

- replay of the recorded 4-seat game ``samples/games/random-4-seats.json`` (unchecked apply,
  the path a saved game takes when trusted; and the checked path the session uses to reopen);
- random 4-seat games per second on one core: seeded random legal players, every action
  through the checked ``apply`` (the simulator without its invariant checks), and through
  ``apply_unchecked``.
Targets (issue 2): replay < 5 ms; >= 200 random games/s. Times are CPU time of this process
(``time.process_time``), so other load on the machine does not count.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from companion.actions import actions_from_json
from companion.engine import replay
from companion.simulate import play_game

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "games" / "random-4-seats.json"


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    actions = actions_from_json(doc["actions"])
    replay(actions)  # warm up
    t_unchecked = best_of(lambda: [replay(actions) for _ in range(10)], 10) / 10
    t_checked = best_of(lambda: [replay(actions, checked=True) for _ in range(10)], 10) / 10
    print(f"replay of {SAMPLE.name} ({len(actions)} actions): {t_unchecked * 1000:.2f} ms unchecked, "
          f"{t_checked * 1000:.2f} ms checked  (target < 5 ms)")
    for checked in (True, False):
        # CPU time of this process: the figure "on one core", not disturbed by other processes
        t = time.process_time()
        n_actions = 0
        for seed in range(args.games):
            n_actions += len(play_game(seed, 4, 0, check=False, checked_apply=checked).actions)
        dt = time.process_time() - t
        label = "checked apply" if checked else "unchecked apply"
        print(f"random 4-seat games ({label}): {args.games / dt:.0f} games/s, "
              f"{n_actions / args.games:.0f} actions/game  (target >= 200 games/s)")


if __name__ == "__main__":
    main()
