"""End-to-end (issue 18): a page that reloads mid-round comes back at the same step, and a tap
on a stale page is refused, in the real web app (headless Chromium, Flutter's semantics tree).

- A solo game prepared mid-round (round 3, dice on the board: ``board_scene``) is opened from
  the saved-games list; the page confirms changes (an Undo, a Redo); then it reloads (Flet's
  own session comes back), reloads as a new session (the tab's session storage cleared, as when
  the server has forgotten it), and is closed and the game's address opened in a new tab: each
  time the page shows the same game at the same step (the step's title and the status line of
  the game on disk, the same action-log count) without the saved-games list.
- Two tabs on one game, the redraw of changes made elsewhere held back 8 s in the server
  (``ENCYCLOPEDIA_TEST_HOLD_REMOTE_REDRAW_S``, a test hook): A reveals an expert, B taps another
  expert on its old question: B shows the stale message, the log on disk and on both screens
  holds A's step only and equals its replay.
- The same when the server has already redrawn B (B's old controls gone from Flet's index) but
  B's browser has not shown it yet (the server's messages to B held back by the test): B's tap
  on its old question, which Flet drops, gets the stale message (``companion.app.common.flet_events``).
- A phone (a page whose connection comes from 127.0.0.2, through a forwarder in this test: only
  loopback traffic) opening the game's address sees the join form, enters the code once;
  reloaded as a new page, or on the game's address in a new tab, it is back in the game without
  typing it (its browser remembers the code, the server checks it again); a wrong remembered
  code is refused and forgotten; with no code in its storage it sees the join form again.

Screenshots go to ``test-artifacts/app-rejoin/`` (gitignored). Skipped with the reason when
/usr/bin/chromium or playwright is missing.
"""

from __future__ import annotations

import re
import socket
import sys
import threading
from pathlib import Path

import webapp  # tests/app/webapp.py

sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))

pytestmark = webapp.e2e_marks()

ARTIFACTS = webapp.REPO / "test-artifacts" / "app-rejoin"
TIMEOUT_MS = 45000
HOLD_S = 8.0


class Tab(webapp.SemanticsTab):
    timeout_ms = TIMEOUT_MS

    def at(self, game) -> bool:
        """The screen shows ``game`` = (log count, step title, status line)."""
        n, title, status = game
        return self.log_count() == n and self.shows(title) and self.shows(status)

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def on_disk(data: Path, gid: str | None = None):
    """(log count, step title, status line) of the saved game as Resume would show it, after
    checking that the log on disk equals its replay; and the actions."""
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM

    with webapp.saved_game(data, gid) as session:
        vm = GameVM(session, GameText())
        return (len(vm.log()), vm.step.title(), vm.status_line()), session.actions


def open_from_list(ctx, url: str, title: str, width=1280, height=900) -> Tab:
    page = webapp.open_app(ctx, url, width, height, timeout_ms=TIMEOUT_MS)
    webapp.button(page, "Resume a game").click()
    webapp.shown(page, title).wait_for(timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)
    webapp.shown(page, title).click()
    return Tab(page, Path("."))


def reopen(tab: Tab, clear_session: bool = False) -> None:
    page = tab.page
    if clear_session:  # Flet keeps its session id there: without it the server sees a new page
        page.evaluate("() => sessionStorage.clear()")
    page.reload()
    webapp.enable_semantics(page, TIMEOUT_MS)


def test_a_reloaded_page_comes_back_at_the_same_step(tmp_path):
    from board_scene import prepare_board_game

    data = tmp_path / "data"
    title, _count = prepare_board_game(data, dice_placed=2)
    with webapp.running_app(data) as (url, _proc), webapp.browser() as ctx:
        tab = open_from_list(ctx, url, title)
        game, actions = on_disk(data)
        tab.wait(lambda: tab.at(game), f"the game at {game}")
        assert "/game/" in tab.page.url  # the address names the game
        # a change confirmed on this page: Undo (an automa's turn or Ana's step comes back)
        tab.tap_confirmed(webapp.button(tab.page, "Undo").first, "the undo")
        game, undone = on_disk(data)
        assert len(undone) < len(actions)
        tab.wait(lambda: tab.at(game), f"the undone game at {game}")
        tab.shot("1-before-reload")
        # reload: Flet reconnects the tab's session
        reopen(tab)
        tab.wait(lambda: tab.at(game), f"the same step after a reload ({game})")
        assert not tab.shows("Resume a game")
        # reload as a new session: the address brings the game back
        reopen(tab, clear_session=True)
        tab.wait(lambda: tab.at(game), f"the same step after a reload as a new page ({game})")
        tab.shot("2-after-reload")
        # the game goes on from there: Redo is still there (the undone step), and is confirmed
        webapp.button(tab.page, "Redo").first.wait_for(timeout=TIMEOUT_MS)
        tab.page.wait_for_timeout(300)
        tab.tap_confirmed(webapp.button(tab.page, "Redo").first, "the redo")
        game, redone = on_disk(data)
        assert [a.to_json() for a in redone] == [a.to_json() for a in actions[:len(redone)]]
        tab.wait(lambda: tab.at(game), f"the redone game at {game}")
        # the tab closes; a new tab opens the game's address
        address = tab.page.url
        tab.page.close()
        new = Tab(webapp.open_app(ctx, address, 1280, 900, timeout_ms=TIMEOUT_MS), data)
        new.wait(lambda: new.at(game), f"the same step in a new tab on {address} ({game})")
        new.shot("3-new-tab")
        assert on_disk(data)[0] == game


# --------------------------------------------------------------------------- stale taps


def prepare_two_seats(data: Path, title: str) -> str:
    from test_game_shared import make_game

    return make_game(data, title=title)


def candidates(data: Path, gid: str) -> list[str]:
    from companion.app.game.vm import GameVM
    from companion.session import GameSession
    from companion.store import GameStore

    session = GameSession.open(GameStore(data), gid)
    try:
        return list(GameVM(session).step.candidates())
    finally:
        session.close()


SLOT = "Slot {slot} of 6: tap the expert turned face up."
STALE = "Another phone changed the game first: nothing of your tap was applied."


def stale_tap_applied_nothing(b, data: Path, gid: str, game1, actions1, shot: str) -> None:
    """B's tap got the stale message, B then shows the game as it is (A's change), and nothing
    of B's tap reached the log on disk."""
    b.wait(lambda: b.shows(STALE), "B's stale message")
    b.shot(shot)
    b.wait(lambda: b.shows(SLOT.format(slot=2)) and b.log_count() == game1[0], "B showing the game as it is")
    game2, actions2 = on_disk(data, gid)
    assert [x.to_json() for x in actions2] == [x.to_json() for x in actions1]  # nothing of B's tap
    assert game2 == game1


def test_a_stale_tap_is_refused_and_leaves_the_log_alone(tmp_path):
    from companion.app.game.view import HOLD_REMOTE_REDRAW_ENV

    data = tmp_path / "data"
    title = "Stale table"
    gid = prepare_two_seats(data, title)
    env = {HOLD_REMOTE_REDRAW_ENV: str(HOLD_S)}
    with webapp.running_app(data, env=env) as (url, _proc), webapp.browser() as ctx:
        a = open_from_list(ctx, url, title)
        b = open_from_list(ctx, url, title)
        for t in (a, b):
            t.wait(lambda t=t: t.shows(SLOT.format(slot=1)), "slot 1")
        game0, actions0 = on_disk(data, gid)
        first, other = candidates(data, gid)[:2]
        # A reveals an expert
        a.tap_confirmed(webapp.shown(a.page, first), "A's reveal")
        game1, actions1 = on_disk(data, gid)
        assert len(actions1) == len(actions0) + 1
        # B still shows slot 1 (its redraw is held back): its tap on another expert is stale
        assert b.shows(SLOT.format(slot=1)) and b.log_count() == game0[0]
        webapp.shown(b.page, other).click()
        stale_tap_applied_nothing(b, data, gid, game1, actions1, "b-stale")
        # the held redraw lands later and changes nothing; A shows the same log
        a.wait(lambda: a.log_count() == game1[0], "A's log")
        b.page.wait_for_timeout(int(HOLD_S * 1000) + 500)
        assert b.log_count() == game1[0] and a.log_count() == game1[0]
        assert [x.to_json() for x in on_disk(data, gid)[1]] == [x.to_json() for x in actions1]


class HeldSocket:
    """The server's messages to one tab held back while ``held`` and then delivered in order
    (Playwright's WebSocketRoute; the tab's own messages go through at once): the server has
    redrawn the page, the browser still shows the old screen."""

    def __init__(self, page):
        self.held, self.queue, self.sockets = False, [], []
        page.route_web_socket(re.compile(".*"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.sockets.append(ws)
        ws.on_message(lambda m: server.send(m))
        server.on_message(lambda m, ws=ws: self.queue.append((ws, m)) if self.held else ws.send(m))

    def release(self) -> None:
        self.held = False
        queue, self.queue = self.queue, []
        for ws, m in queue:
            ws.send(m)


def open_held(ctx, url: str, title: str, width=1280, height=900) -> tuple[Tab, HeldSocket]:
    page = ctx.new_page()
    held = HeldSocket(page)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    webapp.enable_semantics(page, TIMEOUT_MS)
    webapp.button(page, "Resume a game").click()
    webapp.shown(page, title).wait_for(timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)
    webapp.shown(page, title).click()
    return Tab(page, Path(".")), held


def test_a_tap_on_a_control_the_server_already_replaced_gets_the_stale_message(tmp_path):
    """The load check's silent taps (docs/app.md): the server has redrawn B for A's change
    (B's old controls are gone from Flet's index) but B's browser has not shown it yet; B's tap
    on its old question is dropped by Flet before any handler; companion.app.common.flet_events
    answers it: the stale message over the game as it is, nothing applied."""
    data = tmp_path / "data"
    title = "Vanished table"
    gid = prepare_two_seats(data, title)
    with webapp.running_app(data) as (url, _proc), webapp.browser() as ctx:
        a = open_from_list(ctx, url, title)
        b, held = open_held(ctx, url, title)
        for t in (a, b):
            t.wait(lambda t=t: t.shows(SLOT.format(slot=1)), "slot 1")
        b.page.wait_for_timeout(500)
        game0, actions0 = on_disk(data, gid)
        first, other = candidates(data, gid)[:2]
        held.held = True  # from now on B's browser hears nothing from the server
        a.tap_confirmed(webapp.shown(a.page, first), "A's reveal")
        game1, actions1 = on_disk(data, gid)
        assert len(actions1) == len(actions0) + 1
        b.wait(lambda: held.queue, "B's redraw sent by the server (and held)")
        b.page.wait_for_timeout(1500)  # the whole redraw
        sent = len(held.queue)
        assert b.shows(SLOT.format(slot=1)) and b.log_count() == game0[0]
        webapp.shown(b.page, other).click()  # on a control the server no longer knows
        b.wait(lambda: len(held.queue) > sent, "the server's answer to B's tap")
        b.page.wait_for_timeout(1000)
        held.release()
        stale_tap_applied_nothing(b, data, gid, game1, actions1, "b-vanished-stale")
        a.wait(lambda: a.log_count() == game1[0] and not a.shows(STALE), "A's log, without the message")


# --------------------------------------------------------------------------- a phone rejoins


class OtherAddress:
    """A TCP forwarder on 127.0.0.1 whose connections reach the app from 127.0.0.2: the app
    sees another device (its gate asks for the join code) while all traffic stays on the
    loopback interface."""

    def __init__(self, port: int):
        self.target = port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            up = socket.socket()
            up.bind(("127.0.0.2", 0))
            up.connect(("127.0.0.1", self.target))
            self.socks += [client, up]
            for a, b in ((client, up), (up, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.server.close()
        for s in self.socks:
            s.close()


ASK = "Enter the join code shown there"
WRONG = "That is not this game's join code."
STORED = "flutter.encyclopedia.join.{gid}"  # SharedPreferences keys in the browser's localStorage


def test_a_phone_rejoins_with_its_remembered_code_and_still_passes_the_gate(tmp_path):
    data = tmp_path / "data"
    title = "Phone table"
    gid = prepare_two_seats(data, title)
    with webapp.running_app(data) as (url, _proc), webapp.browser() as ctx:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        other = OtherAddress(port)
        try:
            # the table's screen at phone width (its join panel once turned the game grey there)
            table = open_from_list(ctx, url, title, 390, 844)
            table.wait(lambda: table.shows(SLOT.format(slot=1)), "the table's game")
            box = webapp.shown(table.page, SLOT.format(slot=1)).bounding_box()
            assert box is not None and box["y"] < 3000, box  # laid out (the grey box put it at y ~ 100000)
            code = table.wait(lambda: next((m.group(1) for t in table.texts()
                                            if (m := re.search(r"enter the join code (\d{8})", t))), None),
                              "the join code on the table's screen")
            # the phone opens the game's address (as a copied link): the gate asks for the code
            phone = Tab(webapp.open_app(ctx, f"http://127.0.0.1:{other.port}/game/{gid}", 390, 844,
                                        timeout_ms=TIMEOUT_MS), data)
            phone.wait(lambda: phone.shows(ASK), "the join form")
            assert not phone.shows(SLOT.format(slot=1)) and not phone.shows(code)
            webapp.type_into(phone.page, webapp.textbox(phone.page, "Join code"), code)
            webapp.button(phone.page, "Join").click()
            phone.wait(lambda: phone.shows(SLOT.format(slot=1)), "the game on the phone")
            key = STORED.format(gid=gid)
            stored = phone.wait(lambda: phone.page.evaluate("(k) => localStorage.getItem(k)", key),
                                "the code in the phone's storage")
            assert code in stored
            # a reload as a new page (no Flet session): the remembered code lets it back in
            reopen(phone, clear_session=True)
            phone.wait(lambda: phone.shows(SLOT.format(slot=1)), "the game after the reload, without typing")
            phone.shot("phone-rejoined")
            # a new tab on the game's address
            address = phone.page.url
            assert f"/game/{gid}" in address
            phone.page.close()
            phone = Tab(webapp.open_app(ctx, address, 390, 844, timeout_ms=TIMEOUT_MS), data)
            phone.wait(lambda: phone.shows(SLOT.format(slot=1)), "the game in a new tab on its address")
            # a remembered code that is wrong is refused by the server and forgotten: the form
            wrong = str((int(code) + 1) % 10**8).zfill(8)
            phone.page.evaluate("([k, v]) => localStorage.setItem(k, JSON.stringify(v))", [key, wrong])
            reopen(phone, clear_session=True)
            phone.wait(lambda: phone.shows(ASK), "the join form for a wrong remembered code")
            phone.wait(lambda: phone.page.evaluate("(k) => localStorage.getItem(k)", key) is None,
                       "the wrong code forgotten")
            assert not phone.shows(SLOT.format(slot=1))
            # without a remembered code the gate is there as before
            reopen(phone, clear_session=True)
            phone.wait(lambda: phone.shows(ASK), "the join form without a remembered code")
            webapp.type_into(phone.page, webapp.textbox(phone.page, "Join code"), wrong)
            webapp.button(phone.page, "Join").click()
            phone.wait(lambda: phone.shows(WRONG), "a wrong code refused")
            assert not phone.shows(SLOT.format(slot=1))
            phone.shot("phone-gate")
        finally:
            other.close()
