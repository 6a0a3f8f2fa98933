"""The confirmed dice of photos, as ``python -m vision learn`` takes them (docs/vision.md, "The
table profile"): a JSON-lines file, one photo per line,

    {"image": PATH, "dice": [{"box": [x, y, w, h], "value": 1-6,
                              "colour": "red|yellow|purple|blue|green|other" or null}]}

boxes in original-image pixels of the whole die (after EXIF rotation, what ``read --json``
gives), a relative ``image`` relative to the labels file. ``colour`` null (or absent) when only
the value is known; ``"complete": false`` (optional, default true) when the photo holds dice the
line does not list (a die typed in by hand, a die left out): the reader's detector is not taught
from it (it would learn those dice as background); ``"unknown"`` (``read --json``'s word for a die of no game colour) is taken
as ``"other"``, so a confirmed read and a hand-labelled photo are the same input. Other keys
(``confidence``, ``unsure``, ``ms``) are ignored.

``parse_labels`` checks every line and every image before anything is kept: a bad line raises
``LabelsError`` naming the line and the reason, and the caller changes nothing. Runtime code:
no lab, no torch.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.config import DEFAULT_LIMITS, DICE_COLOURS, ImageLimits, UNKNOWN_COLOUR
from vision.io import ImageLoadError, LoadedImage, load_image

LABEL_COLOURS: tuple[str, ...] = DICE_COLOURS + ("other",)
BOX_SLACK_PX = 1.0  # a box may stick out of the image by this much (rounding), no more

__all__ = ["BOX_SLACK_PX", "LABEL_COLOURS", "LabelledDie", "LabelledPhoto", "LabelsError", "parse_labels",
           "parse_line", "check_photo"]


class LabelsError(ValueError):
    """A labels file that cannot be used; the message names the line and the reason."""


@dataclass(frozen=True)
class LabelledDie:
    box: tuple[float, float, float, float]  # x, y, w, h, original-image pixels
    value: int  # 1..6
    colour: str | None  # LABEL_COLOURS, or None: value only


@dataclass(frozen=True)
class LabelledPhoto:
    image: Path
    dice: tuple[LabelledDie, ...]
    line: int  # 1-based line of the labels file (0: not from a file)
    complete: bool = True  # every die of the photo is listed with its box (the detector may learn from it)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))


def _die(d: Any, k: int) -> LabelledDie:
    where = f"die {k + 1}"
    if not isinstance(d, dict):
        raise LabelsError(f"{where} is not an object")
    box = d.get("box")
    if not isinstance(box, (list, tuple)) or len(box) != 4 or not all(_number(v) for v in box):
        raise LabelsError(f"{where}: \"box\" must be [x, y, w, h] (four numbers), not {json.dumps(box)}")
    x, y, w, h = (float(v) for v in box)
    if w <= 0 or h <= 0:
        raise LabelsError(f"{where}: the box {json.dumps(box)} has no area (w and h must be > 0)")
    value = d.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise LabelsError(f"{where}: \"value\" must be a whole number 1-6, not {json.dumps(value)}")
    colour = d.get("colour")
    if colour == UNKNOWN_COLOUR:
        colour = "other"
    if colour is not None and colour not in LABEL_COLOURS:
        raise LabelsError(f"{where}: \"colour\" must be one of {', '.join(LABEL_COLOURS)} or null, "
                          f"not {json.dumps(colour)}")
    return LabelledDie((x, y, w, h), value, colour)


def parse_line(text: str, base: Path, line: int = 0) -> LabelledPhoto:
    """One labels line -> ``LabelledPhoto`` (image path resolved against ``base``); the image is
    not opened here (``check_photo``). Raises ``LabelsError`` without the line number."""
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LabelsError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(rec, dict):
        raise LabelsError("not a JSON object {\"image\": ..., \"dice\": [...]}")
    image = rec.get("image")
    if not isinstance(image, str) or not image.strip():
        raise LabelsError("\"image\" must be the photo's path (a non-empty string)")
    dice = rec.get("dice")
    if not isinstance(dice, list):
        raise LabelsError("\"dice\" must be a list of {\"box\", \"value\", \"colour\"}")
    parsed = tuple(_die(d, k) for k, d in enumerate(dice))
    complete = rec.get("complete", True)
    if not isinstance(complete, bool):
        raise LabelsError(f"\"complete\" must be true or false, not {json.dumps(complete)}")
    path = Path(image).expanduser()
    return LabelledPhoto(path if path.is_absolute() else base / path, parsed, line, complete)


def check_photo(photo: LabelledPhoto, limits: ImageLimits = DEFAULT_LIMITS) -> LoadedImage:
    """Open the photo and check every box against its size; returns the loaded image.
    Raises ``LabelsError`` (without the line number) when the image is unreadable or a box
    lies outside it."""
    try:
        loaded = load_image(photo.image, limits)
    except ImageLoadError as exc:
        raise LabelsError(f"image {photo.image}: {exc.reason}") from None
    w, h = loaded.original_size
    s = BOX_SLACK_PX
    for k, d in enumerate(photo.dice):
        x, y, bw, bh = d.box
        if x < -s or y < -s or x + bw > w + s or y + bh > h + s:
            raise LabelsError(f"die {k + 1}: the box [{x:g}, {y:g}, {bw:g}, {bh:g}] lies outside the image "
                              f"({w}x{h} pixels)")
    return loaded


def parse_labels(path: str | Path, limits: ImageLimits = DEFAULT_LIMITS,
                 open_images: bool = True) -> list[LabelledPhoto]:
    """Every photo of a labels file, checked (images opened and boxes checked when
    ``open_images``). Blank lines are skipped. Raises ``LabelsError`` naming the first bad line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LabelsError(f"{path}: labels file not found") from None
    except IsADirectoryError:
        raise LabelsError(f"{path}: is a directory, not a labels file") from None
    except UnicodeDecodeError:
        raise LabelsError(f"{path}: not a text file (UTF-8 JSON lines expected)") from None
    except OSError as exc:
        raise LabelsError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    photos = []
    base = path.resolve().parent
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            photo = parse_line(raw, base, n)
            if open_images:
                check_photo(photo, limits)
        except LabelsError as exc:
            raise LabelsError(f"{path} line {n}: {exc}") from None
        photos.append(photo)
    if not photos:
        raise LabelsError(f"{path}: no photo in it (one JSON object per line expected)")
    return photos


def image_sha256(loaded: LoadedImage) -> str:
    """A fingerprint of the decoded photo (the same photo added twice is recognised)."""
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(loaded.image).tobytes()).hexdigest()
