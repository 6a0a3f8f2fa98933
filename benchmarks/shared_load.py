"""Load check of one shared game (issue 18): PAGES view-models (one per phone) on one
``SharedSession``, each answering the game from its own thread as fast as it can, until ACTIONS
steps have been applied. Prints what was applied and refused, the time per applied step, and
checks that nothing was lost: every answer that was accepted is in the log, the log on disk is
the one in memory, and the state is the replay of the log.

    python benchmarks/shared_load.py [--pages 8] [--actions 200] [--seed 0]

This drives the view-models (the code every page's taps go through), not browsers; the
browser test with two pages is tests/app/test_e2e_shared.py, the same check with eight
headless Chromium pages is benchmarks/shared_load_browser.py.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "app" / "game"))

from game_play import answer  # noqa: E402  (tests/app/game/game_play.py: a seeded player)

from companion.app.game.texts import GameText  # noqa: E402
from companion.app.game.vm import GameVM, LocalCatalogue  # noqa: E402
from companion.app.game.wizard_vm import HUMAN, NewGameVM, SeatDraft  # noqa: E402
from companion.engine import replay  # noqa: E402
from companion.shared_session import LiveGames  # noqa: E402
from companion.store import GameStore  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t = GameText()
    with tempfile.TemporaryDirectory(prefix="enc-load-") as d:
        data = Path(d)
        w = NewGameVM(t, random.Random(args.seed))
        w.seats = [SeatDraft(HUMAN, n) for n in ("Ana", "Ben", "Chloé", "Dario")]
        s = w.create(GameStore(data))
        assert s is not None, w.error
        gid = s.game_id
        s.close()
        live = LiveGames(GameStore(data))
        cat = LocalCatalogue(data / "catalogue.json")
        vms = [GameVM(live.acquire(gid), t, cat) for _ in range(args.pages)]
        shared = vms[0].session
        start_actions = len(shared.actions)
        lock = threading.Lock()
        stats = {"answers": 0, "refused as stale": 0, "other refusals": 0}
        accepted: list[tuple] = []  # (version after, page) of every accepted answer
        barrier = threading.Barrier(args.pages)

        def page(i: int) -> None:
            rng = random.Random(args.seed * 1000 + i)
            vm = vms[i]
            barrier.wait()
            while len(shared.actions) - start_actions < args.actions and vm.step.kind != "game_over":
                before = vm.seen_version
                try:
                    answer(vm, rng)
                except AssertionError:
                    pass  # the seeded player asserts its own success; a refusal is counted below
                with lock:
                    stats["answers"] += 1
                    if vm.error == t("g.err.stale"):
                        stats["refused as stale"] += 1
                    elif vm.error:
                        stats["other refusals"] += 1
                    elif vm.seen_version is not None and before is not None and vm.seen_version > before:
                        accepted.append((vm.seen_version, i))

        t0 = time.perf_counter()
        threads = [threading.Thread(target=page, args=(i,)) for i in range(args.pages)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        elapsed = time.perf_counter() - t0
        applied = len(shared.actions) - start_actions
        # nothing lost: memory = disk = replay, and the versions count every change
        assert replay(shared.actions).to_json() == shared.state.to_json(), "state is not the replay"
        with GameStore(data).open(gid) as log:
            assert log.actions() == [a.to_json() for a in shared.actions], "disk differs from memory"
        assert shared.version >= applied > 0
        for vm in vms:
            assert vm.state is shared.state
            live.release(vm.session)
        print(f"{args.pages} pages on one game, {applied} actions applied in {elapsed:.2f} s "
              f"({elapsed / applied * 1000:.1f} ms per action, fsync to {data} included)")
        print(f"answers tried {stats['answers']}: accepted {len(accepted)}, refused as stale "
              f"{stats['refused as stale']}, other refusals {stats['other refusals']}")
        print("nothing lost: the log on disk equals the one in memory and the state equals its replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
