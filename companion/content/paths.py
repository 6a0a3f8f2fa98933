"""Where the companion keeps per-user files (saved games, local animal catalogue, board overrides).

``user_data_dir()`` is the one place every part asks. Order:

1. ``$ENCYCLOPEDIA_DATA_DIR`` when set and not empty (tests and portable installs use it);
2. Windows: ``%APPDATA%\\EncyclopediaCompanion`` (falls back to ``~/AppData/Roaming``);
3. macOS: ``~/Library/Application Support/EncyclopediaCompanion``;
4. elsewhere: ``$XDG_DATA_HOME/encyclopedia-companion`` (``~/.local/share`` when unset or relative).

Nothing is created unless ``create=True`` is passed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV_VAR = "ENCYCLOPEDIA_DATA_DIR"
APP_DIR_NAME = "EncyclopediaCompanion"
XDG_DIR_NAME = "encyclopedia-companion"


def user_data_dir(create: bool = False) -> Path:
    """The per-user data directory (see the module docstring); ``create=True`` makes it."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        path = Path(override).expanduser()
    elif sys.platform.startswith("win"):
        base = os.environ.get("APPDATA", "").strip()
        path = (Path(base) if base else Path.home() / "AppData" / "Roaming") / APP_DIR_NAME
    elif sys.platform == "darwin":
        path = Path.home() / "Library" / "Application Support" / APP_DIR_NAME
    else:
        base = os.environ.get("XDG_DATA_HOME", "").strip()
        # the XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored
        root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
        path = root / XDG_DIR_NAME
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def user_file(name: str, create_dir: bool = False) -> Path:
    """A file inside the user data directory (``board.json``, ``catalogue.json``, ...)."""
    return user_data_dir(create=create_dir) / name
