"""The game file's format: how a save is recognised (``PRAGMA application_id``, ``PRAGMA
user_version``, ``meta.format``), the export format's names, the tables and triggers a new file
is built with, and the per-connection SQLite settings. docs/saves.md tells why."""

from __future__ import annotations

import re
import sqlite3


APPLICATION_ID = int.from_bytes(b"EncC", "big")
#: ``PRAGMA user_version`` of the files this code writes; files with a higher number are refused.
#: 2: every log row has a link of a hash chain in ``sums`` (issue 40); 1: no ``sums`` (still read,
#: given one on its next write)
SCHEMA_VERSION = 2
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
)

#: the hash chain over the log (schema 2): ``sums.sum`` of row ``seq`` is
#: ``integrity.row_sum(sum of seq - 1, the row)``; added to a schema-1 file on its next write
_SUMS_STATEMENTS = (
    """CREATE TABLE sums (
    seq INTEGER PRIMARY KEY,         -- the log row it seals
    sum TEXT NOT NULL                -- sha-256 (hex) of the previous sum and the row
)""",
    """CREATE TRIGGER sums_no_update BEFORE UPDATE ON sums
BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END""",
    """CREATE TRIGGER sums_no_delete BEFORE DELETE ON sums
BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END""",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)


def _set_pragmas(conn: sqlite3.Connection) -> None:
    # Per-connection settings; none of them writes to the file.
    conn.execute("PRAGMA synchronous = FULL")  # fsync the WAL at every commit
    conn.execute("PRAGMA fullfsync = ON")  # macOS: flush the drive cache too (no-op elsewhere)
    conn.execute("PRAGMA checkpoint_fullfsync = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA foreign_keys = ON")
