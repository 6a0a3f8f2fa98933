"""The table's own dice with other pips: counter-examples made from a confirmed die (build P,
docs/vision-history.md, stop 58).

A table's box has one pip paint per colour. Another game's die of the same body colour differs
from the table's by its pips (black or gold where the table's are white, white where they are
black, unpainted holes): the shipped training says such a die is a game die of that colour or
"other" depending on the renderer's habits, and only the table can say which pips are its own.
``repaint(image, box, value, rng)`` finds the pips of a confirmed die (the pip counter's blobs,
``vision.pips``; only when they form the confirmed value, so the mask is the pips) and paints
them another way, keeping their shading; the learner adds such copies as dice of colour "other"
with the same value. Pure numpy + OpenCV; no torch.
"""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from vision.pips import _CORE, _DIE, DEFAULT_PIPS, SIZE, PipConfig, count_crop

#: BGR paints a table's pips are repainted with; "unpainted" is the die's own body, darkened (a hole)
PAINTS = {"black": (22.0, 22.0, 25.0), "gold": (50.0, 165.0, 215.0), "white": (236.0, 238.0, 240.0)}
#: the paints tried for light pips (white, cream) and for dark ones (black)
FOR_LIGHT = ("black", "gold", "unpainted")
FOR_DARK = ("white", "gold", "unpainted")
UNPAINTED_SHADE = 0.7


def pip_mask(crop: np.ndarray, cfg: PipConfig = DEFAULT_PIPS) -> tuple[np.ndarray | None, float]:
    """(mask of the pip blobs, SIZE x SIZE uint8 0/1, or None; +1 for pips lighter than the body,
    -1 for darker) of a SIZE x SIZE crop centred on a die; the blobs ``vision.pips`` counts."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    body = np.median(lab[_CORE], axis=0)
    lightness = lab[..., 0] - body[0]
    chroma = np.sqrt(((lab[..., 1:] - body[1:]) ** 2).sum(axis=2))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cfg.kernel, cfg.kernel))
    best: tuple[int, np.ndarray | None, float] = (0, None, 0.0)
    for sign in (1.0, -1.0):
        diff = np.clip(sign * lightness * 0.8 + chroma * 0.6, 0, 255).astype(np.uint8)
        tophat = cv2.morphologyEx(diff, cv2.MORPH_TOPHAT, kernel)
        mask = ((tophat > cfg.min_contrast) & _DIE).astype(np.uint8)
        n, lbl, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        keep = np.zeros_like(mask)
        kept = 0
        for i in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[i])
            if area < 5 or area > 0.03 * SIZE * SIZE or x == 0 or y == 0 or x + w >= SIZE or y + h >= SIZE:
                continue
            if area < 0.45 * w * h or max(w, h) > 2.8 * min(w, h):
                continue
            keep[lbl == i] = 1
            kept += 1
        if kept > best[0]:
            best = (kept, keep, sign)
    return best[1], best[2]


def repaint(image: np.ndarray, box: Sequence[float], value: int, rng: np.random.Generator
            ) -> tuple[np.ndarray, str] | None:
    """A copy of ``image`` (BGR uint8) with the pips of the die in ``box`` (x, y, w, h) painted
    another way, and the paint's name; None when the die's pips cannot be found as the face
    ``value`` (no pips counted, another count, the die's square not wholly in the image)."""
    x, y, w, h = (float(v) for v in box)
    if not (np.isfinite([x, y, w, h]).all() and w >= 8 and h >= 8):
        return None
    side = max(w, h)
    s = int(round(side))
    x0, y0 = int(round(x + w / 2 - side / 2)), int(round(y + h / 2 - side / 2))
    H, W = image.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + s > W or y0 + s > H:
        return None
    region = image[y0:y0 + s, x0:x0 + s]
    small = cv2.resize(region, (SIZE, SIZE), interpolation=cv2.INTER_AREA if s > SIZE else cv2.INTER_LINEAR)
    if count_crop(small).value != value:
        return None
    mask, sign = pip_mask(small)
    if mask is None:
        return None
    mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    m = cv2.resize(mask.astype(np.float32), (s, s), interpolation=cv2.INTER_LINEAR)
    m = cv2.GaussianBlur(m, (0, 0), max(0.5, 0.7 * s / SIZE))[..., None]
    reg = region.astype(np.float32)
    lum = reg.mean(axis=2, keepdims=True)
    inside = m[..., 0] > 0.5
    die = cv2.resize(_DIE.astype(np.uint8), (s, s), interpolation=cv2.INTER_NEAREST) > 0
    body_px = region[die & (m[..., 0] < 0.1)]
    if not inside.any() or len(body_px) == 0:
        return None
    pip_lum = max(1.0, float(lum[..., 0][inside].mean()))
    shade = np.clip(lum / pip_lum, 0.5, 1.4)
    name = str(rng.choice(FOR_LIGHT if sign > 0 else FOR_DARK))
    if name == "unpainted":
        paint = np.median(body_px, axis=0).astype(np.float32) * UNPAINTED_SHADE
        shade = shade ** 0.3
    else:
        paint = np.asarray(PAINTS[name], np.float32)
    out = image.copy()
    out[y0:y0 + s, x0:x0 + s] = np.clip(reg * (1 - m) + paint[None, None, :] * shade * m, 0, 255).astype(np.uint8)
    return out, name
