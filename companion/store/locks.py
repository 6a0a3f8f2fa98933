"""Which game files this process holds open (so their header is not read again with a plain
``open``, which would drop SQLite's POSIX locks on them)."""

from __future__ import annotations

import threading
from pathlib import Path


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
