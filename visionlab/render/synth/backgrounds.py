"""Procedural table backgrounds: wood, cloth, colourful board art, plain, desk clutter.

Everything is drawn at a working resolution of at most ~640 px on the long side and resized,
so a 4032x3024 phone frame costs about as much as a webcam frame.
"""
from __future__ import annotations

import cv2
import numpy as np

KINDS = ("wood", "cloth", "board", "plain")


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Low-frequency noise in [-1, 1], size h x w, about ``cells`` blobs across."""
    gh, gw = max(2, cells * h // max(h, w) + 2), max(2, cells * w // max(h, w) + 2)
    g = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def wood(rng, h, w):
    light = np.array([rng.uniform(150, 225), rng.uniform(175, 225), rng.uniform(195, 240)], np.float32)
    if rng.random() < 0.35:  # darker woods
        light *= rng.uniform(0.45, 0.8)
    dark = light * rng.uniform(0.7, 0.9)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    s = max(h, w)
    warp = _smooth_noise(rng, h, w, 3) * rng.uniform(3, 25) + _smooth_noise(rng, h, w, 12) * rng.uniform(0, 4)
    freq = rng.uniform(0.06, 0.3) * 640 / s
    bands = np.sin((yy + warp + 0.1 * xx * rng.uniform(-1, 1)) * freq * 2 * np.pi / 4)
    bands = (bands + 1) / 2
    bands = bands ** rng.uniform(1, 4)
    fine = _smooth_noise(rng, h, w, 80) * 0.08
    t = np.clip(bands + fine, 0, 1)[..., None]
    img = light * (1 - t) + dark * t
    # planks
    if rng.random() < 0.3:
        step = int(s * rng.uniform(0.15, 0.4))
        for y in range(int(rng.integers(0, step)), h, step):
            cv2.line(img, (0, y), (w, y), tuple(float(c) for c in dark * 0.6), max(1, s // 400))
    img = img.astype(np.float32)
    if rng.random() < 0.5:
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        img = cv2.resize(img, (w, h))
    return img


def cloth(rng, h, w):
    base = rng.uniform(20, 220, 3).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = rng.uniform(2, 6)
    weave = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period))[..., None]
    img += weave * rng.uniform(0, 12)
    img += (_smooth_noise(rng, h, w, 6) * rng.uniform(0, 25))[..., None]
    img += rng.normal(0, rng.uniform(2, 10), (h, w, 1)).astype(np.float32)
    return img


def _rand_colour(rng):
    return tuple(float(c) for c in rng.uniform(0, 255, 3))


def board(rng, h, w):
    """Colourful printed board art: panels, discs, rings, lines, text, small dots."""
    img = np.empty((h, w, 3), np.uint8)
    img[:] = rng.uniform(40, 240, 3).astype(np.uint8)
    s = max(h, w)
    for _ in range(int(rng.integers(3, 12))):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        x1, y1 = x0 + rng.integers(s // 20, s // 2), y0 + rng.integers(s // 20, s // 2)
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), _rand_colour(rng), -1)
        if rng.random() < 0.5:
            cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), _rand_colour(rng),
                          int(rng.integers(1, max(2, s // 100))))
    for _ in range(int(rng.integers(2, 15))):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        r = int(rng.integers(s // 80, s // 8))
        thick = -1 if rng.random() < 0.6 else int(rng.integers(1, max(2, r // 3)))
        cv2.circle(img, c, r, _rand_colour(rng), thick, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 10))):
        p = rng.integers(0, [w, h], (int(rng.integers(3, 7)), 2)).astype(np.int32)
        cv2.fillPoly(img, [p], _rand_colour(rng), cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 8))):
        cv2.line(img, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                 (int(rng.integers(0, w)), int(rng.integers(0, h))), _rand_colour(rng),
                 int(rng.integers(1, max(2, s // 120))), cv2.LINE_AA)
    # pip-like dots: rows of small discs (icons, tracks), the hard negatives for a dice reader
    for _ in range(int(rng.integers(0, 6))):
        r = max(1, int(s * rng.uniform(0.004, 0.012)))
        col = (240.0, 240.0, 240.0) if rng.random() < 0.5 else (20.0, 20.0, 20.0)
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        dx, dy = int(rng.integers(-4, 5) * r), int(rng.integers(-4, 5) * r)
        for k in range(int(rng.integers(1, 7))):
            cv2.circle(img, (x + k * dx, y + k * dy), r, col, -1, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 5))):
        cv2.putText(img, "".join(chr(int(c)) for c in rng.integers(65, 91, int(rng.integers(3, 10)))),
                    (int(rng.integers(0, w)), int(rng.integers(0, h))), cv2.FONT_HERSHEY_SIMPLEX,
                    float(rng.uniform(0.3, 1.5)) * s / 640, _rand_colour(rng),
                    int(rng.integers(1, 3)), cv2.LINE_AA)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.5, 2.0)))
    return img.astype(np.float32)


def plain(rng, h, w):
    a, b = rng.uniform(20, 240, 3), rng.uniform(20, 240, 3)
    if rng.random() < 0.5:
        b = a * rng.uniform(0.7, 1.1)
    t = np.linspace(0, 1, w if rng.random() < 0.5 else h, dtype=np.float32)
    if len(t) == w:
        t = np.broadcast_to(t[None, :], (h, w))
    else:
        t = np.broadcast_to(t[:, None], (h, w))
    img = a * (1 - t[..., None]) + b * t[..., None]
    img += rng.normal(0, rng.uniform(1, 6), (h, w, 1))
    return img.astype(np.float32)


def clutter(rng, img):
    """Desk clutter on top of a background: cables, laptop corners, cards, wooden cubes."""
    h, w = img.shape[:2]
    s = max(h, w)
    if rng.random() < 0.3:  # cable
        pts = np.cumsum(rng.normal(0, s / 12, (6, 2)), axis=0) + rng.uniform(0, [w, h])
        cv2.polylines(img, [pts.astype(np.int32)], False, (float(rng.uniform(10, 60)),) * 3,
                      int(s * rng.uniform(0.005, 0.015)), cv2.LINE_AA)
    if rng.random() < 0.2:  # laptop / tablet corner
        grey = float(rng.uniform(90, 200))
        x0, y0 = int(rng.choice([-s // 3, w - s // 6])), int(rng.integers(-h // 2, h // 2))
        cv2.rectangle(img, (x0, y0), (x0 + s // 2, y0 + s // 2), (grey, grey, grey * 1.02), -1)
    if rng.random() < 0.25:  # cards
        for _ in range(int(rng.integers(1, 4))):
            c = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
            size = (float(s * rng.uniform(0.08, 0.2)), float(s * rng.uniform(0.12, 0.28)))
            box = cv2.boxPoints((c, size, float(rng.uniform(0, 180)))).astype(np.int32)
            cv2.fillPoly(img, [box], _rand_colour(rng), cv2.LINE_AA)
            cv2.polylines(img, [box], True, (245.0, 245.0, 245.0), max(1, s // 300), cv2.LINE_AA)
    return img.astype(np.float32)


def background(rng: np.random.Generator, height: int, width: int, kind: str | None = None) -> np.ndarray:
    """A float32 BGR background (0..255), ``height`` x ``width``."""
    if kind is None:
        kind = str(rng.choice(KINDS, p=[0.35, 0.2, 0.3, 0.15]))
    if kind not in KINDS:
        raise ValueError(f"unknown background kind {kind!r}; use one of {KINDS}")
    scale = min(1.0, 640 / max(height, width))
    h, w = max(8, round(height * scale)), max(8, round(width * scale))
    img = {"wood": wood, "cloth": cloth, "board": board, "plain": plain}[kind](rng, h, w)
    img = clutter(rng, np.ascontiguousarray(img, np.float32))
    if (h, w) != (height, width):
        img = cv2.resize(img, (width, height), interpolation=cv2.INTER_LINEAR)
    return np.clip(img, 0, 255).astype(np.float32)
