"""The 640x480 speed frames (visionlab/bench/speed.py): the bench's frame has 8 dice, 2 of them
wholly in the frame; since stop 59 a second frame has all 8 inside (the issue's "640x480 image
with 8 dice" as a player frames it), and benchmarks/vision_large_photo.py times both."""
from __future__ import annotations

import cv2
import numpy as np

from visionlab.bench.speed import SPEED_WHOLE_SEED, speed_scene


def test_the_speed_frames():
    data, n, whole = speed_scene()
    assert (n, whole) == (8, 2)
    data, n, whole = speed_scene(SPEED_WHOLE_SEED)
    assert (n, whole) == (8, 8)
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (480, 640, 3)
