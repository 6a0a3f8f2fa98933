"""Settings tools as plain Python: the animal catalogue (import / export) and the dice colour
calibration. Both only call their owners' modules (``companion.content.catalogue``,
``vision.calibration`` / ``vision.reader``); nothing here knows a file format.

Import is all-or-nothing: a file is validated whole, then merged by name into the local
catalogue; a card that clashes with a different local card of the same name stops the import
(nothing changes) unless the user chose "keep mine" or "take theirs".

Calibration: one photo of five dice in a row, one of each colour, left to right in the order
shown (red, yellow, purple, blue, green). The dice reader finds them; each die's measured body
colour becomes that colour's reference; colours calibrated before and not in this photo are
kept. A photo that does not show exactly five dice is refused with the reader's reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from companion.content.catalogue import Catalogue, CatalogueError, MergeReport

CALIBRATION_ORDER: tuple[str, ...] = ("red", "yellow", "purple", "blue", "green")


class ToolError(ValueError):
    """A tool action that cannot be done; the message says why (nothing was changed)."""


def _table_only(table: bool) -> None:
    if not table:
        from companion.app.settings.vm import TABLE_ONLY

        raise ToolError(TABLE_ONLY)


# -- animal catalogue ------------------------------------------------------------------------
@dataclass(frozen=True)
class CatalogueSummary:
    animals: int
    sepultus: int
    problem: str | None  # the local file exists but cannot be read


class CatalogueTools:
    """The animal catalogue's import and export; ``table=False`` (a phone's page) refuses both."""

    def __init__(self, table: bool = True):
        self.table = table

    def summary(self) -> CatalogueSummary:
        try:
            cat = Catalogue.load()
        except CatalogueError as exc:
            return CatalogueSummary(0, 0, str(exc))
        return CatalogueSummary(len(cat.animals), len(cat.sepultus), None)

    def export_bytes(self) -> bytes:
        _table_only(self.table)
        try:
            cat = Catalogue.load()
        except CatalogueError as exc:
            raise ToolError(str(exc)) from None
        return (json.dumps(cat.to_json(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")

    @staticmethod
    def export_name() -> str:
        return datetime.now().strftime("animal-catalogue-%Y-%m-%d.json")

    def import_bytes(self, data: bytes, source: str, on_conflict: str = "error") -> MergeReport:
        """Merge a shared catalogue file (its bytes) into the local one and save it."""
        _table_only(self.table)
        if on_conflict not in ("error", "keep", "replace"):
            raise ToolError(f"unknown choice {on_conflict!r} for cards that differ")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ToolError(f"{source}: not a UTF-8 text file") from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ToolError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
        try:
            incoming = Catalogue.from_json(doc, source)
            local = Catalogue.load()
            report = local.merge(incoming, on_conflict)  # all or nothing
        except CatalogueError as exc:
            raise ToolError(str(exc)) from None
        if report.changed:
            local.save()
        return report


# -- dice colour calibration -------------------------------------------------------------------
@dataclass(frozen=True)
class CalibrationStatus:
    colours: tuple[str, ...]  # calibrated colours, in CALIBRATION_ORDER
    created: str
    problem: str | None       # the calibration file exists but cannot be read


def _default_reader():
    from vision.reader import DiceReader

    return DiceReader.from_files()


class CalibrationTools:
    """``reader_factory`` builds a ``vision.reader.DiceReader`` (tests pass one with a fake model)."""

    def __init__(self, reader_factory: Callable[[], object] | None = None, path=None, table: bool = True):
        self.table = table  # False: a phone's page, which may not calibrate or forget
        self._factory = reader_factory or _default_reader
        self._reader = None
        self._path = path

    @property
    def path(self):
        if self._path is None:
            from vision.config import default_calibration_path

            self._path = default_calibration_path()
        return self._path

    def status(self) -> CalibrationStatus:
        from vision.calibration import Calibration, CalibrationError

        try:
            cal = Calibration.load_optional(self.path)
        except CalibrationError as exc:
            return CalibrationStatus((), "", str(exc))
        if cal is None:
            return CalibrationStatus((), "", None)
        return CalibrationStatus(tuple(c for c in CALIBRATION_ORDER if c in cal.centroids), cal.created, None)

    def _get_reader(self):
        if self._reader is None:
            try:
                self._reader = self._factory()
            except Exception as exc:  # missing model files, runtime problems: say so, change nothing
                raise ToolError(f"the dice reader cannot start: {exc}") from None
        return self._reader

    def calibrate(self, image: bytes, colours: tuple[str, ...] = CALIBRATION_ORDER) -> CalibrationStatus:
        """Read the photo, learn the colours, merge with the saved calibration and save it."""
        from vision.calibration import Calibration, CalibrationError, samples_from_dice

        _table_only(self.table)
        result = self._get_reader().read(image)
        if result.error:
            raise ToolError(result.error)
        try:
            new = Calibration.from_samples(samples_from_dice(result.dice, colours=list(colours), where="photo"))
            old = Calibration.load_optional(self.path)
        except CalibrationError as exc:
            raise ToolError(str(exc)) from None
        merged = old.merged_with(new) if old is not None else new
        merged.save(self.path)
        return self.status()

    def clear(self) -> bool:
        """Forget the calibration; ``True`` when there was one."""
        _table_only(self.table)
        from pathlib import Path

        p = Path(self.path)
        if p.exists():
            p.unlink()
            return True
        return False
