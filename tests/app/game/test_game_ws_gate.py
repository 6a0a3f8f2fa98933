"""The join code at the protocol level (issue 18): the app of ``encyclopedia --web`` served in
this process (``launch.web_asgi_app``, uvicorn on a free loopback port), a game live at the
table, and pages that talk Flet's websocket protocol directly (``tests/app/ws_client.py``), not
a browser. ``ENCYCLOPEDIA_REQUIRE_CODE=1`` makes this machine's pages phones too
(``companion.app.common.gate``), so a client on 127.0.0.1 is a phone here.

A page without the code gets no message holding a seat name, a log line, the code or the game's
file, whatever it sends (taps on every control id it could guess, a claim to be the desktop
window or the loopback); the game's log on disk does not move; a wrong code is refused; with
the right code the same client sees the game (so the search for the game's strings can fail).
The HTTP routes give nothing of the game either. The table's screen, without the setting, sees
the saved games and the code (the setting is what made the client a phone)."""

from __future__ import annotations

import random
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/app: ws_client, webapp

import ws_client  # noqa: E402
from ws_client import FletPage  # noqa: E402

from companion.app.common.i18n import Translator  # noqa: E402
from companion.app.game.texts import GameText  # noqa: E402

T = GameText()
TR = Translator("en")
SEATS = ("Zephyrine", "Quillondre")
GUESSED_BEYOND = 100  # control ids tried past the highest one a page received


@contextmanager
def serving(app):
    """Serve the ASGI ``app`` with uvicorn on a free loopback port in a thread (as Flet does:
    the websockets sans-io implementation); yields the websocket and http base urls."""
    import uvicorn

    from webapp import free_port

    port = free_port()
    # lifespan off: Flet's lifespan starts and shuts down its process-wide app manager, which
    # later tests in this process still use (no session eviction is needed for a test)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           ws="websockets-sansio", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the in-process server did not start")
        time.sleep(0.02)
    try:
        yield f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)


class Table:
    """The served app with one game live at the table: its session, its strings, its log."""

    def __init__(self, data_dir: Path, ws: str, http: str):
        self.data_dir, self.ws, self.http = data_dir, ws, http

    def on_disk(self) -> list[dict]:
        from companion.store import GameStore

        with GameStore(self.data_dir).open(self.gid) as log:
            return log.actions()

    def secrets(self) -> list[str]:
        """Strings only the game gives out: the seats, its log lines, its code, its file."""
        lines = [ln for ln in self.shared.log_lines() if any(s in ln for s in SEATS) or len(ln) >= 24]
        experts = [ln.rsplit("expert ", 1)[1] for ln in lines if "reveals the expert " in ln]
        return [*SEATS, self.shared.join_code, f"{self.gid}.", *experts, *lines]

    def leaks(self, page: FletPage) -> list[str]:
        """The game's strings found in any message the page received. The game's id may be
        in the page's address (``/game/<id>``, the form's) and in the key under which the
        browser would keep its code (``encyclopedia.join.<id>``, asked of the browser by the
        form); nowhere else."""
        found = []
        needed = {f"/game/{self.gid}", f"encyclopedia.join.{self.gid}"}
        for key, s in page.all_strings():
            for secret in self.secrets():
                if secret in s:
                    found.append(f"{secret!r} in {key}={s[:120]!r}")
            if self.gid in s and s not in needed:
                found.append(f"game id in {key}={s[:120]!r}")
        return found


@pytest.fixture
def table(monkeypatch, tmp_path):
    """A game with two seats, a few steps played at the table (so its log has text), live in
    the registry as the table's page holds it; the app served with every page a phone."""
    from game_play import answer

    import companion.app.game.holder as game
    from companion.app import launch
    from companion.app.common.gate import REQUIRE_CODE_ENV, SERVED_ENV
    from companion.app.game.vm import GameVM, LocalCatalogue
    from companion.app.game.wizard_vm import HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    data = tmp_path / "served"
    data.mkdir()
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(data))
    monkeypatch.setenv(REQUIRE_CODE_ENV, "1")
    monkeypatch.delenv(SERVED_ENV, raising=False)
    monkeypatch.setattr(game, "_LIVE", None)
    w = NewGameVM(T, random.Random(7))
    w.seats = [SeatDraft(HUMAN, SEATS[0]), SeatDraft(HUMAN, SEATS[1])]
    w.shuffle_all()
    session = w.create(GameStore(data))
    assert session is not None, w.error
    shared = game.live_games().adopt(session)  # the table's page set it up and holds it
    vm = GameVM(shared, T, LocalCatalogue(data / "catalogue.json"))
    rng = random.Random(3)
    for _ in range(6):
        answer(vm, rng)
    from companion.app.common import serve_guard

    # these tests probe the gate with thousands of events from one address: the guard's rate
    # limits (tests/app/test_serve_guard.py) would cut them short, so they are lifted here
    import dataclasses

    monkeypatch.setattr(serve_guard, "LIMITS", dataclasses.replace(  # restored after the test
        serve_guard.LIMITS, message_burst=10**7, message_per_s=10**6, connect_burst=10**4, register_burst=10**4))
    serve_guard.reset()
    with serving(launch.web_asgi_app()) as (ws, http):
        t = Table(data, ws, http)
        t.shared, t.gid, t.vm = shared, session.game_id, vm
        assert len(t.secrets()) >= 10 and any("expert" in x for x in t.secrets())  # a log to look for
        yield t
        vm.detach()
        game.live_games().close_all()


def tap(page: FletPage, text: str, cls: str | None = None) -> int:
    """Send a click to the control whose text (``content``/``value``/title) is ``text``."""
    for c in page.controls().values():
        title = c.get("title")
        label = c.get("content") if isinstance(c.get("content"), str) else None
        if text in (label, c.get("label")) or (isinstance(title, dict) and title.get("value") == text):
            if cls is None or c.get("_c") == cls:
                page.event(c["_i"], "click")
                return c["_i"]
    raise AssertionError(f"no control {text!r}; controls: {sorted(page.texts())[:80]}")


def guessed_ids(page: FletPage) -> list[int]:
    """Control ids a page could guess: the page's own first ones, and every id from
    ``GUESSED_BEYOND`` below the lowest to as far above the highest it received (Flet numbers
    the controls of all pages from one counter; the page is always 1)."""
    ids = [i for i in page.controls() if i > 20]
    lo, hi = (min(ids), max(ids)) if ids else (21, 21)
    return [*range(1, 21), *range(max(21, lo - GUESSED_BEYOND), hi + GUESSED_BEYOND)]


def open_join_form(table: Table, page: FletPage) -> None:
    """Like a phone: Saved games, the game open at the table, which asks for the code."""
    page.wait_text(TR("start.resume"))
    page.quiet(0.3)
    tap(page, TR("start.resume"))
    page.wait_text(TR("resume.at_table"))
    page.quiet(0.3)
    tap(page, TR("resume.at_table"), "ListTile")
    page.wait_text(T("g.join.ask"))
    page.quiet(0.3)


def type_code(page: FletPage, code: str) -> None:
    field = page.find(_c="TextField")
    assert field, "no code field"
    page.set_props(field[-1]["_i"], value=code)
    tap(page, T("g.join.go"))


def test_without_the_code_a_page_sees_nothing_and_changes_nothing(table):
    before, version = table.on_disk(), table.shared.version
    assert before, "the game has steps"
    with FletPage(table.ws) as phone:
        open_join_form(table, phone)
        assert not table.leaks(phone)
        # a wrong code: refused, still nothing of the game
        wrong = str((int(table.shared.join_code) + 1) % 10**8).zfill(8)
        type_code(phone, wrong)
        phone.wait_text(T("g.join.wrong"))
        assert not table.leaks(phone)
        # taps on every control id it could guess (its own and beyond), twice (new screens
        # may have appeared), each with the kinds of event a control sends
        for _ in range(2):
            for target in guessed_ids(phone):
                for name in ("click", "submit", "change", "long_press", "select", "result"):
                    phone.event(target, name, None)
            phone.quiet(0.5, timeout=60)
        assert not table.leaks(phone)
    # a page that claims to be the desktop window on the loopback, asks for the game's address,
    # and says it again as soon as it is registered (before the app's main runs)
    claim = {"web": False, "client_ip": "127.0.0.1", "platform": "linux"}
    with FletPage(table.ws, page=ws_client.browser_page(route=f"/game/{table.gid}", **claim)) as liar:
        liar.set_props(ws_client.PAGE_ID, **claim)
        liar.quiet(0.5)
        if liar.find(content=TR("start.resume")):
            tap(liar, TR("start.resume"))
        liar.quiet(0.5)
        for target in guessed_ids(liar):
            liar.event(target, "click", None)
        liar.quiet(0.5)
        assert not table.leaks(liar)
    assert table.on_disk() == before and table.shared.version == version


def test_a_wrong_code_is_refused_and_the_right_one_shows_the_game(table):
    with FletPage(table.ws) as phone:
        open_join_form(table, phone)
        wrong = str((int(table.shared.join_code) + 1) % 10**8).zfill(8)
        type_code(phone, wrong)
        phone.wait_text(T("g.join.wrong"))
        assert not table.leaks(phone)
        mark = len(phone.messages)
        type_code(phone, table.shared.join_code)
        phone.wait_text(SEATS[0], start=mark)  # the same client now receives the game
        assert table.leaks(phone), "the search finds the game's strings once the page is in"


def test_http_routes_give_nothing_of_the_game(table):
    import httpx

    from companion.app.shell.view import upload_dir

    uploads = set(upload_dir().rglob("*"))
    gid = table.gid
    paths = ["/", "/index.html", "/manifest.json", "/flutter_bootstrap.js", "/i18n/en.json",
             f"/game/{gid}", "/games", f"/games/{gid}.sqlite", f"/../games/{gid}.sqlite",
             f"/%2e%2e/games/{gid}.sqlite", f"/..%2fgames%2f{gid}.sqlite", "/upload", "/oauth_callback",
             "/ws", "/saves", "/export", f"/export/{gid}", "/settings.json", "/prefs.json"]
    with httpx.Client(base_url=table.http, timeout=20) as http:
        for path in paths:
            r = http.get(path)
            body = r.content.decode("utf-8", "replace")
            bad = [s for s in [*table.secrets(), gid] if s in body]
            assert not bad, f"GET {path} -> {r.status_code} holds {bad}"
        r = http.put("/upload", params={"f": "x.txt", "e": "2100-01-01T00:00:00+00:00", "s": "0" * 64},
                     content=b"not a photo")
        assert r.status_code >= 400
    assert set(upload_dir().rglob("*")) == uploads


def test_wrong_codes_from_one_address_are_limited(table):
    """Wrong codes from two pages of one address (127.0.0.1 here) add up: then that address's
    right code is refused too, for now (other addresses: tests/app/game/test_game_shared.py)."""
    from companion.shared_session import JOIN_MISSES_PER_ADDRESS

    code = table.shared.join_code
    wrongs = [str((int(code) + 1 + i) % 10**8).zfill(8) for i in range(JOIN_MISSES_PER_ADDRESS)]
    with FletPage(table.ws) as a, FletPage(table.ws) as b:
        for page in (a, b):
            open_join_form(table, page)
        for i, wrong in enumerate(wrongs):
            type_code((a, b)[i % 2], wrong)
        deadline = time.monotonic() + 20  # (the same refusal twice draws nothing new: count them)
        while len(table.shared._misses) < len(wrongs) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(table.shared._misses) == len(wrongs)
        assert {a for _, a in table.shared._misses} == {"127.0.0.1"}  # counted by the server's address
        a.wait_text(T("g.join.wrong")), b.wait_text(T("g.join.wrong"))
        mark = len(a.messages)
        type_code(a, code)
        a.wait_text(T("g.join.too_many"), start=mark)
        a.quiet(0.3)
        assert not table.leaks(a) and not table.leaks(b)


def test_without_the_setting_this_machine_is_the_table(table, monkeypatch):
    """The control: a page from 127.0.0.1 without ENCYCLOPEDIA_REQUIRE_CODE is the table's
    screen: it lists the saved games with their seats and shows the game with its code."""
    from companion.app.common.gate import REQUIRE_CODE_ENV

    monkeypatch.delenv(REQUIRE_CODE_ENV)
    with FletPage(table.ws) as page:
        page.wait_text(TR("start.resume"))
        page.quiet(0.3)
        tap(page, TR("start.resume"))
        page.wait_text(f"{SEATS[0]}, {SEATS[1]}")
        page.quiet(0.3)
        tap(page, f"{SEATS[0]}, {SEATS[1]}", "ListTile")
        page.wait_text(table.shared.join_code)


def test_a_phone_cannot_change_the_tables_settings(table, monkeypatch):
    """Issue 40: a page without the code opens Settings: it is offered its page's language and
    theme, not the box constants (starting coins), calibration or catalogue, and no server path;
    whatever it sends to any control, no override is written. The control: the table's page
    (without the setting) is offered "Starting coins"."""
    from companion.app.common.gate import REQUIRE_CODE_ENV
    from companion.content import board as board_mod

    override = table.data_dir / board_mod.OVERRIDE_FILE_NAME
    with FletPage(table.ws) as phone:
        phone.wait_text(TR("start.settings"))
        phone.quiet(0.3)
        tap(phone, TR("start.settings"))
        phone.wait_text(TR("settings.table_only"))
        phone.quiet(0.3)
        shown = phone.texts()
        for key in ("board.starting_coins", "settings.calibration", "settings.catalogue"):
            assert not any(TR(key) in s for s in shown), key
        assert not any(str(table.data_dir) in s for s in shown)
        for target in guessed_ids(phone):
            phone.set_props(target, value="[40, 40, 40, 40]")
            for name in ("change", "submit", "click"):
                phone.event(target, name, "[40, 40, 40, 40]")
        phone.quiet(0.5, timeout=60)
        assert not any(str(table.data_dir) in s for s in phone.texts())
    assert not override.exists()
    assert board_mod.default_board().starting_coins == (1, 2, 3, 4)
    monkeypatch.delenv(REQUIRE_CODE_ENV)
    with FletPage(table.ws) as page:
        page.wait_text(TR("start.settings"))
        page.quiet(0.3)
        tap(page, TR("start.settings"))
        page.wait_text(TR("board.starting_coins"), timeout=60)
