"""Median DiceModel.read time on 640x480 scenes with 8 dice, onnxruntime on ONE thread.
python -m visionlab.train.speed [--model-dir DIR] [--count 40]  (run pinned: taskset -c 0 ...)"""
from __future__ import annotations

import argparse
import time
from dataclasses import replace

import cv2
import numpy as np

from visionlab.render.synth.scene import SceneOptions, render_scene

from .evaluate import load_model


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--count", type=int, default=40)
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    model = load_model(a.model_dir)
    opts = replace(SceneOptions(), min_dice=8, max_dice=8, die_px=(0.06, 0.12))
    imgs = [render_scene(np.random.default_rng([31337, i]), opts)[0] for i in range(a.count)]
    for img in imgs[:3]:
        model.read(img)
    ms, found = [], []
    for img in imgs:
        t0 = time.perf_counter()
        found.append(len(model.read(img)))
        ms.append((time.perf_counter() - t0) * 1000)
    print(f"640x480, 8 dice, {a.count} images: median {np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, "
          f"mean dice read {np.mean(found):.1f}")


if __name__ == "__main__":
    main()
