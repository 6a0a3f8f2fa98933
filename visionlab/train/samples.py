"""Write samples/dice/: a few of our own renders with their expected reads.

Each sample is a scene whose dice are all wholly in frame, saved as NAME.jpg (quality 92) and
NAME.json = the expected read, in the format tests/vision/test_vision_samples.py reads:
{"image": "NAME.jpg", "source": ..., "dice": [{"colour", "value", "box": [x, y, w, h]}]}
(renderer ground truth, box of the whole die in image pixels; colour "other" is written as
"unknown", as the CLI reports it). A sample is kept only if the shipped model
reads every die right from the saved JPEG (same colour and value, box IoU >= 0.5, no extra die).
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.model import _iou
from visionlab.render.synth.scene import SceneOptions, render_scene

from .evaluate import load_model

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "dice"

#: name, seed, size (w, h), dice range
PLAN = (
    ("webcam_6", 9101, (640, 480), (6, 6)),
    ("webcam_board_5", 9102, (1280, 720), (5, 6)),
    ("phone_portrait_5", 9103, (1440, 1920), (5, 5)),
    ("webcam_mixed_3", 9104, (640, 480), (3, 4)),
    ("phone_8", 9105, (2048, 1536), (8, 8)),
    ("no_dice", 9106, (640, 480), (0, 0)),
)


def _reads_right(model, img, truths) -> bool:
    preds = model.read(img)
    if len(preds) != len(truths):
        return False
    used = set()
    for t in truths:
        best = max(range(len(preds)), key=lambda i: _iou(preds[i].box, t.box), default=None)
        if best is None or best in used or _iou(preds[best].box, t.box) < 0.5:
            return False
        p = preds[best]
        if p.value != t.value or p.colour != t.colour:
            return False
        used.add(best)
    return True


def write_samples(out: Path = SAMPLES, tries: int = 60, overwrite: bool = False, log=print):
    out.mkdir(parents=True, exist_ok=True)
    model = load_model()
    for name, seed, (w, h), (lo, hi) in PLAN:
        if (out / f"{name}.json").exists() and not overwrite:
            continue
        for k in range(tries):
            rng = np.random.default_rng([seed, k])
            opts = replace(SceneOptions(), width=w, height=h, min_dice=lo, max_dice=hi)
            img, truths = render_scene(rng, opts)
            if any(t.partial for t in truths) or len(truths) < lo:
                continue
            path = out / f"{name}.jpg"
            cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            saved = cv2.imread(str(path))
            if not _reads_right(model, saved, truths):
                continue
            read = [{"colour": "unknown" if t.colour == "other" else t.colour, "value": t.value,
                     "box": [round(v, 1) for v in t.box]} for t in truths]
            doc = {"image": f"{name}.jpg",
                   "source": f"vision.synth render_scene(default_rng([{seed}, {k}]), {w}x{h}, {lo}-{hi} dice)",
                   "dice": read}
            (out / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
            log(f"{name}: seed [{seed}, {k}], {len(truths)} dice")
            break
        else:
            (out / f"{name}.jpg").unlink(missing_ok=True)
            log(f"{name}: no scene read right in {tries} tries; not written")


if __name__ == "__main__":
    write_samples()
