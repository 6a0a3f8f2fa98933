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


class ProfileBusyError(ToolError):
    """The table's learner is running (or another import or clear): an import or a clear of the
    profile is refused until it has finished (Settings says so in the player's language)."""


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


# -- the table profile (issue 38) ---------------------------------------------------------------
@dataclass(frozen=True)
class ProfileStatus:
    dice: int           # confirmed dice kept
    photos: int
    learned_from: int   # dice the adapted reader in use trained on (0: the shipped reader)
    problem: str | None  # the profile is broken (reads go on with the shipped model)


class ProfileTools:
    """The table profile (``vision.profile``, kept by ``companion.app.game.learning``): how many
    dice, export (a zip in the data directory), import (an export's bytes), clear (asked first:
    ``ask_clear`` then ``clear``). ``table=False`` (a phone's page) refuses all but the status.

    While the table's learner runs (a confirmed photo being added or learned from, here or by
    another process holding the profile's lock) import and clear refuse with ``ProfileBusyError``
    and change nothing; the profile's own lock makes the refusal hold between processes too
    (``TableProfile.import_from`` / ``clear`` raise ``ProfileBusy``), so a learn that ends later
    never switches its model into a cleared or imported profile."""

    def __init__(self, learning=None, table: bool = True, export_dir=None):
        self.table = table
        self._learning = learning
        self._export_dir = export_dir
        self.clear_asked = False

    @property
    def learning(self):
        if self._learning is None:
            from companion.app.game.learning import table_learning

            self._learning = table_learning()
        return self._learning

    def status(self) -> ProfileStatus:
        s = self.learning.summary()
        if s.get("error"):
            return ProfileStatus(0, 0, 0, s["error"])
        return ProfileStatus(int(s.get("dice", 0)), int(s.get("photos", 0)), self.learning.learned_from(),
                             self.learning.problem if s.get("exists") else None)

    def export(self):
        """Write the profile to ``table-profile-<date>.zip`` in the data directory; its path."""
        from pathlib import Path

        from vision.profile import ProfileError

        _table_only(self.table)
        folder = Path(self._export_dir) if self._export_dir is not None else self.learning.profile.path.parent
        dest = folder / datetime.now().strftime("table-profile-%Y-%m-%d-%H%M%S.zip")
        try:
            if not self.learning.profile.exists():
                raise ToolError("no confirmed dice yet: nothing to export")
            folder.mkdir(parents=True, exist_ok=True)
            return self.learning.profile.export(dest)
        except ProfileError as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"cannot write {dest}: {exc.strerror or exc}") from None

    def import_bytes(self, data: bytes, source: str) -> ProfileStatus:
        """Replace the profile by an export (its bytes); a bad file changes nothing."""
        import tempfile
        from pathlib import Path

        from vision.profile import ProfileBusy, ProfileError

        _table_only(self.table)
        self._not_while_learning("import")
        parent = self.learning.profile.path.parent
        tmp = None
        try:
            parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(prefix=".profile-import-", suffix=".zip", dir=parent, delete=False) as f:
                f.write(data)
                tmp = Path(f.name)
            self.learning.profile.import_from(tmp)
        except ProfileBusy as exc:
            raise ProfileBusyError(str(exc)) from None
        except ProfileError as exc:
            raise ToolError(str(exc).replace(str(tmp), source) if tmp else str(exc)) from None
        except OSError as exc:
            raise ToolError(f"{source}: cannot import it ({exc.strerror or exc})") from None
        finally:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        self.learning.problem = None
        return self.status()

    def _not_while_learning(self, what: str) -> None:
        if self.learning.busy:
            raise ProfileBusyError(f"the reader is learning from the table's dice: {what} when it has finished")

    def ask_clear(self) -> None:
        _table_only(self.table)
        self.clear_asked = True

    def cancel_clear(self) -> None:
        self.clear_asked = False

    def clear(self) -> bool:
        """Forget the table's dice and the adapted reader, once ``ask_clear`` was answered yes;
        ``True`` when there was a profile."""
        from vision.profile import ProfileBusy, ProfileError

        _table_only(self.table)
        if not self.clear_asked:
            raise ToolError("clearing the table profile must be confirmed first")
        self._not_while_learning("clear it")
        self.clear_asked = False
        try:
            gone = self.learning.profile.clear()
        except ProfileBusy as exc:
            self.clear_asked = True  # the question stays: yes again once the learner has finished
            raise ProfileBusyError(str(exc)) from None
        except ProfileError as exc:
            raise ToolError(str(exc)) from None
        self.learning.problem = None
        return gone
