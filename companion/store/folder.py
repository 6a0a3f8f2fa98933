"""The folder of games: :class:`GameStore` creates a game file (complete under its final
name or not at all), opens one after checking it (``_verify``), lists, trashes, exports and
imports games."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from companion.store.checks import _check_game_id, _check_meta, _dumps, _new_game_id, _now, check_action_dict
from companion.store.errors import (
    CorruptSaveError, ForeignFileError, GameExistsError, GameNotFoundError, NewerSchemaError, SaveWriteError,
    StoreError,
)
from companion.store.export import parse_export, read_export, write_export
from companion.store.integrity import CHAIN_START, _check_header, _fold, check_chain, row_sum
from companion.store.log import GameLog
from companion.store.records import BadSave, GameInfo, GameListing, LogEntry
from companion.store.schema import (
    _GAME_ID_RE, _KINDS, _SCHEMA_STATEMENTS, _SUMS_STATEMENTS, _TMP_PREFIX, APPLICATION_ID, EXPORT_FORMAT, GAME_SUFFIX,
    SCHEMA_VERSION, _set_pragmas,
)


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
            for statement in _SCHEMA_STATEMENTS + _SUMS_STATEMENTS:
                conn.execute(statement)
            full_meta = {"title": "", **meta, "format": EXPORT_FORMAT, "schema": SCHEMA_VERSION,
                         "created": created or stamp, "updated": stamp}
            GameLog._write_meta(conn, full_meta)
            rows = [(i + 1, "do", _dumps(a), None, stamp) for i, a in enumerate(actions)]
            conn.executemany("INSERT INTO log (seq, kind, action, ref, at) VALUES (?, ?, ?, ?, ?)", rows)
            link, sums = CHAIN_START, []
            for row in rows:
                link = row_sum(link, *row)
                sums.append((row[0], link))
            conn.executemany("INSERT INTO sums (seq, sum) VALUES (?, ?)", sums)
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
            rows = conn.execute("SELECT seq, kind, action, ref, at FROM log ORDER BY seq").fetchall()
            for seq, kind, action, ref, at in rows:
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
            # schema 2: the hash chain seals every row, undone ones included (schema 1: none yet)
            if "sums" in tables:
                check_chain(rows, dict(conn.execute("SELECT seq, sum FROM sums")), corrupt)
            elif schema >= 2:
                raise corrupt("its checksums are missing")
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
