"""Start-up time of the app in web mode, to the first interactive screen.

Measures, over N runs (fresh server process and fresh browser tab each time):

- server: from launching ``encyclopedia --web`` to the port accepting connections;
- page:   from the browser requesting the page to the start screen's "Resume a game" button
          being present and enabled in Flutter's semantics tree (i.e. the user can tap it);
- total:  the two added (what a user waits after starting the app and opening the address).

Needs /usr/bin/chromium and the playwright package. Prints seconds.
    python benchmarks/app_startup.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "app"))

import webapp  # noqa: E402


def one_run(ctx) -> tuple[float, float]:
    t0 = time.perf_counter()
    with webapp.running_app() as (url, _proc):
        t_server = time.perf_counter() - t0
        page = ctx.new_page()
        t1 = time.perf_counter()
        page.goto(url)
        webapp.enable_semantics(page)
        webapp.button(page, "Resume a game").wait_for(state="visible", timeout=30000)
        t_page = time.perf_counter() - t1
        page.close()
    return t_server, t_page


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    why = webapp.missing_requirements()
    if why:
        print(f"cannot measure: {why}")
        return 1
    rows = []
    with webapp.browser(limit_s=None) as ctx:
        one_run(ctx)  # warm-up: first Chromium start, OS file cache
        for _ in range(args.runs):
            rows.append(one_run(ctx))
    servers, pages = [r[0] for r in rows], [r[1] for r in rows]
    totals = [a + b for a, b in rows]
    for name, xs in (("server", servers), ("page", pages), ("total", totals)):
        print(f"{name:7s} median {statistics.median(xs):.2f} s  (min {min(xs):.2f}, max {max(xs):.2f}, runs {len(xs)})")
    print("first interactive screen in web mode (page load to tappable start screen): "
          f"{statistics.median(pages):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
