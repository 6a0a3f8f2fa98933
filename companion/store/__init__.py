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

The package, by what each module does (each imports only from those above it):

- ``errors``     :class:`StoreError` and its subclasses;
- ``schema``     the file format: application id, schema number, tables, SQLite settings;
- ``records``    small value types (:class:`LogEntry`, :class:`GameInfo`, :class:`BadSave`,
                 :class:`GameListing`);
- ``checks``     plain JSON data, meta and game ids; the canonical stored JSON text;
- ``locks``      the game files this process holds open;
- ``integrity``  damage checks from a file's header, and the undo/redo fold;
- ``log``        :class:`GameLog`, one open game;
- ``export``     export documents (``parse_export``, ``read_export``, ``write_export``);
- ``folder``     :class:`GameStore`, the folder of games.

Outside code imports from here (``from companion.store import GameStore``). What must not live
or be imported here: the rules (no ``companion.engine``, no ``companion.actions``: actions are
JSON dicts here, the session replays them), no UI, no vision.
"""

from __future__ import annotations

from companion.store.errors import (
    ConcurrentWriteError, CorruptSaveError, ForeignFileError, GameExistsError, GameNotFoundError,
    ImportFormatError, InvalidActionDataError, NewerSchemaError, NothingToRedoError, NothingToUndoError,
    SaveWriteError, StoreError,
)
# MAX_IMPORT_BYTES stays importable from here; as before, it is not in __all__
from companion.store.schema import (
    APPLICATION_ID, EXPORT_FORMAT, EXPORT_SCHEMA, GAME_SUFFIX, MAX_IMPORT_BYTES, SCHEMA_VERSION,
)
from companion.store.records import BadSave, GameInfo, GameListing, LogEntry
from companion.store.checks import check_action_dict
from companion.store.log import GameLog
from companion.store.export import parse_export, read_export, write_export
from companion.store.folder import GameStore


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
