"""Issue 41, item 6, in the browser: after a Confirm the next step is on screen.

A phone-sized tab (390 x 844) sets up a game, scrolls the page down 700 px (the step's title
leaves the screen), taps an expert that is still in view: the page comes back to the step
(the central board, drawn below the step, is back where it was drawn before the scroll).
Without the scroll after Confirm the page stays 700 px down. About 40 s.
"""

from __future__ import annotations

import time
from pathlib import Path

import webapp  # tests/app/webapp.py

pytestmark = webapp.e2e_marks()

#: a node of the central board, below the step on a phone: where it is tells the page's scroll
MARK = "Location: University"


def _top(page, prefix: str) -> float | None:
    return page.evaluate("""(prefix) => { for (const e of document.querySelectorAll('flt-semantics, [aria-label]')) {
        const t = (e.getAttribute('aria-label') || e.textContent || '').trim();
        if (t.startsWith(prefix)) return e.getBoundingClientRect().top; } return null; }""", prefix)


def _wait(fn, what: str, timeout: float = 30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_next_step_is_scrolled_into_view_after_confirm(tmp_path: Path):
    with webapp.running_app(tmp_path) as (url, _proc), webapp.browser() as ctx:
        page = webapp.open_app(ctx, url, width=390, height=844)
        webapp.button(page, "New game").click()
        webapp.button(page, "Start the game").wait_for(timeout=30000)
        webapp.button(page, "Start the game").click()
        start = _wait(lambda: _top(page, MARK), "the central board")
        page.mouse.move(195, 600)
        page.mouse.wheel(0, 700)
        _wait(lambda: (y := _top(page, MARK)) is not None and y < start - 500, "the page scrolled down")
        expert = None
        for b in page.get_by_role("button").all():
            label = (b.get_attribute("aria-label") or b.inner_text() or "").strip()
            box = b.bounding_box()
            if " · " in label and box and 100 < box["y"] < 780:  # "Name Continent · effect"
                expert = b
                break
        assert expert is not None, "no expert button in view after scrolling"
        expert.click()
        back = _wait(lambda: (y := _top(page, MARK)) is not None and y > start - 150 and y, "the step back on screen")
        assert abs(back - start) < 150, (start, back)
