"""One open game: :class:`GameLog`, the append-only log of one game file (append, undo and
redo as entries of their own, meta updates, export), each write durable before it returns."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Mapping

from companion.store.checks import _check_meta, _dumps, _now, check_action_dict
from companion.store.errors import (
    ConcurrentWriteError, NothingToRedoError, NothingToUndoError, SaveWriteError, StoreError,
)
from companion.store.integrity import CHAIN_START, _fold, row_sum
from companion.store.locks import _held
from companion.store.records import LogEntry
from companion.store.schema import _SUMS_STATEMENTS, EXPORT_FORMAT, EXPORT_SCHEMA


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
        # the hash chain (schema 2; the store checked it when it opened the file): its last link,
        # and whether this is a schema-1 file, which gets its chain with its next write
        self._link = CHAIN_START
        for e in entries:
            self._link = row_sum(self._link, e.seq, e.kind, _dumps(e.action) if e.action is not None else None,
                                 e.ref, e.at)
        self._unsealed = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sums'"
                                      ).fetchone() is None
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

    def compact(self) -> None:
        """Build the rows kept in memory (and the metadata) again as new objects with the same
        values. For a long-running server at a quiet moment (``GameSession.compact``): rows
        decoded while pages came and went lie scattered among freed memory, and each keeps its
        page of the process's heap resident."""
        entries = []
        for e in self._entries:
            action, at = json.loads(_dumps([e.action, e.at]))
            entries.append(LogEntry(e.seq, e.kind, action, e.ref, at))
        self._entries = entries
        self._by_seq = {e.seq: e for e in entries}
        self._meta = self.meta  # a copy built again

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
            if self._unsealed:  # a schema-1 file: its rows get their links first (migration)
                for statement in _SUMS_STATEMENTS:
                    conn.execute(statement)
                link, sums = CHAIN_START, []
                for e in self._entries:
                    link = row_sum(link, e.seq, e.kind, _dumps(e.action) if e.action is not None else None,
                                   e.ref, e.at)
                    sums.append((e.seq, link))
                conn.executemany("INSERT INTO sums (seq, sum) VALUES (?, ?)", sums)
            link = row_sum(self._link, seq, kind, action_text, ref, stamp)
            conn.execute("INSERT INTO log (seq, kind, action, ref, at) VALUES (?, ?, ?, ?, ?)",
                         (seq, kind, action_text, ref, stamp))
            conn.execute("INSERT INTO sums (seq, sum) VALUES (?, ?)", (seq, link))
            self._write_meta(conn, {**meta, "updated": stamp})
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            self._rollback(conn)
            raise SaveWriteError(f"could not save to {self.path.name}: {e}; the last step was not "
                                 "recorded", path=self.path, game_id=self.game_id) from e
        self._link, self._unsealed = link, False
        entry = LogEntry(seq, kind, json.loads(action_text) if action_text is not None else None, ref, stamp)
        self._entries.append(entry)
        self._by_seq[seq] = entry
        self._meta.update(meta)
        self._meta["updated"] = stamp
        return entry
