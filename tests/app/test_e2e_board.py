"""End-to-end: the drawn central board and the seats' boards in the real web app (headless
Chromium, Flutter's semantics tree), on a phone (390 x 844) and a desktop (1280 x 900).

A solo game is prepared with the view-model up to the first turn of round 3, with cubes already
published (``tests/app/game/board_scene.py``), opened from the Resume list on a phone-sized tab,
and the whole round is played in the browser: half of it at phone size, the rest after the tab
is widened to desktop size. After every step the board on screen is compared with the engine's
state rebuilt from the saved game on disk (what Resume would show):

- every location, expedition space, publication cell, reputation space, round and display tile
  is on screen with the line that says what it holds (``board_vm``'s words for the engine state);
- independently of those words: as many dice on the board as the engine has on the central
  board, each seat's marker on its reputation space, each seat's published cubes in the grid,
  the display tiles in slot order, each seat's numbers;
- a tap on a tile shows what it is.

Screenshots go to ``test-artifacts/app-board/`` (gitignored). Skipped with the reason when
/usr/bin/chromium or playwright is missing.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
import webapp  # tests/app/webapp.py

sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))

pytestmark = webapp.e2e_marks()

ARTIFACTS = webapp.REPO / "test-artifacts" / "app-board"
TIMEOUT_MS = 30000
PHONE = (390, 844)
DESKTOP = (1280, 900)
HUMAN, AUTOMA = "Ana", "Automa"

_LABELS_JS = """() => Array.from(document.querySelectorAll('flt-semantics')).map(e => [
    e.getAttribute('role') || '', e.getAttribute('aria-label') || '',
    Array.from(e.childNodes).filter(n => n.nodeType === 3 || n.tagName === 'SPAN')
        .map(n => n.textContent).join('').trim()])"""
DIE_MARK = re.compile(r"^(red|yellow|purple|blue|green) (\d+), placed by (.+)$")


def engine(data: Path):
    """(state, actions) of the one saved game, rebuilt from its file."""
    with webapp.saved_game(data) as session:
        return session.state, session.actions


class Tab(webapp.ScreenTab):
    timeout_ms = TIMEOUT_MS
    artifacts = ARTIFACTS

    def nodes(self):
        return self.page.evaluate(_LABELS_JS)

    def heading(self) -> str:
        for t in self.texts():
            first = t.split("\n", 1)[0]
            if re.match(r"^(Expert display|.+ \(automa\)|.+: take an (animal|expert)|.+ took .+: its four categories"
                        r"|.+'s turn|.+: research|.+: end-of-round seal action|.+: roll the seal-action die)$", first):
                return first
        return ""

    def scroll(self, dy: int) -> None:
        w = self.page.viewport_size["width"]
        self.page.mouse.move(w * 0.75, 400)
        self.page.mouse.wheel(0, dy)
        self.page.wait_for_timeout(250)

    def all_labels(self) -> list[str]:
        """Every accessible name and text of the page, scrolled from top to bottom (Flutter
        keeps only what is near the viewport in its semantics tree)."""
        self.scroll(-30000)
        seen: list[str] = []
        stale = 0
        for _ in range(30):
            new = [x for x in self.texts() if x not in seen]
            seen += new
            stale = stale + 1 if not new else 0
            if stale >= 2:
                break
            self.scroll(500)
        self.scroll(-30000)
        return seen


def has(labels: list[str], info: str) -> bool:
    """``info`` is the accessible name of a node (Flutter may append the node's own texts)."""
    return any(x == info or x.startswith(info + "\n") or x.startswith(info + " ") for x in labels)


def check_board(t: Tab, when: str) -> dict:
    """The board on screen is the engine's state (see the module's docstring)."""
    from companion.app.game import board_vm as bv
    from companion.app.game.texts import GameText

    st, actions = engine(t.data)
    gt = GameText("en")
    placements = bv.round_placements(actions)
    board = bv.central_board(st, placements, gt)
    seats = bv.seat_boards(st, gt)

    def missing(labels):
        want = [x.info for x in (*board.locations, board.expedition)]
        want += [s.info for tr in board.tracks for s in tr.spaces]
        want += [c.info for r in board.publication for c in r.cells]
        want += [r.info for r in board.reputation] + [r.info for r in board.rounds]
        want += [x.info for x in board.experts + board.animals]
        want += [sb.stats_info for sb in seats] + [sl.info for sb in seats for sl in sb.slots]
        want += [c.info for sb in seats for c in sb.columns] + [x.tile.info for sb in seats for x in sb.study]
        return [x for x in want if not has(labels, x)]

    labels = t.all_labels()
    gone = missing(labels)
    if gone:  # a redraw may have landed during the scroll: read once more
        labels = t.all_labels()
        gone = missing(labels)
    assert not gone, f"{when}: not on screen: {gone[:8]}"

    # independent of the board's own words: the engine's numbers
    dice = [m for x in labels if (m := DIE_MARK.match(x.split("\n")[0]))]
    from collections import Counter

    assert Counter(m.group(1) for m in dice) == Counter({c: k for c, k in st.central.items() if k}), (when, st.central)
    for s in st.seats:
        rep = next(x for x in labels if x.startswith(f"Reputation {s.rep} ") or x.startswith(f"Reputation {s.rep}\n")
                   or x == f"Reputation {s.rep}" or re.match(rf"^Reputation {s.rep} ·", x))
        assert s.name in rep, (when, s.name, s.rep, rep)
        w = lambda n, one: f"{n} {one if n == 1 else one + 's'}"  # noqa: E731  (1 token, issue 41)
        assert has(labels, f"{s.name}: {w(s.coins, 'coin')} · {w(s.tokens, 'token')} · {w(s.seals, 'seal')} · {s.vp} VP · reputation {s.rep}")
        for cat, n in s.pub_cubes.items():
            if n:
                cell = next(x for x in labels if re.match(rf"^Type [IV]+ · {gt.category(cat)} \(", x))
                assert f"{s.name} {n}" in cell, (when, cat, n, cell)
    tiles = [x for x in labels if x.startswith("Expert display, slot ")]
    for k, name in enumerate(st.expert_display):
        want = f"Expert display, slot {k + 1}: " + (name or "empty")
        assert any(x.startswith(want) for x in tiles), (when, want)
    for k, cid in enumerate(st.animal_display):
        assert any(x.startswith(f"Animal display, slot {k + 1}: ") for x in labels), (when, k)
    used = sum(st.expedition.values())
    return {"dice": len(dice), "spaces used": used, "round": st.round}


def play_one_step(t: Tab, turn_no: int) -> str:
    """Answer the current step as a table would; returns the heading answered."""
    page = t.page
    h = t.wait(t.heading, "a step heading")
    if h == f"{HUMAN}'s turn":
        die = page.get_by_role("button", name=re.compile(rf"^\w+ \d on ({HUMAN}|{AUTOMA})'s slot \d")).first
        die.click()
        webapp.shown(page, "What the ").wait_for(timeout=TIMEOUT_MS)
        expedition = page.get_by_role("button", name=re.compile(r"^Expedition to "))
        embassy = page.get_by_role("button", name=re.compile(r"^Embassy\b"))
        option = expedition.first if turn_no % 2 == 0 and expedition.count() else embassy.first
        option.click()
        t.page.get_by_role("button", name="Confirm", exact=True).wait_for(timeout=TIMEOUT_MS)
        t.tap_confirmed(page.get_by_role("button", name="Confirm", exact=True), "the turn")
    elif h == f"{HUMAN}: research":
        confirm = page.get_by_role("button", name="Confirm the research", exact=True)
        confirm.wait_for(timeout=TIMEOUT_MS)
        if confirm.get_attribute("aria-disabled") == "true":  # at least one cube: the cheapest chip
            cube = re.compile(r"^[a-z]+ \(\d+\)")
            chip = page.get_by_role("checkbox", name=cube).or_(page.get_by_role("button", name=cube))
            chip.first.click()
            t.wait(lambda: confirm.get_attribute("aria-disabled") != "true", "the research to be possible")
        t.tap_confirmed(confirm, "the research")
    elif h == f"{AUTOMA} (automa)":
        t.tap_confirmed(page.get_by_role("button", name="Done", exact=True), "the automa's card")
    elif h.endswith(": take an animal"):
        card = page.get_by_role("button", name=re.compile(r"^(Africa|America|Asia|Europe|Oceania) animal #\d+$|.+ \((Africa|America|Asia|Europe|Oceania)\)$"))
        t.tap_confirmed(card.first, "an animal taken")
    elif h.endswith(": take an expert"):
        # each button is named with its expert ("Take Safi Limbila", issue 41 item 15)
        t.tap_confirmed(page.get_by_role("button", name=re.compile(r"^Take (?!.* and use it now$)")).first, "an expert taken")
    elif h.endswith("its four categories"):
        from companion.content.vocab import CATEGORIES_BY_TYPE

        for typ in (1, 2, 3, 4):
            # a chip is named with its group ("Type I · class: mammal", issue 41 item 15)
            chip = page.get_by_role("checkbox", name=re.compile(rf": {re.escape(CATEGORIES_BY_TYPE[typ][0])}$"))
            chip.click()
            t.wait(lambda c=chip: c.get_attribute("aria-checked") == "true", "a category chosen")
        t.tap_confirmed(page.get_by_role("button", name="Save the categories", exact=True), "the categories")
    elif h.endswith("end-of-round seal action"):
        t.tap_confirmed(page.get_by_role("button", name="No seal action", exact=True), "no seal action")
    else:
        raise AssertionError(f"unexpected step {h!r}")
    return h


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    from board_scene import prepare_board_game

    data = tmp_path_factory.mktemp("e2e-board-data")
    title, _ = prepare_board_game(data)
    with webapp.running_app(data_dir=data) as (url, _proc):
        yield url, data, title


def test_board_shows_the_engine_state_through_a_round(scene):
    url, data, title = scene
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    started = time.monotonic()
    with webapp.browser() as ctx:
        page = webapp.open_app(ctx, url, *PHONE)
        t = Tab(page, data)
        webapp.button(page, "Resume a game").click()
        webapp.shown(page, title).wait_for(timeout=TIMEOUT_MS)
        page.wait_for_timeout(300)
        webapp.shown(page, title).click()
        page.get_by_role("button", name="Undo").first.wait_for(timeout=TIMEOUT_MS)
        st, _ = engine(data)
        the_round = st.round
        assert the_round >= 2 and any(s.pub_cubes for s in st.seats)
        t.wait(lambda: t.heading() == f"{HUMAN}'s turn", "Ana's first turn")
        first = check_board(t, "at the start of the round")
        assert first["dice"] == 0
        t.shot("phone-turn")
        t.scroll(900)
        t.shot("phone-board")
        t.scroll(900)
        t.shot("phone-board-2")
        t.scroll(-30000)

        # a tap on a tile says what it is
        name = st.expert_display[0]
        tile = page.get_by_role("button", name=re.compile(rf"^Expert display, slot 1: {re.escape(name)}"))
        for _ in range(12):
            if tile.count():
                break
            t.scroll(400)
        tile.first.click()
        webapp.shown(page, f"Expert display, slot 1: {name} (").wait_for(timeout=TIMEOUT_MS)
        t.shot("phone-tap-tile")
        t.scroll(-30000)

        # the round, half at phone size, half at desktop size, the board checked after each step
        seen = {"dice": 0, "spaces used": 0}
        steps = 0
        for turn_no in range(60):
            st, _ = engine(data)
            if st.round != the_round:
                break
            if steps == 6:
                page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
                t.wait(lambda: t.heading(), "the desktop layout")
                page.wait_for_timeout(500)
                t.shot("desktop-mid-round")
            play_one_step(t, turn_no)
            steps += 1
            got = check_board(t, f"after step {steps}")
            seen["dice"] = max(seen["dice"], got["dice"])
            seen["spaces used"] = max(seen["spaces used"], got["spaces used"])
            if steps in (2, 7):
                t.shot(f"{'phone' if steps < 6 else 'desktop'}-after-step-{steps}")
        else:
            raise AssertionError("the round did not end")
        assert steps > 6, "the round was played at both sizes"
        assert seen["dice"] >= 3 and seen["spaces used"] >= 1, seen
        # the next round: the board is cleared, the round track moves on
        last = check_board(t, "after the round")
        assert last["dice"] == 0 and last["round"] == the_round + 1
        t.shot("desktop-next-round")
        page.close()
    print(f"\nboard e2e: {steps} steps in {time.monotonic() - started:.1f} s, {len(t.shots)} screenshots in {ARTIFACTS}")
