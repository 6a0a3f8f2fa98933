"""Pre-processing of the dice reader: the letterbox transform (kept so boxes map back to
original-image pixels exactly), resizing, the tensor layout, the classifier's crops and the die
body's colour. Pure functions of images; no model (moved out of ``vision.model``, which re-exports
every name, stop 73)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

LETTERBOX_AREA_BELOW = 0.5  # letterbox scale below which the resize averages areas (else bilinear)
PYRAMID_FROM_PIXELS = 1920 * 1080  # above this many pixels an area resize starts with exact halvings
                                   # (``shrink``): a 12 MP photo's 2048 px working copy; a webcam
                                   # frame up to full HD keeps the direct resize


@dataclass(frozen=True)
class Letterbox:
    """Original image -> model input: x_in = x * sx + pad_x, y_in = y * sy + pad_y."""

    sx: float
    sy: float
    pad_x: float
    pad_y: float
    src_w: int
    src_h: int

    def to_original(self, box: Sequence[float], clip: bool = True) -> tuple[float, float, float, float]:
        x, y, w, h = box
        x0, y0 = (x - self.pad_x) / self.sx, (y - self.pad_y) / self.sy
        x1, y1 = (x + w - self.pad_x) / self.sx, (y + h - self.pad_y) / self.sy
        if clip:
            x0, x1 = min(max(x0, 0.0), self.src_w), min(max(x1, 0.0), self.src_w)
            y0, y1 = min(max(y0, 0.0), self.src_h), min(max(y1, 0.0), self.src_h)
        return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))

    def to_input(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        x, y, w, h = box
        return (x * self.sx + self.pad_x, y * self.sy + self.pad_y, w * self.sx, h * self.sy)


def _check_image(image: np.ndarray) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        desc = f"{image.dtype} array of shape {image.shape}" if isinstance(image, np.ndarray) else type(image).__name__
        raise ValueError(f"expected a uint8 BGR image of shape HxWx3, got {desc}")
    if image.shape[0] < 1 or image.shape[1] < 1:
        raise ValueError(f"empty image of shape {image.shape}")


def letterbox(image: np.ndarray, size: tuple[int, int], pad_value: int = 114) -> tuple[np.ndarray, Letterbox]:
    """Resize ``image`` into ``size`` = (width, height) keeping its aspect ratio, image at the
    top-left, padding right/bottom. Returns the uint8 canvas and the transform."""
    _check_image(image)
    in_w, in_h = size
    h, w = image.shape[:2]
    scale = min(in_w / w, in_h / h)
    nw, nh = max(1, min(in_w, round(w * scale))), max(1, min(in_h, round(h * scale)))
    # Area averaging only when shrinking below half (aliasing); above that bilinear reads as well
    # and costs 0.3 ms instead of 1.8 ms on a 640x480 frame (v8, docs/vision-history.md).
    resized = shrink(image, (nw, nh))
    canvas = np.full((in_h, in_w, 3), pad_value, np.uint8)
    canvas[:nh, :nw] = resized
    return canvas, Letterbox(sx=nw / w, sy=nh / h, pad_x=0.0, pad_y=0.0, src_w=w, src_h=h)


def shrink(image: np.ndarray, size: tuple[int, int], halve: bool | None = None) -> np.ndarray:
    """``image`` resized to ``size`` = (width, height): bilinear down to half size, area averaging
    below (aliasing). Area averaging of an image of more than ``PYRAMID_FROM_PIXELS`` (or with
    ``halve``) first halves it by exact 2x2 means while it stays at least as large as the target
    and its sides are even, then resizes the rest (under 2x) bilinearly: OpenCV's area resize of
    a 2016x1512 photo to 512x384 costs about as much as decoding the JPEG, halvings a few percent
    of it (issue 38 item 6). Images up to full HD are resized as they always were."""
    nw, nh = size
    h, w = image.shape[:2]
    scale = min(nw / w, nh / h)
    if halve is None:
        halve = w * h > PYRAMID_FROM_PIXELS
    if halve and scale < LETTERBOX_AREA_BELOW:
        while w >= 2 * nw and h >= 2 * nh and w % 2 == 0 and h % 2 == 0:
            w, h = w // 2, h // 2
            image = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        scale = min(nw / w, nh / h)
    interp = cv2.INTER_AREA if scale < LETTERBOX_AREA_BELOW else cv2.INTER_LINEAR
    return cv2.resize(image, (nw, nh), interpolation=interp)


def to_tensor(images: np.ndarray) -> np.ndarray:
    """uint8 HxWx3 or NxHxWx3 BGR -> float32 NCHW in 0..1."""
    a = images[None] if images.ndim == 3 else images
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)


def crop_for_classifier(image: np.ndarray, box: Sequence[float], size: int, context: float = 1.3) -> np.ndarray:
    """A square uint8 crop ``size`` x ``size`` centred on ``box`` (x, y, w, h), side =
    ``context`` x max(w, h), edges replicated where it leaves the image."""
    x, y, w, h = box
    side = max(2.0, context * max(w, h))
    cx, cy = x + w / 2, y + h / 2
    x0, y0 = int(np.floor(cx - side / 2)), int(np.floor(cy - side / 2))
    s = max(2, int(round(side)))
    H, W = image.shape[:2]
    # read the part inside the image, replicate the border for the rest
    ix0, iy0, ix1, iy1 = max(0, x0), max(0, y0), min(W, x0 + s), min(H, y0 + s)
    if ix1 <= ix0 or iy1 <= iy0:
        region = np.full((s, s, 3), 114, np.uint8)
    else:
        region = image[iy0:iy1, ix0:ix1]
        if (ix0, iy0, ix1, iy1) != (x0, y0, x0 + s, y0 + s):
            region = cv2.copyMakeBorder(region, iy0 - y0, y0 + s - iy1, ix0 - x0, x0 + s - ix1,
                                        cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if s > size else cv2.INTER_LINEAR
    return cv2.resize(region, (size, size), interpolation=interp)


def body_colour_lab(crop: np.ndarray, core: float = 0.45) -> tuple[float, float, float]:
    """Robust Lab colour of the die body in a classifier crop: the central ``core`` share of the
    crop, pixels between the 25th and 75th percentile of lightness (drops pips, glints, shade)."""
    s = crop.shape[0]
    m = max(1, int(round(s * core / 2)))
    c = np.ascontiguousarray(crop[s // 2 - m: s // 2 + m, s // 2 - m: s // 2 + m])
    lab = cv2.cvtColor(c, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)  # 8-bit Lab
    light = lab[:, 0]
    n = len(light)
    lo, hi = np.partition(light, (n // 4, (3 * n) // 4))[[n // 4, (3 * n) // 4]]
    sel = lab[(light >= lo) & (light <= hi)]
    if len(sel) == 0:
        sel = lab
    mean = sel.mean(axis=0) - np.array([0.0, 128.0, 128.0], np.float32)
    mean[0] *= 100.0 / 255.0
    return (float(mean[0]), float(mean[1]), float(mean[2]))
