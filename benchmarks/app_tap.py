"""How fast the game screen answers a tap, with the central board and the seats' boards drawn.

A solo game is prepared at the first turn of round 3 with cubes published
(``tests/app/game/board_scene.py``), served by ``encyclopedia --web`` and opened in headless
Chromium at phone (390 x 844) and desktop (1280 x 900) size. Measured in the page:

- die tap: a raw mouse click on a die of the turn panel until the die's options ("What the
  red 3 can do:") are in Flutter's semantics tree, i.e. painted. The server rebuilds the
  whole screen (turn panel, central board, seats' boards, log) for it. Two dice are tapped
  in turn, N times each;
- tile tap: a click on a display tile of the board until its description is on screen (the
  snack bar; no redraw of the screen);
- undo / redo tap: the app bar's Undo, then Redo, until the action log's count has changed:
  the game changes, so the whole screen is drawn again with a new board (the slow path);
- confirm tap: a die, its Embassy option (untimed), then Confirm until the action log's
  count has changed (the step applied, written to disk with its fsync, and the next step and
  the board drawn); an untimed Undo brings the game back for the next one.

The clock is the page's ``performance.now()``: read just before the click is sent (so the
figure includes the click's own trip from the test to the browser) and when a mutation
observer sees the answer in the DOM. Prints milliseconds.

    python benchmarks/app_tap.py [--taps 10]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "app"), str(ROOT / "tests" / "app" / "game")]

import webapp  # noqa: E402

_WATCH = """([want, more, gone]) => {
  window.__hit = null;
  if (window.__obs) window.__obs.disconnect();
  const count = () => Array.from(document.querySelectorAll('flt-semantics')).filter(e =>
      (e.getAttribute('aria-label') || '').includes(want) || (e.textContent || '').includes(want)).length;
  const base = more ? count() : 0;
  const done = () => gone ? count() === 0 : count() > base;
  window.__obs = new MutationObserver(() => { if (window.__hit === null && done()) window.__hit = performance.now(); });
  window.__obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  return performance.now();
}"""


def timed_click(page, box, want: str, more: bool = False, gone: bool = False) -> float:
    """ms from just before a raw click at ``box``'s centre until ``want`` is in the semantics
    tree (``more``: until one more node than before holds it; ``gone``: until no node does)."""
    page.evaluate(_WATCH, [want, more, gone])
    t0 = page.evaluate("performance.now()")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("window.__hit !== null", timeout=30000, polling="raf")
    return page.evaluate("window.__hit") - t0


def measure(ctx, url: str, title: str, size: tuple[int, int], taps: int) -> dict[str, list[float]]:
    page = webapp.open_app(ctx, url, *size)
    webapp.button(page, "Resume a game").click()
    webapp.shown(page, title).wait_for(timeout=30000)
    page.wait_for_timeout(300)
    webapp.shown(page, title).click()
    page.get_by_role("button", name="Undo").first.wait_for(timeout=30000)
    page.wait_for_timeout(800)
    dice = page.get_by_role("button", name=re.compile(r"^\w+ \d on Ana's slot \d"))
    dice.first.wait_for(timeout=30000)
    labels = [dice.nth(i).get_attribute("aria-label") or dice.nth(i).text_content() for i in range(dice.count())]
    faces = []
    for i, label in enumerate(labels):
        face = re.match(r"^(\w+ \d)", label).group(1)
        if face not in [f for _, f in faces]:
            faces.append((i, face))
    assert len(faces) >= 2, labels
    out: dict[str, list[float]] = {"die tap": [], "tile tap": [], "undo/redo": [], "confirm": []}
    for k in range(taps * 2 + 1):
        i, face = faces[k % 2]
        dice.nth(i).scroll_into_view_if_needed()  # on a phone the table's join panel pushes it down
        box = dice.nth(i).bounding_box()
        ms = timed_click(page, box, f"What the {face} can do:")
        if k:  # the first tap warms the caches (fonts, the options' code path)
            out["die tap"].append(ms)
        page.wait_for_timeout(150)
    # a different tile each time (a snack bar still showing the same line would hide the answer)
    tiles = page.get_by_role("button", name=re.compile(r"^(Expert|Animal) display, slot \d+: "))
    for k in range(min(taps + 1, tiles.count())):
        tile = tiles.nth(k)
        tile.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        name = (tile.get_attribute("aria-label") or tile.text_content()).split("\n")[0]
        ms = timed_click(page, tile.bounding_box(), name, more=True)
        if k:
            out["tile tap"].append(ms)
    page.mouse.wheel(0, -30000)
    page.wait_for_timeout(300)
    n = int(re.search(r"\((\d+)\)", page.get_by_text(re.compile(r"^Action log \(\d+\)")).first.text_content()).group(1))
    undo, redo = page.get_by_role("button", name="Undo").first, page.get_by_role("button", name="Redo").first
    box_u, box_r = undo.bounding_box(), redo.bounding_box()

    def log_count() -> int:
        return int(re.search(r"\((\d+)\)", page.get_by_text(re.compile(r"^Action log \(\d+\)")).first.text_content()).group(1))

    undo.click()  # once untimed: how many actions one Undo takes back here
    page.wait_for_function(f"() => !document.body.innerHTML.includes('Action log ({n})')", timeout=30000)
    page.wait_for_timeout(300)
    m = log_count()
    redo.click()
    page.wait_for_timeout(600)
    for _ in range(taps):
        out["undo/redo"].append(timed_click(page, box_u, f"Action log ({m})"))
        page.wait_for_timeout(300)
        out["undo/redo"].append(timed_click(page, box_r, f"Action log ({n})"))
        page.wait_for_timeout(300)
    for k in range(taps):
        i, face = faces[k % 2]
        dice.nth(i).scroll_into_view_if_needed()
        dice.nth(i).click()
        webapp.shown(page, f"What the {face} can do:").wait_for(timeout=30000)
        page.get_by_role("button", name=re.compile(r"^Embassy\b")).first.click()
        confirm = page.get_by_role("button", name="Confirm", exact=True)
        confirm.wait_for(timeout=30000)
        confirm.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        out["confirm"].append(timed_click(page, confirm.bounding_box(), f"Action log ({n})", gone=True))
        page.wait_for_timeout(300)
        page.mouse.wheel(0, -30000)
        page.wait_for_timeout(200)
        undo.click()
        page.wait_for_function(f"() => document.body.innerHTML.includes('Action log ({n})')", timeout=30000)
        page.wait_for_timeout(300)
    page.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--taps", type=int, default=10)
    args = ap.parse_args()
    why = webapp.missing_requirements()
    if why:
        print(f"cannot measure: {why}")
        return 1
    from board_scene import prepare_board_game

    data = Path(tempfile.mkdtemp(prefix="enc-tap-"))
    title, n = prepare_board_game(data)
    print(f"game: {n} actions, round 3, first turn; the board and both seats' boards drawn")
    with webapp.running_app(data_dir=data) as (url, _proc), webapp.browser(limit_s=None) as ctx:
        for name, size in (("phone 390x844", (390, 844)), ("desktop 1280x900", (1280, 900))):
            res = measure(ctx, url, title, size, args.taps)
            for what, xs in res.items():
                print(f"{name:17s} {what:10s} median {statistics.median(xs):6.1f} ms  "
                      f"(min {min(xs):.1f}, max {max(xs):.1f}, taps {len(xs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
