"""Benchmark: accuracy on a held-out synthetic set and on real photos, speed, model size.

    python -m vision bench [--synthetic-count N] [--seed S] [--sizes webcam|vga|mixed|phone]
                           [--real DIR | --no-real] [--speed-runs N] [--backend B] [--json]

Synthetic (``vision.synth.render_indexed(seed, i, sizes)``; seed 424242 is the held-out seed
that training never uses, docs/vision-model.md).  Predictions are matched to the ground-truth
dice greedily by IoU of the whole-die boxes (>= ``MATCH_IOU``).  Dice partly out of frame
(``partial``) are not scored: a detection lying mostly on one (``PARTIAL_OVERLAP`` of its area
inside that die's box) is neither a hit nor a false detection.
"other" dice (not Encyclopedia colours) are expected as colour "unknown".

Real photos (``../shared/datasets/real-dice/matteo-white``, white dice, value only): labels are
boxes around the pip pattern, so a prediction matches a label when the predicted box contains
the label's centre (nearest centres first).  Reported per split (``valid`` is the fair one if
the model was fine-tuned on ``train``; the two splits share near-duplicate scenes).

Figures: recall, false detections, value accuracy, colour accuracy, dice read right (colour
AND value, over all scored dice, so misses count as wrong), all-dice-right rate per image,
wrong reads among the confident (not unsure) ones (on the real photos: confident of the value,
since white dice are colour "unknown" and so always unsure), unsure share, median ms per 640x480 image
with 8 dice on one core (JPEG bytes in, dice out; the process is pinned to one CPU and OpenCV
and onnxruntime use one thread), and the model files' size.  The synthetic figures are also
broken down (recall and read right per group) two ways: by the drawn size of each die's top
face (under ``SMALL_TOP_PX`` on its shorter side or not) and by whether its box overlaps another
die's box (touching or stacked dice) or not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TextIO

import cv2
import numpy as np

HELD_OUT_SEED = 424242  # docs/vision-model.md: never used for training
SPEED_SEED = 424243  # the 8-dice 640x480 speed scene (also not a training seed)
DEFAULT_COUNT = 300
DEFAULT_SIZES = "webcam"
DEFAULT_SPEED_RUNS = 50
MATCH_IOU = 0.3
PARTIAL_OVERLAP = 0.25  # a prediction this much inside a partly-framed die's box is not scored
# Breakdown of the synthetic figures (the headline figures count every die; the breakdown says
# where the misses are): by how large the die's top face is drawn, the shorter side of its
# bounding box in image pixels (under this, pips are 1-2 px: steep views, small or far dice) ...
SMALL_TOP_PX = 8.0
# ... and by whether another die's box covers at least this share of the die's box.
TOUCH_OVERLAP = 0.02
REPO = Path(__file__).resolve().parents[1]
DEFAULT_REAL = REPO.parent / "shared" / "datasets" / "real-dice"


# ------------------------------------------------------------------------------------------
# Matching and tallies (pure; tested)
# ------------------------------------------------------------------------------------------


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    ax, ay, aw, ah = (float(v) for v in a)
    bx, by, bw, bh = (float(v) for v in b)
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def _one_to_one(pairs: Sequence[tuple[float, int, int]]) -> list[tuple[int, int]]:
    """(score, pred_i, truth_j) already sorted best first -> greedy one-to-one [(pred_i, truth_j)]."""
    used_p: set[int] = set()
    used_t: set[int] = set()
    out = []
    for _, i, j in pairs:
        if i not in used_p and j not in used_t:
            used_p.add(i)
            used_t.add(j)
            out.append((i, j))
    return out


def match_by_iou(preds: Sequence[Sequence[float]], truths: Sequence[Sequence[float]], min_iou: float = MATCH_IOU):
    """Greedy one-to-one matching, highest IoU first. Returns [(pred_i, truth_i)]."""
    pairs = []
    for i, p in enumerate(preds):
        for j, t in enumerate(truths):
            v = iou(p, t)
            if v >= min_iou:
                pairs.append((v, i, j))
    pairs.sort(reverse=True)
    return _one_to_one(pairs)


def match_by_centre(preds: Sequence[Sequence[float]], centres: Sequence[tuple[float, float]]):
    """A prediction matches a label when its box contains the label's centre; nearest centres
    first, one to one. Returns [(pred_i, label_j)]."""
    pairs = []
    for i, (x, y, w, h) in enumerate(preds):
        pcx, pcy = x + w / 2, y + h / 2
        for j, (cx, cy) in enumerate(centres):
            if x <= cx <= x + w and y <= cy <= y + h:
                pairs.append((float(np.hypot(pcx - cx, pcy - cy)), i, j))
    pairs.sort()
    return _one_to_one(pairs)


def match_by_centre_distance(preds: Sequence[Sequence[float]], truths: Sequence[Sequence[float]]):
    """The domain matching (issue 16, the maintainers' rule): a read matches a die when the
    read box's centre lies within half the die box's diagonal of the die box's centre; nearest
    first, one to one. Returns [(pred_i, truth_j)]."""
    pairs = []
    for j, (tx, ty, tw, th) in enumerate(truths):
        tcx, tcy, reach = tx + tw / 2, ty + th / 2, 0.5 * float(np.hypot(tw, th))
        for i, (x, y, w, h) in enumerate(preds):
            dist = float(np.hypot(x + w / 2 - tcx, y + h / 2 - tcy))
            if dist <= reach:
                pairs.append((dist, i, j))
    pairs.sort()
    return _one_to_one(pairs)


@dataclass
class Tally:
    images: int = 0
    failed_images: int = 0  # the reader returned an error
    truths: int = 0  # scored ground-truth dice
    predictions: int = 0  # predictions, excluding those on unscored (partial) dice
    matched: int = 0
    value_right: int = 0
    colour_right: int = 0
    both_right: int = 0
    false_detections: int = 0
    confident: int = 0  # scored predictions not flagged unsure
    confident_wrong: int = 0  # ... that were wrong (value/colour) or not a die
    unsure: int = 0
    images_all_right: int = 0
    # hands-free: the dice a game can hold (the five colours; every die of a set without colour
    # labels) and those of them found, read sure and right. "other" dice are left out: the right
    # read of one is "unknown", which is never sure (the player removes or corrects it).
    game_dice: int = 0
    hands_free: int = 0
    # photos that need no tap: every game die found, read right and sure, and nothing else read
    # (no false detection, no read on another game's die: each would be a chip to remove or fix)
    images_no_tap: int = 0
    # the reader's ``unsure_below`` (value-only sets decide "sure" on the value alone with it)
    unsure_below: float = field(default_factory=lambda: _default_unsure_below())  # defined below
    ms: list[float] = field(default_factory=list)
    wrong_confident_examples: list[dict] = field(default_factory=list)
    # (confidence, right) of every scored prediction: the data to choose ``unsure_below``
    scored_reads: list[tuple[float, bool]] = field(default_factory=list)
    # group (``synthetic_groups``) -> [scored dice, matched, colour AND value right]
    by_group: dict[str, list[int]] = field(default_factory=dict)

    def add_image(self, all_right: bool, no_tap: bool = False) -> None:
        self.images += 1
        self.images_all_right += int(all_right)
        self.images_no_tap += int(no_tap)

    def summary(self, with_colour: bool = True) -> dict[str, Any]:
        def rate(n: int, d: int) -> float | None:
            return round(n / d, 5) if d else None

        out = {
            "images": self.images,
            "failed_images": self.failed_images,
            "dice": self.truths,
            "predictions": self.predictions,
            "recall": rate(self.matched, self.truths),
            "false_detections": self.false_detections,
            "false_detection_rate": rate(self.false_detections, self.predictions),
            "value_accuracy": rate(self.value_right, self.matched),
            "colour_accuracy": rate(self.colour_right, self.matched) if with_colour else None,
            "read_right": rate(self.both_right if with_colour else self.value_right, self.truths),
            "all_dice_right_images": rate(self.images_all_right, self.images),
            "no_tap_images": rate(self.images_no_tap, self.images),
            "confident_reads": self.confident,
            "confident_wrong": self.confident_wrong,
            # game dice found, read sure and right / all scored game dice: the share a photo
            # reads with no tap
            "hands_free": rate(self.hands_free, self.game_dice),
            # wrong (or not a die) among the sure reads
            "sure_wrong_rate": rate(self.confident_wrong, self.confident),
            "unsure_share": rate(self.unsure, self.predictions),
            "median_ms": round(statistics.median(self.ms), 2) if self.ms else None,
        }
        if self.by_group:
            out["breakdown"] = {
                k: {"dice": n, "recall": rate(m, n), "read_right": rate(r, n)}
                for k, (n, m, r) in sorted(self.by_group.items())
            }
        if self.scored_reads:
            out["threshold_sweep"] = threshold_sweep(self.scored_reads)
        if self.wrong_confident_examples:
            out["confident_wrong_examples"] = self.wrong_confident_examples[:20]
        return out


SWEEP = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.95, 0.97, 0.98, 0.99)


def threshold_sweep(reads: Sequence[tuple[float, bool]], thresholds: Sequence[float] = SWEEP) -> list[dict]:
    """For each candidate ``unsure_below``: the share of reads that would be sure, and how many
    of those would be wrong."""
    out = []
    n = len(reads)
    for th in thresholds:
        sure = [right for conf, right in reads if conf >= th]
        out.append({"unsure_below": th, "sure_share": round(len(sure) / n, 4) if n else None,
                    "sure": len(sure), "sure_wrong": sum(1 for r in sure if not r)})
    return out


def overlap_of(a: Sequence[float], b: Sequence[float]) -> float:
    """Share of box ``a``'s area that lies inside box ``b``."""
    ax, ay, aw, ah = (float(v) for v in a)
    bx, by, bw, bh = (float(v) for v in b)
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    return ix * iy / (aw * ah) if aw * ah > 0 else 0.0


def synthetic_groups(truth: Any, others: Sequence[Any]) -> list[str]:
    """The breakdown groups of a synthetic ground-truth die: one by its top face's drawn size
    (only when the truth has a ``top_box``), one by whether it overlaps ``others`` (every other
    die of the scene, partly framed ones included)."""
    groups = []
    top = getattr(truth, "top_box", None)
    if top is not None:
        small = min(float(top[2]), float(top[3])) < SMALL_TOP_PX
        groups.append(f"top face under {SMALL_TOP_PX:g} px" if small else f"top face {SMALL_TOP_PX:g} px and over")
    touching = any(overlap_of(truth.box, o.box) >= TOUCH_OVERLAP for o in others)
    groups.append("overlapping another die" if touching else "apart from other dice")
    return groups


def score_synthetic_image(tally: Tally, dice: Sequence[Any], truths: Sequence[Any], name: str = "",
                          match: Callable = match_by_iou) -> None:
    """Add one synthetic image's reads (``reader.Die``) vs ground truth (``synth.DieTruth``).

    Scored (fully framed) dice are matched first, one to one by ``match`` (IoU for the classic
    held-out set, ``match_by_centre_distance`` for the domains). A remaining prediction
    that lies mostly on a die partly out of frame (``PARTIAL_OVERLAP`` of its area inside that
    die's box) is not scored; any other remaining prediction is a false detection (this
    includes a second detection of a die that was already matched). A truth whose colour is
    None (a set without colour labels) is scored on its value alone, as the real photos are."""
    scored = [t for t in truths if not t.partial]
    partial = [t for t in truths if t.partial]
    pairs = match([d.box for d in dice], [t.box for t in scored])
    matched_p = {i for i, _ in pairs}
    all_right = len(pairs) == len(scored)
    matched_t = {j for _, j in pairs}
    no_tap = all(j in matched_t for j, t in enumerate(scored) if t.colour != "other")
    tally.truths += len(scored)
    tally.game_dice += sum(1 for t in scored if t.colour != "other")
    read_ok: dict[int, bool] = {}  # matched truth index -> colour AND value right
    for i, j in pairs:
        t, d = scored[j], dice[i]
        tally.predictions += 1
        tally.matched += 1
        value_only = t.colour is None
        want_colour = "unknown" if t.colour == "other" else t.colour
        v_ok = d.value == t.value
        c_ok = value_only or d.colour == want_colour
        tally.value_right += v_ok
        tally.colour_right += c_ok
        tally.both_right += v_ok and c_ok
        all_right &= v_ok and c_ok
        read_ok[j] = v_ok and c_ok
        _count_confidence(tally, d, v_ok and c_ok, name, {"colour": want_colour, "value": t.value}, value_only)
        unsure = _value_unsure(d, tally.unsure_below) if value_only else d.unsure
        free = v_ok and c_ok and t.colour != "other" and not unsure
        tally.hands_free += int(free)
        no_tap &= free  # a read on another game's die is a chip to remove, right or not
    for j, t in enumerate(scored):
        for group in synthetic_groups(t, [o for o in truths if o is not t]):
            row = tally.by_group.setdefault(group, [0, 0, 0])
            row[0] += 1
            row[1] += j in read_ok
            row[2] += read_ok.get(j, False)
    for i, d in enumerate(dice):
        if i in matched_p:
            continue
        if any(overlap_of(d.box, t.box) >= PARTIAL_OVERLAP for t in partial):
            continue  # on a die partly out of frame: neither a hit nor a false detection
        tally.predictions += 1
        tally.false_detections += 1
        all_right = no_tap = False
        _count_confidence(tally, d, False, name, None, bool(truths) and all(t.colour is None for t in truths))
    tally.add_image(all_right, no_tap)


def _default_unsure_below() -> float:
    from vision.config import DEFAULT_READER

    return DEFAULT_READER.unsure_below


def _value_unsure(d: Any, unsure_below: float) -> bool:
    """For value-only data (white dice are colour "unknown", hence always ``unsure``): would the
    read be unsure on its value and detection alone, at the reader's ``unsure_below``?"""
    return _value_confidence(d) < unsure_below


def reader_threshold(reader: Any) -> float:
    """The ``unsure_below`` of ``reader``'s config (the shipped one for readers without one)."""
    cfg = getattr(reader, "config", None)
    return float(getattr(cfg, "unsure_below", _default_unsure_below()))


def _value_confidence(d: Any) -> float:
    from vision.reader import detection_factor

    return d.value_confidence * detection_factor(d.det_score)


def _count_confidence(
    tally: Tally, d: Any, right: bool, name: str, truth: dict | None, value_only: bool = False
) -> None:
    conf = _value_confidence(d) if value_only else d.confidence
    # "unknown" colour is always unsure whatever its confidence: it never counts as sure
    tally.scored_reads.append((conf if value_only or d.colour != "unknown" else -1.0, right))
    if (_value_unsure(d, tally.unsure_below) if value_only else d.unsure):
        tally.unsure += 1
        return
    tally.confident += 1
    if not right:
        tally.confident_wrong += 1
        tally.wrong_confident_examples.append(
            {"image": name, "read": d.to_json(), "truth": truth if truth is not None else "not a die"}
        )


def score_real_image(tally: Tally, dice: Sequence[Any], labels: Sequence[tuple[int, float, float]], name: str = "") -> None:
    """labels: (value, centre_x, centre_y) in pixels. Value only (the dice are white, so their
    colour is "unknown" and every read is ``unsure``): "confident" here means sure of the value
    (value probability x detection factor >= ``ReaderConfig.unsure_below``)."""
    pairs = match_by_centre([d.box for d in dice], [(cx, cy) for _, cx, cy in labels])
    matched_p = {i for i, _ in pairs}
    tally.truths += len(labels)
    tally.game_dice += len(labels)
    tally.predictions += len(dice)
    all_right = len(pairs) == len(labels) and len(dice) == len(labels)
    no_tap = all_right
    for i, j in pairs:
        v_ok = dice[i].value == labels[j][0]
        tally.matched += 1
        tally.value_right += v_ok
        all_right &= v_ok
        _count_confidence(tally, dice[i], v_ok, name, {"value": labels[j][0]}, value_only=True)
        free = v_ok and not _value_unsure(dice[i], tally.unsure_below)
        tally.hands_free += int(free)
        no_tap &= free
    for i, d in enumerate(dice):
        if i not in matched_p:
            tally.false_detections += 1
            _count_confidence(tally, d, False, name, None, value_only=True)
    tally.add_image(all_right, no_tap)


# ------------------------------------------------------------------------------------------
# Runs
# ------------------------------------------------------------------------------------------


def _tally_scenes(reader: Any, scenes: Iterable[tuple[Any, Sequence[Any], str]], count: int, label: str,
                  match: Callable = match_by_iou, progress: TextIO | None = None) -> Tally:
    """Read each (image, truths, name) of ``scenes`` (``count`` of them, for the progress
    lines) and score it with ``score_synthetic_image``."""
    tally = Tally(unsure_below=reader_threshold(reader))
    for k, (image, truths, name) in enumerate(scenes):
        result = reader.read(image)
        if result.error is not None:
            tally.failed_images += 1
        tally.ms.append(result.ms)
        score_synthetic_image(tally, result.dice, truths, name=name, match=match)
        if progress is not None and (k + 1) % 50 == 0:
            progress.write(f"  {label} {k + 1}/{count}\n")
            progress.flush()
    return tally


def bench_synthetic(reader: Any, count: int, seed: int, sizes: str, progress: TextIO | None = None) -> dict[str, Any]:
    from vision.synth import render_indexed

    scenes = ((img, truths, f"seed {seed} scene {i}")
              for i in range(count) for img, truths, _ in [render_indexed(seed, i, sizes)])
    tally = _tally_scenes(reader, scenes, count, "synthetic", progress=progress)
    out = tally.summary(with_colour=True)
    out.update({"seed": seed, "sizes": sizes})
    return out


def read_yolo_labels(path: Path, width: int, height: int) -> list[tuple[int, float, float]]:
    """YOLO ``class cx cy w h`` (normalised) -> [(value = class + 1, cx px, cy px)]."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        cls, cx, cy = int(float(parts[0])), float(parts[1]), float(parts[2])
        out.append((cls + 1, cx * width, cy * height))
    return out


def real_splits(root: Path) -> dict[str, list[tuple[Path, Path]]]:
    """{split: [(image, label)]} for every dataset folder under ``root`` with images/ labels/."""
    splits: dict[str, list[tuple[Path, Path]]] = {}
    if not root.is_dir():
        return splits
    for ds in sorted(p for p in root.iterdir() if (p / "images").is_dir()):
        for split_dir in sorted(p for p in (ds / "images").iterdir() if p.is_dir()):
            pairs = []
            for img in sorted(split_dir.iterdir()):
                if img.suffix.lower() in (".jpg", ".jpeg", ".png", ".bmp"):
                    pairs.append((img, ds / "labels" / split_dir.name / (img.stem + ".txt")))
            if pairs:
                splits[f"{ds.name}/{split_dir.name}"] = pairs
    return splits


def bench_real(reader: Any, root: Path) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for split, pairs in real_splits(root).items():
        tally = Tally(unsure_below=reader_threshold(reader))
        for img_path, label_path in pairs:
            result = reader.read(img_path)
            if result.error is not None:
                tally.failed_images += 1
                tally.add_image(False)
                continue
            tally.ms.append(result.ms)
            w, h = result.image_size
            score_real_image(tally, result.dice, read_yolo_labels(label_path, w, h), name=img_path.name)
        results[split] = tally.summary(with_colour=False)
    return results


# ------------------------------------------------------------------------------------------
# Domains (issue 16): the same reader measured on scenes from different sources
# ------------------------------------------------------------------------------------------

#: where rendered domain sets live (git-ignored; ``python -m vision.pbr render ... --out``)
DOMAIN_ROOT = REPO / "data" / "domains"
#: what the shipped model was trained on (models/training.json: {"trained_on": [domain, ...]})
TRAINING_FILE = REPO / "models" / "training.json"
SYNTH_RANDOM = "synth-random"


@dataclass(frozen=True)
class DomainTruth:
    colour: str | None  # COLOURS or "other"; None where the set has no colour labels
    value: int
    box: tuple[float, float, float, float]
    partial: bool = False
    top_box: tuple[float, float, float, float] | None = None


def load_domain_dir(folder: Path) -> tuple[dict[str, Any], list[tuple[Path, list[DomainTruth]]]]:
    """A domain directory: ``domain.json`` and one ``NNNNN.json`` per image (``{"image",
    "dice": [{"colour", "value", "box", "partial", "top_box"}]}``) beside its image. Returns
    (domain info, [(image path, truths)]) sorted by name; raises ValueError on a bad file."""
    folder = Path(folder)
    info_path = folder / "domain.json"
    if not info_path.is_file():
        raise ValueError(f"{folder} is not a domain directory (no domain.json)")
    try:
        info = json.loads(info_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{info_path}: {exc}") from None
    scenes = []
    for js in sorted(folder.glob("[0-9]*.json")):
        try:
            rec = json.loads(js.read_text())
            truths = [DomainTruth(colour=d.get("colour"), value=int(d["value"]),
                                  box=tuple(float(v) for v in d["box"]), partial=bool(d.get("partial", False)),
                                  top_box=tuple(float(v) for v in d["top_box"]) if d.get("top_box") else None)
                      for d in rec["dice"]]
            image = folder / rec["image"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{js}: not a scene record ({exc})") from None
        if image.is_file():
            scenes.append((image, truths))
    return info, scenes


def domain_dirs(root: Path = DOMAIN_ROOT) -> dict[str, Path]:
    """{name: folder} of every domain directory under ``root`` (name = the folder's name)."""
    if not Path(root).is_dir():
        return {}
    return {p.name: p for p in sorted(Path(root).iterdir()) if (p / "domain.json").is_file()}


def trained_domains(path: Path = TRAINING_FILE) -> list[str]:
    """Domain names (or prefixes ending in ``*``) the shipped model was trained on."""
    try:
        return list(json.loads(Path(path).read_text()).get("trained_on", []))
    except (OSError, json.JSONDecodeError, AttributeError):
        return []


def was_trained_on(domain: str, trained: Sequence[str]) -> bool:
    return any(domain == t or (t.endswith("*") and domain.startswith(t[:-1])) for t in trained)


def bench_domain_dir(reader: Any, folder: Path, progress: TextIO | None = None, limit: int | None = None) -> dict[str, Any]:
    info, scenes = load_domain_dir(folder)
    scenes = scenes[:limit] if limit is not None else scenes
    with_colour = all(t.colour is not None for _, ts in scenes for t in ts)
    named = ((image, truths, f"{folder.name}/{image.name}") for image, truths in scenes)
    tally = _tally_scenes(reader, named, len(scenes), folder.name, match_by_centre_distance, progress)
    out = tally.summary(with_colour=with_colour)
    out.update({"source": info.get("renderer") or info.get("source") or info.get("domain"), "folder": str(folder)})
    return out


def bench_synth_random(reader: Any, count: int, seed: int, sizes: str, progress: TextIO | None = None) -> dict[str, Any]:
    """Our own renderer in its randomised style (``SceneOptions.style = "random"``), scored with
    the domain matching."""
    from vision.synth import render_indexed
    from vision.synth.scene import SceneOptions

    base = SceneOptions(style="random")
    scenes = ((img, truths, f"random seed {seed} scene {i}")
              for i in range(count) for img, truths, _ in [render_indexed(seed, i, sizes, base)])
    tally = _tally_scenes(reader, scenes, count, SYNTH_RANDOM, match_by_centre_distance, progress)
    out = tally.summary(with_colour=True)
    out.update({"source": f"vision.synth style random, seed {seed}, sizes {sizes}"})
    return out


HEADLINE = (
    ("hands-free", "hands_free"), ("sure-and-wrong", "sure_wrong_rate"), ("recall", "recall"),
    ("false det.", "false_detection_rate"), ("value", "value_accuracy"), ("colour", "colour_accuracy"),
    ("no-tap photos", "no_tap_images"),
)


def format_domains(domains: dict[str, Any]) -> str:
    """The per-domain headline table: domains the model never trained on first."""
    if not domains:
        return ""
    names = sorted(domains, key=lambda n: (domains[n].get("trained_on", False), n))
    head = ["domain".ljust(28), "trained on".rjust(11), "dice".rjust(6)] + [h.rjust(15) for h, _ in HEADLINE]
    lines = ["".join(head)]
    for n in names:
        s = domains[n]
        cells = [n.ljust(28), ("yes" if s.get("trained_on") else "NO").rjust(11), str(s.get("dice", 0)).rjust(6)]
        cells += [_pct(s.get(k)).rjust(15) for _, k in HEADLINE]
        lines.append("".join(cells))
    return "\n".join(lines)


def speed_scene() -> tuple[bytes, int]:
    """A 640x480 synthetic scene with 8 dice as JPEG bytes (seed SPEED_SEED)."""
    from dataclasses import replace

    from vision.synth import SceneOptions, render_scene

    rng = np.random.default_rng([SPEED_SEED, 0])
    opts = replace(SceneOptions(), width=640, height=480, min_dice=8, max_dice=8, other_share=0.0)
    img, truths = render_scene(rng, opts)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes(), len(truths)


class one_core:
    """Context: OpenCV on one thread and the process pinned to one CPU (Linux); restored after."""

    def __enter__(self) -> str:
        self._threads = cv2.getNumThreads()
        self._affinity = None
        cv2.setNumThreads(1)
        if hasattr(os, "sched_setaffinity"):
            try:
                self._affinity = os.sched_getaffinity(0)
                cpu = sorted(self._affinity)[0]
                os.sched_setaffinity(0, {cpu})
                return f"pinned to CPU {cpu}"
            except OSError:
                self._affinity = None
        return "not pinned (no sched_setaffinity)"

    def __exit__(self, *exc: object) -> None:
        cv2.setNumThreads(self._threads)
        if self._affinity is not None:
            os.sched_setaffinity(0, self._affinity)


def bench_speed(reader: Any, runs: int) -> dict[str, Any]:
    data, n = speed_scene()
    with one_core() as pinning:
        for _ in range(3):  # warm-up (first runs allocate)
            reader.read(data)
        times = []
        dice_found = 0
        for _ in range(runs):
            t0 = time.perf_counter()
            result = reader.read(data)
            times.append((time.perf_counter() - t0) * 1000.0)
            dice_found = len(result.dice)
    return {
        "image": "640x480 JPEG, synthetic",
        "dice_in_scene": n,
        "dice_read": dice_found,
        "runs": runs,
        "median_ms": round(statistics.median(times), 2),
        "p90_ms": round(float(np.percentile(times, 90)), 2),
        "cpu": pinning,
    }


def model_size(model_dir: Path | None) -> dict[str, Any]:
    d = Path(model_dir) if model_dir else REPO / "models"
    files = {p.name: p.stat().st_size for p in sorted(d.glob("*.onnx"))}
    return {"files": files, "total_bytes": sum(files.values()), "total_mb": round(sum(files.values()) / 1e6, 3)}


# ------------------------------------------------------------------------------------------
# Awkward inputs (the list; the tests use the same generator)
# ------------------------------------------------------------------------------------------


def _exif_jpeg(img: np.ndarray, orientation: int) -> bytes:
    import struct

    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    data = buf.tobytes()
    tiff = b"II" + struct.pack("<HI", 42, 8) + struct.pack("<H", 1)
    tiff += struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    payload = b"Exif\x00\x00" + tiff
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:]


def write_awkward_inputs(folder: Path, scene: np.ndarray | None = None) -> dict[str, Path]:
    """Write the awkward inputs into ``folder``; returns {name: path}. ``scene`` (BGR) is a
    photo with dice used for the grey, 4-channel, truncated and rotated variants."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if scene is None:
        rng = np.random.default_rng(7)
        scene = cv2.GaussianBlur(rng.integers(60, 200, (480, 640, 3), dtype=np.uint8), (7, 7), 2)
    files: dict[str, Path] = {}

    def put(name: str, data: bytes) -> None:
        files[name] = folder / name
        files[name].write_bytes(data)

    def enc(ext: str, img: np.ndarray, params: list[int] | None = None) -> bytes:
        ok, buf = cv2.imencode(ext, img, params or [])
        return buf.tobytes()

    put("empty.jpg", b"")
    put("text.jpg", b"Encyclopedia companion: this is a text file, not a photo.\n" * 50)
    put("one-pixel.png", enc(".png", np.full((1, 1, 3), 128, np.uint8)))
    huge = np.full((10000, 10000, 3), (70, 100, 130), np.uint8)
    put("huge-10000x10000.jpg", enc(".jpg", huge, [cv2.IMWRITE_JPEG_QUALITY, 70]))
    del huge
    put("grey.png", enc(".png", cv2.cvtColor(scene, cv2.COLOR_BGR2GRAY)))
    bgra = cv2.cvtColor(scene, cv2.COLOR_BGR2BGRA)
    bgra[:, : bgra.shape[1] // 4, 3] = 0  # a transparent strip
    put("four-channel.png", enc(".png", bgra))
    full = enc(".jpg", scene, [cv2.IMWRITE_JPEG_QUALITY, 90])
    put("truncated.jpg", full[: len(full) * 2 // 3])
    # a phone photo stored landscape, to be shown rotated 90 degrees clockwise
    put("rotated-phone-exif6.jpg", _exif_jpeg(cv2.rotate(scene, cv2.ROTATE_90_COUNTERCLOCKWISE), 6))
    wood = np.zeros((480, 640, 3), np.uint8)
    wood[:] = (60, 105, 160)
    grain = (np.sin(np.linspace(0, 60, 640))[None, :] * 18).astype(np.int16)
    wood = np.clip(wood.astype(np.int16) + grain[:, :, None], 0, 255).astype(np.uint8)
    put("no-dice-table.jpg", enc(".jpg", wood))
    put("only-background-grey.png", enc(".png", np.full((480, 640, 3), 128, np.uint8)))
    return files


def bench_awkward(reader: Any, folder: Path) -> dict[str, Any]:
    out = {}
    for name, path in write_awkward_inputs(folder).items():
        t0 = time.perf_counter()
        result = reader.read(path)
        ms = (time.perf_counter() - t0) * 1000.0
        out[name] = {"ms": round(ms, 1), "error": result.error, "dice": len(result.dice)}
    return out


# ------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.2f}%"


def format_table(report: dict[str, Any]) -> str:
    rows = [
        ("images", lambda s: str(s["images"])),
        ("dice scored", lambda s: str(s["dice"])),
        ("recall", lambda s: _pct(s["recall"])),
        ("false detections", lambda s: f"{s['false_detections']} ({_pct(s['false_detection_rate'])})"),
        ("value accuracy", lambda s: _pct(s["value_accuracy"])),
        ("colour accuracy", lambda s: _pct(s["colour_accuracy"])),
        ("read right (colour+value)", lambda s: _pct(s["read_right"])),
        ("all dice right, per image", lambda s: _pct(s["all_dice_right_images"])),
        ("photos needing no tap", lambda s: _pct(s.get("no_tap_images"))),
        ("confident reads", lambda s: str(s["confident_reads"])),
        ("wrong among confident", lambda s: str(s["confident_wrong"])),
        ("unsure share", lambda s: _pct(s["unsure_share"])),
        ("median ms per image", lambda s: "-" if s["median_ms"] is None else f"{s['median_ms']:.1f}"),
    ]
    columns: list[tuple[str, dict]] = []
    if report.get("synthetic"):
        s = report["synthetic"]
        columns.append((f"synthetic seed {s['seed']} ({s['sizes']})", s))
    for split, s in (report.get("real") or {}).items():
        columns.append((f"real {split}", s))
    lines = []
    if columns:
        width = max(len(r[0]) for r in rows) + 2
        colw = [max(len(name), 12) + 2 for name, _ in columns]
        lines.append("".ljust(width) + "".join(name.rjust(w) for (name, _), w in zip(columns, colw)))
        for label, fn in rows:
            cells = []
            for (_, s), w in zip(columns, colw):
                try:
                    cells.append(fn(s).rjust(w))
                except (KeyError, TypeError):
                    cells.append("-".rjust(w))
            lines.append(label.ljust(width) + "".join(cells))
    if report.get("real_skipped"):
        lines.append(f"real photos: skipped ({report['real_skipped']})")
    sp = report.get("speed")
    if sp:
        lines.append(
            f"speed: median {sp['median_ms']:.1f} ms (p90 {sp['p90_ms']:.1f}) per {sp['image']} with "
            f"{sp['dice_in_scene']} dice ({sp['dice_read']} read), {sp['runs']} runs, one thread, {sp['cpu']}"
        )
    ms = report.get("model_size")
    if ms:
        files = ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in ms["files"].items()) or "no .onnx files"
        lines.append(f"model size: {ms['total_mb']:.2f} MB ({files})")
    for name, r in (report.get("awkward") or {}).items():
        what = f"error: {r['error']}" if r["error"] else f"{r['dice']} dice"
        lines.append(f"awkward input {name}: {r['ms']:.0f} ms, {what}")
    for label, s in columns:
        sweep = s.get("threshold_sweep")
        if sweep:
            cells = ", ".join(
                f"{x['unsure_below']:.2f}: {100 * x['sure_share']:.1f}% sure, {x['sure_wrong']} wrong" for x in sweep
            )
            lines.append(f"unsure_below sweep, {label}: {cells}")
    for label, s in columns:
        for group, b in (s.get("breakdown") or {}).items():
            lines.append(f"{label}, {group}: {b['dice']} dice, recall {_pct(b['recall'])}, "
                         f"read right {_pct(b['read_right'])}")
    lines.append(f"backend: {report.get('backend')}")
    for ex in (report.get("synthetic") or {}).get("confident_wrong_examples", [])[:10]:
        lines.append(f"  confident wrong: {ex['image']}: read {ex['read']} truth {ex['truth']}")
    return "\n".join(lines)


def run_from_args(args: argparse.Namespace, factory: Callable, out: TextIO, err: TextIO) -> int:
    from vision.__main__ import CliError

    count = DEFAULT_COUNT if args.synthetic_count is None else args.synthetic_count
    if count < 0:
        raise CliError("error: --synthetic-count must be >= 0")
    seed = HELD_OUT_SEED if args.seed is None else args.seed
    runs = DEFAULT_SPEED_RUNS if args.speed_runs is None else args.speed_runs
    sizes = getattr(args, "sizes", None) or DEFAULT_SIZES
    reader = factory(args, None)  # no calibration: the benchmark measures the model
    cfg = getattr(reader, "config", None)
    pip_on = cfg is not None and cfg.pip_confirm_from is not None
    report: dict[str, Any] = {"backend": args.backend, "pip_check": pip_on, "unsure_below": reader_threshold(reader)}
    if count:
        err.write(f"rendering and reading {count} held-out synthetic scenes (seed {seed}, sizes {sizes})...\n")
        report["synthetic"] = bench_synthetic(reader, count, seed, sizes, progress=err)
    if not args.no_real:
        root = args.real or DEFAULT_REAL
        if real_splits(root):
            err.write(f"reading the real photos in {root}...\n")
            report["real"] = bench_real(reader, root)
        else:
            report["real_skipped"] = f"no dataset at {root}"
    if runs:
        report["speed"] = bench_speed(reader, runs)
    if getattr(args, "awkward", False):
        import tempfile

        with tempfile.TemporaryDirectory(prefix="vision-awkward-") as tmp:
            report["awkward"] = bench_awkward(reader, Path(tmp))
    domains = run_domains(args, reader, report, count, seed, sizes, err)
    report["model_size"] = model_size(args.model_dir)
    if args.json:
        out.write(json.dumps(report) + "\n")
    else:
        text = format_table(report)
        if domains:
            text = format_domains(domains) + "\n\n" + text
        out.write(text + "\n")
    return 0


def run_domains(args: argparse.Namespace, reader: Any, report: dict[str, Any], count: int, seed: int,
                sizes: str, err: TextIO) -> dict[str, Any]:
    """Every domain's figures in ``report["domains"]``, each marked ``trained_on`` from
    ``models/training.json`` (or ``--trained-on``)."""
    from vision.__main__ import CliError

    domains: dict[str, Any] = {}
    if getattr(args, "no_domains", False):
        return domains
    if count:
        err.write(f"rendering and reading {count} randomised synthetic scenes (seed {seed})...\n")
        domains[SYNTH_RANDOM] = bench_synth_random(reader, count, seed, sizes, progress=err)
    folders = dict(domain_dirs(getattr(args, "domain_root", None) or DOMAIN_ROOT))
    for extra in getattr(args, "domain_dir", None) or []:
        if not (Path(extra) / "domain.json").is_file():
            raise CliError(f"error: {extra} is not a domain directory (no domain.json)")
        folders[Path(extra).name] = Path(extra)
    for name, folder in folders.items():
        err.write(f"reading domain {name} ({folder})...\n")
        try:
            domains[name] = bench_domain_dir(reader, folder, progress=err, limit=getattr(args, "domain_limit", None))
        except ValueError as exc:
            raise CliError(f"error: {exc}") from None
    for split, s in (report.get("real") or {}).items():
        domains[f"real {split}"] = s
    if report.get("synthetic"):
        domains["synth-classic"] = report["synthetic"]
    trained = getattr(args, "trained_on", None)
    trained = trained.split(",") if trained else trained_domains()
    for name, s in domains.items():
        s["trained_on"] = was_trained_on(name, trained)
    report["domains"] = domains
    report["trained_on"] = trained
    return domains
