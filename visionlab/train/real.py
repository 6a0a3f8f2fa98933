"""Classifier crops from the real photos' TRAIN split (read from ../shared/datasets at training
time, never copied into the repository). The current detector proposes whole-die boxes; a box
that contains a label's pip-pattern centre gets the label's value (colour "other": the dice are
white). Several jittered crops per die; background crops away from every label as negatives."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.model import COLOUR_CLASSES, ModelConfig, crop_for_classifier

from .data import CONTEXT, CROP, _jitter_box, _overlaps
from .evaluate import REAL_DIR, load_model, match_real, real_labels

JITTERS = 4


def build_real_crops(out: Path, split: str = "train", model_dir=None, seed: int = 0, root: Path = REAL_DIR,
                     min_det_score: float = 0.2, log=print):
    img_dir = root / "images" / split
    if not img_dir.is_dir():
        raise FileNotFoundError(f"real photos not found: {img_dir}")
    model = load_model(model_dir, replace(ModelConfig(), min_det_score=min_det_score))
    rng = np.random.default_rng(seed)
    crops, values, colours, dies = [], [], [], []
    missed = 0
    other = COLOUR_CLASSES.index("other")
    files = sorted(img_dir.glob("*.jpg"))
    for f in files:
        img = cv2.imread(str(f))
        labels = real_labels(root / "labels" / split / (f.stem + ".txt"), img.shape[1], img.shape[0])
        boxes = [b for b, _ in model.detect(img)]

        class _P:  # match_real wants .box
            def __init__(self, box):
                self.box = box
        m = match_real([_P(b) for b in boxes], labels)
        missed += len(labels) - len(m)
        for li, pi in m:
            for _ in range(JITTERS):
                crops.append(crop_for_classifier(img, _jitter_box(rng, boxes[pi]), CROP, CONTEXT))
                values.append(labels[li][0] - 1)
                colours.append(other)
                dies.append(1)
        label_boxes = [(cx - 40, cy - 40, 80, 80) for _, cx, cy, _, _ in labels]
        # hard negatives: detector proposals far from every labelled die (cables, laptop, wood)
        matched = {pi for _, pi in m}
        for pi, b in enumerate(boxes):
            if pi not in matched and not _overlaps(b, label_boxes, 0.0):
                for _ in range(2):
                    crops.append(crop_for_classifier(img, _jitter_box(rng, b), CROP, CONTEXT))
                    values.append(-1)
                    colours.append(-1)
                    dies.append(0)
        H, W = img.shape[:2]
        for _ in range(2):
            s = rng.uniform(35, 80)
            b = (rng.uniform(0, W - s), rng.uniform(0, H - s), s, s)
            if not _overlaps(b, label_boxes, 0.0):
                crops.append(crop_for_classifier(img, b, CROP, CONTEXT))
                values.append(-1)
                colours.append(-1)
                dies.append(0)
    np.savez(out, crops=np.stack(crops), value=np.array(values, np.int8), colour=np.array(colours, np.int8),
             die=np.array(dies, np.int8))
    log(f"real crops: {len(crops)} from {len(files)} images of {split}; {missed} labelled dice had no detected box")
