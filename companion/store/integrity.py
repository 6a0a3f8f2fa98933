"""Damage checks that need no SQLite: a file classified from its first 100 bytes (not SQLite,
cut short, another program's database, a newer save), and the log's do/undo/redo entries
folded into the current action list (a broken fold is a damaged save)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

from companion.store.errors import CorruptSaveError, ForeignFileError, GameNotFoundError, NewerSchemaError, StoreError
from companion.store.locks import _is_held
from companion.store.records import LogEntry
from companion.store.schema import _SQLITE_MAGIC, APPLICATION_ID, SCHEMA_VERSION


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


#: the link before the first row of a game's hash chain
CHAIN_START = "encyclopedia-companion-log"


def row_sum(previous: str, seq: int, kind: str, action_text: str | None, ref: int | None, at: str) -> str:
    """The hash chain's link for one log row: sha-256 of the previous link and every column of
    the row as stored (the action as its canonical JSON text). A changed bit anywhere in a row,
    a row moved, removed or put in another file breaks it from that row on."""
    text = "\x1f".join((previous, str(seq), kind, action_text or "", "" if ref is None else str(ref), at))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_chain(rows, sums: dict[int, str], corrupt) -> str:
    """Check the log ``rows`` (seq, kind, action text, ref, at) against their ``sums``; raise
    ``corrupt(why)`` at the first row that does not match. Returns the last link."""
    link = CHAIN_START
    for seq, kind, action, ref, at in rows:
        link = row_sum(link, seq, kind, action, ref, at)
        stored = sums.get(seq)
        if stored is None:
            raise corrupt(f"log entry {seq} has no checksum")
        if stored != link:
            raise corrupt(f"log entry {seq} does not match its checksum (changed outside the app or damaged)")
    extra = sorted(set(sums) - {r[0] for r in rows})
    if extra:
        raise corrupt(f"log entries {extra[0]}... are missing (their checksums are there)")
    return link


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
