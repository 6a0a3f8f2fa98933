"""Settings: the "check your box" constants (DIGEST §2) as an editable form, without Flet.

Only the keys the shipped ``board.json`` flags as unverified can be changed (the engine refuses
an override of a confirmed rule). Each is shown as its JSON text (``[1, 2, 3, 4]``); the user
edits the text; ``save()`` validates the whole override exactly as the engine will read it
(``companion.content.board.load_board``) and only then writes ``<user data dir>/board.json``,
holding just the keys that differ from the box defaults. A bad entry is reported with the
engine's message (which names the key) and nothing is written.

The screen shows each constant as a form, not as JSON (issue 41, item 12): its numbers
(``cells``: every whole number inside the value, with where it sits) each in a labelled field
(``cell_label``: "Seat 2", "Space 4: coins", "Type III"...); ``set_cell`` puts a typed number in
its place (anything but a whole number 0..999 is refused on that field and changes nothing).
What a slot or a bonus space gives (its kind) stays as in the box: only the numbers change.

The table's settings are the table's (issue 40): ``SettingsAccess.of(ctl)`` says what a page is
offered. A phone (a page of another device, ``common.gate.is_phone``) gets its own page's
language and theme only; the box constants, the dice calibration, the table profile (its count,
export, import and clear; issue 38), the animal catalogue (import and export) and every server
path are the serving machine's own page's (docs/app.md). The view-models refuse for a phone
too (``table=False``), so a screen that forgot to ask changes nothing.
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
TABLE_SECTIONS = ("box", "calibration", "profile", "catalogue")


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


#: the largest number a cell takes (the board's constants are small counts)
MAX_CELL = 999
_ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV"}


@dataclass(frozen=True)
class Cell:
    """One number of a constant: ``path`` leads to it inside the value (list indexes, keys)."""

    key: str
    path: tuple
    value: int
    default: int | None  # the box's number at the same place (None: not in the default)


def _leaves(value, path: tuple = ()):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield path, value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, path + (k,))


def _at(value, path: tuple):
    for p in path:
        value = value[p]
    return value


def cell_label(tr, key: str, path: tuple) -> str:
    """The words of one number of the form, in the page's language (``tr``: the translator)."""
    if not path:
        return tr(f"board.{key}")
    if key == "starting_coins":
        return tr("settings.cell.seat", n=path[0] + 1)
    if key == "expedition_spaces":
        return tr("settings.cell.exp_rep" if path[1] == 0 else "settings.cell.exp_bonus", n=path[0] + 1)
    if key == "reputation_bonuses":
        return tr("settings.cell.space", n=path[0], what=tr(f"settings.gain.{path[1]}"))
    if key == "slot_effects":
        return tr("settings.cell.slot", n=path[0] + 1, what=tr(f"settings.gain.{path[1]}"))
    if key == "research_vp":
        return tr("settings.cell.type", type=_ROMAN.get(str(path[0]), str(path[0])))
    if key == "round_token_counts":
        return tr(f"settings.token.{path[0]}")
    return " · ".join(str(p) for p in path)  # a constant the form has no words for yet


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
        self.cell_errors: dict[tuple[str, tuple], str] = {}

    def set_text(self, key: str, text: str) -> None:
        if key not in self.fields:
            raise KeyError(f"{key!r} is not a constant that can be corrected")
        self.fields[key].text = text
        self.fields[key].error = None
        self.message = None

    def cells(self, key: str) -> list[Cell]:
        """The numbers of constant ``key`` as the form shows them (from its current text; the
        box's value when that text cannot be read)."""
        f = self.fields[key]
        default = json.loads(f.default_text)
        try:
            value = json.loads(f.text)
        except ValueError:
            value = default
        out = []
        for path, v in _leaves(value):
            try:
                d = _at(default, path)
            except (KeyError, IndexError, TypeError):
                d = None
            out.append(Cell(key, path, v, d if isinstance(d, int) and not isinstance(d, bool) else None))
        return out

    def set_cell(self, key: str, path: tuple, text: str) -> bool:
        """Put the typed number at ``path`` in constant ``key``. Anything but a whole number
        0..MAX_CELL is refused: ``cell_errors[(key, path)]`` is the message key of why (with
        ``max``) and nothing changes."""
        if key not in self.fields:
            raise KeyError(f"{key!r} is not a constant that can be corrected")
        f = self.fields[key]
        try:
            value = json.loads(f.text)
            _at(value, path)
        except (ValueError, KeyError, IndexError, TypeError):
            value = json.loads(f.default_text)
        try:
            parent = _at(value, path[:-1]) if path else None
            if path:
                parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            raise KeyError(f"{key!r} has no number at {path!r}") from None
        typed = (text or "").strip()
        if not typed.isdigit() or int(typed) > MAX_CELL:
            self.cell_errors[(key, path)] = "settings.cell.bad"  # a message key, worded by the screen
            return False
        self.cell_errors.pop((key, path), None)
        if path:
            parent[path[-1]] = int(typed)
        else:
            value = int(typed)
        self.set_text(key, _dump(value))
        return True

    def reset(self, key: str) -> None:
        self.cell_errors = {k: v for k, v in self.cell_errors.items() if k[0] != key}
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
