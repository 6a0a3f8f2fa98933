"""Per-table colour calibration: the user shows their own dice once, the reader adapts.

Why: a table lamp's warm light or a phone's white balance can push a purple die towards red or
a blue one towards green; the model was trained on many casts, but a table's own light and its
own dice print are best learnt from the table.  The user shows their dice once:

* one photo with one die of each colour laid in a row, left to right in a given order
  (``python -m vision calibrate PHOTO --colours red,yellow,purple,blue,green``), or
* photos where every die is one colour (``python -m vision calibrate P1 P2 --colour blue``).

Each detected die's body colour (``RawDie.body_colour_lab``, CIE Lab, measured by the model
with the pips excluded) is averaged per colour into a centroid (per-channel median).  Reading
then pools, for each die, the model's colour probabilities with a nearest-centroid vote
(softmax of negative Lab distances, L weighted down because light intensity moves L most) by
geometric pooling, see :meth:`Calibration.adjust`.  A die far from every
calibrated colour gets no vote; colours the user did not calibrate keep the model's share.
Thresholds: ``ReaderConfig.calibration_*``.

Stored as JSON in the user data directory (``vision.config.default_calibration_path()``); a new
calibration of a colour replaces the old one for that colour, other colours are kept.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from vision.config import DEFAULT_READER, DICE_COLOURS, MODEL_COLOURS, ReaderConfig

__all__ = ["Calibration", "CalibrationError", "samples_from_dice", "FORMAT_VERSION"]

FORMAT_VERSION = 1

Lab = tuple[float, float, float]


class CalibrationError(ValueError):
    """A calibration cannot be built, read or applied; the message says what to do."""


def _check_lab(value: Any, where: str) -> Lab:
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise CalibrationError(f"{where}: a Lab colour must be 3 numbers, got {value!r}") from None
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{where}: a Lab colour must be 3 finite numbers, got {value!r}")
    if not (0.0 <= arr[0] <= 100.0) or np.any(np.abs(arr[1:]) > 200.0):
        raise CalibrationError(f"{where}: Lab colour out of range (L 0..100, a/b -128..127): {value!r}")
    return (float(arr[0]), float(arr[1]), float(arr[2]))


@dataclass(frozen=True)
class Calibration:
    """Per-colour Lab centroids of the user's own dice under their own light."""

    centroids: Mapping[str, Lab]
    counts: Mapping[str, int] = field(default_factory=dict)
    created: str = ""

    def __post_init__(self) -> None:
        if not self.centroids:
            raise CalibrationError("a calibration needs at least one colour")
        for colour, lab in self.centroids.items():
            if colour not in DICE_COLOURS:
                raise CalibrationError(
                    f"unknown dice colour {colour!r}; the colours are {', '.join(DICE_COLOURS)}"
                )
            _check_lab(lab, colour)

    # -------------------------------------------------------------------- building

    @classmethod
    def from_samples(cls, samples: Mapping[str, Sequence[Sequence[float]]]) -> "Calibration":
        """Average Lab samples per colour (median per channel: robust to one bad sample)."""
        centroids: dict[str, Lab] = {}
        counts: dict[str, int] = {}
        for colour, labs in samples.items():
            if not labs:
                continue
            arr = np.asarray([_check_lab(v, colour) for v in labs], dtype=np.float64)
            med = np.median(arr, axis=0)
            centroids[colour] = (float(med[0]), float(med[1]), float(med[2]))
            counts[colour] = len(labs)
        return cls(centroids=centroids, counts=counts, created=_now())

    def merged_with(self, newer: "Calibration") -> "Calibration":
        """This calibration with ``newer``'s colours replacing ours (others kept)."""
        centroids = dict(self.centroids)
        counts = dict(self.counts)
        centroids.update(newer.centroids)
        counts.update(newer.counts)
        return Calibration(centroids=centroids, counts=counts, created=newer.created or _now())

    # -------------------------------------------------------------------- deciding

    def distances(self, lab: Sequence[float], config: ReaderConfig = DEFAULT_READER) -> dict[str, float]:
        """Weighted Lab distance from ``lab`` to each calibrated colour."""
        x = np.asarray(lab, dtype=np.float64)
        wl = config.calibration_lightness_weight
        out = {}
        for colour, c in self.centroids.items():
            d = x - np.asarray(c)
            out[colour] = float(math.sqrt((wl * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))
        return out

    def vote(self, lab: Sequence[float] | None, config: ReaderConfig = DEFAULT_READER) -> dict[str, float] | None:
        """Probabilities over the calibrated colours, or None when ``lab`` is missing or far
        from every calibrated colour (then calibration has nothing to say)."""
        if lab is None:
            return None
        arr = np.asarray(lab, dtype=np.float64).reshape(-1)
        if arr.shape != (3,) or not np.all(np.isfinite(arr)):
            return None
        dist = self.distances(arr, config)
        if min(dist.values()) > config.calibration_max_distance:
            return None
        names = list(dist)
        logits = -np.array([dist[n] for n in names]) / max(config.calibration_temperature, 1e-6)
        logits -= logits.max()
        p = np.exp(logits)
        p /= p.sum()
        return dict(zip(names, (float(v) for v in p)))

    def adjust(
        self,
        model_probs: Sequence[float],
        lab: Sequence[float] | None,
        config: ReaderConfig = DEFAULT_READER,
    ) -> np.ndarray:
        """Blend the model's 6 colour probabilities with the calibration's vote.

        The vote covers the calibrated colours and takes the model's "other" share (a die close
        to one of the user's dice is not "other"); uncalibrated colours keep the model's share.
        Geometric pooling (a product of experts): result ∝ model^(1-w) x vote^w, with
        w = ``calibration_weight``.  A decisive vote (the die sits on one of the user's colours,
        far from the others) wins even against a confident model fooled by the light; an
        ambiguous vote (two calibrated colours about as close) leaves the model to decide.
        """
        p = np.asarray(model_probs, dtype=np.float64).reshape(-1)
        if p.shape != (len(MODEL_COLOURS),):
            raise ValueError(f"expected {len(MODEL_COLOURS)} colour probabilities, got {p.size}")
        vote = self.vote(lab, config)
        if vote is None:
            return p
        idx = {c: i for i, c in enumerate(MODEL_COLOURS)}
        q = np.zeros_like(p)
        for c in DICE_COLOURS:
            if c not in vote:
                q[idx[c]] = p[idx[c]]
        share = max(0.0, 1.0 - float(q.sum()))
        for c, v in vote.items():
            q[idx[c]] = share * v
        w = float(np.clip(config.calibration_weight, 0.0, 1.0))
        floor = 1e-9  # keeps log-pooling defined; far below any probability that matters
        out = np.exp((1.0 - w) * np.log(np.maximum(p, floor)) + w * np.log(np.maximum(q, floor)))
        total = out.sum()
        return out / total if total > 0 else p

    # -------------------------------------------------------------------- storage

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "encyclopedia-dice-calibration",
            "version": FORMAT_VERSION,
            "created": self.created,
            "colours": {
                c: {"lab": [round(v, 3) for v in self.centroids[c]], "samples": int(self.counts.get(c, 0))}
                for c in DICE_COLOURS
                if c in self.centroids
            },
        }

    @classmethod
    def from_json(cls, data: Any) -> "Calibration":
        if not isinstance(data, dict) or data.get("format") != "encyclopedia-dice-calibration":
            raise CalibrationError("not a dice calibration file")
        if data.get("version") != FORMAT_VERSION:
            raise CalibrationError(
                f"calibration file version {data.get('version')!r} is not supported "
                f"(expected {FORMAT_VERSION}); calibrate again"
            )
        colours = data.get("colours")
        if not isinstance(colours, dict) or not colours:
            raise CalibrationError("calibration file has no colours; calibrate again")
        centroids: dict[str, Lab] = {}
        counts: dict[str, int] = {}
        for c, entry in colours.items():
            if not isinstance(entry, dict) or "lab" not in entry:
                raise CalibrationError(f"calibration entry for {c!r} has no 'lab'")
            centroids[c] = _check_lab(entry["lab"], c)
            n = entry.get("samples", 0)
            counts[c] = int(n) if isinstance(n, int) and n >= 0 else 0
        return cls(centroids=centroids, counts=counts, created=str(data.get("created", "")))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (a crash never leaves half a file)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".calibration-", suffix=".json", dir=p.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.to_json(), fh, indent=2)
                fh.write("\n")
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return p

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Calibration":
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CalibrationError(f"no calibration file at {p}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CalibrationError(f"cannot read calibration file {p}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"calibration file {p} is not valid JSON ({exc.msg}); calibrate again") from None
        try:
            return cls.from_json(data)
        except CalibrationError as exc:
            raise CalibrationError(f"{p}: {exc}") from None

    @classmethod
    def load_optional(cls, path: str | os.PathLike[str]) -> "Calibration | None":
        """The calibration at ``path``, or None when there is no file (errors still raise)."""
        if not Path(path).exists():
            return None
        return cls.load(path)


def samples_from_dice(
    dice: Sequence[Any],
    colours: Sequence[str] | None = None,
    colour: str | None = None,
    where: str = "image",
) -> dict[str, list[Lab]]:
    """Lab samples from the dice read in one calibration photo.

    ``colours``: the dice lie in a row, left to right in this order (one die per name; the
    count must match).  ``colour``: every die in the photo has this colour.  Dice are anything
    with ``box`` and ``body_colour_lab`` (``reader.Die``)."""
    if (colours is None) == (colour is None):
        raise CalibrationError("give either the colours left to right, or the one colour of all dice")
    names = list(colours) if colours is not None else [colour]  # type: ignore[list-item]
    for name in names:
        if name not in DICE_COLOURS:
            raise CalibrationError(f"unknown dice colour {name!r}; the colours are {', '.join(DICE_COLOURS)}")
    usable = [d for d in dice if getattr(d, "body_colour_lab", None) is not None]
    if not usable:
        raise CalibrationError(f"{where}: no dice found; lay the dice flat, well lit, and retake the photo")
    out: dict[str, list[Lab]] = {}
    if colours is not None:
        if len(set(colours)) != len(colours):
            raise CalibrationError("each colour may appear once in --colours")
        if len(usable) != len(colours):
            raise CalibrationError(
                f"{where}: found {len(usable)} dice but {len(colours)} colours were given "
                f"({', '.join(colours)}); lay exactly one die per colour in a row, left to right"
            )
        ordered = sorted(usable, key=lambda d: d.box[0] + d.box[2] / 2)
        for name, die in zip(colours, ordered):
            out.setdefault(name, []).append(_check_lab(die.body_colour_lab, name))
    else:
        out[colour] = [_check_lab(d.body_colour_lab, colour) for d in usable]  # type: ignore[index]
    return out


def merge_samples(parts: Iterable[Mapping[str, Sequence[Lab]]]) -> dict[str, list[Lab]]:
    merged: dict[str, list[Lab]] = {}
    for part in parts:
        for c, labs in part.items():
            merged.setdefault(c, []).extend(labs)
    return merged


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
