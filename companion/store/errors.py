"""The event log's errors: every one a :class:`StoreError` whose ``str()`` is a sentence a
player can act on (which file, what is wrong with it, that it was left untouched)."""

from __future__ import annotations

from pathlib import Path


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
