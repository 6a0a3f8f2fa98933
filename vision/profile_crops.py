"""The crops and the "not a die" boxes a table profile keeps from a confirmed photo (moved out of
``vision.profile``, which re-exports every name, stop 73): the stored crop of a box, and which of a
photo's proposed boxes count as negatives."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from vision.imaging import crop_for_classifier
from vision.labels import LabelledPhoto

CROP_CONTEXT = 2.0  # stored crop side = this x the die box's longer side (the classifier cuts 1.3)
CROP_MAX_PX = 160  # stored crops are at most this many pixels on a side
NEGATIVES_PER_PHOTO = 5  # at most this many "not a die" boxes kept per photo
BORDER_SHARE = 0.01  # a derived box this close to the photo's edge (share of its longer side) may be a cut die


def _at_border(box: tuple[float, float, float, float], size: tuple[int, int]) -> bool:
    """Whether ``box`` (original pixels) lies within ``BORDER_SHARE`` of the photo's edge."""
    (x, y, w, h), (ow, oh) = box, size
    m = BORDER_SHARE * max(ow, oh)
    return x <= m or y <= m or x + w >= ow - m or y + h >= oh - m


def may_be_a_left_out_die(box: tuple[float, float, float, float], size: tuple[int, int],
                           dice: Sequence[Any], may_be_cut: bool = True) -> bool:
    """A detector box a labels file may leave out as a die rather than as "not a die": one cut by
    the photo's border (unless ``may_be_cut`` is false: nothing there looks like a die), or one
    overlapping a confirmed die (a die behind another). Labels list the wholly framed dice; such
    boxes are not negatives (docs/vision.md, "Boxes the player removed")."""
    if may_be_cut and _at_border(box, size):
        return True
    x, y, w, h = box
    return any(min(x + w, d.box[0] + d.box[2]) > max(x, d.box[0]) and min(y + h, d.box[1] + d.box[3]) > max(y, d.box[1])
               for d in dice)


def _negatives(loaded: Any, photo: LabelledPhoto,
               proposals: Callable[[np.ndarray], list[tuple[float, float, float, float]]] | None,
               derived: bool = False,
               looks_like_a_die: Callable[[np.ndarray, list[tuple]], list[bool]] | None = None) -> list[tuple]:
    """Proposed boxes (original pixels) whose centre lies outside every confirmed die's box
    grown by half: not a die, by the player's confirmation of the whole photo; ``derived``
    (the detector's boxes, not the player's removals): not those that may be a die the labels
    leave out (``may_be_a_left_out_die``; with ``looks_like_a_die(working image, working boxes)``,
    a box at the border only where that finds it a die)."""
    if proposals is None:
        return []
    ow, oh = loaded.original_size
    sx, sy = loaded.image.shape[1] / ow, loaded.image.shape[0] / oh
    far = []
    for x, y, w, h in proposals(loaded.image):
        box = (x / sx, y / sy, w / sx, h / sy)
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        if all(abs(cx - (d.box[0] + d.box[2] / 2)) > d.box[2] or abs(cy - (d.box[1] + d.box[3] / 2)) > d.box[3]
               for d in photo.dice):
            far.append(((x, y, w, h), box))
    if not derived:
        return [box for _, box in far][:NEGATIVES_PER_PHOTO]
    # only a box at the border needs the classifier's word (whether it may be a die cut by the frame)
    border = [k for k, (_, box) in enumerate(far) if _at_border(box, (ow, oh))] if looks_like_a_die else []
    looks = dict(zip(border, looks_like_a_die(loaded.image, [far[k][0] for k in border]))) if border else {}
    out = [box for k, (_, box) in enumerate(far)
           if not may_be_a_left_out_die(box, (ow, oh), photo.dice, bool(looks.get(k, True)))]
    return out[:NEGATIVES_PER_PHOTO]


def cut_crop(loaded: Any, box: tuple[float, float, float, float]) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The stored crop of a die whose ``box`` is in original pixels: a square of side
    CROP_CONTEXT x the box's longer side, centred on it, cut from the working image (as the
    classifier cuts its 1.3 x crop), at most CROP_MAX_PX wide. Returns (crop, the box in the
    crop's pixels)."""
    img = loaded.image
    ow, oh = loaded.original_size
    sx, sy = img.shape[1] / ow, img.shape[0] / oh
    x, y, w, h = box
    wb = (x * sx, y * sy, w * sx, h * sy)
    side = max(2.0, CROP_CONTEXT * max(wb[2], wb[3]))
    size = int(max(16, min(CROP_MAX_PX, round(side))))
    crop = crop_for_classifier(img, wb, size, CROP_CONTEXT)
    k = size / side
    cw, ch = wb[2] * k, wb[3] * k
    return crop, ((size - cw) / 2, (size - ch) / 2, cw, ch)
