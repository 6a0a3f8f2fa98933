"""End-to-end (issue 38, item 5): one gesture moves a die on the placing step, in the real web
app (headless Chromium, Flutter's semantics tree). A solo game is prepared with the view-model up
to Ana's placing step (her dice tapped in, so placed by hand), opened from the saved-games list;
an unplaced die is dragged onto a slot (pressed on the die's semantics node, moved in 20 small
steps, released on the slot's), then that placed die onto another slot; the two taps (a die, then
a slot) still place two more, a last drag the fourth; the board is confirmed and the engine's
slots on disk are the ones shown. Three ways: a desktop-sized tab with the mouse, a phone-sized
one with the mouse, and with a finger (Chromium's touch events sent through the DevTools
protocol: the drag must win over the page's scrolling). Each drop is checked by where the die's
node is (inside which slot's node), so a drag that fell back to a tap (which only selects the
die, or puts the selected one) fails. Screenshots go to ``test-artifacts/app-place-drag/`` (gitignored). Skipped with the reason
when /usr/bin/chromium or playwright is missing.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
import webapp  # tests/app/webapp.py

sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))

pytestmark = webapp.e2e_marks()

ARTIFACTS = webapp.REPO / "test-artifacts" / "app-place-drag"
TIMEOUT_MS = 45000
TITLE = "Drag check"

# each die's node: [its label, the label of the slot node it is inside ("" when unplaced)]
_DICE_JS = """() => Array.from(document.querySelectorAll('flt-semantics')).filter(e =>
    /^die /.test(e.getAttribute('aria-label') || e.textContent.trim())).map(e => [
    (e.getAttribute('aria-label') || e.textContent.trim()),
    (e.parentElement && e.parentElement.closest('flt-semantics')
     && /^Slot \\d/.test(e.parentElement.closest('flt-semantics').getAttribute('aria-label') || '')
     ? e.parentElement.closest('flt-semantics').getAttribute('aria-label') : '')])"""


def prepare(data: Path, seed: int = 4) -> tuple[str, list[tuple[str, int]]]:
    """A solo game saved at Ana's placing step; returns (title, her rolled dice)."""
    from game_play import answer, solo_game

    s, vm = solo_game(data, seed, TITLE)
    try:
        rng = random.Random(seed)
        for _ in range(500):
            if vm.step.kind == "place_dice":
                break
            answer(vm, rng)
        else:
            raise AssertionError("never reached the placing step")
        assert vm.step.seat == 0 and not vm.step.from_photo and len(vm.step.rolled) == 4
        return TITLE, [tuple(d) for d in vm.step.rolled]
    finally:
        s.close()


def slots_on_disk(data: Path) -> list[list[tuple[str, int]]] | None:
    with webapp.saved_game(data) as session:
        seat = session.state.seats[0]
        return [[tuple(d) for d in slot] for slot in seat.slots] if all(seat.slots) else None


class Tab(webapp.SemanticsTab):
    timeout_ms = TIMEOUT_MS
    touch = False

    def dice(self) -> list[tuple[str, str]]:
        try:  # a label is the die's name, then the number drawn on it
            return [(d.split("\n", 1)[0], slot.split("\n", 1)[0]) for d, slot in self.page.evaluate(_DICE_JS)]
        except Exception:
            return []

    def where(self) -> dict[str, list[str]]:
        """slot label ("" for the unplaced row) -> the dice labels there."""
        out: dict[str, list[str]] = {}
        for die, slot in self.dice():
            out.setdefault(slot, []).append(die)
        return out

    def die(self, label: str):
        return self.page.get_by_role("button", name=re.compile("^" + re.escape(label) + r"(\s|$)")).first

    def centre(self, locator) -> tuple[float, float]:
        locator.wait_for(timeout=TIMEOUT_MS)
        box = locator.bounding_box()
        assert box, locator
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def drag(self, die_label: str, slot: int) -> None:
        """Press on the die, move the mouse in small steps to the slot's centre, release."""
        page = self.page
        die = self.die(die_label)
        target = page.get_by_role("button", name=re.compile(rf"^Slot {slot}\b")).first
        x0, y0 = self.centre(die)
        x1, y1 = self.centre(target)
        # the slot's centre may be one of its dice: aim a little above its dice row, on its words
        y1 = target.bounding_box()["y"] + 14
        path = [(x0 + (x1 - x0) * k / 20, y0 + (y1 - y0) * k / 20) for k in range(1, 21)]
        if self.touch:  # a finger: Chromium's touch events through the DevTools protocol
            cdp = page.context.new_cdp_session(page)
            cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
            page.wait_for_timeout(50)
            for x, y in path:
                cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
                page.wait_for_timeout(16)
            page.wait_for_timeout(100)
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            cdp.detach()
            return
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.wait_for_timeout(50)
        for x, y in path:
            page.mouse.move(x, y)
            page.wait_for_timeout(16)
        page.wait_for_timeout(100)
        page.mouse.up()

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        webapp.settle(self.page, 300)
        w = self.page.viewport_size["width"]
        self.page.screenshot(path=str(ARTIFACTS / f"{name}-{w}{'-finger' if self.touch else ''}.png"))


@pytest.mark.parametrize("size, touch", [((1280, 900), False), ((412, 860), False), ((412, 860), True)],
                         ids=["desktop-mouse", "phone-mouse", "phone-finger"])
def test_a_die_is_dragged_onto_a_slot_and_the_taps_still_place(tmp_path, size, touch):
    from companion.app.game.texts import GameText

    data = tmp_path / "data"
    title, rolled = prepare(data)
    gt = GameText()
    label = [f"die {gt.die(d)}" for d in rolled]
    assert len(set(label)) == 4, label  # each die found by its name
    with webapp.running_app(data) as (url, _proc), webapp.browser() as ctx:
        page = webapp.open_app(ctx, url, *size, timeout_ms=TIMEOUT_MS)
        webapp.button(page, "Resume a game").click()
        webapp.shown(page, title).wait_for(timeout=TIMEOUT_MS)
        page.wait_for_timeout(300)
        webapp.shown(page, title).click()
        tab = Tab(page, data)
        tab.touch = touch
        tab.wait(lambda: tab.shows("Drag a die onto the slot it goes on"), "the placing hint")
        tab.wait(lambda: sorted(tab.where().get("", [])) == sorted(label), "the four dice unplaced")
        tab.shot("1-unplaced")
        # one gesture: the third die (not the selected one) onto slot 3
        tab.drag(label[2], 3)
        tab.wait(lambda: tab.where().get("Slot 3") == [label[2]], f"{label[2]} dragged onto slot 3")
        tab.shot("2-dragged")
        # a placed die dragged on: slot 3 to slot 1
        tab.drag(label[2], 1)
        tab.wait(lambda: tab.where().get("Slot 1") == [label[2]] and not tab.where().get("Slot 3"),
                 f"{label[2]} dragged from slot 3 onto slot 1")
        # the taps stay: the selected die (the first unplaced) then a slot; a die tapped, then a slot
        page.get_by_role("button", name=re.compile(r"^Slot 2\b")).first.click()
        tab.wait(lambda: tab.where().get("Slot 2") == [label[0]], f"{label[0]} tapped onto slot 2")
        tab.die(label[3]).click()
        page.wait_for_timeout(300)
        page.get_by_role("button", name=re.compile(r"^Slot 4\b")).first.click()
        tab.wait(lambda: tab.where().get("Slot 4") == [label[3]], f"{label[3]} tapped onto slot 4")
        tab.drag(label[1], 3)
        tab.wait(lambda: tab.where().get("Slot 3") == [label[1]] and "" not in tab.where(), "every die placed")
        webapp.shown(page, "Every die has a slot.").wait_for(timeout=TIMEOUT_MS)
        tab.shot("3-placed")
        tab.tap_confirmed(webapp.button(page, "Confirm the board"), "the board")
        assert slots_on_disk(data) == [[rolled[2]], [rolled[0]], [rolled[1]], [rolled[3]]]
