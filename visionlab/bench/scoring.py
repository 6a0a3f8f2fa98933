"""Matching and tallies of the benchmark (pure; tested): reads matched to the ground truth,
counted into a ``Tally`` whose ``summary`` gives the figures (``visionlab.bench`` says which)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .large import size_label

MATCH_IOU = 0.3
PARTIAL_OVERLAP = 0.25  # a prediction this much inside a partly-framed die's box is not scored
# Breakdown of the synthetic figures (the headline figures count every die; the breakdown says
# where the misses are): by how large the die's top face is drawn, the shorter side of its
# bounding box in image pixels (under this, pips are 1-2 px: steep views, small or far dice) ...
SMALL_TOP_PX = 8.0
# ... and by whether another die's box covers at least this share of the die's box.
TOUCH_OVERLAP = 0.02


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
    # die size bin (``large.size_label``: the longer side of the whole-die box) -> the same counts
    by_size: dict[str, list[int]] = field(default_factory=dict)
    # (image name, scored truth index) -> value right, for every scored die found: two readers'
    # value on the dice both find (``bench --adapt``, stop 59; not in ``summary``)
    value_by_truth: dict[tuple[str, int], bool] = field(default_factory=dict)

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
            # the player's taps a photo (stop 55): one for each game die not read sure and right
            # (typed in when missed, confirmed or corrected when unsure, corrected when sure and
            # wrong) and one for each false detection (removed)
            "taps_per_photo": rate(self.game_dice - self.hands_free + self.false_detections, self.images),
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
        if self.by_size:
            out["by_size"] = {k: {"dice": n, "recall": rate(m, n), "read_right": rate(r, n),
                                  "hands_free": rate(f, g)}
                              for k, (n, m, r, g, f) in sorted(self.by_size.items())}
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
    free_ok: set[int] = set()       # matched truth indices read sure and right (hands-free)
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
        tally.value_by_truth[(name, j)] = bool(v_ok)
        all_right &= v_ok and c_ok
        read_ok[j] = v_ok and c_ok
        _count_confidence(tally, d, v_ok and c_ok, name, {"colour": want_colour, "value": t.value}, value_only)
        unsure = _value_unsure(d, tally.unsure_below) if value_only else d.unsure
        free = v_ok and c_ok and t.colour != "other" and not unsure
        tally.hands_free += int(free)
        if free:
            free_ok.add(j)
        no_tap &= free  # a read on another game's die is a chip to remove, right or not
    for j, t in enumerate(scored):
        for group in synthetic_groups(t, [o for o in truths if o is not t]):
            row = tally.by_group.setdefault(group, [0, 0, 0])
            row[0] += 1
            row[1] += j in read_ok
            row[2] += read_ok.get(j, False)
        row = tally.by_size.setdefault(size_label(t.box), [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += j in read_ok
        row[2] += read_ok.get(j, False)
        row[3] += t.colour != "other"   # game dice: hands-free counts these
        row[4] += j in free_ok
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
    read be unsure on its value and detection alone, at the reader's ``unsure_below``? A faint die
    (``Die.faint``) is never sure."""
    return bool(getattr(d, "faint", False)) or _value_confidence(d) < unsure_below


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
        tally.value_by_truth[(name, j)] = bool(v_ok)
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

