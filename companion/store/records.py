"""Small value types of the event log: a log row, a listed game, an unreadable file, a listing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.store.errors import StoreError


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
