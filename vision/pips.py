"""A pip-level second opinion on a die's value: plain OpenCV, no learning (issue 16, item 3).

``count_pips(image_bgr, box) -> PipCount`` looks at one die box, finds small round blobs that
stand out from the die's body (white pips on a coloured die, dark pips on a white one), and
looks for a set of them laid out as one face of a die: 1..6 pips of about one size, in the
face pattern (one centre; a diagonal pair; a diagonal of three; four corners; four corners and
the centre; two rows of three), allowing for the perspective of a die seen at a slant (an
affine fit). It answers a value only when exactly one pattern explains the blobs it kept, and
``None`` otherwise (no opinion): it is meant to *confirm* a model read, never to overrule one.

Why (docs/vision.md, "pip check"): the classifier learned pips from renderers; on dice it has
never seen its value probabilities fall between "sure" and "guess" (the unsure share is what
holds hands-free back on the Blender set). A pip count is another kind of evidence, made by
geometry rather than learned from the same images, so when the two agree on a read that the
model alone held just below sure, the read is very likely right. The rule that uses it
(``vision.reader.decide``, ``ReaderConfig.pip_confirm_from``) was chosen on the Blender tuning
set with the Blender-free model v10 (docs/vision-history.md). The shipped reader did not use it from
model v16 to stop 68 (on LuxCore scenes it confirmed the 3 on the side face of steeply seen dice, which a
count of blobs cannot tell from the top face); it is on again since stop 69 (rule Q: on real photos it
made more reads sure and none wrong).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

__all__ = ["DEFAULT_PIPS", "FACE_LAYOUTS", "PipConfig", "PipCount", "count_crop", "count_pips", "face_fit"]

SIZE = 96  # the die crop is resized to SIZE x SIZE before looking for pips

# pip centres of each face in face coordinates (-1..1); the affine fit allows any parallelogram
FACE_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
_PERMS = {n: np.array(list(itertools.permutations(range(n)))) for n in FACE_LAYOUTS}
_LAYOUT_PERMS = {n: np.asarray(FACE_LAYOUTS[n], np.float64)[_PERMS[n]] - np.mean(FACE_LAYOUTS[n], axis=0)
                 for n in FACE_LAYOUTS}
_PINV = {n: np.linalg.pinv(_LAYOUT_PERMS[n]) for n in FACE_LAYOUTS}

_yy, _xx = np.mgrid[0:SIZE, 0:SIZE]
_RR = np.hypot(_xx - SIZE / 2 + 0.5, _yy - SIZE / 2 + 0.5) / SIZE
_CORE = _RR < 0.30
_DIE = _RR < 0.50


@dataclass(frozen=True)
class PipConfig:
    min_contrast: float = 25.0   # top-hat contrast (8-bit Lab distance units) a pip must reach
    kernel: int = 15             # top-hat element (crop pixels): blobs narrower than this are pip-sized
    same_size: float = 0.65      # a blob at least this share of the largest blobs' area is a pip of the face
    max_fit: float = 0.12        # face_fit at most this: the blobs form the face
    max_extent: float = 0.8      # the face's pips span at most this share of the crop


DEFAULT_PIPS = PipConfig()


@dataclass(frozen=True)
class PipCount:
    value: int | None                 # the face the kept pips form, or None (no opinion)
    pips: tuple[tuple[float, float], ...] = ()  # kept pip centres, in crop pixels (SIZE x SIZE)
    blobs: int = 0                    # round blobs found before choosing a face


def face_fit(points: Sequence[Sequence[float]]) -> float | None:
    """How far ``points`` (n x 2) are from the n-pip face under the best affine map and pip
    order: RMS residual / RMS spread (0 = exact). None when n is not 1..6. One or two points
    always fit (an affine map has six degrees of freedom)."""
    n = len(points)
    if n not in FACE_LAYOUTS:
        return None
    if n <= 2:
        return 0.0
    p = np.asarray(points, np.float64)
    p = p - p.mean(axis=0)
    spread = float(np.sqrt((p ** 2).sum(axis=1).mean()))
    if spread <= 1e-9:
        return None
    a = _PINV[n] @ p                       # (perms, 2, 2): best affine map per pip order
    r = _LAYOUT_PERMS[n] @ a - p
    return float(np.sqrt((r ** 2).sum(axis=2).mean(axis=1)).min() / spread)


def _blobs(crop: np.ndarray, cfg: PipConfig = DEFAULT_PIPS) -> list[tuple[float, float, float]]:
    """Round blobs that stand out from the die body: [(x, y, area)] in crop pixels."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    body = np.median(lab[_CORE], axis=0)
    lightness = lab[..., 0] - body[0]
    chroma = np.sqrt(((lab[..., 1:] - body[1:]) ** 2).sum(axis=2))
    # pips lighter than the body (white on colour) or darker (black on white): the side with
    # the larger small-scale contrast is the pip side
    out: list[tuple[float, float, float]] = []
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cfg.kernel, cfg.kernel))
    for sign in (1.0, -1.0):
        diff = np.clip(sign * lightness * 0.8 + chroma * 0.6, 0, 255).astype(np.uint8)
        tophat = cv2.morphologyEx(diff, cv2.MORPH_TOPHAT, kernel)
        mask = ((tophat > cfg.min_contrast) & _DIE).astype(np.uint8)
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        found = []
        for i in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[i])
            if area < 5 or area > 0.03 * SIZE * SIZE or x == 0 or y == 0 or x + w >= SIZE or y + h >= SIZE:
                continue
            if area < 0.45 * w * h or max(w, h) > 2.8 * min(w, h):
                continue
            found.append((float(cents[i][0]), float(cents[i][1]), float(area)))
        if len(found) > len(out):
            out = found
    return out


def _face(blobs: list[tuple[float, float, float]], cfg: PipConfig = DEFAULT_PIPS) -> list[tuple[float, float, float]] | None:
    """The blobs of about the largest size, when they form one face; else None."""
    if not blobs:
        return None
    areas = np.array([b[2] for b in blobs])
    top = float(np.median(np.sort(areas)[-min(len(areas), 3):]))
    kept = [b for b in blobs if b[2] >= cfg.same_size * top]
    if len(kept) > 6:
        return None
    fit = face_fit([(b[0], b[1]) for b in kept])
    if fit is None or fit > cfg.max_fit:
        return None
    if len(kept) >= 2:  # pips of one face lie within a face: not spread over the whole die
        pts = np.array([(b[0], b[1]) for b in kept])
        if float(np.max(np.ptp(pts, axis=0))) > cfg.max_extent * SIZE:
            return None
    return kept


def count_pips(image_bgr: np.ndarray, box: Sequence[float], cfg: PipConfig = DEFAULT_PIPS) -> PipCount:
    """The pip opinion on the die in ``box`` (x, y, w, h, image pixels); see the module doc.
    Never raises on a box partly or wholly outside the image (no opinion)."""
    x, y, w, h = (float(v) for v in box)
    if not (np.isfinite([x, y, w, h]).all() and w >= 4 and h >= 4):
        return PipCount(None)
    side = max(w, h)
    cx, cy = x + w / 2, y + h / 2
    H, W = image_bgr.shape[:2]
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    s = int(round(side))
    if x0 < 0 or y0 < 0 or x0 + s > W or y0 + s > H:
        return PipCount(None)
    region = image_bgr[y0:y0 + s, x0:x0 + s]
    step = s // (4 * SIZE)
    if step > 1:  # a die filling a big photo: thin it out first (a view, no copy), then average
        region = region[::step, ::step]
    crop = cv2.resize(region, (SIZE, SIZE),
                      interpolation=cv2.INTER_AREA if region.shape[0] > SIZE else cv2.INTER_LINEAR)
    return count_crop(crop, cfg)


def count_crop(crop: np.ndarray, cfg: PipConfig = DEFAULT_PIPS) -> PipCount:
    """The pip opinion on a SIZE x SIZE BGR crop centred on one die (side = the box's longer side)."""
    blobs = _blobs(crop, cfg)
    face = _face(blobs, cfg)
    if face is None:
        return PipCount(None, blobs=len(blobs))
    return PipCount(len(face), tuple((b[0], b[1]) for b in face), len(blobs))
