"""visionlearn.repaint: a confirmed die's pips painted another way (build P, stop 58)."""
from __future__ import annotations

import cv2
import numpy as np

from visionlearn.repaint import FOR_DARK, FOR_LIGHT, repaint


def _die(pips_light: bool = True, value: int = 5) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A flat top view of one die: a red square with ``value`` round pips, white or black, on grey."""
    img = np.full((200, 240, 3), 120, np.uint8)
    x0, y0, s = 70, 50, 96
    cv2.rectangle(img, (x0, y0), (x0 + s, y0 + s), (40, 40, 200), -1)
    at = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
          5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)]}[value]
    for u, v in at:
        cv2.circle(img, (x0 + s // 2 + u * 26, y0 + s // 2 + v * 24), 5, (240, 240, 240) if pips_light else (20, 20, 20), -1)
    return img, (float(x0), float(y0), float(s), float(s))


def test_light_pips_are_painted_dark_gold_or_body_and_nothing_else_changes():
    img, box = _die()
    seen = set()
    for seed in range(12):
        made = repaint(img, box, 5, np.random.default_rng(seed))
        assert made is not None
        out, name = made
        assert name in FOR_LIGHT
        seen.add(name)
        x, y, w, h = (int(v) for v in box)
        outside = np.ones(img.shape[:2], bool)
        outside[y:y + h, x:x + w] = False
        assert np.array_equal(out[outside], img[outside])  # only the die's square is touched
        centre = out[y + h // 2, x + w // 2].astype(int)   # the middle pip
        assert abs(centre - img[y + h // 2, x + w // 2].astype(int)).max() > 60
        corner = (y + 4, x + 4)                              # the body, away from the pips
        assert np.array_equal(out[corner], img[corner])
    assert seen == set(FOR_LIGHT)


def test_dark_pips_are_painted_light_gold_or_body():
    img, box = _die(pips_light=False, value=3)
    names = {repaint(img, box, 3, np.random.default_rng(s))[1] for s in range(12)}
    assert names == set(FOR_DARK)


def test_no_copy_when_the_pips_are_not_the_confirmed_face_or_the_die_is_cut():
    img, box = _die(value=4)
    assert repaint(img, box, 4, np.random.default_rng(0)) is not None
    assert repaint(img, box, 6, np.random.default_rng(0)) is None          # the pips say 4, not 6
    blank = np.full((200, 240, 3), 120, np.uint8)
    cv2.rectangle(blank, (70, 50), (166, 146), (40, 40, 200), -1)
    assert repaint(blank, box, 1, np.random.default_rng(0)) is None        # no pips at all
    assert repaint(img, (-20.0, 50.0, 96.0, 96.0), 4, np.random.default_rng(0)) is None  # not wholly in the image
    assert repaint(img, (float("nan"), 0.0, 96.0, 96.0), 4, np.random.default_rng(0)) is None
