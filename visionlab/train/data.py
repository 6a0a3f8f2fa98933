"""Training data: synthetic scenes rendered into a cache under /tmp (never committed).

``build_cache(dir, seed, count)`` renders scenes ``[seed, i]`` for i < count with 2 worker
processes (started fresh, "spawn": a worker forked from a process whose OpenCV or torch thread
pools are running can wait forever on a lock of a thread it did not inherit) and stores, per shard:

* ``det_images.npy`` uint8 [N, 384, 512, 3] letterboxed detector inputs (``DET_SIZE``) and ``det_boxes.pkl``
  (per image: float32 [k, 4] whole-die boxes x, y, w, h in detector-input pixels);
* ``cls_crops.npy`` uint8 [M, 64, 64, 3] classifier crops (jittered like detector boxes) with
  ``cls_value`` (0..5, -1 = unreadable/negative), ``cls_colour`` (0..5, -1 = negative) and
  ``cls_die`` (1 die, 0 background).
"""
from __future__ import annotations

import math
import pickle
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from vision.model import COLOUR_CLASSES, _iou, crop_for_classifier, letterbox
from visionlab.render.synth.generate import render_indexed
from visionlab.render.synth.scene import SceneOptions

DET_SIZE = (512, 384)  # width, height of the detector input (v8; v1-v7: 384 x 288)
CROP = 64
CONTEXT = 1.3
NEG_PER_SCENE = 3
STRIDE = 4          # detector output cell, in detector-input pixels
MIN_BOX = 3.0       # smaller boxes (detector-input pixels) are no training target
MAX_OBJECTS = 64    # at most this many dice per image are training targets
WH_SCALE = 16.0     # the detector predicts log(w / WH_SCALE) (visionlab.train.nets)
HIT_IOU = 0.5       # a detector box this close to a die is that die ...
MISS_IOU = 0.25     # ... and one below this with every die is no die; between: no crop


def label_detector_box(box, truths) -> tuple[int, int, int] | None:
    """Training label (value 0..5, colour index, die 1) of a crop cut on a detector's box that
    matches a wholly-in-frame die (IoU >= HIT_IOU); (-1, -1, 0) when it overlaps every die less
    than MISS_IOU; None (no crop) in between or on a partly-out-of-frame die."""
    best, t = max(((_iou(box, t.box), t) for t in truths), key=lambda x: x[0], default=(0.0, None))
    if best >= HIT_IOU:
        return None if t.partial else (t.value - 1, COLOUR_CLASSES.index(t.colour), 1)
    return (-1, -1, 0) if best < MISS_IOU else None


def _jitter_box(rng, box, amount=0.08, scale=(0.88, 1.15)):
    x, y, w, h = box
    s = max(w, h)
    cx = x + w / 2 + rng.normal(0, amount) * s
    cy = y + h / 2 + rng.normal(0, amount) * s
    k = rng.uniform(*scale)
    w2, h2 = w * k * rng.uniform(0.93, 1.07), h * k * rng.uniform(0.93, 1.07)
    return (cx - w2 / 2, cy - h2 / 2, w2, h2)


def _overlaps(box, boxes, thresh=0.15):
    x, y, w, h = box
    for bx, by, bw, bh in boxes:
        iw = max(0.0, min(x + w, bx + bw) - max(x, bx))
        ih = max(0.0, min(y + h, by + bh) - max(y, by))
        if iw * ih > thresh * min(w * h, bw * bh):
            return True
    return False


_DETECTOR = None  # per worker: a DiceModel (detector only) proposing hard negatives


def _set_detector(model_dir):
    global _DETECTOR
    if model_dir:
        from vision.model import DiceModel
        from vision.runtime import create_runtime
        from vision.model import ModelConfig
        _DETECTOR = DiceModel(create_runtime(str(Path(model_dir) / ModelConfig().detector_file), threads=1))


def render_sample(seed: int, index: int, sizes: str = "train", base: SceneOptions = SceneOptions(),
                  image: tuple | None = None):
    """One scene -> (det image, det boxes [k,4], crops, values, colours, dies). Negatives:
    random background boxes, the pip-less distractor cubes, and (when a detector is set) its
    proposals that hit no die. ``image``: the scene already rendered, as (image, truths,
    extras) of ``render_indexed(seed, index, sizes, base, extras)``."""
    if image is None:
        extras: dict = {}
        img, truths, _ = render_indexed(seed, index, sizes, base, extras)
    else:
        img, truths, extras = image
    rng = np.random.default_rng([seed, index, 7])
    canvas, lb = letterbox(img, DET_SIZE)
    boxes = np.array([lb.to_input(t.box) for t in truths], np.float32).reshape(-1, 4)
    crops, values, colours, dies = [], [], [], []
    for t in truths:
        jb = _jitter_box(rng, t.box)
        crops.append(crop_for_classifier(img, jb, CROP, CONTEXT))
        readable = t.top_visible >= 0.9
        values.append(t.value - 1 if readable else -1)
        colours.append(COLOUR_CLASSES.index(t.colour) if readable else -1)
        dies.append(1)
    for b in extras.get("distractor_boxes", []):
        crops.append(crop_for_classifier(img, _jitter_box(rng, b), CROP, CONTEXT))
        values.append(-1)
        colours.append(-1)
        dies.append(0)
    if _DETECTOR is not None:
        for b, _score in _DETECTOR.detect(img):
            if not _overlaps(b, [t.box for t in truths], 0.3):
                crops.append(crop_for_classifier(img, _jitter_box(rng, b, 0.03, (0.95, 1.05)), CROP, CONTEXT))
                values.append(-1)
                colours.append(-1)
                dies.append(0)
    # background crops of die-like sizes, away from dice
    H, W = img.shape[:2]
    sizes_px = [max(t.box[2], t.box[3]) for t in truths] or [rng.uniform(0.03, 0.14) * max(W, H)]
    all_boxes = [t.box for t in truths]
    for _ in range(NEG_PER_SCENE):
        for _try in range(10):
            s = float(rng.choice(sizes_px)) * rng.uniform(0.6, 1.3)
            b = (rng.uniform(-0.2 * s, W - 0.8 * s), rng.uniform(-0.2 * s, H - 0.8 * s), s, s * rng.uniform(0.8, 1.2))
            if not _overlaps(b, all_boxes):
                crops.append(crop_for_classifier(img, b, CROP, CONTEXT))
                values.append(-1)
                colours.append(-1)
                dies.append(0)
                break
    crops = np.stack(crops) if crops else np.zeros((0, CROP, CROP, 3), np.uint8)
    return canvas, boxes, crops, np.array(values, np.int8), np.array(colours, np.int8), np.array(dies, np.int8)


def _work(args):
    cv2.setNumThreads(1)
    seed, lo, hi, sizes, base = args
    return [render_sample(seed, i, sizes, base) for i in range(lo, hi)]


def write_cache(out: Path, count: int, chunks, done_text: str, log=print) -> None:
    """Write a cache of ``count`` samples at ``out`` from ``chunks``: an iterable of lists of
    ``render_sample`` tuples (canvas, boxes, crops, values, colours, dies); ``done_text`` goes
    into ``DONE``, written last (``load_cache`` refuses a cache without it)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    det = np.lib.format.open_memmap(out / "det_images.npy", "w+", np.uint8, (count, DET_SIZE[1], DET_SIZE[0], 3))
    det_boxes, crops, vals, cols, dies = [], [], [], [], []
    done = 0
    for res in chunks:
        for canvas, boxes, c, v, co, d in res:
            det[done] = canvas
            det_boxes.append(boxes)
            crops.append(c)
            vals.append(v)
            cols.append(co)
            dies.append(d)
            done += 1
        log(f"cache {out.name}: {done}/{count}")
    det.flush()
    with open(out / "det_boxes.pkl", "wb") as f:
        pickle.dump(det_boxes, f)
    np.save(out / "cls_crops.npy", np.concatenate(crops))
    np.save(out / "cls_value.npy", np.concatenate(vals))
    np.save(out / "cls_colour.npy", np.concatenate(cols))
    np.save(out / "cls_die.npy", np.concatenate(dies))
    (out / "DONE").write_text(done_text + "\n")


def build_cache(out: Path, seed: int, count: int, sizes: str = "train", workers: int = 2, chunk: int = 50,
                base: SceneOptions = SceneOptions(), negatives_from: Path | None = None):
    jobs = [(seed, lo, min(count, lo + chunk), sizes, base) for lo in range(0, count, chunk)]
    with get_context("spawn").Pool(workers, initializer=_set_detector, initargs=(negatives_from,)) as pool:
        write_cache(out, count, pool.imap(_work, jobs),
                    f"seed={seed} count={count} sizes={sizes} options={base} negatives_from={negatives_from}",
                    log=lambda m: print(m, flush=True))


def det_targets(boxes_list, gh, gw):
    """Detector training targets for a batch of images (boxes x, y, w, h in detector-input
    pixels): heatmap [N,1,gh,gw] (a Gaussian per die centre, 1 at its cell), and per die up
    to MAX_OBJECTS: cell index [N,K], log size [N,K,2], sub-cell offset [N,K,2], mask [N,K]."""
    n = len(boxes_list)
    hm = np.zeros((n, 1, gh, gw), np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    ind = np.zeros((n, MAX_OBJECTS), np.int64)
    wh = np.zeros((n, MAX_OBJECTS, 2), np.float32)
    off = np.zeros((n, MAX_OBJECTS, 2), np.float32)
    mask = np.zeros((n, MAX_OBJECTS), np.float32)
    for b, boxes in enumerate(boxes_list):
        k = 0
        for x, y, w, h in boxes:
            if w < MIN_BOX or h < MIN_BOX or k >= MAX_OBJECTS:
                continue
            cx, cy = (x + w / 2) / STRIDE, (y + h / 2) / STRIDE
            ix, iy = min(gw - 1, int(cx)), min(gh - 1, int(cy))
            sigma = max(0.8, 0.12 * min(w, h) / STRIDE)
            g = np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma ** 2))
            np.maximum(hm[b, 0], g, out=hm[b, 0])
            hm[b, 0, iy, ix] = 1.0
            ind[b, k] = iy * gw + ix
            wh[b, k] = (math.log(w / WH_SCALE), math.log(h / WH_SCALE))
            off[b, k] = (cx - ix, cy - iy)
            mask[b, k] = 1
            k += 1
    return hm, ind, wh, off, mask


def mirror_half(imgs, boxes, rng):
    """Mirror a random half of a batch left-right (images [N,H,W,3], boxes x,y,w,h in pixels).
    The canvas is letterboxed at its top-left, so a mirrored image keeps its content where it
    was drawn only up to the padding: the padding moves to the left, which the detector then
    also sees."""
    imgs = imgs.copy()
    boxes = list(boxes)
    W = imgs.shape[2]
    for k in np.flatnonzero(rng.random(len(imgs)) < 0.5):
        imgs[k] = imgs[k, :, ::-1]
        b = np.array(boxes[k], np.float32).reshape(-1, 4).copy()
        b[:, 0] = W - b[:, 0] - b[:, 2]
        boxes[k] = b
    return imgs, boxes


def load_cache(d: Path):
    d = Path(d)
    if not (d / "DONE").exists():
        raise FileNotFoundError(f"no finished cache in {d}")
    with open(d / "det_boxes.pkl", "rb") as f:
        boxes = pickle.load(f)
    return {
        "det_images": np.load(d / "det_images.npy", mmap_mode="r"),
        "det_boxes": boxes,
        "crops": np.load(d / "cls_crops.npy"),
        "value": np.load(d / "cls_value.npy"),
        "colour": np.load(d / "cls_colour.npy"),
        "die": np.load(d / "cls_die.npy"),
    }


