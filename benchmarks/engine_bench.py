"""Engine speed figures (prints them; no assertion).

    python benchmarks/engine_bench.py [--games N] [--rounds R] [--json]

- replay of the recorded 4-seat game ``samples/games/random-4-seats.json``: unchecked apply (the
  path a trusted saved game takes) and the checked ``apply`` (the path the session uses to
  reopen or import a game);
- random 4-seat games per second on one core: seeded random legal players + the seeded chance
  source, every action through the checked ``apply`` (the simulator without its invariant
  checks), and the same games through ``apply_unchecked``; with the number of actions per game.

Targets (issue 2): replay < 5 ms; >= 200 random games/s. Times are CPU time of this process
(``time.process_time``, so other processes' load does not count directly) and each figure is
the best of ``--rounds`` rounds, like ``timeit``: on a shared machine the slower rounds measure
the neighbours, not the engine.
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


def games_per_second(games: int, rounds: int, checked: bool) -> tuple[float, float]:
    """(games/s, actions per game) for ``games`` seeded 4-seat games, best of ``rounds``."""
    n_actions = 0

    def run() -> None:
        nonlocal n_actions
        n_actions = 0
        for seed in range(games):
            n_actions += len(play_game(seed, 4, 0, check=False, checked_apply=checked).actions)

    dt = best_of(run, rounds)
    return games / dt, n_actions / games


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=60, help="games per round (default 60)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds; the best is reported (default 5)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args(argv)
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    actions = actions_from_json(doc["actions"])
    replay(actions)  # warm up
    t_unchecked = best_of(lambda: [replay(actions) for _ in range(10)], 10) / 10
    t_checked = best_of(lambda: [replay(actions, checked=True) for _ in range(10)], 10) / 10
    checked, per_game = games_per_second(args.games, args.rounds, True)
    unchecked, _ = games_per_second(args.games, args.rounds, False)
    figures = {"replay_actions": len(actions), "replay_ms_unchecked": round(t_unchecked * 1000, 3),
               "replay_ms_checked": round(t_checked * 1000, 3), "games": args.games, "rounds": args.rounds,
               "actions_per_game": round(per_game, 1), "games_per_s_checked": round(checked, 1),
               "games_per_s_unchecked": round(unchecked, 1)}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"replay of {SAMPLE.name} ({len(actions)} actions): {t_unchecked * 1000:.2f} ms unchecked, "
          f"{t_checked * 1000:.2f} ms checked  (target < 5 ms)")
    print(f"random 4-seat games, {per_game:.0f} actions/game (best of {args.rounds} rounds of {args.games} games):")
    print(f"  checked apply:   {checked:.0f} games/s  (target >= 200)")
    print(f"  unchecked apply: {unchecked:.0f} games/s")


if __name__ == "__main__":
    main()
