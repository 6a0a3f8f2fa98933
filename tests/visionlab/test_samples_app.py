"""samples/app/four-dice.jpg, the photo the app's browser tests upload, is the render its README
names: the renderer gives the same dice and (within JPEG noise) the same picture."""
from pathlib import Path

import cv2
import numpy as np

from visionlab.render.synth import SceneOptions, render_scene

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "app" / "four-dice.jpg"


def test_the_stored_app_photo_is_its_render():
    img, truth = render_scene(np.random.default_rng([7, 1]), SceneOptions(
        width=960, height=720, min_dice=4, max_dice=4, other_share=0.0, die_px=(0.09, 0.13)))
    assert [f"{d.colour} {d.value}" for d in truth] == ["red 5", "blue 2", "blue 2", "green 3"]
    stored = cv2.imread(str(SAMPLE))
    assert stored is not None and stored.shape == img.shape
    assert float(np.abs(stored.astype(np.int16) - img.astype(np.int16)).mean()) < 3.0
