"""The open game of each page (plain Python, no Flet): which game a page shows, opened once.

The shell opens a game with ``ctl.new_game()`` / ``ctl.open_game(game_id)``; the game on screen
is kept in ``ctl.screen_state(GAME_KEY)`` (a ``GameHolder``) so that a redraw, or opening the
game that is already open, never opens its file twice, and a game replaced by another is
closed. ``open_new_game(ctl)`` / ``open_saved_game(ctl, game_id)`` are the same two calls,
named as the lead's note asked.

Every page of one game shares ONE session: ``live_games()`` is the process's registry
(``companion.shared_session.LiveGames``); a page acquires the game's ``SharedSession`` when it
opens it and releases it when it closes it or opens another, the last page closes the file
(docs/app.md, "Many phones, one game"). A phone sees a game only after its join code
(``join_game``); ``close_page`` is what the shell calls when a page closes.
"""

from __future__ import annotations

from companion.app.common.gate import served_addresses

#: key of the open game in ``ctl.screen_state`` (not a route: it survives ``open_game``)
GAME_KEY = "game:open"


class GameHolder:
    """The open game of one window: its ``GameVM`` (or why the requested game cannot open)."""

    def __init__(self):
        self.vm = None
        self.problem: str | None = None
        self.problem_id: str | None = None
        #: games this page may show (a phone entered the join code); ``gate``: the game it asks for
        self.admitted: set[str] = set()
        self.gate: str | None = None
        #: games whose code this page's browser remembered and that were tried (once a page)
        self.tried_remembered: set[str] = set()

    def close(self) -> None:
        vm, self.vm = self.vm, None
        if vm is None:
            return
        vm.detach()
        if hasattr(vm.session, "transaction"):
            live_games().release(vm.session)
        elif not vm.session.closed:
            vm.session.close()


_LIVE = None

#: key of the page's lock in ``ctl.screen_state``: a tap and a redraw caused by another page
#: never touch this page's controls at the same time
PAGE_LOCK_KEY = "game:page-lock"


def page_lock(ctl):
    import threading

    return ctl.screen_state(PAGE_LOCK_KEY, threading.RLock)


def close_page(ctl) -> None:
    """The page is closed: let go of its game (the last page closes the file)."""
    h = ctl._screens.get(GAME_KEY) if hasattr(ctl, "_screens") else None
    if h is not None:
        h.close()


def live_games():
    """The process's open games, shared by every page (one ``SharedSession`` per game)."""
    global _LIVE
    if _LIVE is None:
        from companion.shared_session import LiveGames

        _LIVE = LiveGames(store_factory=session_store)
    return _LIVE


def session_store():
    from companion.store import GameStore

    return GameStore()


def holder(ctl) -> GameHolder:
    return ctl.screen_state(GAME_KEY, GameHolder)


def game_vm(ctl):
    """The ``GameVM`` of ``ctl.game_id``, opening the saved game when needed; None with
    ``holder(ctl).problem`` set when it cannot be opened (damaged file, newer schema ...)."""
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM
    from companion.store import StoreError

    h = holder(ctl)
    gid = getattr(ctl, "game_id", None)
    if gid is None:
        return h.vm
    if needs_code(ctl) and gid not in h.admitted:
        h.gate = gid  # a phone sees nothing of the game before its join code
        return None
    h.gate = None
    if h.vm is not None and h.vm.session.game_id == gid and not h.vm.session.closed:
        return h.vm
    if h.problem_id == gid:
        return None
    h.close()
    try:
        session = live_games().acquire(gid, session_store())
    except StoreError as exc:
        h.problem, h.problem_id = str(exc), gid
        return None
    h.problem = h.problem_id = None
    h.vm = GameVM(session, GameText(lambda: ctl.tr.lang), learning=_learning())
    return h.vm


def _learning():
    """The table profile of this process (the serving machine's disk; docs/app-game.md, "The
    table profile"), or None when it cannot be set up (the game goes on without it)."""
    try:
        from companion.app.game.learning import table_learning

        return table_learning()
    except Exception:  # noqa: BLE001 - no profile: photos are read with the shipped model
        return None


def needs_code(ctl) -> bool:
    """A page served to another device (a phone) must enter the game's join code; the pages of
    the machine that serves the app (the table's screen) and the desktop window need none."""
    return bool(getattr(ctl, "remote_client", False))


def join_game(ctl, code: str) -> str | None:
    """Let this page into ``ctl.game_id`` if ``code`` is its join code: None, or the key of the
    reason it is refused (the game is not open at the table, the code is wrong)."""
    gid = getattr(ctl, "game_id", None)
    shared = live_games().get(gid, session_store()) if gid else None
    if shared is None or shared.closed:
        return "g.join.not_open"
    why = shared.try_code(code, getattr(ctl, "client_address", None))
    if why is not None:
        return why
    h = holder(ctl)
    h.admitted.add(gid)
    h.gate = None
    return None


def remembered_code_key(game_id: str) -> str:
    """Where a phone's browser keeps the join code of ``game_id`` once it was accepted (Flet's
    SharedPreferences: the browser's localStorage), so that a reloaded page or a new tab on the
    game's address rejoins without typing it; the server checks it again each time
    (``join_game``: compare_digest, counted with the wrong codes). A game keeps its code while
    the server runs (``LiveGames``), so a remembered one works until the server restarts."""
    return f"encyclopedia.join.{game_id}"


def join_info(ctl):
    """(addresses, code) for the host screen: where phones open the app and the open game's
    join code; None outside web mode or on a phone."""
    if not getattr(ctl, "web", False) or needs_code(ctl):
        return None
    h = holder(ctl)
    if h.vm is None or not hasattr(h.vm.session, "join_code"):
        return None
    return served_addresses(), h.vm.session.join_code


def show_new_session(ctl, session) -> None:
    """The wizard created ``session``: keep it open and show it (no second open)."""
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM

    h = holder(ctl)
    h.close()
    h.problem = h.problem_id = None
    h.vm = GameVM(live_games().adopt(session), GameText(lambda: ctl.tr.lang), learning=_learning())
    h.admitted.add(session.game_id)  # the page that set the game up is in it
    ctl.open_game(session.game_id)


def open_new_game(ctl) -> None:
    ctl.new_game()


def open_saved_game(ctl, game_id: str) -> None:
    ctl.open_game(game_id)
