"""The dice-reading model: a small detector (whole dice) + a crop classifier (value, colour).

Contract with the pipeline: docs/vision-model.md. Pre-process, infer and post-process are
separate pure functions; every geometric transform is kept (``Letterbox``) so boxes map back to
original-image pixels exactly. The ONNX files are run through any object with the ``Runtime``
members ``input_names``, ``input_shapes``, ``output_names`` and ``run`` (see vision/runtime.py),
so tests can inject fakes. No torch here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from .boxes import _centre_in, _iou, centres_in, cut_by_border, drop_same_read, nms, suppressed_by, union_candidates
from .imaging import (LETTERBOX_AREA_BELOW, PYRAMID_FROM_PIXELS, Letterbox, _check_image,  # noqa: F401 (re-exported)
                      body_colour_lab, crop_for_classifier, letterbox, shrink, to_tensor)
from .zoom import cut_by_window, seeds as zoom_seeds, windows as zoom_windows

COLOURS: tuple[str, ...] = ("red", "yellow", "purple", "blue", "green")
COLOUR_CLASSES: tuple[str, ...] = COLOURS + ("other",)
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"

DETECTOR_INPUT = "image"
DETECTOR_OUTPUTS = ("heatmap", "wh", "offset")
#: a table profile's detector (visionlearn.detector) has a second heatmap, learned on the table's
#: photos over the shipped detector's features; its peaks add dice where the shipped heatmap has
#: none that can be kept (``union_candidates``), so every die the shipped heatmap finds is boxed
#: and read exactly as by the shipped detector
TABLE_HEATMAP = "heatmap_table"
CLASSIFIER_INPUT = "crops"
CLASSIFIER_OUTPUTS = ("value_probs", "colour_probs", "die_prob")

__all__ = [
    "COLOURS", "COLOUR_CLASSES", "DEFAULT_MODEL_DIR", "DiceModel", "Letterbox", "ModelConfig",
    "ModelMismatchError", "RawDie", "body_colour_lab", "crop_for_classifier", "decode_detections",
    "letterbox", "nms", "shrink", "to_tensor", "union_candidates",
]


@dataclass(frozen=True)
class _Candidates:
    """A photo's detector candidates before NMS: boxes in original pixels, peaks, whether only the
    table heatmap found each, how many came from the first pass, and the photo's size."""
    boxes: list
    scores: list
    tables: list
    first_n: int
    width: int
    height: int


class ModelMismatchError(ValueError):
    """A model file's inputs or outputs are not the ones this code was written for."""


@dataclass(frozen=True)
class RawDie:
    box: tuple[float, float, float, float]        # x, y, w, h of the whole die, original pixels
    det_score: float                               # sqrt(detector peak x classifier die prob)
    value_probs: tuple[float, ...]                 # values 1..6
    colour_probs: tuple[float, ...]                # red, yellow, purple, blue, green, other
    body_colour_lab: tuple[float, float, float]    # CIE Lab (L 0..100), pips excluded
    # the value probabilities of the crop turned 180 degrees (the nadir check,
    # ModelConfig.turned_check_from); None where the crop was not turned
    turned_value_probs: tuple[float, ...] | None = None
    # the box centre's height in the image, as a share of the image height (0 top, 1 bottom)
    centre_y_share: float | None = None
    # kept only as a faint candidate (ModelConfig.faint_peak_from): the reader never reads it sure
    faint: bool = False

    @property
    def value(self) -> int:
        return int(np.argmax(self.value_probs)) + 1

    @property
    def colour(self) -> str:
        return COLOUR_CLASSES[int(np.argmax(self.colour_probs))]


CLASSIFIER_VIEWS = ("mirror", "turn")  # the kinds of test-time views ModelConfig.classifier_views names


#: the detector's input sides must be multiples of this (its deepest stage is at 1/32, and the
#: features of 1/32 to 1/4 are added up after upsampling)
DETECTOR_STRIDE = 32


@dataclass(frozen=True)
class ModelConfig:
    """Every threshold and size of the model's pre/post-processing."""

    detector_file: str = "dice_detector.onnx"
    classifier_file: str = "dice_classifier.onnx"
    pad_value: int = 114                 # letterbox padding grey level (as in training)
    peak_threshold: float = 0.2          # heatmap peaks below this are not candidates
    peak_window: int = 3                 # local-maximum window (cells) on the heatmap
    max_candidates: int = 60             # at most this many peaks of one detector input go to the
                                         # classifier; an input larger than ``detector_input`` (the
                                         # finer pass's single input) keeps as many per its area
    min_det_score: float = 0.65          # final det_score below this: not a die, dropped (v4: 0.3 -> 0.55;
                                         # v10: 0.6, chosen on the Blender tuning set; v16: 0.65, by the same
                                         # rule on the LuxCore pool, docs/vision-history.md, v16)
    # Faint candidates (stop 49, docs/vision-history.md): a candidate whose det_score is under the
    # gate but whose detector peak is at least ``faint_peak_from`` is kept when the classifier's die
    # probability is at least ``faint_die_prob`` (engraved pips give weak peaks on dice the
    # classifier is sure of), as a faint die (``RawDie.faint``) that the reader never reads sure.
    # Its det_score stays sqrt(peak x die prob). None = off (only the gate).
    faint_peak_from: float | None = 0.2
    faint_die_prob: float = 0.95
    nms_iou: float = 0.45                # overlapping candidates above this IoU: keep the best
    contained_frac: float = 0.75         # a candidate this much inside a better one is a side face, dropped
    edge_min_aspect: float = 0.5         # a box cut by the image border with short/long side below
                                         # this shows less than half a die: not reported
    crop_context: float = 1.3            # crop side = crop_context x max(box w, box h)
    min_box_px: float = 4.0              # boxes smaller than this (original px) are dropped
    lab_core: float = 0.45               # body colour: central share of the crop that is sampled
    classifier_batch: int = 64           # crops per classifier call
    classifier_tta: int = 2              # each crop is classified in this many views (1..4) in the
                                         # same call and the probabilities averaged
    classifier_views: str = "mirror"     # "mirror" (v5): view 1 is the crop mirrored left-right (tta <= 2);
                                         # "turn" (v4): view k is the crop turned k x 90 degrees
    same_read_iou: float | None = 0.35   # a die overlapping a better one by this IoU with the same value
                                         # and colour is that die boxed twice: dropped (v7; None = off)
    turned_check_from: float | None = 0.7  # the nadir check: a crop whose box centre lies below this
                                         # share of the image height is also classified turned 180
                                         # degrees, in the same call (RawDie.turned_value_probs; the
                                         # reader doubts a read the turned view contradicts; None = off)
    # The finer pass (issue 38 item 6, docs/vision.md "Small dice in a large photo"): the first pass
    # sees the whole photo at the detector's input size, where a die of 3 % of a 12 MP photo's width
    # is about 12 px. When the first pass shrinks the photo to ``fine_max_first_scale`` or less, the
    # photo can be seen at least ``fine_min_gain`` times finer, and the first pass found no
    # candidate or one whose size (sqrt(w x h), detector-input px) is below ``fine_below_px`` (its
    # candidates the reader may keep count: peak over the gate, or from ``faint_peak_from``; stop
    # 65, rule G: a large false candidate over the gate no longer hides faint small dice), the
    # detector runs again on tiles of its own input size cut from the photo resized so that the
    # smallest candidate measures ``fine_target_px`` (no candidate: as fine as the tiles allow),
    # at most ``fine_max_tiles`` tiles overlapping by at least ``fine_overlap_px``; its candidates
    # join the first pass's before NMS. None = off. The reader's ONE finer input (``fine_max_px``
    # below) is neither gated nor aimed so where the first pass shrinks the photo to
    # ``fine_always_at_most`` or less: it runs there whatever the first pass found, at the finest
    # scale its pixels allow (stop 71, rules F and F2); the tiles keep the gate and the aim.
    fine_below_px: float | None = 20.0
    fine_max_first_scale: float = 0.5
    fine_always_at_most: float = 0.3
    fine_target_px: float = 32.0
    fine_min_gain: float = 1.5
    fine_max_tiles: int = 4
    fine_overlap_px: int = 64
    # The detector's input (width, height) where the model file leaves its height and width open
    # (the shipped file since stop 64): the first pass and the finer pass's tiles; a model with a
    # fixed input is read at that size. Multiples of ``DETECTOR_STRIDE``.
    detector_input: tuple[int, int] = (512, 384)
    # With a model whose input size is open, the finer pass is ONE detector input: the photo
    # resized by the plan's scale, padded to a multiple of ``DETECTOR_STRIDE``, of at most
    # ``fine_max_px`` pixels (the scale the pixels allow, not the tiles': a 12 MP photo's 2016x1512
    # working copy at 0.508 of its size (1024x768), against 0.466 for 2x2 tiles; stop 64, rule F5). None:
    # tiles, as for a fixed-size model.
    fine_max_px: int | None = 786_432
    # (stop 68) NMS runs before the classifier: a candidate it drops for a better-peaked box that the
    # classifier then finds to be no die (a coarse first-pass box over two dice, a printed mark) was
    # never read. The read selects its candidates again without the boxes found to be no die, and
    # classifies what that keeps, at most this many times more (0 = one selection, as before; 2 by
    # rule S, docs/vision-history.md, "Stop 68": on the fresh far-777328 one die more found, the same
    # false detections and sure reads wrong).
    reselect_rounds: int = 2
    # (stop 68, rule T) a first-pass box the cross-pass merge removes (the finer pass's box of the
    # same die has the better peak) no longer makes NMS drop candidates: the selection runs again
    # without it (kept: on the fresh far-777329 one die more found, the same false detections and
    # sure reads wrong). False = as before.
    merged_hide_nothing: bool = True
    # (stop 72, rule Z) second looks at the single finer input's doubtful peaks, where the first pass
    # shrinks the photo to ``fine_always_at_most`` or less: ``vision.zoom``. None = off.
    zoom_from: float | None = 0.08
    zoom_max: int = 12
    zoom_window_px: int = 128
    zoom_factor: float = 2.0

    @property
    def gate(self) -> float:
        """The lowest detector peak that can pass ``min_det_score`` (det_score = sqrt(peak x die
        probability), die probability <= 1): ``min_det_score`` squared."""
        return self.min_det_score ** 2

    @property
    def lowest_kept_peak(self) -> float:
        """The lowest detector peak of a candidate ``DiceModel.read`` may keep: the gate's
        (``min_det_score`` squared), or ``faint_peak_from`` where faint candidates are on. The finer
        pass's plan counts the first pass's candidates from it and keeps its own from it (stop 65,
        rules G and H)."""
        return min(self.gate, self.faint_peak_from) if self.faint_peak_from is not None else self.gate

    def __post_init__(self):
        if not 0 <= self.peak_threshold <= 1 or not 0 <= self.min_det_score <= 1:
            raise ValueError("peak_threshold and min_det_score must be in 0..1")
        if self.faint_peak_from is not None and not 0 <= self.faint_peak_from <= 1:
            raise ValueError(f"faint_peak_from must be in 0..1 or None, not {self.faint_peak_from!r}")
        if not 0 <= self.faint_die_prob <= 1:
            raise ValueError(f"faint_die_prob must be in 0..1, not {self.faint_die_prob!r}")
        if self.zoom_from is not None and not (0 <= self.zoom_from <= 1 and self.zoom_max >= 0
                                               and self.zoom_window_px >= 8 and self.zoom_factor >= 1):
            raise ValueError("zoom_from must be in 0..1 or None, zoom_max >= 0, zoom_window_px >= 8, zoom_factor >= 1")
        if not isinstance(self.reselect_rounds, int) or self.reselect_rounds < 0:
            raise ValueError(f"reselect_rounds must be an int >= 0, not {self.reselect_rounds!r}")
        if self.crop_context < 1 or self.peak_window < 1 or self.peak_window % 2 == 0:
            raise ValueError("crop_context must be >= 1 and peak_window an odd number >= 1")
        if self.max_candidates < 1 or self.classifier_batch < 1:
            raise ValueError("max_candidates and classifier_batch must be >= 1")
        if self.classifier_tta not in (1, 2, 3, 4):
            raise ValueError(f"classifier_tta must be 1, 2, 3 or 4, not {self.classifier_tta!r}")
        if self.classifier_views not in CLASSIFIER_VIEWS:
            raise ValueError(f"classifier_views must be one of {CLASSIFIER_VIEWS}, not {self.classifier_views!r}")
        if self.classifier_views == "mirror" and self.classifier_tta > 2:
            raise ValueError("classifier_views 'mirror' has two views: classifier_tta must be 1 or 2")
        if self.same_read_iou is not None and not 0 < self.same_read_iou <= 1:
            raise ValueError(f"same_read_iou must be in (0, 1] or None, not {self.same_read_iou!r}")
        if self.turned_check_from is not None and not 0 <= self.turned_check_from <= 1:
            raise ValueError(f"turned_check_from must be in 0..1 or None, not {self.turned_check_from!r}")
        if self.fine_below_px is not None and not self.fine_below_px > 0:
            raise ValueError(f"fine_below_px must be > 0 or None, not {self.fine_below_px!r}")
        if not self.fine_target_px > 0 or not self.fine_min_gain > 1 or not 0 < self.fine_max_first_scale <= 1 \
                or not 0 < self.fine_always_at_most <= 1:
            raise ValueError("fine_target_px must be > 0, fine_min_gain > 1, fine_max_first_scale and fine_always_at_most in (0, 1]")
        if self.fine_max_tiles < 1 or self.fine_overlap_px < 0:
            raise ValueError("fine_max_tiles must be >= 1 and fine_overlap_px >= 0")
        size = self.detector_input
        if (not isinstance(size, tuple) or len(size) != 2
                or not all(isinstance(v, int) and v > 0 and v % DETECTOR_STRIDE == 0 for v in size)):
            raise ValueError(f"detector_input must be (width, height), multiples of {DETECTOR_STRIDE}, not {size!r}")
        if self.fine_max_px is not None and self.fine_max_px < size[0] * size[1]:
            raise ValueError(f"fine_max_px must be None or at least one detector input ({size[0] * size[1]}), "
                             f"not {self.fine_max_px!r}")


# ------------------------------------------------------------------ the classifier's views (pre-processing: vision/imaging.py)

def _views(crops: np.ndarray, t: int, kind: str) -> list[np.ndarray]:
    """The ``t`` views of a stack of crops [N,S,S,3] that the classifier averages over."""
    if kind == "mirror":
        return [crops, crops[:, :, ::-1]][:t]
    return [np.rot90(crops, k, axes=(1, 2)) for k in range(t)]


# ------------------------------------------------------------------ post-processing

def decode_detections(heatmap: np.ndarray, wh: np.ndarray, offset: np.ndarray, input_size: tuple[int, int],
                      config: ModelConfig) -> list[tuple[tuple[float, float, float, float], float]]:
    """Detector outputs -> [(box x, y, w, h in model-input pixels, peak score)], best first."""
    hm = np.asarray(heatmap, np.float32).reshape(heatmap.shape[-2:])
    gh, gw = hm.shape
    stride_x, stride_y = input_size[0] / gw, input_size[1] / gh
    k = config.peak_window
    peaks = (hm >= cv2.dilate(hm, np.ones((k, k), np.uint8))) & (hm >= config.peak_threshold)
    ys, xs = np.nonzero(peaks)
    if len(ys) == 0:
        return []
    scores = hm[ys, xs]
    base = config.detector_input[0] * config.detector_input[1]
    cap = config.max_candidates * max(1, -(-(input_size[0] * input_size[1]) // base))
    order = np.argsort(-scores, kind="stable")[:cap]
    wh = np.asarray(wh, np.float32).reshape(2, gh, gw)
    off = np.asarray(offset, np.float32).reshape(2, gh, gw)
    out = []
    for i in order:
        y, x = ys[i], xs[i]
        cx = (x + off[0, y, x]) * stride_x
        cy = (y + off[1, y, x]) * stride_y
        w, h = float(wh[0, y, x]), float(wh[1, y, x])
        out.append(((float(cx - w / 2), float(cy - h / 2), w, h), float(scores[i])))
    return out


# ------------------------------------------------------------------ model

def _scaled_size(width: int, height: int, scale: float) -> tuple[int, int]:
    """The finer pass's image size (rounded down: the tile count ``fine_plan`` chose stays enough)."""
    return max(1, int(width * scale + 1e-6)), max(1, int(height * scale + 1e-6))


def _padded(side: float) -> int:
    """``side`` (pixels, rounded down as ``_scaled_size`` does) padded up to a multiple of
    ``DETECTOR_STRIDE``."""
    n = max(1, int(side + 1e-6))
    return -(-n // DETECTOR_STRIDE) * DETECTOR_STRIDE


def _shape_of(runtime: Any, name: str) -> tuple:
    shapes = runtime.input_shapes
    if isinstance(shapes, dict):
        return tuple(shapes[name])
    return tuple(shapes[list(runtime.input_names).index(name)])


def _check_signature(runtime: Any, what: str, input_name: str, outputs: Sequence[str]) -> tuple:
    names = list(runtime.input_names)
    if names != [input_name]:
        raise ModelMismatchError(f"{what}: expected one input named {input_name!r}, the model has {names}")
    missing = [o for o in outputs if o not in list(runtime.output_names)]
    if missing:
        raise ModelMismatchError(f"{what}: expected outputs {list(outputs)}, the model has "
                                 f"{list(runtime.output_names)} (missing {missing})")
    shape = _shape_of(runtime, input_name)
    if len(shape) != 4 or shape[1] != 3:
        raise ModelMismatchError(f"{what}: input {input_name!r} must be [N, 3, H, W], the model has {list(shape)}")
    return shape


class DiceModel:
    """Reads dice in a BGR image: letterbox -> detector -> peaks -> crops -> classifier."""

    def __init__(self, detector: Any, classifier: Any | None = None, config: ModelConfig | None = None):
        self.config = config or ModelConfig()
        shape = _check_signature(detector, "detector", DETECTOR_INPUT, DETECTOR_OUTPUTS)
        fixed = [isinstance(v, int) for v in shape[2:]]
        if fixed[0] != fixed[1] or not all(isinstance(v, int) or v is None for v in shape[2:]):
            raise ModelMismatchError(f"detector: input 'image' needs a fixed height and width, or both open, "
                                     f"the model has {list(shape)}")
        if shape[0] not in (1, None):
            raise ModelMismatchError(f"detector: input 'image' batch must be 1, the model has {list(shape)}")
        self.detector = detector
        #: the model reads inputs of any size (multiples of DETECTOR_STRIDE): ModelConfig.detector_input
        #: and fine_max_px apply
        self.resizable = not fixed[0]
        #: the detector's input (width, height): the first pass, and the finer pass's tiles
        self.input_size = tuple(self.config.detector_input) if self.resizable else (int(shape[3]), int(shape[2]))
        self.classifier = classifier
        self.crop_size = 0
        if classifier is not None:
            cshape = _check_signature(classifier, "classifier", CLASSIFIER_INPUT, CLASSIFIER_OUTPUTS)
            if not isinstance(cshape[2], int) or cshape[2] != cshape[3]:
                raise ModelMismatchError(f"classifier: input 'crops' must be square with a fixed size, the model has {list(cshape)}")
            self.crop_size = int(cshape[2])

    @classmethod
    def from_files(cls, runtime_factory: Callable[[str], Any], model_dir: str | Path | None = None,
                   config: ModelConfig | None = None) -> "DiceModel":
        config = config or ModelConfig()
        d = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        paths = [d / config.detector_file, d / config.classifier_file]
        for p in paths:
            if not p.is_file():
                raise FileNotFoundError(f"dice model file not found: {p}")
        return cls(runtime_factory(str(paths[0])), runtime_factory(str(paths[1])), config)

    # --- steps
    def _run_detector(self, canvas: np.ndarray, maps: dict | None = None
                      ) -> list[tuple[tuple[float, float, float, float], float, bool]]:
        """(box in input pixels, peak, found only by the table heatmap) of one input (``maps``: its outputs)."""
        out = self.detector.run({DETECTOR_INPUT: to_tensor(canvas)})
        if maps is not None:
            maps.update(out)
        size = (canvas.shape[1], canvas.shape[0])
        found = decode_detections(out["heatmap"], out["wh"], out["offset"], size, self.config)
        if TABLE_HEATMAP not in out:
            return [(b, s, False) for b, s in found]
        table = decode_detections(out[TABLE_HEATMAP], out["wh"], out["offset"], size, self.config)
        return union_candidates(found, table, self.config.gate)

    def detect(self, image: np.ndarray) -> list[tuple[tuple[float, float, float, float], float]]:
        """Candidate whole-die boxes in ORIGINAL pixels with their detector peak score, after NMS
        (with the finer pass's candidates where it runs: ``fine_plan``)."""
        return [(b, s) for b, s, _ in self.detect_sources(image)]

    def detect_sources(self, image: np.ndarray) -> list[tuple[tuple[float, float, float, float], float, bool]]:
        """``detect``'s candidates, each with whether only a table profile's heatmap found it."""
        raw = self._raw_candidates(image)
        return [(raw.boxes[i], raw.scores[i], raw.tables[i]) for i in self._select(raw)]

    def _raw_candidates(self, image: np.ndarray) -> "_Candidates":
        """Every candidate of the first pass and, where it runs, of the finer pass, before NMS."""
        cfg = self.config
        H, W = image.shape[:2]
        canvas, lb = letterbox(image, self.input_size, cfg.pad_value)
        dets = self._run_detector(canvas)
        boxes = [lb.to_original(b) for b, _, _ in dets]
        scores = [s for _, s, _ in dets]
        tables = [t for _, _, t in dets]
        seen = cfg.lowest_kept_peak   # the candidates the reader may keep: over the gate, or faint
        plan = self.fine_plan(W, H, [float(np.sqrt(max(b[2], 0.0) * max(b[3], 0.0)))
                                     for b, s, _ in dets if s >= seen])
        first_n = len(boxes)
        if plan is not None:
            for box, score, table in self._detect_fine(image, *plan):
                if score >= seen:   # the rest could never be kept; fewer boxes make NMS cheaper
                    boxes.append(box)
                    scores.append(score)
                    tables.append(table)
        return _Candidates(boxes, scores, tables, first_n, W, H)

    def _select(self, raw: "_Candidates", without: frozenset[int] = frozenset()) -> list[int]:
        """The indices of ``raw`` kept as candidates (NMS, size, border, one die boxed by both
        passes), best first, leaving out ``without`` (candidates already known to be no die)."""
        cfg = self.config
        without = set(without)
        first_n = raw.first_n
        merge = len(raw.boxes) > first_n and self.single_fine()
        while True:
            idx = [i for i in range(len(raw.boxes)) if i not in without]
            boxes = [raw.boxes[i] for i in idx]
            keep = [idx[j] for j in nms(boxes, [raw.scores[i] for i in idx], cfg.nms_iou, cfg.contained_frac)
                    if boxes[j][2] >= cfg.min_box_px and boxes[j][3] >= cfg.min_box_px
                    and not cut_by_border(boxes[j], raw.width, raw.height, cfg.edge_min_aspect)]
            if not merge:
                return keep
            # one die boxed by both passes (each box's centre inside the other, across the passes;
            # the two boxes differ too much for NMS: the first pass's is coarse): the better peak
            # stays (stop 63, rule F3; kept with the single finer input in stop 64, rule F5; the tiles of a
            # fixed-size detector merge as before). Dice side by side are not one: neither centre
            # is in the other.
            inside = centres_in([raw.boxes[i] for i in keep])
            first = np.array([i < first_n for i in keep], bool)
            clash = inside & inside.T & (first[:, None] != first[None, :])
            at: list[int] = []
            for k in range(len(keep)):   # best first
                if not clash[k, at].any():
                    at.append(k)
            kept = [keep[k] for k in at]
            gone = set(keep) - set(kept)
            if not (cfg.merged_hide_nothing and gone and self._hid_any(raw, set(keep), gone)):
                return kept
            # a box merged into the other pass's box of the same die is not kept: it no longer
            # makes NMS drop a candidate (stop 68, rule T)
            without |= gone

    def _hid_any(self, raw: "_Candidates", keep: set[int], gone: set[int]) -> bool:
        """Whether a kept box now taken out (``gone``: found to be no die, or merged into the other
        pass's box of its die) may have kept out a candidate that could be kept: one left out of
        ``keep`` that NMS's pair rule drops for it (``suppressed_by``), or (the cross-pass merge)
        whose centre is in it."""
        cfg = self.config
        out = [i for i in range(len(raw.boxes)) if i not in keep and i not in gone
               and raw.scores[i] >= cfg.lowest_kept_peak]
        return any(suppressed_by(raw.boxes[i], raw.boxes[j], cfg.nms_iou, cfg.contained_frac)
                   or _centre_in(raw.boxes[i], raw.boxes[j])
                   for j in gone if j in keep for i in out)

    def fine_plan(self, width: int, height: int, sizes: Sequence[float], as_tiles: bool = False
                  ) -> tuple[float, int, int] | None:
        """The finer pass for a ``width`` x ``height`` image whose first pass found candidates of
        ``sizes`` (sqrt(w x h) in detector-input px): (scale, tile columns, tile rows), or None
        when it does not run (ModelConfig.fine_below_px and the fields after it). ``as_tiles``: the
        plan of the tiles (their budget sets the scale) even where the reader runs one input (the
        table detector's learner cuts its finer inputs so)."""
        cfg = self.config
        if cfg.fine_below_px is None or width < 1 or height < 1:
            return None
        tw, th = self.input_size
        first = self.first_scale(width, height)
        if first > cfg.fine_max_first_scale:
            return None
        # the reader's single finer input of a photo shrunk to fine_always_at_most or less runs
        # whatever the first pass found, at the finest scale the pixels allow (stop 71, rules F and
        # F2: a coarse box over two touching dice is no die's size)
        single = self.single_fine() and not as_tiles
        always = single and first <= cfg.fine_always_at_most
        smallest = min(sizes) if sizes and not always else None
        if smallest is not None and smallest >= cfg.fine_below_px:
            return None
        ov = min(cfg.fine_overlap_px, tw // 2, th // 2)
        if single:
            # the finest scale whose padded input holds at most fine_max_px pixels
            best = float(np.sqrt(cfg.fine_max_px / (width * height)))
            while best > 0 and _padded(width * best) * _padded(height * best) > cfg.fine_max_px:
                best *= 0.99
        else:
            # the finest scale the tile budget covers
            best = 0.0
            for nx in range(1, cfg.fine_max_tiles + 1):
                ny = cfg.fine_max_tiles // nx
                best = max(best, min((nx * tw - (nx - 1) * ov) / width, (ny * th - (ny - 1) * ov) / height))
        scale = min(best, 1.0)   # never finer than the photo's own pixels
        if smallest is not None and smallest > 0:
            scale = min(scale, first * cfg.fine_target_px / smallest)
        if scale < first * cfg.fine_min_gain:
            return None
        w2, h2 = _scaled_size(width, height, scale)

        def count(n: int, t: int) -> int:
            return 1 if n <= t else int(np.ceil((n - ov) / (t - ov)))

        return scale, count(w2, tw), count(h2, th)

    def first_scale(self, width: int, height: int) -> float:
        """The scale at which the first pass sees a ``width`` x ``height`` image (letterboxed into
        the detector's input)."""
        return min(self.input_size[0] / width, self.input_size[1] / height)

    def single_fine(self) -> bool:
        """Whether the finer pass is one detector input of the resized photo (a model whose
        input size is open, ``ModelConfig.fine_max_px``) rather than tiles."""
        return self.resizable and self.config.fine_max_px is not None

    def fine_input(self, image: np.ndarray, scale: float) -> tuple[np.ndarray, Letterbox]:
        """The single finer-pass input: ``image`` resized by ``scale``, padded at the right and
        bottom to a multiple of ``DETECTOR_STRIDE``, with the ``Letterbox`` that maps it back."""
        H, W = image.shape[:2]
        w2, h2 = _scaled_size(W, H, scale)
        small = shrink(image, (w2, h2), halve=True)
        canvas = np.full((_padded(h2), _padded(w2), 3), self.config.pad_value, np.uint8)
        canvas[:h2, :w2] = small
        return canvas, Letterbox(sx=w2 / W, sy=h2 / H, pad_x=0.0, pad_y=0.0, src_w=W, src_h=H)

    def _detect_fine(self, image: np.ndarray, scale: float, nx: int, ny: int
                     ) -> list[tuple[tuple[float, float, float, float], float, bool]]:
        """The finer pass: the image resized by ``scale``, as one input (``single_fine``) or cut
        into ``nx`` x ``ny`` overlapping tiles of the detector's input size; candidates in original
        pixels. A candidate touching a tile edge inside the image is dropped (the overlap shows that
        die whole in the next tile)."""
        H, W = image.shape[:2]
        if self.single_fine():
            canvas, lb = self.fine_input(image, scale)
            maps: dict = {}
            found = [(lb.to_original(b), score, table) for b, score, table in self._run_detector(canvas, maps)]
            cfg = self.config
            if cfg.zoom_from is None or self.first_scale(W, H) > cfg.fine_always_at_most:
                return found
            gate = cfg.gate
            centres = zoom_seeds(maps["heatmap"], (canvas.shape[1], canvas.shape[0]), lb.sx, lb.sy, cfg.zoom_from, gate,
                                 cfg.zoom_window_px, cfg.zoom_max, [b for b, s, _ in found if s >= gate], cfg.peak_window)
            for canvas, (x0, y0, f, w, h) in zoom_windows(image, centres, lb.sx, cfg.zoom_window_px, cfg.zoom_factor,
                                                          cfg.pad_value, DETECTOR_STRIDE):
                found += [((x0 + bx / f, y0 + by / f, bw / f, bh / f), score, table)
                          for (bx, by, bw, bh), score, table in self._run_detector(canvas)
                          if not cut_by_window((bx, by, bw, bh), x0, y0, f, w, h, W, H)]
            return found
        w2, h2 = _scaled_size(W, H, scale)
        tw, th = self.input_size
        out = []
        for canvas, lb in self.fine_tiles(image, scale, nx, ny):
            x0, y0 = -int(lb.pad_x), -int(lb.pad_y)
            for (bx, by, bw, bh), score, table in self._run_detector(canvas):
                if ((x0 > 0 and bx <= 1) or (y0 > 0 and by <= 1)
                        or (x0 + tw < w2 and bx + bw >= tw - 1) or (y0 + th < h2 and by + bh >= th - 1)):
                    continue   # cut by a tile edge inside the image
                out.append((lb.to_original((bx, by, bw, bh)), score, table))
        return out

    def fine_tiles(self, image: np.ndarray, scale: float, nx: int, ny: int) -> list[tuple[np.ndarray, Letterbox]]:
        """The finer pass's detector inputs: ``image`` resized by ``scale`` and cut into ``nx`` x
        ``ny`` overlapping tiles of the detector's input size (padded where the image is smaller),
        each with the ``Letterbox`` that maps its pixels back (the learner cuts the same tiles)."""
        H, W = image.shape[:2]
        w2, h2 = _scaled_size(W, H, scale)
        small = shrink(image, (w2, h2), halve=True)   # no older resize to keep
        tw, th = self.input_size
        xs = np.linspace(0, max(0, w2 - tw), nx).round().astype(int)
        ys = np.linspace(0, max(0, h2 - th), ny).round().astype(int)
        out = []
        for y0 in ys:
            for x0 in xs:
                part = small[y0:y0 + th, x0:x0 + tw]
                canvas = np.full((th, tw, 3), self.config.pad_value, np.uint8)
                canvas[:part.shape[0], :part.shape[1]] = part
                out.append((canvas, Letterbox(sx=w2 / W, sy=h2 / H, pad_x=-float(x0), pad_y=-float(y0), src_w=W, src_h=H)))
        return out

    def classify(self, image: np.ndarray, boxes: Sequence[Sequence[float]],
                 turned: Sequence[bool] | None = None,
                 could_keep: Callable[[int, float], bool] | None = None):
        """(value_probs [N,6], colour_probs [N,6], die_prob [N], crops [N,S,S,3], turned_value_probs
        [N,6]: the value probabilities of the crop turned 180 degrees where ``turned`` is true, NaN
        elsewhere). The turned crops go to the classifier in the same call as the views.

        ``could_keep(i, die_prob)``: whether box ``i`` could be kept as a die with that mean die
        probability (``read`` passes its own rule; it must rise with the probability). Given, every
        box is first classified in its first view only, and a box whose first view shows that the
        mean over the views cannot keep it (every other view at 1) gets no other view and NaN in
        every output (stop 68: a patterned table top gives hundreds of such candidates). onnxruntime
        gives a crop the same outputs whatever else is in its call, so the kept boxes read as with
        one call (``OpenCVRuntime``: within 1e-9)."""
        cfg = self.config
        if self.classifier is None:
            raise RuntimeError("this DiceModel has no classifier")
        crops = np.stack([crop_for_classifier(image, b, self.crop_size, cfg.crop_context) for b in boxes])
        turn = np.zeros(len(crops), bool) if turned is None else np.asarray(turned, bool).reshape(-1)
        if turn.shape != (len(crops),):
            raise ValueError(f"turned must have one flag per box ({len(crops)}), not {turn.size}")
        t = cfg.classifier_tta
        got: dict[str, np.ndarray] = {}   # "value", "colour" [t, N, k], "die" [t, N], "turned" [N, k]
        for start in range(0, len(crops), cfg.classifier_batch):
            chunk = np.arange(start, min(len(crops), start + cfg.classifier_batch))
            first, alive = 0, chunk   # every view of every box, and the turned crops, in one call
            if could_keep is not None and t > 1:
                self._classify_views(crops, [(chunk, 0, False)], got)
                upper = (got["die"][0, chunk] + np.float32(t - 1)) / np.float32(t)
                first, alive = 1, chunk[np.array([could_keep(int(i), float(u) + 1e-6)
                                                  for i, u in zip(chunk, upper)], bool)]
            self._classify_views(crops, [(alive, k, False) for k in range(first, t)]
                                 + [(alive[turn[alive]], 0, True)], got)
        return (got["value"].mean(axis=0), got["colour"].mean(axis=0), got["die"].mean(axis=0), crops,
                got["turned"])

    def _classify_views(self, crops: np.ndarray, jobs: list[tuple[np.ndarray, int, bool]],
                        got: dict[str, np.ndarray]) -> None:
        """One classifier call for ``jobs`` [(crop indices, view k, turned 180 degrees)]; its outputs go
        into ``got`` (view k's rows, or the turned value probabilities; NaN where never classified)."""
        cfg = self.config
        t, n = cfg.classifier_tta, len(crops)
        jobs = [(idx, k, tr) for idx, k, tr in jobs if len(idx)]
        if not jobs:
            return
        parts = [np.rot90(crops[idx], 2, axes=(1, 2)) if tr else _views(crops[idx], k + 1, cfg.classifier_views)[k]
                 for idx, k, tr in jobs]
        out = self.classifier.run({CLASSIFIER_INPUT: to_tensor(np.concatenate(parts))})
        vals = np.asarray(out["value_probs"], np.float32)
        cols = np.asarray(out["colour_probs"], np.float32)
        dies = np.asarray(out["die_prob"], np.float32).reshape(-1)
        if not got:
            got.update(value=np.full((t, n, vals.shape[1]), np.nan, np.float32),
                       colour=np.full((t, n, cols.shape[1]), np.nan, np.float32),
                       die=np.full((t, n), np.nan, np.float32),
                       turned=np.full((n, vals.shape[1]), np.nan, np.float32))
        row = 0
        for idx, k, tr in jobs:
            rows = slice(row, row + len(idx))
            if tr:
                got["turned"][idx] = vals[rows]
            else:
                got["value"][k, idx], got["colour"][k, idx], got["die"][k, idx] = vals[rows], cols[rows], dies[rows]
            row += len(idx)

    def read(self, image_bgr: np.ndarray) -> list[RawDie]:
        """Every die in the image, best score first; an image without dice gives []."""
        _check_image(image_bgr)
        if self.classifier is None:
            raise RuntimeError("DiceModel.read needs a classifier; this one was built without")
        # det_score = sqrt(peak x die_prob) with die_prob <= 1: a candidate whose peak is below
        # min_det_score squared can never pass the gate, so it is not classified (same reads, less
        # time), unless it may be a faint candidate (ModelConfig.faint_peak_from)
        cfg = self.config
        floor = cfg.gate
        faint = cfg.faint_peak_from is not None and cfg.faint_peak_from < floor
        raw = self._raw_candidates(image_bgr)
        height = image_bgr.shape[0]
        gate = self.config.turned_check_from

        def kept(i: int, die: float) -> tuple[bool, float]:
            """(candidate i is kept with this mean die probability, its det_score); rises with ``die``."""
            peak, table = raw.scores[i], raw.tables[i]
            score = float(np.sqrt(max(0.0, peak) * max(0.0, float(die))))
            # with faint on, every candidate read has a peak of at least faint_peak_from (the
            # selection below keeps no lower one); faint dice are the shipped detector's: a die only
            # the table heatmap found passes the gate
            return not (score < cfg.min_det_score
                        and (table or not (faint and float(die) >= cfg.faint_die_prob))), score

        # classified candidates: index -> (value, colour, die prob, crop, turned value, height share,
        # turned or not)
        read: dict[int, tuple] = {}
        no_die: set[int] = set()
        for _ in range(1 + cfg.reselect_rounds):
            keep = [i for i in self._select(raw, frozenset(no_die)) if raw.scores[i] >= cfg.lowest_kept_peak]
            new = [i for i in keep if i not in read]
            if not new:
                break
            boxes = [raw.boxes[i] for i in new]
            shares = [float(b[1] + b[3] / 2) / height for b in boxes]   # box centre's height, 0 top .. 1 bottom
            turned = [gate is not None and y >= gate for y in shares]
            got = self.classify(image_bgr, boxes, turned, could_keep=lambda j, die: kept(new[j], die)[0])
            dropped = False
            for j, i in enumerate(new):
                read[i] = tuple(part[j] for part in got) + (shares[j], turned[j])
                if not (np.isfinite(read[i][2]) and kept(i, read[i][2])[0]):
                    no_die.add(i)
                    dropped = True
            # (stop 68) a candidate NMS dropped for a box that is no die may be one: select again
            # without the boxes found to be no die, and classify what that keeps anew (where no such
            # box overlaps a candidate left out, the selection would be the same)
            if not dropped or not self._hid_any(raw, set(keep), no_die):
                break
        out = []
        for i in keep:
            if i in no_die or i not in read:
                continue
            v, c, d, crop, tv, y, was_turned = read[i]
            box, table = raw.boxes[i], raw.tables[i]
            _, score = kept(i, d)
            is_faint = score < cfg.min_det_score
            # a die only the table heatmap found is never sure: it is among the table's hardest dice,
            # and no threshold (the shipped 0.85, or one set on a dozen held-back dice) holds on them
            # (stop 58: builds H and H2 each read one such die wrong, sure); found, it costs one tap
            is_faint = is_faint or table
            out.append(RawDie(box=tuple(float(t) for t in box), det_score=score,
                              value_probs=tuple(float(p) for p in v),
                              colour_probs=tuple(float(p) for p in c),
                              body_colour_lab=body_colour_lab(crop, self.config.lab_core),
                              turned_value_probs=tuple(float(p) for p in tv) if was_turned else None,
                              centre_y_share=y, faint=is_faint))
        return drop_same_read(out, self.config.same_read_iou)   # best first
