"""Load check of one shared game in real browsers (issue 18): PAGES headless Chromium tabs
(one per phone) on one game served by ``encyclopedia --web``, driven round-robin until ACTIONS
changes have been applied; several pages tap at once each time, so most taps are on a question
another page has just answered and must be refused as stale. At the end every page must show
the same action log as the game on disk, and the log on disk must equal its replay.

    python benchmarks/shared_load_browser.py [--pages 8] [--actions 200] [--rush 3]

Each burst: the leading page (round-robin) and the next RUSH-1 pages read their own screen
(all showing the same step) and tap at once: on the expert display a different expert each, on
the animal display a different continent each, on any other step Undo (so the game churns
between its set-up reveals and their undo: every change goes through the engine's checked
apply and is written to disk). Then the script waits until all pages show the game on disk.
Figures printed: changes applied (undo included), taps, taps refused as stale (the page shows
the message), seconds. The view-model version of this check (threads, no browser) is
benchmarks/shared_load.py.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "app"))

import webapp  # noqa: E402  (tests/app/webapp.py)

STALE = "Another phone changed the game first"
EXPERT_SLOT = re.compile(r"Slot (\d) of 6: tap the expert")
ANIMAL_SLOT = re.compile(r"Slot (\d) of (\d): tap the continent")
NODES_JS = """() => Array.from(document.querySelectorAll('flt-semantics')).map(e => [
    e.getAttribute('role') || '', e.getAttribute('aria-label') || '',
    Array.from(e.childNodes).filter(n => n.nodeType === 3 || n.tagName === 'SPAN')
        .map(n => n.textContent).join('').trim()])"""


class Tab(webapp.ScreenTab):
    timeout_ms = 120000

    def nodes(self):
        try:
            return self.page.evaluate(NODES_JS)
        except Exception:
            return []


def prepare(data: Path, seed: int) -> str:
    from companion.app.game.texts import GameText
    from companion.app.game.wizard_vm import HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    w = NewGameVM(GameText(), random.Random(seed))
    w.seats = [SeatDraft(HUMAN, n) for n in ("Ana", "Ben", "Chloé", "Dario")]
    w.shuffle_all()
    s = w.create(GameStore(data))
    assert s is not None, w.error
    s.rename("Load table")
    gid = s.game_id
    s.close()
    return gid


def disk(data: Path, gid: str):
    """(entries on disk, action-log count and step title as a page shows them); checks that
    the state is the replay of the log."""
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM
    from companion.engine import replay
    from companion.session import GameSession
    from companion.store import GameStore

    store = GameStore(data)
    with store.open(gid) as log:
        entries = len(log.entries)
    session = GameSession.open(store, gid)
    try:
        assert replay(session.actions).to_json() == session.state.to_json(), "the state is not the replay"
        vm = GameVM(session, GameText())
        return entries, len(vm.log()), vm.step.title(), len(session.actions)
    finally:
        session.close()


def targets(tab: Tab, k: int):
    """What page number ``k`` of a burst taps on its own screen: a locator."""
    page, texts = tab.page, tab.texts()
    joined = "\n".join(texts)
    if EXPERT_SLOT.search(joined):
        names = [t.split("\n", 1)[0] for t in texts if re.search(r"\n(America|Africa|Asia|Europe|Oceania) · ", t)]
        if names:
            return "reveal an expert", webapp.shown(page, names[k % min(len(names), 4)])
    if ANIMAL_SLOT.search(joined):
        conts = [t for t in texts if re.match(r"^(America|Africa|Asia|Europe|Oceania) \((\d+) left\)$", t)
                 and not t.endswith("(0 left)")]
        if conts:
            return "reveal an animal", page.get_by_role("button", name=conts[k % len(conts)], exact=True).first
    return "undo", webapp.button(page, "Undo").first


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--rush", type=int, default=3, help="pages tapping at once in each burst")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="a line per burst")
    args = ap.parse_args(argv)
    if webapp.missing_requirements():
        print(webapp.missing_requirements())
        return 2
    with tempfile.TemporaryDirectory(prefix="enc-load-browser-") as d:
        data = Path(d)
        gid = prepare(data, args.seed)
        with webapp.running_app(data) as (url, _proc), webapp.browser(limit_s=None) as ctx:
            tabs = []
            t_open = time.perf_counter()
            for _ in range(args.pages):
                tabs.append(Tab(webapp.open_app(ctx, f"{url}game/{gid}", 1024, 1400, timeout_ms=120000), data))
            entries0, n0, title0, _ = disk(data, gid)
            for t in tabs:
                t.wait(lambda t=t: t.log_count() == n0, "every page on the game")
            print(f"{args.pages} pages open on the game in {time.perf_counter() - t_open:.1f} s")
            stats = {"taps": 0, "stale": 0, "bursts": 0, "unaccounted": 0}
            kinds: dict[str, int] = {}
            entries = entries0
            t0 = time.perf_counter()
            while entries - entries0 < args.actions:
                lead = stats["bursts"] % args.pages
                rush = [tabs[(lead + i) % args.pages] for i in range(min(args.rush, args.pages))]
                boxes = []
                for i, t in enumerate(rush):
                    what, loc = targets(t, i)
                    box = loc.bounding_box(timeout=30000)
                    if box is None:  # not laid out (the screen changed under the driver): no tap
                        continue
                    boxes.append((t, box))
                    kinds[what] = kinds.get(what, 0) + 1
                for t, b in boxes:  # as close together as one driver can: the pages race
                    t.page.mouse.click(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
                stats["taps"] += len(boxes)
                stats["bursts"] += 1
                # wait until something was applied and every page shows the game on disk
                deadline = time.monotonic() + 120
                while True:
                    now, n, title, _ = disk(data, gid)
                    if now > entries and all(t.log_count() == n for t in tabs):
                        break
                    if time.monotonic() > deadline:
                        raise AssertionError(f"pages did not settle: disk {n}, pages {[t.log_count() for t in tabs]}")
                    time.sleep(0.05)
                applied = now - entries
                entries = now
                # the other tappers: refused as stale (the message on their page)
                want = len(boxes) - applied
                end = time.monotonic() + 1.5
                while True:
                    stale = sum(1 for t, _ in boxes if any(STALE in x for x in t.texts()))
                    if stale >= want or time.monotonic() > end:
                        break
                    time.sleep(0.05)
                if args.verbose:
                    print(f"burst {stats['bursts']}: {[k for k in kinds]} applied {applied} stale {stale} "
                          f"errors {[[x for x in t.texts() if 'Another' in x or 'rror' in x][:1] for t, _ in boxes]}")
                stats["stale"] += stale
                stats["unaccounted"] += max(0, want - stale)
            elapsed = time.perf_counter() - t0
            # the end: nothing lost, every page on the same state
            final, n, title, count = disk(data, gid)
            for t in tabs:
                t.wait(lambda t=t: t.log_count() == n and any(title in x for x in t.texts()),
                       f"every page at the game on disk ({n}, {title})")
            counts = {t.log_count() for t in tabs}
            assert counts == {n}, counts
            applied = final - entries0
            print(f"{args.pages} browser pages on one game: {applied} changes applied in {elapsed:.1f} s "
                  f"({elapsed / applied:.2f} s per change, {stats['bursts']} bursts of {args.rush} taps at once)")
            print(f"taps {stats['taps']}: applied {applied}, refused as stale {stats['stale']}, "
                  f"no message {stats['unaccounted']} (nothing applied either); taps by kind " +
                  ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
            print(f"final: {count} actions in the log, every page shows 'Action log ({n})' at '{title}'; "
                  "the log on disk equals its replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
