"""Datasets of scenes: image i of seed S comes from ``default_rng([S, i])``."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from .scene import PHONE_SIZES, WEBCAM_SIZES, SceneOptions, render_scene

SIZE_SETS = {"webcam": WEBCAM_SIZES, "phone": PHONE_SIZES, "mixed": WEBCAM_SIZES + PHONE_SIZES,
             "vga": ((640, 480),),
             # training: mostly webcam-like frames, a few portrait/phone-like ones (cheap to render)
             "train": ((640, 480), (640, 480), (640, 480), (800, 600), (960, 720), (1280, 720),
                       (720, 960), (756, 1008), (1024, 768), (480, 640))}


def render_indexed(seed: int, index: int, sizes: str = "mixed", base: SceneOptions = SceneOptions(),
                   extras: dict | None = None):
    """Scene ``index`` of dataset ``seed``: (image, truths, options used); see render_scene
    for ``extras``."""
    if sizes not in SIZE_SETS:
        raise ValueError(f"unknown size set {sizes!r}; use one of {sorted(SIZE_SETS)}")
    rng = np.random.default_rng([seed, index])
    choices = SIZE_SETS[sizes]
    w, h = choices[int(rng.integers(len(choices)))]
    opts = replace(base, width=w, height=h)
    img, truths = render_scene(rng, opts, extras)
    return img, truths, opts


def write_dataset(out: Path, seed: int, count: int, sizes: str = "mixed",
                  base: SceneOptions = SceneOptions(), start: int = 0) -> Path:
    """Render ``count`` scenes into ``out`` (JPEG, quality 95) and ``out/ground_truth.json``."""
    if count < 0:
        raise ValueError(f"count must be >= 0, not {count}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for i in range(start, start + count):
        img, truths, opts = render_indexed(seed, i, sizes, base)
        name = f"synth_s{seed}_{i:05d}.jpg"
        cv2.imwrite(str(out / name), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        records.append({"file": name, "width": opts.width, "height": opts.height,
                        "dice": [t.to_json() for t in truths]})
    gt = out / "ground_truth.json"
    gt.write_text(json.dumps({"seed": seed, "sizes": sizes, "images": records}, indent=1))
    return gt
