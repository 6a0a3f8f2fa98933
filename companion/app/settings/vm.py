"""Settings: the "check your box" constants (DIGEST §2) as an editable form, without Flet.

Only the keys the shipped ``board.json`` flags as unverified can be changed (the engine refuses
an override of a confirmed rule). Each is shown as its JSON text (``[1, 2, 3, 4]``); the user
edits the text; ``save()`` validates the whole override exactly as the engine will read it
(``companion.content.board.load_board``) and only then writes ``<user data dir>/board.json``,
holding just the keys that differ from the box defaults. A bad entry is reported with the
engine's message (which names the key) and nothing is written.

The table's settings are the table's (issue 40): ``SettingsAccess.of(ctl)`` says what a page is
offered. A phone (a page of another device, ``common.gate.is_phone``) gets its own page's
language and theme only; the box constants, the dice calibration, the animal catalogue (import
and export) and every server path are the serving machine's own page's (docs/app.md). The
view-models refuse for a phone too (``table=False``), so a screen that forgot to ask changes
nothing.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from companion.content import board as board_mod
from companion.content.paths import user_file


#: what a phone is told when it reaches a table-only setting (it never sees the control)
TABLE_ONLY = "only the table's screen (the machine that serves the app) can change this"

#: the sections of the Settings screen, in order; a phone gets the first two (its page's own)
PAGE_SECTIONS = ("language", "theme")
TABLE_SECTIONS = ("box", "calibration", "catalogue")


@dataclass(frozen=True)
class SettingsAccess:
    """What one page may see and change in Settings (module doc)."""

    table: bool

    @classmethod
    def of(cls, ctl) -> "SettingsAccess":
        """The table's screen unless the shell marked the page a phone (``remote_client``)."""
        return cls(table=not bool(getattr(ctl, "remote_client", False)))

    @property
    def sections(self) -> tuple[str, ...]:
        return PAGE_SECTIONS + (TABLE_SECTIONS if self.table else ())

    @property
    def saves_prefs(self) -> bool:
        """A phone's language and theme are its page's; only the table's are written to disk."""
        return self.table


@dataclass
class ConstantField:
    key: str
    text: str          # what the form shows / the user typed
    default_text: str  # the shipped value
    error: str | None = None

    @property
    def is_default(self) -> bool:
        try:
            return json.loads(self.text) == json.loads(self.default_text)
        except ValueError:
            return False


def _dump(value) -> str:
    return json.dumps(value, ensure_ascii=False)


class BoxConstantsForm:
    def __init__(self, override_path: Path | None = None, table: bool = True):
        self.table = table
        self.override_path = override_path or user_file(board_mod.OVERRIDE_FILE_NAME)
        self.message: str | None = None
        self.error: str | None = None
        self.reload()

    def reload(self) -> None:
        """Read the defaults and the current override file (a broken file is reported, not fatal)."""
        shipped = board_mod.shipped_board().to_json()
        self.keys = tuple(sorted(board_mod.shipped_unverified_keys()))
        current = dict(shipped)
        self.error = None
        if self.override_path.exists():
            try:
                current = board_mod.load_board(self.override_path).to_json()
            except board_mod.BoardConfigError as exc:
                self.error = str(exc)
        self.fields = {
            k: ConstantField(k, _dump(current[k]), _dump(shipped[k])) for k in self.keys
        }

    def set_text(self, key: str, text: str) -> None:
        if key not in self.fields:
            raise KeyError(f"{key!r} is not a constant that can be corrected")
        self.fields[key].text = text
        self.fields[key].error = None
        self.message = None

    def reset(self, key: str) -> None:
        self.set_text(key, self.fields[key].default_text)

    def override(self) -> dict:
        """The override object the form describes; raises ``ValueError`` on unreadable text."""
        out = {}
        for key, f in self.fields.items():
            try:
                value = json.loads(f.text)
            except ValueError:
                f.error = "not a valid value (write it like the default, e.g. " + f.default_text + ")"
                raise ValueError(f"{key}: {f.error}") from None
            if value != json.loads(f.default_text):
                out[key] = value
        return out

    def save(self) -> bool:
        """Validate and write; ``True`` when saved. On failure ``self.error`` says why."""
        self.error = self.message = None
        for f in self.fields.values():
            f.error = None
        if not self.table:
            self.error = TABLE_ONLY
            return False
        tmp = None
        try:
            data = self.override()
            # validate through the engine's own loader, from a temporary file
            fd, tmp = tempfile.mkstemp(suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            try:
                board_mod.load_board(tmp)
            finally:
                os.unlink(tmp)
        except (ValueError, board_mod.BoardConfigError) as exc:
            msg = str(exc).replace(tmp + ": ", "") if tmp else str(exc)
            self.error = msg
            for key, f in self.fields.items():
                if msg.startswith(key + ":"):
                    f.error = f.error or msg[len(key) + 1 :].strip()
            return False
        path = self.override_path
        if data:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp2 = tempfile.mkstemp(prefix=".board-", suffix=".json", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"_comment": "corrections from my own box (Encyclopedia Companion settings)", **data},
                          fh, indent=2, ensure_ascii=False)
                fh.write("\n")
            os.replace(tmp2, path)
        else:
            path.unlink(missing_ok=True)
        board_mod.default_board.cache_clear()
        self.message = "saved"
        return True
