"""The app's own preferences (language, theme), kept in ``<user data dir>/app-settings.json``.

Board constants ("check your box") are not here: they belong to the engine's board override
file (``companion.content.board``). A preferences file that cannot be read (hand-edited,
truncated) is not fatal: the app starts with the defaults and says so, and the next save
rewrites it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from companion.app.common.i18n import DEFAULT_LANGUAGE, LANGUAGES
from companion.content.paths import user_file

FILE_NAME = "app-settings.json"
THEMES: tuple[str, ...] = ("system", "light", "dark")


class PrefsError(ValueError):
    """A preference value is not one the app knows."""


@dataclass(frozen=True)
class Prefs:
    language: str = DEFAULT_LANGUAGE
    theme: str = "system"

    def __post_init__(self):
        if self.language not in LANGUAGES:
            raise PrefsError(
                f"language must be one of {', '.join(LANGUAGES)}, not {self.language!r}"
            )
        if self.theme not in THEMES:
            raise PrefsError(f"theme must be one of {', '.join(THEMES)}, not {self.theme!r}")

    def with_(self, **changes) -> "Prefs":
        """A copy with ``changes`` (validated)."""
        unknown = set(changes) - set(asdict(self))
        if unknown:
            raise PrefsError(f"unknown preference {sorted(unknown)[0]!r}")
        return replace(self, **changes)


def prefs_path() -> Path:
    return user_file(FILE_NAME)


def load_prefs(path: Path | None = None) -> tuple[Prefs, str | None]:
    """``(prefs, problem)``: the saved preferences, or the defaults and why they were not read."""
    path = path or prefs_path()
    if not path.exists():
        return Prefs(), None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise PrefsError("the file does not hold a JSON object")
        known = {k: data[k] for k in ("language", "theme") if k in data}
        return Prefs(**known), None
    except (OSError, ValueError) as exc:  # JSONDecodeError and PrefsError are ValueErrors
        return Prefs(), f"{path}: {exc}"


def save_prefs(prefs: Prefs, path: Path | None = None) -> Path:
    """Write ``prefs`` atomically (temp file + rename) and return the path."""
    path = path or prefs_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".app-settings-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(prefs), fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
