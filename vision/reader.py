"""Read every die's colour and value from one image.

``DiceReader`` loads the model once, then ``read(path | bytes | array) -> ReadResult``.
The steps stay separate and testable: load (``vision.io``) -> model (``vision.model``:
detect, crop, classify) -> decide (``decide``: colour/value, confidence, unsure, calibration) ->
boxes back to original pixels.  Nothing found is a valid empty result; an unreadable input is
a result with ``error`` set, never an exception.

Decisions (see docs/vision.md):

* value = argmax of the 6 value probabilities (+1); colour = argmax of the 6 colour classes,
  "other" reported as ``"unknown"``;
* confidence = P(value) x P(colour) x min(1, det_score / ReaderConfig.det_confident_at): the
  read is right only if the die is a die, its value is right and its colour is right;
* the nadir check: where the model also read the crop turned 180 degrees
  (``turned_value_probs``, dice low in the frame) and that view reads another value with
  probability >= ``turned_doubt_from``, the surer view's value is kept (the turned one only when
  surer by ``turned_swap_margin``) and, for a die in the lowest ``turned_doubt_low`` share of
  the image (``centre_y_share``), P(value) is multiplied by one minus the other view's
  probability for its own value; where that view reads the same value, P(value) is the surer
  view's (``turned_agreement_lifts``, stop 66);
* the pip check (``vision.pips``; off from model v16 to stop 68, on again since stop 69): an unsure
  read whose value probability is at least ``pip_confirm_from`` is counted again by a plain
  OpenCV pip counter; when the counter finds the same face (3 pips or more, pattern checked),
  the value's doubt is multiplied by ``pip_doubt_factor``; it never changes a value;
* ``unsure`` when confidence < ``ReaderConfig.unsure_below``, and always for "unknown" colour
  (the read cannot be used without a correction), for a faint die (``RawDie.faint``: kept under
  the detection gate because the classifier is sure it is a die), and for two reads of one
  colour whose boxes overlap by IoU >= ``same_colour_unsure_iou`` (a die boxed twice, or one die
  behind another; a faint die over a read die of its colour is dropped instead).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

import numpy as np

from vision.config import (
    DEFAULT_LIMITS,
    DEFAULT_READER,
    MODEL_COLOURS,
    UNKNOWN_COLOUR,
    ImageLimits,
    ReaderConfig,
)
from vision.io import ImageLoadError, ImageSource, LoadedImage, load_image
from vision.pips import count_pips

if TYPE_CHECKING:  # pragma: no cover
    from vision.calibration import Calibration

__all__ = ["Die", "DiceReader", "ReadResult", "decide", "detection_factor", "RawDieLike", "DiceModelLike"]


class RawDieLike(Protocol):
    """What ``vision.model.RawDie`` provides (docs/vision-model.md)."""

    box: tuple[float, float, float, float]
    det_score: float
    value_probs: Sequence[float]
    colour_probs: Sequence[float]
    body_colour_lab: tuple[float, float, float]
    # optional: value probabilities of the crop turned 180 degrees (absent or None: not checked)
    # turned_value_probs: Sequence[float] | None
    # optional: the box centre's share of the image height (absent or None: not known)
    # centre_y_share: float | None
    # optional: kept only as a faint candidate, never read sure (absent: False)
    # faint: bool


class DiceModelLike(Protocol):
    def read(self, image_bgr: np.ndarray) -> Sequence[RawDieLike]: ...


@dataclass(frozen=True)
class Die:
    """One die as the table sees it. ``box`` is (x, y, w, h) in original-image pixels."""

    colour: str  # red | yellow | purple | blue | green | unknown
    value: int  # 1..6
    box: tuple[int, int, int, int]
    confidence: float  # 0..1
    unsure: bool
    value_confidence: float = 1.0
    colour_confidence: float = 1.0
    det_score: float = 1.0
    # the pip check (vision.pips) found the same face and the value's doubt was lowered
    pip_confirmed: bool = False
    # the die body's mean CIE Lab colour as the model measured it (for calibration; not in JSON)
    body_colour_lab: tuple[float, float, float] | None = None
    # kept only as a faint candidate (vision.model.RawDie.faint): never sure (not in JSON)
    faint: bool = False

    def to_json(self) -> dict[str, Any]:
        """The CLI contract's per-die object (keys exactly as in docs/vision.md)."""
        return {
            "colour": self.colour,
            "value": self.value,
            "box": [int(v) for v in self.box],
            "confidence": round(float(self.confidence), 4),
            "unsure": bool(self.unsure),
        }


@dataclass(frozen=True)
class ReadResult:
    """The read of one image: dice (possibly none) or an error; ``ms`` always set."""

    dice: tuple[Die, ...] = ()
    ms: float = 0.0
    error: str | None = None
    image_size: tuple[int, int] | None = None  # (width, height) of the original image
    warnings: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self, image: str) -> dict[str, Any]:
        """The CLI contract's line: ``{"image", "dice", "ms"}`` or ``{"image", "error"}``."""
        if self.error is not None:
            return {"image": image, "error": self.error}
        return {
            "image": image,
            "dice": [d.to_json() for d in self.dice],
            "ms": round(float(self.ms), 1),
        }


def _probs(values: Sequence[float], n: int, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).reshape(-1)
    if arr.shape != (n,):
        raise ValueError(f"model returned {arr.size} {what} probabilities, expected {n}")
    arr = np.nan_to_num(np.clip(arr, 0.0, None), nan=0.0)
    total = float(arr.sum())
    return arr / total if total > 0 else np.full(n, 1.0 / n)


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ax1, ay1, aw, ah = a
    bx1, by1, bw, bh = b
    ix = max(0.0, min(ax1 + aw, bx1 + bw) - max(ax1, bx1))
    iy = max(0.0, min(ay1 + ah, by1 + bh) - max(ay1, by1))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def detection_factor(det_score: float, config: ReaderConfig = DEFAULT_READER) -> float:
    """The detection's share of a read's confidence: min(1, det_score / det_confident_at)."""
    return min(1.0, det_score / config.det_confident_at) if config.det_confident_at > 0 else 1.0


def _turned_may_doubt(raw: RawDieLike, config: ReaderConfig) -> bool:
    """The turned view doubts a read only low enough in the image (``turned_doubt_low``)."""
    low = config.turned_doubt_low
    y = getattr(raw, "centre_y_share", None)
    return low is None or y is None or float(y) >= low


def decide(
    raw: RawDieLike,
    box: tuple[int, int, int, int],
    config: ReaderConfig = DEFAULT_READER,
    calibration: "Calibration | None" = None,
    pip_value: int | None = None,
) -> Die:
    """Turn one raw model output into a :class:`Die` (pure; see the module doc). ``pip_value``
    is the pip check's face for this die (``vision.pips``), None when not looked at or no face."""
    value_p = _probs(raw.value_probs, 6, "value")
    colour_p = _probs(raw.colour_probs, len(MODEL_COLOURS), "colour")
    if calibration is not None:
        colour_p = calibration.adjust(colour_p, _lab(raw.body_colour_lab), config)
    vi = int(np.argmax(value_p))
    ci = int(np.argmax(colour_p))
    colour = MODEL_COLOURS[ci]
    if colour == "other":
        colour = UNKNOWN_COLOUR
    value_conf = float(value_p[vi])
    turned = getattr(raw, "turned_value_probs", None)
    if turned is not None:
        turned_p = _probs(turned, 6, "turned value")
        ti = int(np.argmax(turned_p))
        if ti != vi and turned_p[ti] >= config.turned_doubt_from:
            if turned_p[ti] >= value_p[vi] + config.turned_swap_margin:
                vi, value_conf = ti, float(turned_p[ti] * (1.0 - value_p[vi]))
            elif _turned_may_doubt(raw, config):
                value_conf *= 1.0 - float(turned_p[ti])
        elif ti == vi and config.turned_agreement_lifts:
            value_conf = max(value_conf, float(turned_p[ti]))
    confirmed = (config.pip_confirm_from is not None and pip_value is not None
                 and pip_value >= config.pip_confirm_min and pip_value == vi + 1
                 and value_conf >= config.pip_confirm_from)
    if confirmed:
        value_conf = 1.0 - (1.0 - value_conf) * config.pip_doubt_factor
    det = float(np.clip(raw.det_score, 0.0, 1.0))
    confidence = float(np.clip(value_conf * colour_p[ci] * detection_factor(det, config), 0.0, 1.0))
    # a faint die (ModelConfig.faint_peak_from: the detector barely saw it) is never sure
    faint = bool(getattr(raw, "faint", False))
    unsure = confidence < config.unsure_below or colour == UNKNOWN_COLOUR or faint
    return Die(
        colour=colour,
        value=vi + 1,
        box=box,
        confidence=confidence,
        unsure=unsure,
        value_confidence=value_conf,
        colour_confidence=float(colour_p[ci]),
        det_score=det,
        pip_confirmed=confirmed,
        body_colour_lab=_lab(raw.body_colour_lab),
        faint=faint,
    )


def _lab(value: Any) -> tuple[float, float, float] | None:
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return None
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        return None
    return (float(arr[0]), float(arr[1]), float(arr[2]))


class DiceReader:
    """Loads the model once; ``read`` any number of images.

    ``DiceReader(model)`` takes any object with ``read(image_bgr) -> [RawDie]`` (tests inject a
    fake); ``DiceReader.from_files(...)`` builds the shipped model on a runtime backend.
    """

    def __init__(
        self,
        model: DiceModelLike,
        config: ReaderConfig = DEFAULT_READER,
        limits: ImageLimits = DEFAULT_LIMITS,
        calibration: "Calibration | None" = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.model = model
        self.config = config
        self.limits = limits
        self.calibration = calibration
        self._clock = clock

    @classmethod
    def from_files(
        cls,
        model_dir: str | Path | None = None,
        backend: str = "auto",
        threads: int = 1,
        config: ReaderConfig = DEFAULT_READER,
        limits: ImageLimits = DEFAULT_LIMITS,
        calibration: "Calibration | None" = None,
        classifier: str | Path | None = None,
        detector: str | Path | None = None,
    ) -> "DiceReader":
        """Load ``models/`` (or ``model_dir``) with the chosen runtime backend; ``classifier``,
        ``detector``: another file for that part (a table profile's adapted one, vision/profile.py),
        the other part the shipped one.

        Raises ``vision.runtime.ModelLoadError`` / ``FileNotFoundError`` / the model's
        ``ModelMismatchError`` when the model files are missing or do not match."""
        from functools import partial

        from vision.model import DiceModel, ModelConfig  # the model engineer's module (docs/vision-model.md)
        from vision.runtime import create_runtime

        factory = partial(create_runtime, backend=backend, threads=threads)
        files = {}
        if classifier is not None:
            files["classifier_file"] = str(Path(classifier).resolve())
        if detector is not None:
            files["detector_file"] = str(Path(detector).resolve())
        model_config = ModelConfig(**files) if files else None
        model = DiceModel.from_files(factory, model_dir=model_dir, config=model_config)
        return cls(model, config=config, limits=limits, calibration=calibration)

    def read_loaded(self, loaded: LoadedImage) -> list[Die]:
        """Model + decisions on an already loaded image (boxes in original pixels)."""
        img = loaded.image
        if min(img.shape[:2]) < self.limits.min_side:
            return []  # too small to show a readable die: an empty read, not an error
        raws = list(self.model.read(img))
        candidates: list[tuple[Die, tuple[float, float, float, float]]] = []
        for raw in raws:
            x, y, w, h = (float(v) for v in raw.box)
            if not all(np.isfinite([x, y, w, h])) or w <= 0 or h <= 0:
                continue
            box = loaded.box_to_original((x, y, w, h))
            if box[2] <= 0 or box[3] <= 0:
                continue  # entirely outside the image
            die = decide(raw, box, self.config, self.calibration)
            if self._pip_check_wanted(die):
                pips = count_pips(img, (x, y, w, h)).value
                if pips is not None:
                    die = decide(raw, box, self.config, self.calibration, pip_value=pips)
            candidates.append((die, (x, y, w, h)))
        # a die read twice is one die: keep the more confident of heavily overlapping boxes; a faint
        # die comes after every other read and never changes one: it is dropped where it overlaps
        # a read die of its colour as a die boxed twice would (``same_colour_unsure_iou``)
        limit = self.config.same_colour_unsure_iou
        candidates.sort(key=lambda c: (c[0].faint, -c[0].confidence))
        kept: list[tuple[Die, tuple[float, float, float, float]]] = []
        for die, wbox in candidates:
            if any(_iou(wbox, k[1]) > self.config.duplicate_iou for k in kept):
                continue
            if die.faint and limit is not None and any(not k[0].faint and k[0].colour == die.colour
                                                       and _iou(wbox, k[1]) >= limit for k in kept):
                continue
            kept.append((die, wbox))
        dice = [d for d, _ in kept]
        if limit is not None:
            boxed_twice = {i for i, (a, abox) in enumerate(kept) for j, (b, bbox) in enumerate(kept)
                           if i != j and a.colour == b.colour and _iou(abox, bbox) >= limit}
            dice = [replace(d, unsure=True) if i in boxed_twice else d for i, d in enumerate(dice)]
        return _reading_order(dice)

    def _pip_check_wanted(self, die: Die) -> bool:
        """Only an unsure read that a confirmed value could make sure is worth a pip count."""
        cfg = self.config
        lo = cfg.pip_confirm_from
        if lo is None or not die.unsure or die.value < cfg.pip_confirm_min or die.value_confidence < lo:
            return False
        # a sure value cannot lift a read whose colour (or detection) alone is unsure; an
        # "unknown" die stays unsure, but its value is still worth confirming (it is shown)
        return (die.colour == UNKNOWN_COLOUR
                or die.colour_confidence * detection_factor(die.det_score, cfg) >= cfg.unsure_below)

    def read(self, source: ImageSource) -> ReadResult:
        """Read one image. Unreadable input -> ``ReadResult(error=reason)``; never raises for it."""
        start = self._clock()
        try:
            loaded = load_image(source, self.limits)
        except ImageLoadError as exc:
            return ReadResult(error=exc.reason, ms=(self._clock() - start) * 1000.0)
        dice = self.read_loaded(loaded)
        return ReadResult(
            dice=tuple(dice),
            ms=(self._clock() - start) * 1000.0,
            image_size=loaded.original_size,
            warnings=loaded.warnings,
        )


def _reading_order(dice: list[Die]) -> list[Die]:
    """Rows top to bottom (a die joins a row when its centre is within half a die height of the
    row's first die), then left to right within a row: the order a person reads the table."""
    rows: list[list[Die]] = []
    for d in sorted(dice, key=lambda d: d.box[1] + d.box[3] / 2):
        cy = d.box[1] + d.box[3] / 2
        if rows:
            first = rows[-1][0]
            if abs(cy - (first.box[1] + first.box[3] / 2)) <= max(first.box[3], d.box[3]) / 2:
                rows[-1].append(d)
                continue
        rows.append([d])
    return [d for row in rows for d in sorted(row, key=lambda d: d.box[0])]
