"""Measure the shipped (or a candidate) model: held-out synthetic scenes and the real photos.

No torch needed: runs the ONNX files through vision.model.DiceModel + onnxruntime (1 thread).

Synthetic: a die is scored when it is wholly in frame (``partial`` false); predictions on a
partly-out-of-frame die are neither hits nor false detections. Matching: IoU >= 0.5, greedy by
score. Real photos (YOLO labels = boxes around the PIP PATTERN, value only): a label is matched
by a predicted box that contains its centre, nearest centre first.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.model import DiceModel, _iou
from visionlab.render.synth.generate import render_indexed

REAL_DIR = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "real-dice" / "matteo-white"
CONFIDENT = 0.9


def confidence(d) -> float:
    return float(max(d.value_probs) * max(d.colour_probs))


def load_model(model_dir=None, config=None, backend="onnxruntime") -> DiceModel:
    from vision.runtime import create_runtime
    return DiceModel.from_files(lambda p: create_runtime(p, backend=backend, threads=1), model_dir, config)


def eval_synthetic(model: DiceModel, seed: int, count: int, sizes: str = "mixed", log=None) -> dict:
    n_gt = n_hit = n_both = n_value = n_colour = n_fp = n_pred = 0
    conf_n = conf_wrong = 0
    all_right_images = 0
    wrong = []
    ms = []
    for i in range(count):
        img, truths, _ = render_indexed(seed, i, sizes)
        t0 = time.perf_counter()
        preds = model.read(img)
        ms.append((time.perf_counter() - t0) * 1000)
        used = set()
        image_ok = True
        scored = [t for t in truths if not t.partial]
        n_gt += len(scored)
        matches = {}
        pairs = sorted(((_iou(p.box, t.box), pi, ti) for pi, p in enumerate(preds) for ti, t in enumerate(truths)), reverse=True)
        for iou, pi, ti in pairs:
            if iou < 0.5 or pi in matches or ti in used:
                continue
            matches[pi] = ti
            used.add(ti)
        for pi, p in enumerate(preds):
            if pi not in matches:
                # a prediction overlapping a partial die is not a false detection
                if not any(t.partial and _iou(p.box, t.box) > 0.2 for t in truths):
                    n_fp += 1
                    image_ok = False
                continue
            t = truths[matches[pi]]
            if t.partial:
                continue
            n_pred += 1
            n_hit += 1
            v_ok, c_ok = p.value == t.value, p.colour == t.colour
            n_value += v_ok
            n_colour += c_ok
            n_both += v_ok and c_ok
            if not (v_ok and c_ok):
                image_ok = False
                wrong.append({"index": i, "truth": [t.colour, t.value], "read": [p.colour, p.value],
                              "conf": round(confidence(p), 3), "box": [round(b) for b in t.box]})
            if confidence(p) >= CONFIDENT:
                conf_n += 1
                conf_wrong += not (v_ok and c_ok)
        if len(used & {ti for ti, t in enumerate(truths) if not t.partial}) < len(scored):
            image_ok = False
        all_right_images += image_ok
        if log and (i + 1) % 100 == 0:
            log(f"synthetic {i + 1}/{count}: recall {n_hit / max(1, n_gt):.4f} both {n_both / max(1, n_gt):.4f}")
    return {
        "set": f"synthetic seed {seed}, {count} images ({sizes})",
        "dice": n_gt, "recall": n_hit / max(1, n_gt),
        "false_detections_per_die": n_fp / max(1, n_gt), "false_detections": n_fp,
        "value_accuracy": n_value / max(1, n_hit), "colour_accuracy": n_colour / max(1, n_hit),
        "right_colour_and_value": n_both / max(1, n_gt),
        "confident_reads": conf_n, "confident_wrong": conf_wrong,
        "all_dice_right_images": all_right_images / max(1, count),
        "median_ms": float(np.median(ms)) if ms else 0.0,
        "wrong_examples": wrong[:30],
    }


def real_labels(label_path: Path, w: int, h: int):
    out = []
    for line in label_path.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 5:
            c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:])
            out.append((c + 1, cx * w, cy * h, bw * w, bh * h))
    return out


def match_real(preds, labels):
    """[(label index, pred index)] by centre containment, nearest centre first."""
    pairs = []
    for li, (_, cx, cy, _, _) in enumerate(labels):
        for pi, p in enumerate(preds):
            x, y, w, h = p.box
            if x <= cx <= x + w and y <= cy <= y + h:
                pairs.append((np.hypot(x + w / 2 - cx, y + h / 2 - cy), li, pi))
    pairs.sort()
    used_l, used_p, out = set(), set(), []
    for _, li, pi in pairs:
        if li in used_l or pi in used_p:
            continue
        used_l.add(li)
        used_p.add(pi)
        out.append((li, pi))
    return out


def eval_real(model: DiceModel, split: str = "valid", root: Path = REAL_DIR) -> dict | None:
    img_dir = root / "images" / split
    if not img_dir.is_dir():
        return None
    n_gt = n_hit = n_value = n_fp = conf_n = conf_wrong = 0
    wrong = []
    ms = []
    for f in sorted(img_dir.glob("*.jpg")):
        img = cv2.imread(str(f))
        labels = real_labels(root / "labels" / split / (f.stem + ".txt"), img.shape[1], img.shape[0])
        t0 = time.perf_counter()
        preds = model.read(img)
        ms.append((time.perf_counter() - t0) * 1000)
        m = match_real(preds, labels)
        n_gt += len(labels)
        n_hit += len(m)
        n_fp += len(preds) - len(m)
        for li, pi in m:
            ok = preds[pi].value == labels[li][0]
            n_value += ok
            if not ok:
                wrong.append({"image": f.name, "truth": labels[li][0], "read": preds[pi].value,
                              "p": round(max(preds[pi].value_probs), 3)})
            if max(preds[pi].value_probs) >= CONFIDENT:
                conf_n += 1
                conf_wrong += not ok
    return {"set": f"real matteo-white/{split}", "dice": n_gt, "recall": n_hit / max(1, n_gt),
            "value_accuracy": n_value / max(1, n_hit), "false_detections": n_fp,
            "confident_value_reads": conf_n, "confident_value_wrong": conf_wrong,
            "median_ms": float(np.median(ms)) if ms else 0.0, "wrong_examples": wrong[:30]}


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="python -m visionlab.train.evaluate")
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--seed", type=int, default=424242)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--sizes", default="mixed")
    ap.add_argument("--real-split", default="valid")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    model = load_model(a.model_dir)
    res = {"real": eval_real(model, a.real_split)}
    print(json.dumps({k: v for k, v in (res["real"] or {}).items() if k != "wrong_examples"}), flush=True)
    res["synthetic"] = eval_synthetic(model, a.seed, a.count, a.sizes, log=lambda s: print(s, flush=True))
    print(json.dumps({k: v for k, v in res["synthetic"].items() if k != "wrong_examples"}), flush=True)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
