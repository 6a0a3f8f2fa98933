"""One live game, many screens: a ``GameSession`` shared by every page that shows it.

In web mode every phone at the table opens its own page, but all pages of one game must act
on ONE session (two ``GameSession`` objects on one file fork the game: the second to write gets
``ConcurrentWriteError``). ``LiveGames`` is the server's registry: ``acquire(game_id)`` opens
the game once and hands the same ``SharedSession`` to every page; ``release`` closes the file
when the last page lets go.

``SharedSession`` has the reading and changing interface of ``GameSession`` (so a view-model
uses either) plus:

* ``version``: a number that grows by one with every confirmed action, undo or redo;
* ``transaction(expected_version)``: a context manager that takes the game's lock (actions from
  all pages apply one at a time) and refuses with :class:`StaleViewError` a page whose view was
  drawn at another version (it acted on a game that changed meanwhile); nothing is applied
  then, and the page redraws from the current state;
* ``subscribe(fn)``: ``fn(version)`` is called after every change, once per transaction, outside
  the lock, in the thread that made the change. Listeners are held weakly when they are bound
  methods (a page that is gone does not keep its view-model alive).

Usage::

    live = LiveGames(store)
    a = live.acquire(game_id); b = live.acquire(game_id)     # a is b
    with a.transaction(seen_version):                         # StaleViewError if seen is old
        a.confirm(action)
    live.release(a); live.release(b)                          # the file is closed
"""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from companion.actions import Action
from companion.session import GameSession
from companion.engine import State
from companion.store import GameStore

__all__ = ["LiveGames", "SharedSession", "StaleViewError", "new_join_code"]


JOIN_CODE_DIGITS = 8
#: how long the guessing limits below remember a wrong code
JOIN_WINDOW_S = 60.0
#: wrong codes one address may type per window; then that address only is refused until its
#: oldest miss is a window old (other phones are not)
JOIN_MISSES_PER_ADDRESS = 5
#: wrong codes all addresses that never joined this game may type together per window; then
#: such addresses are refused until the window moves on. An address that has joined this game
#: (it knows the code) is never held by it, so a stranger cannot lock the table's phones out.
#: Expected time to guess (docs/app.md): 10**8 codes / 30 a minute -> about 3.2 years for one
#: chance in two; 0.0072 % over a 4-hour game
JOIN_MISSES_GLOBAL = 30
#: (kept for old callers: the per-address limit)
JOIN_MISSES_PER_MINUTE = JOIN_MISSES_PER_ADDRESS


def new_join_code() -> str:
    """Eight random digits (``secrets``): one in a hundred million to guess at one try."""
    return "".join(str(secrets.randbelow(10)) for _ in range(JOIN_CODE_DIGITS))


class StaleViewError(Exception):
    """The page acted on a view of the game that another page has changed since; nothing was
    applied. ``seen`` is the version the page showed, ``current`` the game's version now."""

    def __init__(self, seen: int | None, current: int):
        super().__init__(f"the game changed on another screen (your view: step {seen}, now: step {current}); "
                         "nothing was applied, here is the game as it is now")
        self.seen = seen
        self.current = current


class SharedSession:
    """A ``GameSession`` shared by several pages: a lock, a version, change listeners."""

    def __init__(self, session: GameSession):
        self._session = session
        self.lock = threading.RLock()
        self._version = 0
        self._listeners: list[Any] = []  # weakref.WeakMethod or plain callables
        self._depth = 0
        self._dirty = False
        #: the code a phone types to join this game (random per game and per server run)
        self.join_code = new_join_code()
        self._misses: list[tuple[float, str]] = []  # (time.monotonic, address) of wrong codes
        self._joined_from: set[str] = set()  # addresses that typed the right code
        #: a phone has typed the right code (the table's join panel then folds away)
        self.phones_joined = False

    def try_code(self, code: str | None, address: str | None = None, now: float | None = None) -> str | None:
        """A page from ``address`` tries to join: None if ``code`` is right, else why not (a
        message key): ``g.join.wrong``, or ``g.join.too_many`` while that address has typed
        JOIN_MISSES_PER_ADDRESS wrong codes in the last JOIN_WINDOW_S seconds, or while all
        addresses that never joined have typed JOIN_MISSES_GLOBAL together (the right code is
        refused then too, from those addresses only). Tries refused as too many are not counted."""
        now = time.monotonic() if now is None else now
        addr = (address or "").strip()
        with self.lock:
            self._misses = [(t, a) for t, a in self._misses if now - t < JOIN_WINDOW_S]
            if sum(1 for _, a in self._misses if a == addr) >= JOIN_MISSES_PER_ADDRESS:
                return "g.join.too_many"
            if addr not in self._joined_from and len(self._misses) >= JOIN_MISSES_GLOBAL:
                return "g.join.too_many"
            if self.admits(code):
                self.phones_joined = True
                if addr:
                    self._joined_from.add(addr)
                return None
            self._misses.append((now, addr))
            return "g.join.wrong"

    def admits(self, code: str | None) -> bool:
        """Whether ``code`` is this game's join code (spaces forgiven; constant-time compare)."""
        typed = "".join((code or "").split())
        return secrets.compare_digest(typed.encode(), self.join_code.encode())

    # -- sharing --------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return self._version

    @property
    def session(self) -> GameSession:
        return self._session

    def subscribe(self, fn: Callable[[int], None]) -> None:
        ref = weakref.WeakMethod(fn) if hasattr(fn, "__self__") else None
        with self.lock:
            self._listeners.append(ref if ref is not None else fn)

    def unsubscribe(self, fn: Callable[[int], None]) -> None:
        with self.lock:
            keep = []
            for item in self._listeners:
                target = item() if isinstance(item, weakref.WeakMethod) else item
                if target is None or target == fn:
                    continue
                keep.append(item)
            self._listeners = keep

    def listeners(self) -> int:
        """How many live listeners there are (for tests and the host screen)."""
        with self.lock:
            return sum(1 for i in self._listeners if not isinstance(i, weakref.WeakMethod) or i() is not None)

    @contextmanager
    def transaction(self, expected_version: int | None = None) -> Iterator["SharedSession"]:
        """Hold the game's lock for a group of changes (a user step: a die and its action, an
        undo of a whole turn). ``expected_version`` (the version the page showed) not the
        current one: :class:`StaleViewError`, nothing applied. Listeners hear of the changes
        once, after the lock is released."""
        self.lock.acquire()
        notify, version = False, self._version
        try:
            if expected_version is not None and expected_version != self._version:
                raise StaleViewError(expected_version, self._version)
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                if self._depth == 0 and self._dirty:
                    notify, self._dirty = True, False
                version = self._version
        finally:
            self.lock.release()
            if notify:  # also after a refusal in the middle of a group: what was saved is shown
                self._notify(version)

    def _notify(self, version: int) -> None:
        with self.lock:
            items = list(self._listeners)
        dead = False
        for item in items:
            fn = item() if isinstance(item, weakref.WeakMethod) else item
            if fn is None:
                dead = True
                continue
            try:
                fn(version)
            except Exception:  # one broken page must not stop the others from hearing
                import logging

                logging.getLogger(__name__).error("a listener of the shared game failed", exc_info=True)
        if dead:
            with self.lock:
                self._listeners = [i for i in self._listeners
                                   if not isinstance(i, weakref.WeakMethod) or i() is not None]

    def _changed(self) -> None:
        self._version += 1
        self._dirty = True

    # -- changing (each call is its own transaction when not inside one) ------------------
    def confirm(self, action: Action) -> State:
        with self.transaction():
            st = self._session.confirm(action)
            self._changed()
            return st

    def undo(self) -> Action:
        with self.transaction():
            a = self._session.undo()
            self._changed()
            return a

    def redo(self) -> Action:
        with self.transaction():
            a = self._session.redo()
            self._changed()
            return a

    def rename(self, title: str) -> None:
        with self.lock:
            self._session.rename(title)

    def compact(self) -> bool:
        """``GameSession.compact`` if no page is changing the game now (its lock free); whether
        it built anything again. Never waits: a busy game is not a quiet one."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            return not self._session.closed and self._session.compact()
        finally:
            self.lock.release()

    # -- reading (the GameSession interface) ----------------------------------------------
    @property
    def state(self) -> State:
        return self._session.state

    @property
    def actions(self) -> tuple[Action, ...]:
        return self._session.actions

    @property
    def game_id(self) -> str:
        return self._session.game_id

    @property
    def path(self):
        return self._session.path

    @property
    def title(self) -> str:
        return self._session.title

    @property
    def meta(self) -> dict:
        return self._session.meta

    @property
    def store(self) -> GameStore:
        return self._session.store

    @property
    def can_undo(self) -> bool:
        return self._session.can_undo

    @property
    def can_redo(self) -> bool:
        with self.lock:
            return self._session.can_redo

    def next_redo(self) -> Action | None:
        with self.lock:
            return self._session.next_redo()

    @property
    def closed(self) -> bool:
        return self._session.closed

    def log_lines(self) -> list[str]:
        with self.lock:
            return self._session.log_lines()

    def log_messages(self):
        with self.lock:
            return self._session.log_messages()

    def export(self) -> dict:
        with self.lock:
            return self._session.export()

    def export_file(self, path):
        with self.lock:
            return self._session.export_file(path)

    def close(self) -> None:
        """A page lets go: use ``LiveGames.release``; closing here closes it for every page."""
        with self.lock:
            self._session.close()


class LiveGames:
    """The server's open games: one ``SharedSession`` per game id, counted per page."""

    def __init__(self, store: GameStore | None = None, store_factory: Callable[[], GameStore] | None = None):
        self._store = store
        self._store_factory = store_factory
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], SharedSession] = {}
        self._users: dict[tuple[str, str], int] = {}
        #: each game's join code, drawn the first time it goes live and kept while the server
        #: runs: re-opening a game (its last page left, a page opens it again) keeps its code
        self._codes: dict[tuple[str, str], str] = {}

    def store(self) -> GameStore:
        if self._store is None:
            self._store = self._store_factory() if self._store_factory else GameStore()
        return self._store

    @staticmethod
    def _key(store: GameStore, game_id: str) -> tuple[str, str]:
        return str(Path(store.games_dir).resolve()), game_id

    def acquire(self, game_id: str, store: GameStore | None = None) -> SharedSession:
        """The live session of ``game_id`` (in ``store``, default the registry's), opened
        (checked replay) by its first page. Store errors of ``GameSession.open`` pass through
        and nothing is registered."""
        store = store or self.store()
        key = self._key(store, game_id)
        with self._lock:
            shared = self._open.get(key)
            if shared is None or shared.closed:
                shared = SharedSession(GameSession.open(store, game_id))
                shared.join_code = self._codes.setdefault(key, shared.join_code)
                self._open[key] = shared
                self._users[key] = 0
            self._users[key] += 1
            return shared

    def adopt(self, session: GameSession) -> SharedSession:
        """Register a session just created (the new-game wizard) as live, used by one page."""
        key = self._key(session.store, session.game_id)
        with self._lock:
            old = self._open.get(key)
            if old is not None and not old.closed:
                session.close()  # never two sessions on one file
                self._users[key] += 1
                return old
            shared = SharedSession(session)
            shared.join_code = self._codes.setdefault(key, shared.join_code)
            self._open[key] = shared
            self._users[key] = 1
            return shared

    def release(self, shared: SharedSession) -> None:
        """A page lets go of the game; the last one closes its file."""
        key = self._key(shared.store, shared.game_id)
        with self._lock:
            if self._open.get(key) is not shared:
                if not shared.closed:
                    shared.close()
                return
            self._users[key] -= 1
            if self._users[key] <= 0:
                del self._open[key]
                del self._users[key]
                shared.close()

    def users(self, game_id: str, store: GameStore | None = None) -> int:
        with self._lock:
            return self._users.get(self._key(store or self.store(), game_id), 0)

    def open_ids(self, store: GameStore | None = None) -> list[str]:
        """The ids of the games of ``store`` (default the registry's) open now."""
        folder = self._key(store or self.store(), "")[0]
        with self._lock:
            return [gid for (d, gid), shared in self._open.items() if d == folder and not shared.closed]

    def unless_open(self, game_id: str, fn: Callable[[], Any], store: GameStore | None = None
                    ) -> tuple[bool, Any]:
        """``(True, fn())`` when no page has ``game_id`` open, run while no page can open it
        (the registry's lock: a delete or a rename of the file cannot race an ``acquire``);
        ``(False, the live SharedSession)`` otherwise, and ``fn`` is not called."""
        key = self._key(store or self.store(), game_id)
        with self._lock:
            shared = self._open.get(key)
            if shared is not None and not shared.closed:
                return False, shared
            return True, fn()

    def get(self, game_id: str, store: GameStore | None = None) -> SharedSession | None:
        with self._lock:
            return self._open.get(self._key(store or self.store(), game_id))

    def compact(self) -> int:
        """``SharedSession.compact`` of every open game (the server calls it when it is quiet:
        ``serve_guard.on_quiet``); how many were compacted."""
        with self._lock:
            games = list(self._open.values())
        return sum(1 for shared in games if shared.compact())

    def close_all(self) -> None:
        with self._lock:
            for shared in self._open.values():
                shared.close()
            self._open.clear()
            self._users.clear()
