"""Hard-example crops for the classifier, cut where a trained model's detector puts its boxes.

On fresh synthetic scenes (a training seed, never an evaluation seed) the model's candidates
(every candidate: ``min_det_score`` 0) are matched to the renderer's truth:

* IoU >= 0.5 with a wholly-in-frame die: a die crop with its value and colour; "hard" when the
  model read it wrong or scored it below ``hard_below``;
* IoU < 0.25 with every die (partly-out-of-frame dice included): a not-a-die crop; "hard" when
  its det_score reached ``negative_hard_above`` (a false detection or close to one);
* a wholly-in-frame die that no candidate matched: a crop on its true box, always "hard".

The crops are cut exactly as at inference (``crop_for_classifier`` on the detector's box).
Output: an .npz with crops (N,64,64,3 uint8), value (0..5 or -1), colour (0..5 or -1),
die (1/0) and hard (bool), the format ``python -m visionlab.train classifier --real`` reads;
``hard_only_out`` also writes the hard rows alone to a second file.
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.model import COLOUR_CLASSES, ModelConfig, _iou, crop_for_classifier
from visionlab.render.synth.generate import render_indexed

from .data import HIT_IOU, label_detector_box
from .evaluate import load_model


def build_hard_crops(out: Path, seed: int, count: int, model_dir=None, sizes: str = "webcam",
                     hard_only: bool = False, hard_below: float = 0.55, negative_hard_above: float = 0.3,
                     views: str | None = None, hard_only_out: Path | None = None, log=print) -> dict:
    if count < 1:
        raise ValueError(f"count must be >= 1, not {count}")
    cv2.setNumThreads(1)
    cfg = replace(ModelConfig(), min_det_score=0.0)
    if views is not None:
        cfg = replace(cfg, classifier_views=views)
    model = load_model(model_dir, cfg)
    size = model.crop_size
    crops, val, col, die, hard = [], [], [], [], []

    def add(c, v, k, d, h):
        crops.append(c)
        val.append(v)
        col.append(k)
        die.append(d)
        hard.append(h)

    t0 = time.time()
    for i in range(count):
        img, truths, _ = render_indexed(seed, i, sizes)
        preds = model.read(img)
        for p in preds:
            label = label_detector_box(p.box, truths)
            if label is None:
                continue
            c = crop_for_classifier(img, p.box, size, cfg.crop_context)
            if label[2]:
                wrong = (p.value - 1, COLOUR_CLASSES.index(p.colour)) != label[:2] or p.det_score < hard_below
                add(c, *label, wrong)
            else:
                add(c, *label, p.det_score >= negative_hard_above)
        for t in truths:
            if not t.partial and not any(_iou(p.box, t.box) >= HIT_IOU for p in preds):
                add(crop_for_classifier(img, t.box, size, cfg.crop_context), t.value - 1,
                    COLOUR_CLASSES.index(t.colour), 1.0, True)
        if (i + 1) % 200 == 0:
            log(f"hard crops: {i + 1}/{count} scenes, {len(crops)} crops, {sum(hard)} hard, {time.time() - t0:.0f}s")
    keep = np.array(hard, bool) if hard_only else np.ones(len(crops), bool)
    arrays = {"crops": np.stack(crops)[keep] if crops else np.zeros((0, size, size, 3), np.uint8),
              "value": np.array(val, np.int64)[keep], "colour": np.array(col, np.int64)[keep],
              "die": np.array(die, np.float32)[keep], "hard": np.array(hard, bool)[keep]}
    np.savez(out, **arrays)
    log(f"saved {out}: {int(keep.sum())} crops ({int(np.sum(hard))} hard of {len(crops)})")
    if hard_only_out is not None:
        only = arrays["hard"]
        np.savez(hard_only_out, **{k: v[only] for k, v in arrays.items()})
        log(f"saved {hard_only_out}: the {int(only.sum())} hard crops")
    return arrays
