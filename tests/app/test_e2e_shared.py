"""End-to-end (issue 18, step b): two browser pages on one game, in the real web app (headless
Chromium, Flutter's semantics tree).

A two-seat game is prepared at its first set-up step (the expert display) and opened from the
Resume list on two tabs, as two phones at the table would. Then:

- an expert revealed on page A appears on page B without a reload (the delay from A's tap to
  B's new question is measured and printed; target < 500 ms);
- an Undo on page B appears on page A (delay printed too);
- the log on disk equals its replay and holds exactly the steps confirmed.

Screenshots go to ``test-artifacts/app-shared/`` (gitignored). Skipped with the reason when
/usr/bin/chromium or playwright is missing.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import pytest
import webapp  # tests/app/webapp.py

sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))

pytestmark = webapp.e2e_marks()

ARTIFACTS = webapp.REPO / "test-artifacts" / "app-shared"
TIMEOUT_MS = 30000
TITLE = "Shared table"
SLOT = "Slot {slot} of 6: tap the expert turned face up."


def prepare(data: Path) -> str:
    from test_game_shared import make_game

    return make_game(data, title=TITLE)


def on_disk(data: Path, gid: str):
    with webapp.saved_game(data, gid) as session:
        return session.state, session.actions


def first_candidate(data: Path, gid: str) -> str:
    """The first expert the screen offers (as the screen lists them)."""
    from companion.app.game.vm import GameVM
    from companion.session import GameSession
    from companion.store import GameStore

    session = GameSession.open(GameStore(data), gid)
    try:
        return GameVM(session).step.candidates()[0]
    finally:
        session.close()


def open_game(ctx, url):
    page = webapp.open_app(ctx, url, 1280, 900)
    webapp.button(page, "Resume a game").click()
    webapp.shown(page, TITLE).wait_for(timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)
    webapp.shown(page, TITLE).click()
    webapp.shown(page, SLOT.format(slot=1)).wait_for(timeout=TIMEOUT_MS)
    return page


def wait_shown(page, text, timeout_ms=TIMEOUT_MS) -> float:
    """Seconds until ``text`` is on ``page`` (polled every 10 ms in the page)."""
    t0 = time.monotonic()
    page.wait_for_function(
        """(t) => Array.from(document.querySelectorAll('flt-semantics')).some(e =>
            (e.getAttribute('aria-label') || '').includes(t) || (e.textContent || '').includes(t))""",
        arg=text, polling=10, timeout=timeout_ms)
    return time.monotonic() - t0


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e-shared-data")
    gid = prepare(data)
    with webapp.running_app(data_dir=data) as (url, _proc):
        yield url, data, gid


def test_two_pages_follow_one_game(table):
    url, data, gid = table
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    with webapp.browser() as ctx:
        a = open_game(ctx, url)
        b = open_game(ctx, url)
        st, actions = on_disk(data, gid)
        assert len(actions) == 1
        name = first_candidate(data, gid)
        delays: dict[str, list[float]] = {"A's step seen on B": [], "B's undo seen on A": [], "A's redo seen on B": []}
        # A reveals an expert: B moves on to slot 2 without a reload
        webapp.shown(a, name).click()
        t0 = time.monotonic()
        wait_shown(b, SLOT.format(slot=2))
        delays["A's step seen on B"].append(time.monotonic() - t0)
        wait_shown(a, SLOT.format(slot=2))
        st, actions = on_disk(data, gid)
        assert len(actions) == 2 and st.expert_display[0] == name
        a.screenshot(path=str(ARTIFACTS / "a-after-reveal.png"))
        b.screenshot(path=str(ARTIFACTS / "b-after-reveal.png"))
        for _ in range(3):
            # B undoes it: A is back at slot 1
            b.wait_for_timeout(300)
            webapp.button(b, "Undo").first.click()
            t0 = time.monotonic()
            wait_shown(a, SLOT.format(slot=1))
            delays["B's undo seen on A"].append(time.monotonic() - t0)
            wait_shown(b, SLOT.format(slot=1))
            st, actions = on_disk(data, gid)
            assert len(actions) == 1 and not any(st.expert_display)
            # A redoes it: B at slot 2 again
            a.wait_for_timeout(300)
            webapp.button(a, "Redo").first.click()
            t0 = time.monotonic()
            wait_shown(b, SLOT.format(slot=2))
            delays["A's redo seen on B"].append(time.monotonic() - t0)
            wait_shown(a, SLOT.format(slot=2))
            st, actions = on_disk(data, gid)
            assert len(actions) == 2 and st.expert_display[0] == name
        for what, ds in delays.items():
            print(f"{what}: " + ", ".join(f"{d * 1000:.0f}" for d in ds) + " ms")
        worst = max(statistics.median(ds) for ds in delays.values())
        assert worst < 2.0, delays  # target < 0.5 s; margin for a loaded shared machine


def test_a_page_from_another_address_needs_the_join_code(tmp_path):
    """Served on every interface, a page opened through the machine's LAN address counts as
    another device: it sees the join form and nothing of the game until it types the code that
    the table's screen (a page on 127.0.0.1) shows."""
    import os
    import re

    from companion.app.launch import lan_ip as lan_address

    if os.environ.get("ENCYCLOPEDIA_E2E_LAN") != "1":
        # Opening the app through this machine's network address sends test traffic to a
        # private-range address, which the shared build machines do not allow (test traffic goes
        # to loopback addresses only). The gate is tested without it at screen level
        # (tests/app/game/test_game_shared.py); run this one on your own machine with
        # ENCYCLOPEDIA_E2E_LAN=1.
        pytest.skip("needs ENCYCLOPEDIA_E2E_LAN=1: it browses this machine's LAN address")
    lan = lan_address()
    if lan.startswith("127."):
        pytest.skip("this machine has no address besides the loopback")
    data = tmp_path / "data"
    prepare(data)
    with webapp.running_app(data, host="0.0.0.0") as (url, _proc):
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with webapp.browser() as ctx:
            table = open_game(ctx, url)
            try:
                wait_shown(table, "enter the join code")
            finally:
                table.wait_for_timeout(500)
                table.screenshot(path=str(ARTIFACTS / "table-host.png"))
            panel = " ".join(t for t in table.evaluate(
                "() => Array.from(document.querySelectorAll('flt-semantics')).map(e =>"
                " (e.getAttribute('aria-label') || '') + ' ' + (e.textContent || ''))"))
            code = re.search(r"enter the join code (\d{8})", panel).group(1)
            phone = webapp.open_app(ctx, f"http://{lan}:{port}/", 390, 844)
            webapp.button(phone, "Resume a game").click()
            # a phone's list: the game open at the table, without its title or seats (docs/app.md)
            webapp.shown(phone, "Game open on the table's screen").wait_for(timeout=TIMEOUT_MS)
            phone.wait_for_timeout(300)
            listed = " ".join(phone.evaluate(
                "() => Array.from(document.querySelectorAll('flt-semantics')).map(e =>"
                " (e.getAttribute('aria-label') || '') + ' ' + (e.textContent || ''))"))
            assert TITLE not in listed and "Ana" not in listed
            webapp.shown(phone, "Game open on the table's screen").click()
            wait_shown(phone, "Enter the join code shown there")
            phone.wait_for_timeout(300)
            seen = " ".join(phone.evaluate(
                "() => Array.from(document.querySelectorAll('flt-semantics')).map(e =>"
                " (e.getAttribute('aria-label') || '') + ' ' + (e.textContent || ''))"))
            assert "Slot 1 of 6" not in seen and "Ana" not in seen and code not in seen
            wrong = str((int(code) + 1) % 10**8).zfill(8)
            webapp.type_into(phone, webapp.textbox(phone, "Join code"), wrong)
            webapp.button(phone, "Join").click()
            wait_shown(phone, "That is not this game's join code.")
            webapp.type_into(phone, webapp.textbox(phone, "Join code"), code)
            webapp.button(phone, "Join").click()
            wait_shown(phone, SLOT.format(slot=1))
            phone.screenshot(path=str(ARTIFACTS / "phone-joined.png"))
