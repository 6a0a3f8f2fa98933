"""Seeded synthetic dice scenes (numpy + OpenCV only) for training and testing the dice reader.

``render_scene(rng, SceneOptions(...)) -> (image_bgr, [DieTruth, ...])``; the command line
``python -m visionlab.render.synth --seed S --count N --out DIR`` writes images and a ground-truth JSON.
Image ``i`` of seed ``S`` is rendered from ``numpy.random.default_rng([S, i])``, so it does not
depend on how many images are asked for.
"""
from .dice import FACES, PIP_LAYOUTS, opposite_value, orientation, top_value
from .scene import (COLOURS, PHONE_SIZES, WEBCAM_SIZES, DieTruth, SceneOptions, render_scene)
from .generate import render_indexed, write_dataset

__all__ = ["FACES", "PIP_LAYOUTS", "opposite_value", "orientation", "top_value", "COLOURS",
           "PHONE_SIZES", "WEBCAM_SIZES", "DieTruth", "SceneOptions", "render_scene",
           "render_indexed", "write_dataset"]
