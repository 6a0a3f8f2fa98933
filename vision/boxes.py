"""Box geometry of the reader's post-processing (split from ``vision.model`` in stop 68, where the
names stay importable): overlaps, greedy NMS, the union of a table heatmap's candidates, a die read
twice, a box cut by the border. Plain Python and numpy; no model."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .model import RawDie


def _iou(a, b) -> float:
    ax1, ay1, bx1, by1 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw = max(0.0, min(ax1, bx1) - max(a[0], b[0]))
    ih = max(0.0, min(ay1, by1) - max(a[1], b[1]))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def _inside(a, b) -> float:
    """Share of box a's area that lies inside box b (1 for a box of no area)."""
    iw = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    area = a[2] * a[3]
    return iw * ih / area if area > 0 else 1.0


def suppressed_by(a: Sequence[float], b: Sequence[float], iou: float, contained: float) -> bool:
    """NMS's pair rule, box by box: box ``a`` loses to a better box ``b`` when their IoU passes
    ``iou`` or ``a`` lies inside ``b`` by ``contained`` (``nms`` applies it to every pair at once)."""
    return _iou(a, b) > iou or _inside(a, b) >= contained


def nms(boxes: Sequence[Sequence[float]], scores: Sequence[float], iou: float,
        contained: float = 1.01) -> list[int]:
    """Indices kept by greedy non-maximum suppression, best score first. A box whose share
    inside an already kept box reaches ``contained`` is dropped too (pips of a side face).
    The IoU of every pair (``_iou``'s float64 steps) and the share of each box inside each other,
    computed at once (stop 68: a patterned table top gives a few hundred boxes, 210 ms as a Python
    loop over pairs)."""
    order = sorted(range(len(boxes)), key=lambda i: -scores[i])
    if len(order) < 2:
        return order
    b = np.asarray(boxes, np.float64).reshape(len(order), 4)
    x0, y0, w, h = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    iw = np.maximum(0.0, np.minimum((x0 + w)[:, None], (x0 + w)[None, :]) - np.maximum(x0[:, None], x0[None, :]))
    ih = np.maximum(0.0, np.minimum((y0 + h)[:, None], (y0 + h)[None, :]) - np.maximum(y0[:, None], y0[None, :]))
    inter = iw * ih
    area = w * h
    union = area[:, None] + area[None, :] - inter
    pair_iou = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    inside = np.divide(inter, area[:, None], out=np.ones_like(inter), where=area[:, None] > 0)
    # row i, column j: box i loses to a kept box j
    beaten = (pair_iou > iou) | (inside >= contained)
    keep: list[int] = []
    for i in order:
        if not beaten[i, keep].any():
            keep.append(i)
    return keep


def _centre_in(a: Sequence[float], b: Sequence[float]) -> bool:
    cx, cy = a[0] + a[2] / 2, a[1] + a[3] / 2
    return b[0] <= cx <= b[0] + b[2] and b[1] <= cy <= b[1] + b[3]


def centres_in(boxes: Sequence[Sequence[float]], others: Sequence[Sequence[float]] | None = None) -> np.ndarray:
    """[i, j]: whether box i's centre lies in box j of ``others`` (default ``boxes``): ``_centre_in``
    for every pair at once, the same float64 steps (stop 69: the cross-pass merge of a patterned
    table top's few hundred boxes)."""
    a = np.asarray(boxes, np.float64).reshape(-1, 4)
    b = a if others is None else np.asarray(others, np.float64).reshape(-1, 4)
    cx, cy = (a[:, 0] + a[:, 2] / 2)[:, None], (a[:, 1] + a[:, 3] / 2)[:, None]
    return ((b[None, :, 0] <= cx) & (cx <= (b[:, 0] + b[:, 2])[None, :])
            & (b[None, :, 1] <= cy) & (cy <= (b[:, 1] + b[:, 3])[None, :]))


def union_candidates(shipped: list[tuple[tuple[float, float, float, float], float]],
                     table: list[tuple[tuple[float, float, float, float], float]], floor: float,
                     iou: float = 0.3) -> list[tuple[tuple[float, float, float, float], float, bool]]:
    """(box, peak, from the table heatmap) of the shipped heatmap's candidates and of the table
    heatmap's candidates that reach ``floor`` (a candidate under it could only be a faint die, and
    faint dice stay the shipped detector's) and lie on none of the shipped candidates that can be
    kept (peak >= ``floor``: neither box's centre in the other, IoU under ``iou``), best first. A
    die the shipped detector finds keeps its box and peak."""
    strong = [b for b, s in shipped if s >= floor]
    extra = [(b, s, True) for b, s in table
             if s >= floor and not any(_centre_in(b, k) or _centre_in(k, b) or _iou(b, k) >= iou for k in strong)]
    return sorted([(b, s, False) for b, s in shipped] + extra, key=lambda c: -c[1])


def drop_same_read(dice: Sequence["RawDie"], iou: float | None) -> list["RawDie"]:
    """``dice`` sorted best first, without those that overlap a better kept die by ``iou`` or
    more AND read the same value and colour: one die boxed twice (e.g. the whole die and its top
    face), which NMS keeps when the two boxes overlap less than its own threshold. ``None``: all
    kept (still sorted)."""
    ranked = sorted(dice, key=lambda r: -r.det_score)
    if iou is None:
        return ranked
    keep: list[RawDie] = []
    for d in ranked:
        if not any(_iou(d.box, k.box) >= iou and d.value == k.value and d.colour == k.colour for k in keep):
            keep.append(d)
    return keep


def cut_by_border(box: Sequence[float], width: int, height: int, min_aspect: float) -> bool:
    """True when ``box`` touches the image border and is so thin that less than half a die shows."""
    x, y, w, h = box
    touches = x <= 1 or y <= 1 or x + w >= width - 1 or y + h >= height - 1
    return touches and min(w, h) < min_aspect * max(w, h)
