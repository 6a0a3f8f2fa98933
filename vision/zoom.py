"""Second looks at the finer pass's doubtful peaks (stop 72, rule Z; docs/vision.md, "Small dice in
a large photo").

On a busy table top (bricks, stripes, checks) the finer pass sees a far die at about 20 px, where
the detector's heatmap over it may stay under the gate (0.01-0.4) while the same die seen at twice
that size peaks at 0.6-0.8 (stop 72's diagnostic). ``seeds`` takes the finer input's heatmap peaks
from ``ModelConfig.zoom_from`` up to the gate that lie in no candidate over the gate, best first,
at most ``zoom_max`` of them and one a window; ``windows`` cuts a square of ``zoom_window_px``
finer-input pixels around each from the photo, at ``zoom_factor`` times the finer pass's scale
(never finer than the photo's own pixels). Their candidates join the others before NMS, so the
classifier and the gate decide as for any candidate. Plain numpy and OpenCV; no model."""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from .boxes import centres_in


def seeds(heatmap: np.ndarray, input_size: tuple[int, int], sx: float, sy: float, low: float, gate: float,
          window: int, most: int, strong: Sequence[Sequence[float]], peak_window: int = 3) -> list[tuple[float, float]]:
    """Centres (original pixels) of the heatmap's local maxima (``peak_window`` cells square, as
    ``vision.model.decode_detections`` finds peaks) from ``low`` to under ``gate``, best first,
    outside every ``strong`` box (original x, y, w, h) and a quarter ``window`` (finer-input px)
    from each other, at most ``most``. ``input_size``: the finer input's (width, height), whose
    cells the heatmap's are; ``sx``, ``sy``: its scale of the photo."""
    hm = np.asarray(heatmap, np.float32).reshape(heatmap.shape[-2:])
    stride_x, stride_y = input_size[0] / hm.shape[1], input_size[1] / hm.shape[0]
    peak = (hm >= cv2.dilate(hm, np.ones((peak_window, peak_window), np.uint8))) & (hm >= low) & (hm < gate)
    ys, xs = np.nonzero(peak)
    pxs, pys = (xs + 0.5) * stride_x / sx, (ys + 0.5) * stride_y / sy
    # a peak in a strong box: ``vision.boxes.centres_in`` with each peak as a point (a box of no size)
    held = centres_in(np.stack([pxs, pys, np.zeros_like(pxs), np.zeros_like(pys)], axis=1), strong).any(axis=1)
    out: list[tuple[float, float]] = []
    for i in np.argsort(-hm[ys, xs], kind="stable"):
        if len(out) == most:
            break
        cx, cy = pxs[i], pys[i]
        if held[i]:
            continue
        if any(abs(cx - ox) < window / sx / 4 and abs(cy - oy) < window / sy / 4 for ox, oy in out):
            continue
        out.append((cx, cy))
    return out


def windows(image: np.ndarray, centres: Sequence[tuple[float, float]], scale: float, window: int, factor: float,
            pad_value: int, multiple: int) -> list[tuple[np.ndarray, tuple[int, int, float, int, int]]]:
    """For each centre, (detector input, (x0, y0, f, w, h)): the photo's square of ``window`` /
    ``scale`` pixels about it (moved inside the photo), resized by f (``factor`` x ``scale``, at
    most 1) into the top left of a square canvas whose side is a ``multiple`` of pixels (the
    detector's, ``vision.model.DETECTOR_STRIDE``); (w, h) is the part of the canvas that holds the photo."""
    H, W = image.shape[:2]
    f = min(1.0, factor * scale)
    side = max(1, int(round(window / scale)))
    size = max(multiple, -(-int(np.ceil(side * f)) // multiple) * multiple)
    out = []
    for cx, cy in centres:
        x0 = int(round(min(max(0.0, cx - side / 2), max(0, W - side))))
        y0 = int(round(min(max(0.0, cy - side / 2), max(0, H - side))))
        part = image[y0:y0 + side, x0:x0 + side]
        w, h = min(size, max(1, int(round(part.shape[1] * f)))), min(size, max(1, int(round(part.shape[0] * f))))
        canvas = np.full((size, size, 3), pad_value, np.uint8)
        canvas[:h, :w] = cv2.resize(part, (w, h), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
        out.append((canvas, (x0, y0, f, w, h)))
    return out


def cut_by_window(box: Sequence[float], x0: int, y0: int, f: float, w: int, h: int, width: int, height: int) -> bool:
    """Whether a window's box (canvas px) touches a window edge that lies inside the photo (the die
    may go on beyond it: another window or pass sees it whole)."""
    bx, by, bw, bh = box
    right_inside = x0 + w / f < width - 1
    bottom_inside = y0 + h / f < height - 1
    return ((bx <= 1 and x0 > 0) or (by <= 1 and y0 > 0) or (bx + bw >= w - 1 and right_inside)
            or (by + bh >= h - 1 and bottom_inside))
