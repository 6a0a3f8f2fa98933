"""The table profile: the dice a table has confirmed, and the reader adapted to them
(issue 38; docs/vision.md, "The table profile"). Runtime code: no torch, no lab. The learner that
fine-tunes the classifier is ``visionlearn`` (``python -m visionlearn``), run as a separate
process; this module keeps the folder, adds confirmed dice, exports, imports, clears, and loads
the adapted model for reading.

One folder (default ``<user data dir>/table-profile``, ``vision.config.default_profile_dir``)::

    profile.json        {"format": 1, "photos": n, "dice": n, "updated": ...}
    dice.jsonl          one line per confirmed die (crop file, its box in the crop, the box in the
                        photo, the photo's size, value, colour or null, photo number, source)
    crops/              the die crops (PNG): the square the classifier cuts, with CROP_CONTEXT
                        margin instead of 1.3, at most CROP_MAX_PX on a side
    photos.jsonl        one line per photo: its view, the view's and the photo's size, whether
                        every die of it is confirmed with its box ("complete": the detector learns
                        only from those; a profile made before views has none)
    views/              each photo's view (JPEG, at most VIEW_MAX_PX on a side): what the learner
                        shows the detector, at the first pass's and the finer pass's scale
    model/current.json  {"folder": "m-..."}: the adapted model in use (replaced atomically)
    model/m-.../        dice_classifier.onnx and/or dice_detector.onnx ("parts") + model.json
                        (threshold, held-back figures, ...)
    cache/              the learner's replay crops (rebuilt when missing; not exported)
    .learn.lock         while a learner, an import or a clear runs (``hold``): its pid, what, a token

One learner per profile, and no import or clear while it runs: all three take ``.learn.lock``
(``O_EXCL``); the others refuse with ``ProfileBusy`` (a lock whose process is gone is stale).
Every write is a new file then ``os.replace``; a model is switched by replacing
``model/current.json`` after its folder is complete, so a learn that fails or is killed leaves
the last good model. A file that cannot be read back (torn, not JSON, wrong format) raises
``ProfileError`` with the path and the reason; ``load_adapted`` callers report it and read with
the shipped model.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import cv2
import numpy as np

from vision.config import DEFAULT_LIMITS, DEFAULT_READER, ImageLimits, ReaderConfig, default_profile_dir
from vision.labels import LABEL_COLOURS, LabelledPhoto, check_photo, image_sha256
from vision.profile_crops import (BORDER_SHARE, CROP_CONTEXT, CROP_MAX_PX, NEGATIVES_PER_PHOTO,  # noqa: F401 (re-exported)
                                 _at_border, _negatives, cut_crop, may_be_a_left_out_die)

FORMAT = 1
PROFILE_FILE = "profile.json"
DICE_FILE = "dice.jsonl"
CROPS_DIR = "crops"
MODEL_DIR = "model"
CURRENT_FILE = "current.json"
MODEL_INFO = "model.json"
CLASSIFIER_FILE = "dice_classifier.onnx"
DETECTOR_FILE = "dice_detector.onnx"
PART_FILES = {"classifier": CLASSIFIER_FILE, "detector": DETECTOR_FILE}
PHOTOS_FILE = "photos.jsonl"
VIEWS_DIR = "views"
VIEW_MAX_PX = 1024  # a photo's kept view is at most this many pixels on a side (the finer pass reads ~1 000 px)
VIEW_JPEG_QUALITY = 90
CACHE_DIR = "cache"
LOCK_FILE = ".learn.lock"  # held by a learner, an import or a clear: its pid, what it does, a token
LOCK_FRESH_S = 10.0  # an empty lock younger than this is being written (busy); older, stale

__all__ = ["AdaptedModel", "ConfirmedDie", "PhotoView", "ProfileBusy", "ProfileError", "TableProfile",
           "default_profile_dir", "load_adapted"]


class ProfileError(Exception):
    """The profile folder cannot be used (unwritable, torn file, bad import); the message says
    which file and why."""


class ProfileBusy(ProfileError):
    """Another process holds the profile's lock: a learner (``doing`` "learn"), an import or a
    clear. Nothing was changed; try again when it has finished."""

    def __init__(self, message: str, doing: str, pid: int | None) -> None:
        super().__init__(message)
        self.doing = doing
        self.pid = pid


@dataclass(frozen=True)
class ConfirmedDie:
    photo: int  # the photo's number in the profile (1, 2, ...), in the order added
    crop: str  # relative path of the crop PNG
    crop_box: tuple[float, float, float, float]  # the die's box in the crop's pixels
    box: tuple[float, float, float, float]  # the die's box in the photo (original pixels)
    image_size: tuple[int, int]  # the photo's (width, height)
    value: int
    colour: str | None  # LABEL_COLOURS or None (value only)
    source: str = ""  # the photo's file name
    image_sha: str = ""  # the decoded photo's sha256 (the same photo is not added twice)
    die: bool = True  # False: a box the reader proposed that the player removed (not a die; value 0)

    def to_json(self) -> dict[str, Any]:
        return {"photo": self.photo, "crop": self.crop, "crop_box": [round(v, 2) for v in self.crop_box],
                "box": [round(v, 2) for v in self.box], "image_size": list(self.image_size),
                "value": self.value, "colour": self.colour, "source": self.source, "image_sha": self.image_sha,
                "die": self.die}

    @classmethod
    def from_json(cls, d: Any) -> "ConfirmedDie":
        if not isinstance(d, dict):
            raise ValueError("not an object")
        colour = d.get("colour")
        if colour is not None and colour not in LABEL_COLOURS:
            raise ValueError(f"unknown colour {colour!r}")
        value, die = d["value"], d.get("die", True)
        if not isinstance(die, bool):
            raise ValueError(f"die {die!r} is not true or false")
        if isinstance(value, bool) or not isinstance(value, int) or not (1 <= value <= 6 if die else value == 0):
            raise ValueError(f"value {value!r} is not 1-6 (0 for a box that is not a die)")
        crop = str(d["crop"])
        if Path(crop).is_absolute() or ".." in Path(crop).parts:
            raise ValueError(f"crop path {crop!r} leaves the profile")
        return cls(photo=int(d["photo"]), crop=crop, crop_box=_box(d["crop_box"]), box=_box(d["box"]),
                   image_size=(int(d["image_size"][0]), int(d["image_size"][1])), value=value, colour=colour,
                   source=str(d.get("source", "")), image_sha=str(d.get("image_sha", "")), die=die)


def _box(v: Any) -> tuple[float, float, float, float]:
    if not isinstance(v, list) or len(v) != 4:
        raise ValueError(f"box {v!r} is not [x, y, w, h]")
    return tuple(float(x) for x in v)  # type: ignore[return-value]


@dataclass(frozen=True)
class PhotoView:
    """A confirmed photo's view (``photos.jsonl``): the working image at most VIEW_MAX_PX on a
    side, kept so the learner can show the detector the table's photos."""

    photo: int
    view: str  # relative path of the JPEG
    view_size: tuple[int, int]  # (width, height) of the view
    image_size: tuple[int, int]  # the photo's (width, height), original pixels (the dice's boxes)
    complete: bool  # every die of the photo is confirmed with its box

    def to_json(self) -> dict[str, Any]:
        return {"photo": self.photo, "view": self.view, "view_size": list(self.view_size),
                "image_size": list(self.image_size), "complete": self.complete}

    @classmethod
    def from_json(cls, d: Any) -> "PhotoView":
        if not isinstance(d, dict):
            raise ValueError("not an object")
        view = str(d["view"])
        if Path(view).is_absolute() or ".." in Path(view).parts:
            raise ValueError(f"view path {view!r} leaves the profile")
        complete = d["complete"]
        if not isinstance(complete, bool):
            raise ValueError(f"complete {complete!r} is not true or false")
        vs, im = (int(d["view_size"][0]), int(d["view_size"][1])), (int(d["image_size"][0]), int(d["image_size"][1]))
        if min(vs + im) < 1:
            raise ValueError("a size is not positive")
        return cls(int(d["photo"]), view, vs, im, complete)

    def to_view(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A box in the photo's original pixels -> the view's pixels."""
        sx, sy = self.view_size[0] / self.image_size[0], self.view_size[1] / self.image_size[1]
        return (box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy)


@dataclass(frozen=True)
class AdaptedModel:
    """The adapted model in use (``model.json``): its classifier and/or detector (None: the
    shipped one reads) and its sure threshold."""

    folder: Path
    classifier: Path | None
    unsure_below: float
    info: dict[str, Any]
    detector: Path | None = None

    def reader_config(self, base: ReaderConfig = DEFAULT_READER) -> ReaderConfig:
        """``base`` with this model's sure threshold: how every reader that reads with an
        adapted model is configured (the app, ``vision read``, the bench)."""
        return replace(base, unsure_below=self.unsure_below)

    @property
    def files(self) -> dict[str, Path]:
        """{part: its file} of the parts this model adapted ("classifier", "detector"): the
        keywords of ``DiceReader.from_files`` (a part not named reads shipped)."""
        return {p: f for p, f in (("classifier", self.classifier), ("detector", self.detector)) if f is not None}


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"{path}: {what} is missing") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{path}: {what} is torn or not JSON ({exc})") from None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None


class TableProfile:
    """One profile folder. Nothing is created until something is added (``ensure_writable``)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_profile_dir()

    # --- state ---------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.path / PROFILE_FILE).is_file()

    def info(self) -> dict[str, Any]:
        """``profile.json`` checked (format, counts); ``ProfileError`` when torn."""
        data = _read_json(self.path / PROFILE_FILE, "the profile file")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            fmt = data.get("format") if isinstance(data, dict) else None
            raise ProfileError(f"{self.path / PROFILE_FILE}: not a table profile of format {FORMAT} "
                               f"(format {fmt!r})")
        for key in ("photos", "dice"):
            if isinstance(data.get(key), bool) or not isinstance(data.get(key), int) or data[key] < 0:
                raise ProfileError(f"{self.path / PROFILE_FILE}: {key!r} is not a count")
        return data

    def dice(self) -> list[ConfirmedDie]:
        """Every confirmed die, checked against ``profile.json`` (``ProfileError`` when torn)."""
        if not self.exists():
            return []
        info = self.info()
        path = self.path / DICE_FILE
        out: list[ConfirmedDie] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfileError(f"{path}: cannot read it ({exc})") from None
        for n, line in enumerate(lines, start=1):
            try:
                out.append(ConfirmedDie.from_json(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as exc:
                raise ProfileError(f"{path} line {n}: torn or not a confirmed die ({exc})") from None
        photos = len({d.photo for d in out})
        if len(out) != info["dice"] or photos != info["photos"]:
            raise ProfileError(f"{self.path}: torn profile: {PROFILE_FILE} counts {info['photos']} photos and "
                               f"{info['dice']} dice, {DICE_FILE} holds {photos} and {len(out)}")
        for d in out:
            if not (self.path / d.crop).is_file():
                raise ProfileError(f"{self.path / d.crop}: a crop of {DICE_FILE} is missing")
        return out

    def views(self) -> dict[int, PhotoView]:
        """{photo: its view} (``photos.jsonl``; {} for a profile made before views were kept);
        ``ProfileError`` when the file is torn or a view it names is missing. A later line for
        the same photo replaces an earlier one."""
        path = self.path / PHOTOS_FILE
        try:
            lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfileError(f"{path}: cannot read it ({exc})") from None
        out: dict[int, PhotoView] = {}
        for n, line in enumerate(lines, start=1):
            try:
                v = PhotoView.from_json(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as exc:
                raise ProfileError(f"{path} line {n}: torn or not a photo's view ({exc})") from None
            out[v.photo] = v
        for v in out.values():
            if not (self.path / v.view).is_file():
                raise ProfileError(f"{self.path / v.view}: a view of {PHOTOS_FILE} is missing")
        return out

    def load_view(self, view: PhotoView) -> np.ndarray:
        img = cv2.imread(str(self.path / view.view), cv2.IMREAD_COLOR)
        if img is None:
            raise ProfileError(f"{self.path / view.view}: not a readable JPEG")
        return img

    def load_crop(self, die: ConfirmedDie) -> np.ndarray:
        img = cv2.imread(str(self.path / die.crop), cv2.IMREAD_COLOR)
        if img is None:
            raise ProfileError(f"{self.path / die.crop}: not a readable PNG")
        return img

    def summary(self) -> dict[str, Any]:
        """What the app and ``python -m vision profile show`` say (no exception: ``error`` set)."""
        out: dict[str, Any] = {"path": str(self.path), "exists": self.exists()}
        if not out["exists"]:
            return out
        try:
            dice = self.dice()
            out.update({"photos": len({d.photo for d in dice}), "dice": sum(d.die for d in dice),
                        "not_dice": sum(not d.die for d in dice)})
            model = self.current_model()
            out["model"] = None if model is None else model.info
        except ProfileError as exc:
            out["error"] = str(exc)
        return out

    def _check_is_profile_or_new(self) -> None:
        """A folder that exists, holds files and has no ``profile.json`` is someone else's: it
        is never written into, replaced or deleted."""
        if self.path.is_dir() and not self.exists() and any(
                not p.name.startswith(".") for p in self.path.iterdir()):
            raise ProfileError(f"{self.path} is not a table profile (it holds other files and no {PROFILE_FILE}); "
                               "give an empty or new folder")
        if self.path.exists() and not self.path.is_dir():
            raise ProfileError(f"{self.path} is a file, not a table profile folder")

    # --- the lock: one learner per profile, no import or clear while it runs -------------------
    def _lock_holder(self) -> tuple[int | None, str] | None:
        """(pid, what) of the live process holding the lock; None when there is no lock or its
        process is gone (stale)."""
        path = self.path / LOCK_FILE
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return None
        except OSError:
            return (None, "learn")  # cannot read it: taken as held, nothing is changed
        if not lines or not lines[0].strip():
            return (None, "learn") if age < LOCK_FRESH_S else None  # being written, or torn long ago
        try:
            pid = int(lines[0].strip())
        except ValueError:
            return None
        if pid <= 0 or not _pid_alive(pid):
            return None
        return (pid, lines[1].strip() if len(lines) > 1 and lines[1].strip() else "learn")

    def busy(self) -> str | None:
        """What holds the profile now ("learn", "import", "clear"), None when nothing does."""
        holder = self._lock_holder()
        return None if holder is None else holder[1]

    def _acquire(self, what: str) -> str:
        """Take the lock for ``what``; its token. ``ProfileBusy`` when a live process holds it (a
        lock whose process is gone is stale and taken over); ``ProfileError`` when it cannot be
        written (the folder is gone or read-only)."""
        path = self.path / LOCK_FILE
        token = uuid.uuid4().hex
        for _ in range(3):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                holder = self._lock_holder()
                if holder is None:
                    path.unlink(missing_ok=True)  # stale: its process is gone
                    continue
                pid, doing = holder
                words = {"learn": "a learn is running on it", "import": "an import is replacing it",
                         "clear": "it is being cleared"}.get(doing, f"{doing} is running on it")
                raise ProfileBusy(f"the table profile {self.path} is in use: {words}"
                                  + (f" (process {pid})" if pid else ""), doing, pid) from None
            except OSError as exc:
                raise ProfileError(f"cannot take the profile's lock {path}: {exc.strerror or exc}") from None
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(f"{os.getpid()}\n{what}\n{token}\n")
            return token
        raise ProfileError(f"cannot take the profile's lock {path}")

    def _acquire_unless_unwritable(self, what: str) -> str | None:
        """``_acquire``, or None where no lock can be written (no learner can hold one there
        either); ``ProfileBusy`` passes."""
        try:
            return self._acquire(what)
        except ProfileBusy:
            raise
        except ProfileError:
            return None

    def _release(self, token: str) -> None:
        """Remove the lock if it is still the one ``token`` took (a clear or an import moved it
        away with the old folder)."""
        path = self.path / LOCK_FILE
        try:
            if token in path.read_text(encoding="utf-8", errors="replace").split():
                path.unlink(missing_ok=True)
        except OSError:
            pass

    @contextmanager
    def hold(self, what: str = "learn") -> Iterator["TableProfile"]:
        """Hold the profile's lock (``LOCK_FILE``) while ``what`` runs: the learner holds it for
        its whole run, so an import or a clear refuses (``ProfileBusy``) until it has finished,
        and a second learner too."""
        token = self._acquire(what)
        try:
            yield self
        finally:
            self._release(token)

    # --- writing ---------------------------------------------------------------------------
    def ensure_writable(self) -> None:
        """Create the folder (and profile.json) if needed; ``ProfileError`` when it cannot be
        written or is another folder. Nothing is left behind by the check."""
        self._check_is_profile_or_new()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            probe = self.path / f".write-check-{uuid.uuid4().hex[:8]}"
            probe.write_text("ok")
            probe.unlink()
        except OSError as exc:
            raise ProfileError(f"cannot write to the profile folder {self.path}: {exc.strerror or exc}") from None
        if not self.exists():
            _write_atomic(self.path / PROFILE_FILE, json.dumps(
                {"format": FORMAT, "photos": 0, "dice": 0, "created": _now(), "updated": _now()}) + "\n")

    def add_photos(self, photos: Iterable[LabelledPhoto], limits: ImageLimits = DEFAULT_LIMITS,
                   proposals: Callable[[np.ndarray], list[tuple[float, float, float, float]]] | None = None,
                   derived: bool = False,
                   looks_like_a_die: Callable[[np.ndarray, list[tuple]], list[bool]] | None = None) -> dict[str, int]:
        """Add the confirmed dice of ``photos`` (already parsed). Every photo is opened and
        checked before anything is written; a photo already in the profile (same pixels) is
        skipped. ``proposals(working image)``: the boxes (working pixels) the reader would look
        at; those far from every confirmed die are kept as "not a die" (at most
        ``NEGATIVES_PER_PHOTO``: what a player removes from a read). ``derived``: the proposals are
        the detector's own boxes, not boxes a player removed, so those that may be a die the labels
        leave out (touching the photo's border, overlapping a confirmed die) are not kept either
        (``_negatives``; ``looks_like_a_die(working image, working boxes)``: a border box only where it
        finds it a die, stop 69). Returns {"photos": added,
        "dice": added, "negatives": added, "skipped": photos skipped}."""
        self.ensure_writable()
        existing = self.dice()  # raises on a torn profile: nothing is written then
        kept = {d.photo for d in existing}
        views = [v for p, v in sorted(self.views().items()) if p in kept]  # a line of an add that failed: dropped
        known = {d.image_sha for d in existing}
        prepared = []
        for photo in photos:
            loaded = check_photo(photo, limits)
            sha = image_sha256(loaded)
            if sha in known or not photo.dice:
                prepared.append(None)
                continue
            known.add(sha)
            prepared.append((photo, loaded, sha))
        next_photo = max((d.photo for d in existing), default=0) + 1
        new: list[ConfirmedDie] = []
        new_views: list[PhotoView] = []
        written: list[Path] = []
        try:
            (self.path / CROPS_DIR).mkdir(exist_ok=True)
            (self.path / VIEWS_DIR).mkdir(exist_ok=True)
            for item in prepared:
                if item is None:
                    continue
                photo, loaded, sha = item
                view = _view_image(loaded.image)
                rel = f"{VIEWS_DIR}/p{next_photo:06d}.jpg"
                if not cv2.imwrite(str(self.path / rel), view, [cv2.IMWRITE_JPEG_QUALITY, VIEW_JPEG_QUALITY]):
                    raise OSError(f"cannot write {self.path / rel}")
                written.append(self.path / rel)
                new_views.append(PhotoView(next_photo, rel, (view.shape[1], view.shape[0]), loaded.original_size,
                                           bool(photo.complete)))
                for k, d in enumerate(photo.dice):
                    crop, crop_box = cut_crop(loaded, d.box)
                    rel = f"{CROPS_DIR}/p{next_photo:06d}-d{k:02d}.png"
                    if not cv2.imwrite(str(self.path / rel), crop):
                        raise OSError(f"cannot write {self.path / rel}")
                    written.append(self.path / rel)
                    new.append(ConfirmedDie(next_photo, rel, crop_box, d.box, loaded.original_size, d.value,
                                            d.colour, photo.image.name, sha))
                for k, box in enumerate(_negatives(loaded, photo, proposals, derived, looks_like_a_die)):
                    crop, crop_box = cut_crop(loaded, box)
                    rel = f"{CROPS_DIR}/p{next_photo:06d}-n{k:02d}.png"
                    if not cv2.imwrite(str(self.path / rel), crop):
                        raise OSError(f"cannot write {self.path / rel}")
                    written.append(self.path / rel)
                    new.append(ConfirmedDie(next_photo, rel, crop_box, box, loaded.original_size, 0, None,
                                            photo.image.name, sha, die=False))
                next_photo += 1
            _write_views(self.path / PHOTOS_FILE, views + new_views)
            self._write_dice(existing + new)
        except OSError as exc:
            for p in written:
                p.unlink(missing_ok=True)
            if new_views:  # the views' file as it was (it may already name the views just removed)
                try:
                    _write_views(self.path / PHOTOS_FILE, views)
                except OSError:
                    pass
            raise ProfileError(f"cannot write to the profile folder {self.path}: {exc}") from None
        added = len({d.photo for d in new})
        return {"photos": added, "dice": sum(d.die for d in new), "negatives": sum(not d.die for d in new),
                "skipped": len(prepared) - added}

    def _write_dice(self, dice: list[ConfirmedDie]) -> None:
        _write_atomic(self.path / DICE_FILE, "".join(json.dumps(d.to_json()) + "\n" for d in dice))
        info = self.info()
        info.update({"photos": len({d.photo for d in dice}), "dice": len(dice), "updated": _now()})
        _write_atomic(self.path / PROFILE_FILE, json.dumps(info) + "\n")

    # --- the adapted model -----------------------------------------------------------------
    def current_model(self) -> AdaptedModel | None:
        """The adapted model in use, None when there is none; ``ProfileError`` when its files
        are torn or missing."""
        pointer = self.path / MODEL_DIR / CURRENT_FILE
        if not pointer.exists():
            return None
        self.info()
        ptr = _read_json(pointer, "the model pointer")
        folder_name = ptr.get("folder") if isinstance(ptr, dict) else None
        if not isinstance(folder_name, str) or "/" in folder_name or "\\" in folder_name or folder_name.startswith("."):
            raise ProfileError(f"{pointer}: names no model folder")
        folder = self.path / MODEL_DIR / folder_name
        info = _read_json(folder / MODEL_INFO, "the adapted model's description")
        thr = info.get("unsure_below") if isinstance(info, dict) else None
        if isinstance(thr, bool) or not isinstance(thr, (int, float)) or not 0.0 <= float(thr) <= 1.01:
            raise ProfileError(f"{folder / MODEL_INFO}: no valid \"unsure_below\"")
        parts = _parts(info)
        if parts is None:
            raise ProfileError(f"{folder / MODEL_INFO}: \"parts\" names neither the classifier nor the detector")
        files = {}
        for part in parts:
            f = folder / PART_FILES[part]
            if not f.is_file() or f.stat().st_size == 0:
                raise ProfileError(f"{f}: the adapted {part} is missing")
            files[part] = f
        return AdaptedModel(folder, files.get("classifier"), float(thr), info, files.get("detector"))

    def new_model_folder(self) -> Path:
        """A fresh folder for a model being written (not in use until ``switch_model``). A profile
        that is gone (cleared) is not made again: ``ProfileError``."""
        if not self.exists():
            raise ProfileError(f"{self.path}: no table profile (cleared?): the model is not kept")
        try:
            (self.path / MODEL_DIR).mkdir(exist_ok=True)
        except OSError as exc:
            raise ProfileError(f"cannot write to the profile folder {self.path}: {exc.strerror or exc}") from None
        folder = self.path / MODEL_DIR / f"m-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"
        folder.mkdir()
        return folder

    def switch_model(self, folder: Path, info: dict[str, Any]) -> AdaptedModel:
        """Write ``model.json`` into the complete ``folder`` and make it the model in use (one
        ``os.replace`` of the pointer); older model folders are removed afterwards."""
        folder = Path(folder)
        parts = _parts(info)
        if (folder.parent != self.path / MODEL_DIR or parts is None
                or not all((folder / PART_FILES[p]).is_file() for p in parts)):
            raise ProfileError(f"{folder}: not a complete model folder of {self.path}")
        if not self.exists():
            raise ProfileError(f"{self.path}: no table profile (cleared?): the model is not switched in")
        _write_atomic(folder / MODEL_INFO, json.dumps(info, indent=1) + "\n")
        _write_atomic(self.path / MODEL_DIR / CURRENT_FILE, json.dumps({"folder": folder.name}) + "\n")
        for old in (self.path / MODEL_DIR).iterdir():
            if old.is_dir() and old.name != folder.name:
                shutil.rmtree(old, ignore_errors=True)
        model = self.current_model()
        assert model is not None
        return model

    # --- export, import, clear -------------------------------------------------------------
    def export(self, dest: str | Path) -> Path:
        """A zip of the profile (dice, crops, the model in use; not the cache)."""
        dice = self.dice()
        if not self.exists():
            raise ProfileError(f"{self.path}: no table profile to export")
        model = self.current_model()
        dest = Path(dest)
        views = self.views()
        names = [PROFILE_FILE, DICE_FILE] + [d.crop for d in dice]
        if views:
            names += [PHOTOS_FILE] + [v.view for v in views.values()]
        if model is not None:
            names += [f"{MODEL_DIR}/{CURRENT_FILE}", f"{MODEL_DIR}/{model.folder.name}/{MODEL_INFO}"]
            names += [f"{MODEL_DIR}/{model.folder.name}/{f.name}" for f in model.files.values()]
        tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
                for name in names:
                    if (self.path / name).exists():
                        z.write(self.path / name, name)
            os.replace(tmp, dest)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise ProfileError(f"cannot write the export {dest}: {exc.strerror or exc}") from None
        return dest

    def import_from(self, src: str | Path) -> dict[str, Any]:
        """Replace this profile by an exported one. The zip is unpacked beside the profile and
        checked first; a bad zip changes nothing. While a learner runs on the profile:
        ``ProfileBusy``, nothing changed (the import holds the lock until the swap)."""
        src = Path(src)
        self._check_is_profile_or_new()
        token = self._acquire_unless_unwritable("import") if self.path.is_dir() else None
        try:
            return self._import_from(src)
        finally:
            if token is not None:
                self._release(token)  # after a swap the lock went with the old folder

    def _import_from(self, src: Path) -> dict[str, Any]:
        try:
            z = zipfile.ZipFile(src)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ProfileError(f"{src}: not a table profile export ({exc})") from None
        parent = self.path.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.import-", dir=parent))
        except OSError as exc:
            raise ProfileError(f"cannot write beside the profile folder {self.path}: {exc.strerror or exc}") from None
        try:
            with z:
                for member in z.infolist():
                    p = Path(member.filename)
                    if p.is_absolute() or ".." in p.parts:
                        raise ProfileError(f"{src}: unsafe path {member.filename!r} in the export")
                if PROFILE_FILE not in z.namelist():
                    raise ProfileError(f"{src}: not a table profile export (no {PROFILE_FILE})")
                z.extractall(staging)
            (staging / LOCK_FILE).unlink(missing_ok=True)  # an export never holds one
            staged = TableProfile(staging)
            dice = staged.dice()
            staged.views()
            staged.current_model()
            old = None
            if self.path.exists():
                old = parent / f".{self.path.name}.old-{uuid.uuid4().hex[:8]}"
                os.replace(self.path, old)
            os.replace(staging, self.path)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except (zipfile.BadZipFile, OSError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise ProfileError(f"{src}: cannot import it ({exc})") from None
        except ProfileError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise ProfileError(f"{src}: not imported: {exc}") from None
        return {"photos": len({d.photo for d in dice}), "dice": len(dice)}

    def clear(self) -> bool:
        """Forget the table's dice and the adapted model (the whole folder). False when there
        was nothing. While a learner runs on the profile: ``ProfileBusy``, nothing changed (so a
        learn never switches its model into a cleared profile); a broken profile is cleared."""
        if not self.path.exists():
            return False
        self._check_is_profile_or_new()
        token = self._acquire_unless_unwritable("clear")
        gone = self.path.parent / f".{self.path.name}.cleared-{uuid.uuid4().hex[:8]}"
        try:
            os.replace(self.path, gone)  # the lock goes with it
        except OSError as exc:
            if token is not None:
                self._release(token)
            raise ProfileError(f"cannot clear the profile folder {self.path}: {exc.strerror or exc}") from None
        shutil.rmtree(gone, ignore_errors=True)
        return True


def _write_views(path: Path, views: Sequence[PhotoView]) -> None:
    """``photos.jsonl``: one view a line (``TableProfile.views`` reads it)."""
    _write_atomic(path, "".join(json.dumps(v.to_json()) + "\n" for v in views))


def _parts(info: dict[str, Any]) -> list[str] | None:
    """The parts a model folder holds (``model.json``'s "parts"; a model written before the
    detector was learned holds the classifier); None when it names none or an unknown one."""
    parts = info.get("parts", ["classifier"])
    if not isinstance(parts, list) or not parts or not all(p in PART_FILES for p in parts):
        return None
    return list(dict.fromkeys(parts))


def _view_image(image: np.ndarray) -> np.ndarray:
    """The view kept of a working image: at most VIEW_MAX_PX on its longer side."""
    h, w = image.shape[:2]
    k = VIEW_MAX_PX / max(w, h)
    if k >= 1:
        return image
    return cv2.resize(image, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs. Not ``os.kill(pid, 0)`` on Windows, where it ends the
    process: the process is opened and its exit code asked (259, STILL_ACTIVE: running)."""
    if os.name == "nt":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return kernel32.GetLastError() == 5  # access denied: it runs, as another user
        try:
            code = ctypes.c_ulong()
            return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    except OSError:
        return False
    return True


#: (stop 69, rule C) a derived box at the border may be a die cut by the frame only where the shipped
#: classifier's die probability is at least this (LuxCore's cut dice: 0.91-1.0); below it, "not a die"
#: (a cable at a real photo's edge). None: every border box may be a cut die (as before).
CUT_DIE_FROM: float | None = 0.5


def load_adapted(path: str | Path | None = None) -> AdaptedModel | None:
    """The adapted model of the profile at ``path`` (default: the user's), None without one;
    ``ProfileError`` when the profile is broken (the caller reports it and reads with the
    shipped model)."""
    return TableProfile(path).current_model()
