"""Speed figures of the event log (prints them; not a test, no assertions on time).

    python tests/store/bench_saves.py [--games 30] [--seed 21]

Measures, in a temporary folder on the same disk as the system temp dir: confirm (checked
apply + durable append) per action, the append alone, opening a finished 4-seat game (checked
replay), undo and redo, export + import, and listing a folder of games.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from companion.session import GameSession
from companion.simulate import play_game
from companion.store import GameStore


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()

    rec = play_game(args.seed, seats=4, automas=1)
    n = len(rec.actions)
    with tempfile.TemporaryDirectory() as tmp:
        store = GameStore(Path(tmp))
        s = GameSession.create(store, rec.actions[:1])
        confirm_times = []
        for a in rec.actions[1:]:
            t = time.perf_counter()
            s.confirm(a)
            confirm_times.append(time.perf_counter() - t)
        gid = s.game_id

        undo_times = []
        for _ in range(10):
            t = time.perf_counter()
            s.undo()
            undo_times.append(time.perf_counter() - t)
        redo_times = []
        for _ in range(10):
            t = time.perf_counter()
            s.redo()
            redo_times.append(time.perf_counter() - t)
        doc = s.export()
        s.close()

        log = store.create({"title": "plain appends"})
        append_times = []
        for i in range(200):
            t = time.perf_counter()
            log.append({"type": "bench", "i": i}, meta={"round": i})
            append_times.append(time.perf_counter() - t)
        log.close()

        open_times = []
        for _ in range(5):
            t = time.perf_counter()
            with GameSession.open(store, gid):
                pass
            open_times.append(time.perf_counter() - t)

        t = time.perf_counter()
        imp = GameSession.import_game(store, doc)
        import_time = time.perf_counter() - t
        imp.close()
        for i in range(args.games - 2):
            GameSession.import_game(store, doc).close()
        t = time.perf_counter()
        listing = store.list_games()
        list_time = time.perf_counter() - t

    print(f"game: 4 seats (1 automa), {n} actions, seed {args.seed}")
    print(f"confirm (checked apply + durable append): median {ms(statistics.median(confirm_times))}, "
          f"p95 {ms(sorted(confirm_times)[int(len(confirm_times) * 0.95)])}")
    print(f"append alone (store, fsync'd):            median {ms(statistics.median(append_times))}")
    print(f"undo (replay of the remaining actions):    median {ms(statistics.median(undo_times))}")
    print(f"redo (checked apply + append):             median {ms(statistics.median(redo_times))}")
    print(f"open a finished game (checked replay):     median {ms(statistics.median(open_times))}")
    print(f"import the exported game:                  {ms(import_time)}")
    print(f"list {len(listing.games)} games:                            {ms(list_time)}")


if __name__ == "__main__":
    main()
