"""The event log: every game is an append-only action log in its own SQLite file.

This module knows nothing about the rules. An *action* here is a JSON object (a ``dict`` with a
string ``"type"`` key, as produced by ``companion.actions.<Action>.to_json()``); the engine side
lives in :mod:`companion.session`.

Layout and guarantees (the full story, with the reasons, is in ``docs/saves.md``):

* ``<data dir>/games/<game id>.sqlite`` — one file per game, so a damaged file harms no other
  game. A game file appears under its final name only once it is complete (it is built under a
  hidden temporary name and linked into place), so a crash while creating or importing a game
  never leaves half a game behind.
* SQLite in WAL mode with ``synchronous=FULL``: when :meth:`GameLog.append` returns, the entry
  has been written and flushed to disk (``fsync``); killing the process, or the power going out,
  afterwards cannot lose it.
* The ``log`` table is append-only (triggers refuse UPDATE and DELETE). Undo and redo are
  entries of their own (``kind`` ``"undo"``/``"redo"``, naming the entry they act on); the
  current action list is the fold of the log. A new action after an undo drops the redo branch
  from the *current* list, but its rows stay in the file.
* A file is recognised by ``PRAGMA application_id`` (:data:`APPLICATION_ID`), ``PRAGMA
  user_version`` (the schema number, :data:`SCHEMA_VERSION`) and the ``meta`` table. A file that
  is not SQLite, a SQLite database of another program, a save written by a newer version, or a
  damaged save is *reported* with a specific :class:`StoreError` subclass and never written to,
  "repaired" or replaced.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "EXPORT_FORMAT",
    "EXPORT_SCHEMA",
    "GAME_SUFFIX",
    "StoreError",
    "GameNotFoundError",
    "GameExistsError",
    "CorruptSaveError",
    "ForeignFileError",
    "NewerSchemaError",
    "SaveWriteError",
    "ConcurrentWriteError",
    "NothingToUndoError",
    "NothingToRedoError",
    "InvalidActionDataError",
    "ImportFormatError",
    "LogEntry",
    "GameInfo",
    "BadSave",
    "GameListing",
    "GameLog",
    "GameStore",
    "check_action_dict",
    "parse_export",
    "read_export",
    "write_export",
]

#: ``PRAGMA application_id`` of every game file: the bytes ``b"EncC"`` (Encyclopedia Companion).
APPLICATION_ID = int.from_bytes(b"EncC", "big")
#: ``PRAGMA user_version`` of the files this code writes; files with a higher number are refused.
SCHEMA_VERSION = 1
#: ``meta.format`` of a game file and ``"format"`` of an exported game.
EXPORT_FORMAT = "encyclopedia-companion-game"
#: ``"schema"`` of the exported JSON this code writes and the highest it reads.
EXPORT_SCHEMA = 1
#: file name suffix of a game file inside ``<data dir>/games/``.
GAME_SUFFIX = ".sqlite"
#: largest export file :meth:`GameStore.import_file` reads (a 4-seat game is a few hundred KB).
MAX_IMPORT_BYTES = 32 * 1024 * 1024

_SQLITE_MAGIC = b"SQLite format 3\x00"
_GAME_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_TMP_PREFIX = ".tmp-"
_STORE_MANAGED_META = ("format", "schema", "created", "updated")
_KINDS = ("do", "undo", "redo")

_SCHEMA_STATEMENTS = (
    """CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL              -- JSON
) WITHOUT ROWID""",
    """CREATE TABLE log (
    seq    INTEGER PRIMARY KEY,      -- 1, 2, 3, ... with no gaps
    kind   TEXT NOT NULL CHECK (kind IN ('do', 'undo', 'redo')),
    action TEXT,                     -- JSON action, for 'do' entries only
    ref    INTEGER,                  -- for 'undo'/'redo': seq of the 'do' entry it acts on
    at     TEXT NOT NULL,            -- UTC time of the entry, ISO 8601
    CHECK ((kind = 'do') = (action IS NOT NULL)),
    CHECK ((kind = 'do') = (ref IS NULL))
)""",
    """CREATE TRIGGER log_no_update BEFORE UPDATE ON log
BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END""",
    """CREATE TRIGGER log_no_delete BEFORE DELETE ON log
BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END""",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


class StoreError(Exception):
    """Base of every error of the event log. ``str(e)`` is a sentence a player can act on."""

    def __init__(self, message: str, *, path: Path | None = None, game_id: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.game_id = game_id


class GameNotFoundError(StoreError, LookupError):
    """No game with that id in the games folder."""


class GameExistsError(StoreError):
    """A game with that id exists already (creating or importing never overwrites one)."""


class CorruptSaveError(StoreError):
    """The file is damaged: not a database at all, truncated, or its content is inconsistent."""


class ForeignFileError(StoreError):
    """The file is a valid SQLite database, but not an Encyclopedia Companion save."""


class NewerSchemaError(StoreError):
    """The save (or export) was written by a newer version of the companion."""


class SaveWriteError(StoreError):
    """Writing to the save failed (disk full, read-only folder, ...): nothing was recorded."""


class ConcurrentWriteError(SaveWriteError):
    """The save was changed by another window or process since this one read it."""


class NothingToUndoError(StoreError):
    """Undo with no action left to undo."""


class NothingToRedoError(StoreError):
    """Redo with no undone action to redo."""


class InvalidActionDataError(StoreError, ValueError):
    """An action given to the store is not a JSON object with a string ``"type"``."""


class ImportFormatError(StoreError, ValueError):
    """An export document (file or dict) is not a valid exported game."""


# --------------------------------------------------------------------------------------------
# Small value types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogEntry:
    """One row of the log, as stored."""

    seq: int
    kind: str  # "do" | "undo" | "redo"
    action: dict | None  # for "do"
    ref: int | None  # for "undo" / "redo": the seq of the "do" entry
    at: str


@dataclass(frozen=True)
class GameInfo:
    """What the game list shows, read from the ``meta`` table (no replay)."""

    game_id: str
    path: Path
    title: str
    created: str
    updated: str
    action_count: int  # actions in the current list (after undo/redo)
    meta: dict = field(compare=False, repr=False)

    @property
    def seats(self) -> Any:
        """The seats summary the session stores (``meta["seats"]``), or ``None``."""
        return self.meta.get("seats")

    @property
    def round(self) -> Any:
        """The round the session stores (``meta["round"]``), or ``None``."""
        return self.meta.get("round")


@dataclass(frozen=True)
class BadSave:
    """A file in the games folder that could not be read; it is left exactly as it is."""

    path: Path
    game_id: str
    error: StoreError

    @property
    def reason(self) -> str:
        return str(self.error)


@dataclass(frozen=True)
class GameListing:
    games: tuple[GameInfo, ...]  # newest update first
    problems: tuple[BadSave, ...]  # files that could not be read, by name


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dumps(value: Any) -> str:
    """Canonical JSON text (sorted keys, no NaN/Infinity) — the stored form."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _json_problem(value: Any, where: str) -> str | None:
    """Why ``value`` is not plain JSON data (dict with str keys, list, str, int, float, bool,
    None), or ``None`` if it is. Tuples are refused: they would come back as lists."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is {value!r}, which JSON cannot hold"
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = _json_problem(item, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where} has a key {key!r} that is not a string"
            problem = _json_problem(item, f"{where}.{key}")
            if problem:
                return problem
        return None
    return f"{where} is a {type(value).__name__}, which is not JSON data"


def check_action_dict(action: Any, where: str = "the action") -> None:
    """Raise :class:`InvalidActionDataError` unless ``action`` is a JSON object with a
    non-empty string ``"type"`` whose values are all plain JSON data."""
    if not isinstance(action, dict):
        raise InvalidActionDataError(f"{where} must be a JSON object, not {type(action).__name__}")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise InvalidActionDataError(f'{where} has no "type" (a non-empty string is required)')
    problem = _json_problem(action, where)
    if problem:
        raise InvalidActionDataError(problem)


def _check_meta(meta: Mapping[str, Any] | None, where: str = "meta") -> dict:
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise InvalidActionDataError(f"{where} must be a JSON object, not {type(meta).__name__}")
    meta = dict(meta)
    problem = _json_problem(meta, where)
    if problem:
        raise InvalidActionDataError(problem)
    for key in _STORE_MANAGED_META:
        meta.pop(key, None)
    if "title" in meta and not isinstance(meta["title"], str):
        raise InvalidActionDataError(f"{where}.title must be a string")
    return meta


def _fsync_dir(directory: Path) -> None:
    """Make a new directory entry durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_game_id() -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def _check_game_id(game_id: str) -> str:
    if not isinstance(game_id, str) or not _GAME_ID_RE.match(game_id):
        raise StoreError(
            f"{game_id!r} is not a valid game id (letters, digits, '-' and '_', at most 64)",
            game_id=game_id if isinstance(game_id, str) else None,
        )
    return game_id


def _set_pragmas(conn: sqlite3.Connection) -> None:
    # Per-connection settings; none of them writes to the file.
    conn.execute("PRAGMA synchronous = FULL")  # fsync the WAL at every commit
    conn.execute("PRAGMA fullfsync = ON")  # macOS: flush the drive cache too (no-op elsewhere)
    conn.execute("PRAGMA checkpoint_fullfsync = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA foreign_keys = ON")


#: game files with an open ``GameLog`` in this process (resolved path -> count). Their header
#: is not read again with a plain ``open``: closing any descriptor of a file drops every POSIX
#: lock this process holds on it, SQLite's included, and another process could then think the
#: game closed and delete its WAL (seen with two browser pages on one game while a third
#: listed the saved games).
_HELD: dict[str, int] = {}
_HELD_LOCK = threading.Lock()


def _held(path: Path, delta: int) -> None:
    key = str(Path(path).resolve())
    with _HELD_LOCK:
        n = _HELD.get(key, 0) + delta
        if n > 0:
            _HELD[key] = n
        else:
            _HELD.pop(key, None)


def _is_held(path: Path) -> bool:
    with _HELD_LOCK:
        return str(Path(path).resolve()) in _HELD


def _check_header(path: Path, game_id: str) -> None:
    """Classify a file from its first 100 bytes, without letting SQLite touch it. A file this
    process holds open (already checked when opened) is not read again (see ``_HELD``)."""
    if _is_held(path):
        return
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except FileNotFoundError:
        raise GameNotFoundError(f"there is no saved game {game_id!r}", path=path, game_id=game_id) from None
    except OSError as e:
        raise StoreError(f"the save {path.name} cannot be read: {e.strerror or e}", path=path, game_id=game_id) from e
    if not head.startswith(_SQLITE_MAGIC):
        if not head:
            why = "it is empty (0 bytes)"
        elif _SQLITE_MAGIC.startswith(head[: len(_SQLITE_MAGIC)]):
            why = f"it is cut short ({len(head)} bytes)"
        else:
            why = "it is not a SQLite database (damaged or some other kind of file)"
        raise CorruptSaveError(f"the save {path.name} cannot be read: {why}; it was left untouched",
                               path=path, game_id=game_id)
    if len(head) < 100:
        raise CorruptSaveError(
            f"the save {path.name} cannot be read: it is cut short ({len(head)} bytes); it was left untouched",
            path=path, game_id=game_id)
    app_id = int.from_bytes(head[68:72], "big")
    if app_id != APPLICATION_ID:
        raise ForeignFileError(
            f"{path.name} is a SQLite database of another program (application id {app_id:#010x}), "
            "not an Encyclopedia Companion save; it was left untouched",
            path=path, game_id=game_id)
    schema = int.from_bytes(head[60:64], "big")
    if schema > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"the save {path.name} was written by a newer version of the companion (save format "
            f"{schema}, this version reads up to {SCHEMA_VERSION}); update the app to open it",
            path=path, game_id=game_id)


def _fold(entries: Sequence[LogEntry], path: Path | None = None, game_id: str | None = None
          ) -> tuple[list[int], list[int]]:
    """Replay the log's do/undo/redo entries: (seqs of the current actions, redo stack)."""
    by_seq: dict[int, LogEntry] = {}
    active: list[int] = []
    redo: list[int] = []

    def bad(entry: LogEntry, why: str) -> CorruptSaveError:
        name = path.name if path else "the save"
        return CorruptSaveError(f"the save {name} is damaged: log entry {entry.seq} ({entry.kind}) {why}; "
                                "it was left untouched", path=path, game_id=game_id)

    expected = 1
    for entry in entries:
        if entry.seq != expected:
            raise bad(entry, f"follows entry {expected - 1} (entries must be numbered 1, 2, 3, ...)")
        expected += 1
        by_seq[entry.seq] = entry
        if entry.kind == "do":
            active.append(entry.seq)
            redo.clear()
        elif entry.kind == "undo":
            if not active or active[-1] != entry.ref:
                raise bad(entry, f"undoes entry {entry.ref}, which is not the last action")
            redo.append(active.pop())
        else:
            if not redo or redo[-1] != entry.ref:
                raise bad(entry, f"redoes entry {entry.ref}, which is not the last undone action")
            active.append(redo.pop())
    return active, redo


# --------------------------------------------------------------------------------------------
# One open game
# --------------------------------------------------------------------------------------------


class GameLog:
    """One open game file. Not thread-safe: use it from one thread at a time (the UI's, or
    under ``companion.shared_session.SharedSession``'s lock when pages share a game)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, game_id: str,
                 entries: list[LogEntry], meta: dict):
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.game_id = game_id
        self._entries = entries
        self._by_seq = {e.seq: e for e in entries}
        self._meta = meta
        self._active, self._redo = _fold(entries, path, game_id)
        _held(path, +1)

    # -- reading ------------------------------------------------------------------------------

    @property
    def meta(self) -> dict:
        """A copy of the game's metadata (title, created, updated, and what the session stores)."""
        return json.loads(_dumps(self._meta))

    @property
    def title(self) -> str:
        return self._meta.get("title", "")

    @property
    def entries(self) -> tuple[LogEntry, ...]:
        """Every row of the log, undo/redo entries and the undone branches included."""
        return tuple(self._entries)

    @property
    def head(self) -> int:
        """The seq of the last log entry (0 for an empty log)."""
        return self._entries[-1].seq if self._entries else 0

    def actions(self) -> list[dict]:
        """The current action list (fresh copies), in order."""
        return [json.loads(_dumps(self._by_seq[seq].action)) for seq in self._active]

    def __len__(self) -> int:
        return len(self._active)

    @property
    def can_undo(self) -> bool:
        return bool(self._active)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def next_redo(self) -> dict | None:
        """The action :meth:`redo` would bring back, or ``None``."""
        return json.loads(_dumps(self._by_seq[self._redo[-1]].action)) if self._redo else None

    def last_action(self) -> dict | None:
        """The action :meth:`undo` would take back, or ``None``."""
        return json.loads(_dumps(self._by_seq[self._active[-1]].action)) if self._active else None

    @property
    def closed(self) -> bool:
        return self._conn is None

    # -- writing ------------------------------------------------------------------------------

    def append(self, action: dict, meta: Mapping[str, Any] | None = None) -> int:
        """Record ``action`` (durably: flushed to disk before this returns) and drop the redo
        branch from the current list. ``meta`` keys are updated in the same transaction.
        Returns the new entry's seq. On failure nothing is recorded and :class:`SaveWriteError`
        (or a subclass) is raised."""
        check_action_dict(action)
        text = _dumps(action)
        meta = _check_meta(meta)
        entry = self._write("do", text, None, meta)
        self._active.append(entry.seq)
        self._redo.clear()
        return entry.seq

    def undo(self, meta: Mapping[str, Any] | None = None) -> dict:
        """Take back the last action (recorded as an ``undo`` entry). Returns that action."""
        if not self._active:
            raise NothingToUndoError("there is nothing to undo", path=self.path, game_id=self.game_id)
        meta = _check_meta(meta)
        target = self._active[-1]
        self._write("undo", None, target, meta)
        self._redo.append(self._active.pop())
        return json.loads(_dumps(self._by_seq[target].action))

    def redo(self, meta: Mapping[str, Any] | None = None) -> dict:
        """Bring back the last undone action (recorded as a ``redo`` entry). Returns it."""
        if not self._redo:
            raise NothingToRedoError("there is nothing to redo", path=self.path, game_id=self.game_id)
        meta = _check_meta(meta)
        target = self._redo[-1]
        self._write("redo", None, target, meta)
        self._active.append(self._redo.pop())
        return json.loads(_dumps(self._by_seq[target].action))

    def update_meta(self, meta: Mapping[str, Any]) -> None:
        """Update metadata keys (e.g. the title) without adding a log entry."""
        meta = _check_meta(meta)
        conn = self._require_open()
        stamp = _now()
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._write_meta(conn, {**meta, "updated": stamp})
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            self._rollback(conn)
            raise SaveWriteError(f"could not save the game details: {e}", path=self.path,
                                 game_id=self.game_id) from e
        self._meta.update(meta)
        self._meta["updated"] = stamp

    def export(self) -> dict:
        """The game as an export document (current action list; undo history not included)."""
        return {
            "format": EXPORT_FORMAT,
            "schema": EXPORT_SCHEMA,
            "game_id": self.game_id,
            "exported": _now(),
            "meta": self.meta,
            "actions": self.actions(),
        }

    def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()
            _held(self.path, -1)

    def __enter__(self) -> "GameLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------------

    def _require_open(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"the game {self.game_id!r} is closed", path=self.path, game_id=self.game_id)
        return self._conn

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    @staticmethod
    def _write_meta(conn: sqlite3.Connection, meta: Mapping[str, Any]) -> None:
        conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                         [(k, _dumps(v)) for k, v in meta.items()])

    def _write(self, kind: str, action_text: str | None, ref: int | None, meta: dict) -> LogEntry:
        conn = self._require_open()
        seq = self.head + 1
        stamp = _now()
        try:
            conn.execute("BEGIN IMMEDIATE")
            (last,) = conn.execute("SELECT coalesce(max(seq), 0) FROM log").fetchone()
            if last != self.head:
                self._rollback(conn)
                raise ConcurrentWriteError(
                    f"the game {self.title or self.game_id!r} was changed by another window or program "
                    f"(its log has {last} entries, this window knows {self.head}); reopen it",
                    path=self.path, game_id=self.game_id)
            conn.execute("INSERT INTO log (seq, kind, action, ref, at) VALUES (?, ?, ?, ?, ?)",
                         (seq, kind, action_text, ref, stamp))
            self._write_meta(conn, {**meta, "updated": stamp})
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            self._rollback(conn)
            raise SaveWriteError(f"could not save to {self.path.name}: {e}; the last step was not "
                                 "recorded", path=self.path, game_id=self.game_id) from e
        entry = LogEntry(seq, kind, json.loads(action_text) if action_text is not None else None, ref, stamp)
        self._entries.append(entry)
        self._by_seq[seq] = entry
        self._meta.update(meta)
        self._meta["updated"] = stamp
        return entry


# --------------------------------------------------------------------------------------------
# The folder of games
# --------------------------------------------------------------------------------------------


def _default_data_dir() -> Path:
    from companion.content.paths import user_data_dir  # the content engineer's helper

    return Path(user_data_dir())


class GameStore:
    """The games folder ``<data dir>/games``. ``data_dir=None`` uses the user data directory
    (``companion.content.paths``; the ``ENCYCLOPEDIA_DATA_DIR`` environment variable overrides it)."""

    def __init__(self, data_dir: str | os.PathLike[str] | None = None):
        self.data_dir = Path(data_dir) if data_dir is not None else _default_data_dir()
        self.games_dir = self.data_dir / "games"

    def path_of(self, game_id: str) -> Path:
        return self.games_dir / f"{_check_game_id(game_id)}{GAME_SUFFIX}"

    def exists(self, game_id: str) -> bool:
        return self.path_of(game_id).exists()

    # -- creating -----------------------------------------------------------------------------

    def create(self, meta: Mapping[str, Any] | None = None, actions: Iterable[dict] = (),
               game_id: str | None = None, created: str | None = None) -> GameLog:
        """Create a new game (optionally with its first actions, written in the same step) and
        return it open. The file appears under its final name complete or not at all. With an
        explicit ``game_id`` that exists already, :class:`GameExistsError`; never overwrites."""
        meta = _check_meta(meta)
        actions = list(actions)
        for i, action in enumerate(actions):
            check_action_dict(action, f"action {i + 1}")
        explicit = game_id is not None
        if explicit:
            _check_game_id(game_id)
        try:
            self.games_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SaveWriteError(f"cannot create the games folder {self.games_dir}: {e.strerror or e}") from e
        self._remove_stale_temp_files()
        tmp = self.games_dir / f"{_TMP_PREFIX}{secrets.token_hex(8)}{GAME_SUFFIX}"
        try:
            self._build_file(tmp, meta, actions, created)
            for _attempt in range(20):
                gid = game_id if explicit else _new_game_id()
                final = self.path_of(gid)
                try:
                    self._link_new(tmp, final)
                except FileExistsError:
                    if explicit:
                        raise GameExistsError(f"a game with id {gid!r} exists already; it was not "
                                              "overwritten", path=final, game_id=gid) from None
                    continue
                break
            else:  # pragma: no cover - 20 random collisions in a row
                raise SaveWriteError("could not choose a free game id")
        except sqlite3.Error as e:
            raise SaveWriteError(f"could not create the game file: {e}") from e
        except OSError as e:
            raise SaveWriteError(f"could not create the game file in {self.games_dir}: {e.strerror or e}") from e
        finally:
            try:
                tmp.unlink()
            except FileNotFoundError:
                pass
            except OSError:  # pragma: no cover - left for _remove_stale_temp_files
                pass
        _fsync_dir(self.games_dir)
        return self.open(gid)

    @staticmethod
    def _build_file(tmp: Path, meta: dict, actions: list[dict], created: str | None = None) -> None:
        stamp = _now()
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            _set_pragmas(conn)
            # Built in rollback-journal mode so that the header (application id, schema) is in the
            # main file itself, then switched to WAL before anyone else can see the file. The file
            # is invisible until linked into place and is fsynced as a whole before that, so it is
            # built without per-statement syncs.
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA_STATEMENTS:
                conn.execute(statement)
            full_meta = {"title": "", **meta, "format": EXPORT_FORMAT, "schema": SCHEMA_VERSION,
                         "created": created or stamp, "updated": stamp}
            GameLog._write_meta(conn, full_meta)
            conn.executemany("INSERT INTO log (seq, kind, action, ref, at) VALUES (?, 'do', ?, NULL, ?)",
                             [(i + 1, _dumps(a), stamp) for i, a in enumerate(actions)])
            conn.execute("COMMIT")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise SaveWriteError(f"this file system does not support SQLite's WAL mode ({mode})")
        finally:
            conn.close()
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())

    @staticmethod
    def _link_new(tmp: Path, final: Path) -> None:
        """Give ``tmp`` the name ``final`` unless ``final`` exists (atomic where links exist)."""
        try:
            os.link(tmp, final)
        except FileExistsError:
            raise
        except (OSError, NotImplementedError):
            # File systems without hard links: exclusive create, then replace the placeholder.
            fd = os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.close(fd)
            os.replace(tmp, final)

    def _remove_stale_temp_files(self, older_than_s: float = 3600.0) -> None:
        """Remove leftovers of creations interrupted by a crash (never a real game file)."""
        cutoff = time.time() - older_than_s
        try:
            candidates = list(self.games_dir.glob(f"{_TMP_PREFIX}*"))
        except OSError:
            return
        for p in candidates:
            try:
                if p.stat().st_mtime < cutoff:
                    p.unlink()
            except OSError:
                pass

    # -- opening ------------------------------------------------------------------------------

    def open(self, game_id: str) -> GameLog:
        """Open a game for reading and writing. Raises :class:`GameNotFoundError`,
        :class:`CorruptSaveError`, :class:`ForeignFileError` or :class:`NewerSchemaError`
        (the file is then left exactly as it was)."""
        path = self.path_of(game_id)
        conn, entries, meta = self._open_checked(path, game_id)
        try:
            return GameLog(conn, path, game_id, entries, meta)
        except BaseException:
            conn.close()
            raise

    def _open_checked(self, path: Path, game_id: str, parse_actions: bool = True
                      ) -> tuple[sqlite3.Connection, list[LogEntry], dict]:
        _check_header(path, game_id)
        # A WAL with content means another process has the game open, or one crashed with it
        # open. Verify through a read-only connection then, so that a damaged file is never
        # checkpointed into; otherwise the read-write connection only reads until verified.
        wal = path.with_name(path.name + "-wal")
        try:
            hot_wal = wal.stat().st_size > 0
        except OSError:
            hot_wal = False
        if hot_wal:
            ro = self._connect(path, game_id, read_only=True)
            try:
                self._verify(ro, path, game_id, parse_actions)
            finally:
                ro.close()
        conn = self._connect(path, game_id, read_only=False)
        try:
            entries, meta = self._verify(conn, path, game_id, parse_actions)
        except BaseException:
            conn.close()
            raise
        return conn, entries, meta

    @staticmethod
    def _connect(path: Path, game_id: str, read_only: bool) -> sqlite3.Connection:
        mode = "ro" if read_only else "rw"
        try:
            # check_same_thread=False: in web mode the pages of one game act from their own
            # threads, one at a time under companion.shared_session's lock
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as e:
            raise StoreError(f"the save {path.name} cannot be opened: {e}", path=path, game_id=game_id) from e
        try:
            _set_pragmas(conn)
        except sqlite3.Error as e:
            conn.close()
            raise CorruptSaveError(f"the save {path.name} is damaged: {e}; it was left untouched",
                                   path=path, game_id=game_id) from e
        return conn

    @staticmethod
    def _verify(conn: sqlite3.Connection, path: Path, game_id: str, parse_actions: bool = True
                ) -> tuple[list[LogEntry], dict]:
        """Check the open file; return its log entries and meta. ``parse_actions=False`` (the
        listing) skips reading each action's JSON (entries then carry ``action=None``)."""
        def corrupt(why: str) -> CorruptSaveError:
            return CorruptSaveError(f"the save {path.name} is damaged: {why}; it was left untouched",
                                    path=path, game_id=game_id)

        try:
            check = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
            if check != ["ok"]:
                raise corrupt("; ".join(str(c) for c in check))
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            schema = conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id != APPLICATION_ID:
                raise ForeignFileError(f"{path.name} is not an Encyclopedia Companion save; it was left untouched",
                                       path=path, game_id=game_id)
            if schema > SCHEMA_VERSION:
                raise NewerSchemaError(
                    f"the save {path.name} was written by a newer version of the companion (save format "
                    f"{schema}, this version reads up to {SCHEMA_VERSION}); update the app to open it",
                    path=path, game_id=game_id)
            if schema < 1:
                raise corrupt(f"it has no save format number ({schema})")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"meta", "log"} <= tables:
                raise corrupt(f"tables missing: {', '.join(sorted({'meta', 'log'} - tables))}")
            meta: dict = {}
            for key, value in conn.execute("SELECT key, value FROM meta"):
                try:
                    meta[key] = json.loads(value)
                except (TypeError, ValueError):
                    raise corrupt(f"the detail {key!r} is not readable") from None
            if meta.get("format") != EXPORT_FORMAT:
                raise corrupt(f"its format is {meta.get('format')!r}, expected {EXPORT_FORMAT!r}")
            entries: list[LogEntry] = []
            for seq, kind, action, ref, at in conn.execute("SELECT seq, kind, action, ref, at FROM log ORDER BY seq"):
                if kind not in _KINDS:
                    raise corrupt(f"log entry {seq} has an unknown kind {kind!r}")
                parsed = None
                if kind == "do" and parse_actions:
                    try:
                        parsed = json.loads(action)
                        check_action_dict(parsed, f"log entry {seq}")
                    except (TypeError, ValueError) as e:
                        raise corrupt(f"log entry {seq} is not a readable action ({e})") from None
                entries.append(LogEntry(seq, kind, parsed, ref, at))
            _fold(entries, path, game_id)  # undo/redo entries consistent
        except sqlite3.DatabaseError as e:
            raise corrupt(str(e)) from e
        return entries, meta

    # -- listing ------------------------------------------------------------------------------

    def list_games(self) -> GameListing:
        """Every game in the folder with its metadata, newest first. A file that cannot be read
        does not stop the listing: it is reported in ``problems`` and left as it is."""
        games: list[GameInfo] = []
        problems: list[BadSave] = []
        try:
            paths = sorted(p for p in self.games_dir.iterdir()
                           if p.name.endswith(GAME_SUFFIX) and not p.name.startswith("."))
        except FileNotFoundError:
            return GameListing((), ())
        except OSError as e:
            raise StoreError(f"cannot read the games folder {self.games_dir}: {e.strerror or e}") from e
        for path in paths:
            game_id = path.name[: -len(GAME_SUFFIX)]
            if not _GAME_ID_RE.match(game_id):
                problems.append(BadSave(path, game_id, ForeignFileError(
                    f"{path.name} does not have the name of a saved game; it was left untouched", path=path)))
                continue
            try:
                # Whole-file checks, meta and the undo/redo fold; each action's JSON is checked
                # when the game is opened.
                conn, entries, meta = self._open_checked(path, game_id, parse_actions=False)
                conn.close()
                active, _ = _fold(entries, path, game_id)
                games.append(GameInfo(game_id, path, str(meta.get("title", "")), str(meta.get("created", "")),
                                      str(meta.get("updated", "")), len(active), meta))
            except StoreError as e:
                if isinstance(e, GameNotFoundError):  # deleted while listing
                    continue
                problems.append(BadSave(path, game_id, e))
        games.sort(key=lambda g: (g.updated, g.game_id), reverse=True)
        return GameListing(tuple(games), tuple(problems))

    # -- removing -----------------------------------------------------------------------------

    def trash_game(self, game_id: str) -> Path:
        """Move a game file (healthy or not) into ``games/trash/``, with its ``-wal``/``-shm``
        files, and return its new path. Nothing is deleted: the player (or support) can move it
        back. The trash is never overwritten (a numbered name is used instead). The game must
        not be open in this process."""
        path = self.path_of(game_id)
        if not path.exists():
            raise GameNotFoundError(f"there is no saved game {game_id!r}", path=path, game_id=game_id)
        trash = self.games_dir / "trash"
        try:
            trash.mkdir(exist_ok=True)
            for n in range(1000):
                target = trash / (path.name if n == 0 else f"{game_id}.{n}{GAME_SUFFIX}")
                try:
                    self._link_new(path, target)
                except FileExistsError:
                    continue
                break
            else:  # pragma: no cover
                raise SaveWriteError(f"the trash already holds 1000 copies of {game_id!r}")
            for suffix in ("-wal", "-shm"):
                side = path.with_name(path.name + suffix)
                if side.exists():
                    os.replace(side, target.with_name(target.name + suffix))
            path.unlink()
        except OSError as e:
            raise SaveWriteError(f"could not move {path.name} to the trash: {e.strerror or e}",
                                 path=path, game_id=game_id) from e
        _fsync_dir(self.games_dir)
        return target

    # -- export / import ----------------------------------------------------------------------

    def export_game(self, game_id: str) -> dict:
        with self.open(game_id) as log:
            return log.export()

    def export_file(self, game_id: str, path: str | os.PathLike[str]) -> Path:
        """Write the export document to ``path`` (atomically: a temporary file, then renamed)."""
        return write_export(self.export_game(game_id), path)

    def import_game(self, document: Any, check: Callable[[list[dict]], None] | None = None,
                    game_id: str | None = None) -> GameLog:
        """Create a new game from an export document and return it open. ``check(actions)`` may
        raise to refuse the actions (the session replays them through the engine). Keeps the
        exported id when it is free, otherwise takes a fresh one; never overwrites a game."""
        doc_id, meta, actions = parse_export(document)
        created = document.get("meta", {}).get("created")  # the game keeps its creation time
        created = created if isinstance(created, str) and len(created) <= 40 else None
        meta["imported"] = _now()
        if check is not None:
            check(actions)
        wanted = game_id or doc_id
        if wanted is not None and not self.exists(wanted):
            try:
                return self.create(meta, actions, game_id=wanted, created=created)
            except GameExistsError:  # taken in the meantime
                pass
        return self.create(meta, actions, created=created)

    def import_file(self, path: str | os.PathLike[str],
                    check: Callable[[list[dict]], None] | None = None) -> GameLog:
        return self.import_game(read_export(path), check=check)


# --------------------------------------------------------------------------------------------
# Export documents
# --------------------------------------------------------------------------------------------


def parse_export(document: Any) -> tuple[str | None, dict, list[dict]]:
    """Validate an export document; return (game id or None, meta, actions). Raises
    :class:`ImportFormatError` (or :class:`NewerSchemaError`) naming the first problem."""
    if not isinstance(document, dict):
        raise ImportFormatError(f"an exported game is a JSON object, this is a {type(document).__name__}")
    fmt = document.get("format")
    if fmt != EXPORT_FORMAT:
        raise ImportFormatError(f'this is not an exported Encyclopedia Companion game ("format" is {fmt!r}, '
                                f"expected {EXPORT_FORMAT!r})")
    schema = document.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise ImportFormatError(f'"schema" must be a positive whole number, not {schema!r}')
    if schema > EXPORT_SCHEMA:
        raise NewerSchemaError(f"this game was exported by a newer version of the companion (schema {schema}, "
                               f"this version reads up to {EXPORT_SCHEMA}); update the app to import it")
    meta = document.get("meta", {})
    if not isinstance(meta, dict):
        raise ImportFormatError(f'"meta" must be a JSON object, not {type(meta).__name__}')
    try:
        meta = _check_meta(meta, '"meta"')
    except InvalidActionDataError as e:
        raise ImportFormatError(str(e)) from None
    actions = document.get("actions")
    if not isinstance(actions, list):
        raise ImportFormatError('"actions" must be a list of actions')
    for i, action in enumerate(actions):
        try:
            check_action_dict(action, f"action {i + 1}")
        except InvalidActionDataError as e:
            raise ImportFormatError(str(e)) from None
    game_id = document.get("game_id")
    if game_id is not None and (not isinstance(game_id, str) or not _GAME_ID_RE.match(game_id)):
        game_id = None  # a strange id is not worth refusing the game for; a fresh one is chosen
    return game_id, meta, [json.loads(_dumps(a)) for a in actions]


def read_export(path: str | os.PathLike[str]) -> Any:
    """Read an export file as JSON; :class:`ImportFormatError` with the reason if it cannot be."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise ImportFormatError(f"{path.name} is too large to be an exported game ({size} bytes)")
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImportFormatError(f"there is no file {path}") from None
    except OSError as e:
        raise ImportFormatError(f"{path.name} cannot be read: {e.strerror or e}") from e
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ImportFormatError(f"{path.name} is not a text file (not UTF-8 at byte {e.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ImportFormatError(f"{path.name} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None


def write_export(document: dict, path: str | os.PathLike[str]) -> Path:
    """Write an export document as readable JSON, atomically (temporary file + rename)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(document, f, ensure_ascii=False, indent=1, sort_keys=False, allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise SaveWriteError(f"could not write {path}: {e.strerror or e}") from e
    return path
