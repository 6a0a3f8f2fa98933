"""The table profile from the game (issue 38): the dice a player confirms from a photo are added
to the table's profile (``vision.profile``), then the learner (``python -m visionlearn``, run as
a child process by ``vision.profile_cli.run_learner``) adapts the reader to them, in the
background; the game's next photo is read with the adapted model once it is switched in.

Plain Python, no Flet, no torch: the app never imports the learner (tests/test_architecture.py).

- One ``TableLearning`` per process (``table_learning()``), on the serving machine's disk: every
  page's Python runs there and every photo is uploaded there, so a phone's confirmation counts as
  much as the table's (docs/app-game.md, "The table profile").
- ``add_photo`` never blocks the tap: adding (decoding the photo, writing the crops) and learning
  run in one background worker (``starter``: a daemon thread; tests inject one that runs inline).
  One learn at a time: a photo confirmed while a learn runs is added, and one more learn follows.
- Without the ``learn`` extra (torch) the learner exits 3: the dice are kept, nothing else happens.
- A broken profile (a torn file, an unwritable folder) is reported once (``problem``, and one
  line on stderr) and ignored: reads go on with the shipped model, the game never stops.
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterable

Box = tuple[float, float, float, float]

__all__ = ["TableLearning", "table_learning"]


def _thread(fn: Callable[[], None]) -> None:
    threading.Thread(target=fn, name="table-learning", daemon=True).start()


def _run_learner(folder: Path) -> int:
    from vision.profile_cli import run_learner

    return run_learner(folder, io.StringIO(), io.StringIO())


class TableLearning:
    """The table's profile at ``folder`` and its background learner.

    ``starter(job)`` runs ``job`` in the background (default: a daemon thread); ``learner(folder)``
    runs the learner and returns its exit code (default: ``python -m visionlearn`` as a child
    process); ``learn=False`` only keeps the dice."""

    def __init__(self, folder: str | Path, starter: Callable[[Callable[[], None]], None] | None = None,
                 learner: Callable[[Path], int] | None = None, learn: bool = True):
        from vision.profile import TableProfile

        self.profile = TableProfile(folder)
        self._starter = starter or _thread
        self._learner = learner or _run_learner
        self._learn = learn
        self._lock = threading.Lock()
        self._queue: list[tuple[Any, list[tuple[Box, str | None, int]], list[Box], bool]] = []
        self._busy = False
        self.problem: str | None = None  # the broken profile, reported once
        self.last_exit: int | None = None  # the learner's last exit code (3: no learn extra)
        self.learns = 0  # learns run (tests)

    # -- reporting -------------------------------------------------------------------------
    def _report(self, why: str) -> None:
        if self.problem is None:
            print(f"encyclopedia: the table profile is ignored, reading with the shipped model: {why}", file=sys.stderr)
        self.problem = why

    # -- what the screen shows -------------------------------------------------------------
    def adapted(self):
        """The adapted model in use (``vision.profile.AdaptedModel``), None without one or when the
        profile is broken (reported once)."""
        from vision.profile import ProfileError

        try:
            return self.profile.current_model()
        except ProfileError as exc:
            self._report(str(exc))
            return None
        except OSError as exc:
            self._report(str(exc))
            return None

    def learned_from(self) -> int:
        """How many of the table's dice the reader in use learned from (0: the shipped reader)."""
        model = self.adapted()
        if model is None:
            return 0
        trained = model.info.get("trained_on") if isinstance(model.info, dict) else None
        n = trained.get("dice") if isinstance(trained, dict) else None
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0

    def summary(self) -> dict[str, Any]:
        return self.profile.summary()

    @property
    def busy(self) -> bool:
        """True while this process adds a photo or runs the learner, or another process holds
        the profile's lock (``vision.profile``: a learner, an import, a clear)."""
        with self._lock:
            if self._busy:
                return True
        return self.profile.busy() is not None

    # -- confirmed photos ------------------------------------------------------------------
    def add_photo(self, source, dice: Iterable[tuple[Box, str | None, int]], removed: Iterable[Box] = (),
                  complete: bool = True) -> None:
        """Keep the confirmed ``dice`` (box in original pixels, colour or None, value) of the photo
        ``source`` (bytes or a path), and ``removed``: boxes the reader proposed that the player
        removed (not a die); ``complete``: every die of the photo is among ``dice`` (the detector
        learns only from such photos); then learn. Returns at once (the work is the worker's)."""
        dice = [(tuple(float(v) for v in b), c, int(v)) for b, c, v in dice]
        if not dice:
            return
        with self._lock:
            self._queue.append((source, dice, [tuple(float(v) for v in b) for b in removed], bool(complete)))
            if self._busy:
                return  # the running worker takes it
            self._busy = True
        try:
            self._starter(self._work)
        except Exception as exc:  # noqa: BLE001 - no thread: the dice are not kept, the game goes on
            with self._lock:
                self._busy = False
            self._report(f"cannot start the background work: {exc}")

    def _work(self) -> None:
        try:
            while True:
                with self._lock:
                    batch, self._queue = self._queue, []
                    if not batch:
                        self._busy = False
                        return
                added = sum(self._add(*item) for item in batch)
                if added and self._learn:
                    try:
                        self.last_exit = self._learner(self.profile.path)
                    except Exception as exc:  # noqa: BLE001 - a learner that cannot start: keep the dice
                        self.last_exit = None
                        print(f"encyclopedia: the table's learner did not run: {exc}", file=sys.stderr)
                    self.learns += 1
        except BaseException:
            with self._lock:
                self._busy = False
            raise

    def _add(self, source, dice: list[tuple[Box, str | None, int]], removed: list[Box], complete: bool = True) -> int:
        """Add one photo's dice; the number of dice added (0 on a problem, reported)."""
        from vision.labels import LabelledDie, LabelledPhoto, LabelsError
        from vision.profile import ProfileError

        tmp: Path | None = None
        try:
            if isinstance(source, (bytes, bytearray)):
                self.profile.path.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(prefix=".confirmed-photo-", suffix=".img",
                                                 dir=self.profile.path.parent, delete=False) as f:
                    f.write(bytes(source))
                    tmp = Path(f.name)
                image = tmp
            else:
                image = Path(source)
            photo = LabelledPhoto(image, tuple(LabelledDie(b, v, c) for b, c, v in dice), 0, complete)
            proposals = None
            if removed:
                size = _original_size(image)
                if size is not None:
                    ow, oh = size
                    proposals = (lambda img: [(x * img.shape[1] / ow, y * img.shape[0] / oh,
                                               w * img.shape[1] / ow, h * img.shape[0] / oh) for x, y, w, h in removed])
            got = self.profile.add_photos([photo], proposals=proposals)
            return int(got["dice"])
        except (ProfileError, LabelsError, OSError, ValueError) as exc:
            self._report(str(exc))
            return 0
        finally:
            if tmp is not None:
                tmp.unlink(missing_ok=True)


def _original_size(image: Path) -> tuple[int, int] | None:
    from vision.labels import LabelledPhoto, check_photo

    try:
        return check_photo(LabelledPhoto(image, (), 0)).original_size
    except Exception:  # noqa: BLE001 - no negatives then; the dice still count
        return None


_INSTANCE: TableLearning | None = None
_INSTANCE_LOCK = threading.Lock()


def table_learning() -> TableLearning:
    """The process's table profile, in the app's data directory (``ENCYCLOPEDIA_DATA_DIR`` or the
    user data directory), ``table-profile``."""
    global _INSTANCE
    from companion.content.paths import user_data_dir
    from vision.config import PROFILE_DIR_NAME

    folder = user_data_dir() / PROFILE_DIR_NAME
    with _INSTANCE_LOCK:
        if _INSTANCE is None or _INSTANCE.profile.path != folder:
            _INSTANCE = TableLearning(folder)
        return _INSTANCE
