"""Adapt the shipped detector to a table's photos (issue 38 item 2, "and, if it pays, the
detector"; docs/vision.md, "The table profile"; rule and figures: docs/vision-history.md, stops
52-54).

The classifier learns what a die IS; where the shipped detector does not even propose a die
(dark engraved dice on a dark, noisy table: stop 52 found recall 68.8 % on such a table, the
classifier's learn never changing it), only the detector can learn. ``learn_detector``:

1. **The gate.** The shipped reader (shipped detector and classifier) reads the view of every
   trained-on photo whose dice are all confirmed with their box (``PhotoView.complete``; a die
   typed in by hand, or a read the app left out, would be taught as background). A confirmed
   die that no read matches (the bench's centre rule, ``visionlab.bench.scoring``) is a miss.
   No miss: there is nothing to teach and nothing is trained (most tables: 10 of 21 dev tables
   have no miss in ten photos, stop 52).
2. **Training.** A table heatmap (``TableHead``: a copy of the shipped detector's last block and
   heatmap layer) over the shipped detector's own features (``trunk``, frozen), ``STEPS`` steps
   of AdamW (cosine, ``LR``); each step ``BATCH_TABLE`` of the table's detector inputs (each view
   letterboxed as the first pass sees it, and, where the reader would run its finer pass on the
   photo's dice, the finer pass's tiles of it; as they are, mirrored, moved and scaled at random:
   ``move_and_scale``) and ``BATCH_REPLAY`` of ``HEAD_REPLAY`` scenes of the training
   distribution (our renderer, seed ``REPLAY_SEED``, cached), so it does not fire on other
   tables. Its peaks count only where the shipped heatmap has none that can be kept
   (``vision.model.union_candidates``), and its dice are never read sure.
   It learns the dice it misses and is not taught to drop the dice the confirmation may leave
   out: over every read of the shipped reader that matches no confirmed die (a die cut by the
   border or half hidden, the table's near dice), the heatmap's background loss is off
   (``IGNORE_TARGET``; taught as background such dice cost recall on the table's other photos,
   stop 53). And it is taught not to fire a second time on a die (``ring_penalty``): without
   that, and with the photos as they are, the adapted detector doubled 1-4 dice of a table on
   its other photos (stops 53-54).
3. **The check.** The held-back photos' complete views are read with the shipped detector and
   with the adapted one (the shipped classifier both times). The adapted detector is adopted
   when it finds every held-back confirmed die the shipped one finds and reads no more boxes
   that are no die (a read matching no confirmed die, unless it may be a die the confirmation
   leaves out: one cut by the photo's border or behind a confirmed die). Not "more found": a table's held-back photos may hold no miss
   while its other photos hold many (stop 52: 0 of 6 held back, 22 of 51 in the pool). Without
   a complete held-back view nothing can show it safe: not adopted.

Seeds are fixed: the same profile gives the same detector.
"""
from __future__ import annotations

import copy
import tempfile
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision.model import DEFAULT_MODEL_DIR, DiceModel, ModelConfig, letterbox
from vision.profile import ConfirmedDie, PhotoView, TableProfile, may_be_a_left_out_die
from vision.runtime import create_runtime
from visionlab.bench.scoring import match_by_centre_distance
from visionlab.train.data import DET_SIZE, MIN_BOX, STRIDE, det_targets
from visionlab.train.nets import Detector, focal_loss
from visionlab.train.warmstart import detector_from_onnx

from .tuning import fine_tune

STEPS = 150  # the table head's steps (stop 58's diagnostic: 150 steps, 7-10 s of CPU with the features)
BATCH_TABLE = 3
BATCH_REPLAY = 1
LR = 1e-3
HEAD_REPLAY = 8  # replay scenes whose features the table head also learns from (no false peaks there)
#: each table input is moved and scaled at random (with probability 1 - ``KEEP_AS_IS``): by a factor
#: in ``SCALES`` about its centre and up to ``SHIFT`` of its size; a die no longer wholly inside is
#: background (the reader drops dice cut by the border). With the photos as they are, the detector
#: learns where the table's dice lie in ten photos and doubles dice elsewhere (stop 54).
SCALES = (0.8, 1.25)
SHIFT = 0.15
KEEP_AS_IS = 0.2
#: "no second peak on a die" (stop 54): over each confirmed die's box, from ``RING_FROM`` of its
#: smaller side away from its centre, outside every other die's box and every ignored read, any
#: heatmap response costs ``RING_WEIGHT`` x softplus(logit) per cell (over the dice count). Without
#: it the adapted detector read 1-4 dice of a table twice (a second, shifted box over part of a
#: die already read: stop 53).
RING_FROM = 0.25
RING_WEIGHT = 0.3
REPLAY_SEED = 1900  # a training seed of our renderer (the classifier's replay uses it too)
REPLAY_SCENES = HEAD_REPLAY  # (stop 59: was 40, of which only the first HEAD_REPLAY were ever trained on)
REPLAY_VERSION = 2
#: every replay scene may hold pip-less cubes of a die's size (0-3 of them, as our renderer draws
#: them, their boxes background): the game's research cubes lie on the table, and a detector
#: taught a table's faint engraved dice took such a cube for a die (stop 54, build D). The shipped
#: distribution's cubes are smaller (0.5-0.9 of a die) and in a third of the scenes.
REPLAY_CUBES = dict(distractor_rate=1.0, distractor_scale=(0.6, 1.2))
CHECK_IMAGES = 2  # detector inputs the ONNX file is checked on against torch
#: the heatmap target over an ignored read: just under 1, so it is no positive (``focal_loss`` takes
#: exactly 1) and its background loss, weighted by (1 - target) ** 4, is nil
IGNORE_TARGET = 0.9999


def replay_scenes(cache_dir: Path, log: Callable[[str], None] = print) -> tuple[np.ndarray, list[np.ndarray]]:
    """(detector inputs [N,384,512,3], their dice boxes) of ``REPLAY_SCENES`` scenes of our
    renderer, rendered once and cached in ``cache_dir``."""
    path = Path(cache_dir) / f"replay-det-{REPLAY_SEED}-{REPLAY_SCENES}-v{REPLAY_VERSION}.npz"
    if path.is_file():
        try:
            with np.load(path) as z:
                images, boxes, counts = z["images"], z["boxes"], z["counts"]
            return images, np.split(boxes, np.cumsum(counts)[:-1])
        except (OSError, ValueError, KeyError, EOFError) as exc:
            log(f"detector replay cache {path} unreadable ({exc}); rendering it again")
    from visionlab.render.synth.scene import SceneOptions
    from visionlab.train.data import render_sample

    t0 = time.perf_counter()
    parts = [render_sample(REPLAY_SEED, i, "train", SceneOptions(**REPLAY_CUBES)) for i in range(REPLAY_SCENES)]
    images = np.stack([p[0] for p in parts])
    boxes = [np.asarray(p[1], np.float32).reshape(-1, 4) for p in parts]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, images=images, boxes=np.concatenate(boxes),
                            counts=np.array([len(b) for b in boxes]))
        tmp.replace(path)
    except OSError as exc:
        log(f"detector replay cache not kept ({exc})")
    log(f"detector replay: {REPLAY_SCENES} scenes rendered in {time.perf_counter() - t0:.1f} s")
    return images, boxes


def detector_inputs(model: DiceModel, image: np.ndarray, boxes: list[tuple[float, float, float, float]],
                    ignore: Sequence[tuple[float, float, float, float]] = ()
                    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The detector inputs the reader makes of ``image`` whose dice are ``boxes`` (image
    pixels), each with its dice boxes and its ``ignore`` boxes in input pixels: the first pass's
    letterboxed view, and the finer pass's view where the reader would run it on dice of these
    sizes, in the overlapping tiles of the training input's size that a fixed-size detector's
    reader cuts (a tile's boxes: those whose centre it holds, clipped to it). With the shipped
    open-size detector the reader runs that view as one input, a little finer (a 2016x1512 photo
    at 0.508 against the tiles' 0.466, within ``SCALES``); the tiles keep the learner's inputs and
    time as they were (the one input's 3x3 tiles of 512x384 would double them)."""
    canvas, lb = letterbox(image, model.input_size, model.config.pad_value)
    first = _arr([lb.to_input(b) for b in boxes])
    out = [(canvas, first, _arr([lb.to_input(b) for b in ignore]))]
    H, W = image.shape[:2]
    plan = model.fine_plan(W, H, [float(np.sqrt(max(b[2], 0.0) * max(b[3], 0.0))) for b in first], as_tiles=True)
    if plan is None:
        return out
    tw, th = model.input_size

    def inside(tlb, bs) -> np.ndarray:
        kept = []
        for b in bs:
            x, y, w, h = tlb.to_input(b)
            if 0 <= x + w / 2 < tw and 0 <= y + h / 2 < th:
                x0, y0, x1, y1 = max(x, 0.0), max(y, 0.0), min(x + w, tw), min(y + h, th)
                kept.append((x0, y0, x1 - x0, y1 - y0))
        return _arr(kept)
    for tile, tlb in model.fine_tiles(image, *plan):
        out.append((tile, inside(tlb, boxes), inside(tlb, ignore)))
    return out


def _arr(boxes) -> np.ndarray:
    return np.array(boxes, np.float32).reshape(-1, 4)


def ignore_targets(hm: np.ndarray, ignores: Sequence[np.ndarray]) -> np.ndarray:
    """``hm`` [N,1,gh,gw] with the cells whose centre lies in an ignore box (input pixels) of
    its image raised to ``IGNORE_TARGET`` (a die's own peak, 1, stays)."""
    gh, gw = hm.shape[2:]
    for n, boxes in enumerate(ignores):
        for x, y, w, h in boxes:
            x0, x1 = max(0, int(np.ceil(x / STRIDE - 0.5))), min(gw, int(np.floor((x + w) / STRIDE - 0.5)) + 1)
            y0, y1 = max(0, int(np.ceil(y / STRIDE - 0.5))), min(gh, int(np.floor((y + h) / STRIDE - 0.5)) + 1)
            if x1 > x0 and y1 > y0:
                cell = hm[n, 0, y0:y1, x0:x1]
                np.copyto(cell, np.maximum(cell, IGNORE_TARGET), where=cell < 1.0)
    return hm


def _reads(model: DiceModel, image: np.ndarray, dice: list[tuple[float, float, float, float]],
           unmatched: list | None = None) -> tuple[set[int], int]:
    """(indices of ``dice`` a read matches, reads that are no die) of one image; the boxes of the
    reads matching no confirmed die are appended to ``unmatched``. A read that
    matches no confirmed die is no die unless it may be one the confirmation leaves out (cut
    by the photo's border, or overlapping a confirmed die: ``vision.profile.may_be_a_left_out_die``),
    as the bench leaves reads of such dice out of its false detections."""
    got = [r.box for r in model.read(image)]
    pairs = match_by_centre_distance(got, dice)
    matched = {i for i, _ in pairs}
    if unmatched is not None:
        unmatched.extend(b for i, b in enumerate(got) if i not in matched)
    size = (image.shape[1], image.shape[0])
    confirmed = [SimpleNamespace(box=b) for b in dice]
    false = sum(1 for i, b in enumerate(got) if i not in matched and not may_be_a_left_out_die(b, size, confirmed))
    return {j for _, j in pairs}, false


def _model(shipped_dir: Path, detector: Path | None = None) -> DiceModel:
    config = None if detector is None else ModelConfig(detector_file=str(Path(detector).resolve()))
    return DiceModel.from_files(partial(create_runtime, threads=1), model_dir=shipped_dir, config=config)


def move_and_scale(image: np.ndarray, boxes: np.ndarray, ignore: np.ndarray, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A table input moved and scaled at random (``SCALES``, ``SHIFT``, ``KEEP_AS_IS``), with its dice
    boxes (only those still wholly inside) and its ignore boxes (clipped to it)."""
    if rng.random() < KEEP_AS_IS:
        return image, boxes, ignore
    H, W = image.shape[:2]
    sc = float(np.exp(rng.uniform(np.log(SCALES[0]), np.log(SCALES[1]))))
    tx = rng.uniform(-SHIFT, SHIFT) * W + (1 - sc) * W / 2
    ty = rng.uniform(-SHIFT, SHIFT) * H + (1 - sc) * H / 2
    moved = cv2.warpAffine(image, np.float32([[sc, 0, tx], [0, sc, ty]]), (W, H), flags=cv2.INTER_LINEAR,
                           borderValue=(ModelConfig().pad_value,) * 3)

    def move(b: np.ndarray) -> np.ndarray:
        return b.reshape(-1, 4).astype(np.float32) * np.float32(sc) + np.float32([tx, ty, 0, 0])
    b = move(boxes)
    inside = (b[:, 0] >= 0) & (b[:, 1] >= 0) & (b[:, 0] + b[:, 2] <= W) & (b[:, 1] + b[:, 3] <= H)
    ig = move(ignore)
    x0, y0 = np.clip(ig[:, 0], 0, W), np.clip(ig[:, 1], 0, H)
    x1, y1 = np.clip(ig[:, 0] + ig[:, 2], 0, W), np.clip(ig[:, 1] + ig[:, 3], 0, H)
    ig = np.stack([x0, y0, x1 - x0, y1 - y0], axis=1)
    return moved, b[inside], ig[(ig[:, 2] > 0) & (ig[:, 3] > 0)]


def ring_penalty(hm: np.ndarray, boxes_list: Sequence[np.ndarray]) -> np.ndarray:
    """The ``RING_WEIGHT`` map [N,1,gh,gw] of "no second peak on a die" for heatmap targets ``hm``
    (ignored reads already raised in them) and each image's dice boxes (input pixels)."""
    n, _, gh, gw = hm.shape
    out = np.zeros_like(hm)
    ys, xs = (np.mgrid[0:gh, 0:gw].astype(np.float32) + 0.5) * STRIDE   # cell centres, input pixels
    for k, boxes in enumerate(boxes_list):
        b = np.asarray(boxes, np.float32).reshape(-1, 4)
        inside = [(xs >= x) & (xs <= x + w) & (ys >= y) & (ys <= y + h) for x, y, w, h in b]
        for i, (x, y, w, h) in enumerate(b):
            ring = inside[i] & (np.hypot(xs - x - w / 2, ys - y - h / 2) >= RING_FROM * min(w, h))
            for j in range(len(b)):
                if j != i:
                    ring &= ~inside[j]
            out[k, 0][ring] = RING_WEIGHT
    out[hm >= 0.05] = 0.0   # a die's own peak, a neighbour's, an ignored read
    return out


class TableHead(torch.nn.Module):
    """The table's heatmap: a copy of the shipped detector's last 3x3 block and heatmap layer over
    its features (``trunk``), which stay the shipped ones (BatchNorm statistics frozen)."""

    def __init__(self, det: Detector):
        super().__init__()
        self.head = copy.deepcopy(det.head)
        self.hm = copy.deepcopy(det.hm)

    def forward(self, features: torch.Tensor) -> torch.Tensor:   # heatmap logits
        return self.hm(self.head(features))


@torch.no_grad()
def trunk(det: Detector, images: np.ndarray) -> torch.Tensor:
    """The shipped detector's features before its last block, of uint8 inputs [N,H,W,3]."""
    det.eval()
    x = torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2).float() / 255
    return det.trunk(x)


def _table_examples(table: list[tuple[np.ndarray, np.ndarray, np.ndarray]], rng: np.random.Generator
                    ) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """Each table input as it is, mirrored, and moved and scaled at random (mirrored or not):
    (images, their dice boxes, their ignore boxes). The features are computed once."""
    images, boxes, ignores = [], [], []
    for img, b, ig in table:
        W = img.shape[1]

        def flip(bs: np.ndarray) -> np.ndarray:
            bs = bs.reshape(-1, 4).copy()
            bs[:, 0] = W - bs[:, 0] - bs[:, 2]
            return bs
        moved, mb, mig = move_and_scale(img, b, ig, rng)
        if rng.random() < 0.5:
            moved, mb, mig = np.ascontiguousarray(moved[:, ::-1]), flip(mb), flip(mig)
        for i, bb, gg in ((img, b, ig), (np.ascontiguousarray(img[:, ::-1]), flip(b), flip(ig)), (moved, mb, mig)):
            images.append(i)
            boxes.append(bb.reshape(-1, 4))
            ignores.append(gg.reshape(-1, 4))
    return np.stack(images), boxes, ignores


def head_loss(logits: torch.Tensor, hm: torch.Tensor, penalty: torch.Tensor) -> torch.Tensor:
    """The table head's loss: the focal heatmap loss, plus "no second peak on a die" (``penalty``:
    ``ring_penalty``'s weights) times softplus of the logit, over the dice count."""
    npos = hm.eq(1).float().sum().clamp(min=1)
    return focal_loss(logits, hm) + (F.softplus(logits) * penalty).sum() / npos


def train(det: Detector, table: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
          replay: tuple[np.ndarray, list], steps: int, seed: int) -> tuple[TableHead, float]:
    """The table's heatmap head, trained on the shipped detector's features of the table's inputs
    (as they are, mirrored, moved and scaled) and of ``HEAD_REPLAY`` replay scenes; returns (head,
    the last steps' mean loss)."""
    gh, gw = DET_SIZE[1] // STRIDE, DET_SIZE[0] // STRIDE
    rng = np.random.default_rng(seed)
    t_images, t_boxes, t_ignores = _table_examples(table, rng)
    r_images, r_boxes = replay
    r_images, r_boxes = r_images[:HEAD_REPLAY], [np.asarray(b, np.float32).reshape(-1, 4) for b in r_boxes[:HEAD_REPLAY]]
    feats = torch.cat([trunk(det, t_images[i:i + 8]) for i in range(0, len(t_images), 8)]
                      + [trunk(det, r_images[i:i + 8]) for i in range(0, len(r_images), 8)])
    boxes = t_boxes + r_boxes
    ignores = t_ignores + [np.zeros((0, 4), np.float32)] * len(r_images)
    hm, *_ = det_targets(boxes, gh, gw)
    hm = ignore_targets(hm, ignores)
    penalty = torch.from_numpy(ring_penalty(hm, boxes))
    hm = torch.from_numpy(hm)
    n_table = len(t_images)
    head = TableHead(det)

    def step_loss(rng: np.random.Generator, gen: torch.Generator) -> torch.Tensor:
        idx = np.concatenate([rng.integers(0, n_table, BATCH_TABLE), rng.integers(n_table, len(feats), BATCH_REPLAY)])
        return head_loss(head(feats[idx]), hm[idx], penalty[idx])
    loss = fine_tune(head, steps, seed, LR, step_loss)
    return head, loss


def _photos(profile: TableProfile, views: dict[int, PhotoView], dice: list[ConfirmedDie], photos: list[int]
            ) -> list[tuple[np.ndarray, list[tuple[float, float, float, float]]]]:
    """(view image, its confirmed dice's boxes in view pixels) of the ``photos`` that have a
    complete view."""
    out = []
    for p in photos:
        v = views.get(p)
        if v is None or not v.complete:
            continue
        boxes = [v.to_view(d.box) for d in dice if d.photo == p and d.die]
        if boxes:
            out.append((profile.load_view(v), boxes))
    return out


def learn_detector(profile: TableProfile, dice: list[ConfirmedDie], train_photos: list[int], held_photos: list[int],
                   cache_dir: Path, out: Path, seed: int = 0, steps: int | None = None, model_dir: Path | None = None,
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    """The module's three steps; writes the adapted detector to ``out`` when it is adopted.
    Returns its report ({"adopted": bool, "reason" or the figures}). Raises ``ProfileError``
    when the profile's views cannot be read."""
    t0 = time.perf_counter()
    steps = STEPS if steps is None else steps
    shipped_dir = Path(model_dir or DEFAULT_MODEL_DIR)
    shipped_file = shipped_dir / ModelConfig().detector_file
    views = profile.views()
    taught = _photos(profile, views, dice, train_photos)
    report: dict[str, Any] = {"adopted": False, "photos": len(taught)}
    if not taught:
        report["reason"] = ("no photo to learn from has a view with every die confirmed by its box (a die typed in "
                            "by hand, or a profile kept before views): the shipped detector stays")
        return report
    shipped = _model(shipped_dir)
    unmatched: list[list] = [[] for _ in taught]
    misses = sum(len(b) - len(_reads(shipped, img, b, unmatched[n])[0]) for n, (img, b) in enumerate(taught))
    report["missed_by_shipped"] = misses
    report["dice"] = sum(len(b) for _, b in taught)
    if misses == 0:
        report["reason"] = (f"the shipped detector finds all {report['dice']} confirmed dice of the "
                            f"{len(taught)} photos: nothing to learn, it stays")
        return report
    held = _photos(profile, views, dice, held_photos)
    if not held:
        report["reason"] = (f"the shipped detector misses {misses} of {report['dice']} confirmed dice, but no held-back "
                            "photo with every die confirmed can check an adapted one: the shipped detector stays")
        return report
    table = []
    for (img, boxes), ignore in zip(taught, unmatched):
        for canvas, b, ig in detector_inputs(shipped, img, boxes, ignore):
            table.append((canvas, b[(b[:, 2] >= MIN_BOX) & (b[:, 3] >= MIN_BOX)] if len(b) else b, ig))
    replay = replay_scenes(cache_dir, log)
    det = detector_from_onnx(shipped_file).eval()
    t_train = time.perf_counter()
    head, loss = train(det, table, replay, steps, seed)
    report.update(steps=steps, inputs=len(table), ignored=sum(len(u) for u in unmatched), final_loss=round(loss, 4),
                  train_seconds=round(time.perf_counter() - t_train, 2))
    from .onnxout import write_table_detector_onnx

    with tempfile.TemporaryDirectory(prefix="detector-") as tmp:
        candidate = Path(tmp) / shipped_file.name
        report["onnx_max_diff"] = write_table_detector_onnx(det, head, shipped_file, candidate,
                                                            np.stack([t[0] for t in table[:CHECK_IMAGES]]))
        adapted = _model(shipped_dir, candidate)
        lost = found_s = found_a = false_s = false_a = 0
        for img, boxes in held:
            (fs, xs), (fa, xa) = _reads(shipped, img, boxes), _reads(adapted, img, boxes)
            lost += len(fs - fa)
            found_s, found_a, false_s, false_a = found_s + len(fs), found_a + len(fa), false_s + xs, false_a + xa
        report["held_back"] = {"photos": len(held), "dice": sum(len(b) for _, b in held), "found": found_a,
                               "found_shipped": found_s, "lost": lost, "false": false_a, "false_shipped": false_s}
        if lost or false_a > false_s:
            report["reason"] = (f"on the held-back photos the adapted detector lost {lost} dice the shipped one finds and "
                                f"read {false_a} boxes that are no die (shipped: {false_s}): not adopted")
        else:
            out.write_bytes(candidate.read_bytes())
            report["adopted"] = True
    report["seconds"] = round(time.perf_counter() - t0, 2)
    return report
