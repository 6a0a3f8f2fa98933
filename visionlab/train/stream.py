"""A stream of freshly rendered training scenes (no torch: runs in worker processes).

``scene_sample(seed, index, detector)`` renders scene ``[seed, index]`` and returns everything
both networks train on, as numpy arrays:

* the detector's letterboxed input and its targets (``data.det_targets``), mirrored left-right
  for a share of the scenes;
* classifier crops: jittered crops of every die (as ``data.render_sample``), pip-less
  distractor cubes and background as negatives, and, when a detector is given, crops cut on
  that detector's own boxes as at inference (matched to the truth by IoU: >= 0.5 a die with its
  value and colour, < 0.25 a negative; between, or on a partly-out-of-frame die, no crop).

Each scene draws its own options (more dice against each other, more distractors, webcam or
training sizes; where ``StreamOptions`` gives several: style, steep views, other games' dice and
their colours) from ``default_rng([seed, index, 99])``, so a stream is reproducible from its
seed whatever the number of workers.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.model import crop_for_classifier, letterbox
from visionlab.render.synth.generate import render_indexed
from visionlab.render.synth.scene import SceneOptions

from .data import CONTEXT, CROP, DET_SIZE, STRIDE, _jitter_box, det_targets, label_detector_box, render_sample

#: crop kinds, for statistics
KIND_TRUTH, KIND_DETECTOR, KIND_NEGATIVE = 0, 1, 2


@dataclass(frozen=True)
class StreamOptions:
    mirror: float = 0.3                      # share of detector inputs mirrored left-right
    touching_rates: tuple[float, ...] = (0.15, 0.15, 0.4)   # drawn per scene
    distractor_rates: tuple[float, ...] = (0.35, 0.7)       # drawn per scene
    size_sets: tuple[str, ...] = ("train", "train", "train", "webcam")
    # drawn per scene like the rates above, but only where more than one value is given (so the
    # streams of the defaults are the streams they always were): scene style (SceneOptions.style),
    # steep-view share, chance of other games' dice, and of those dice having a game colour's body
    styles: tuple[str, ...] = ("classic",)
    steep_shares: tuple[float, ...] = (SceneOptions.steep_share,)
    other_shares: tuple[float, ...] = (SceneOptions.other_share,)
    coloured_other_rates: tuple[float, ...] = (SceneOptions.coloured_other_rate,)


def _pick(rng, values):
    return values[int(rng.integers(len(values)))] if len(values) > 1 else values[0]


def scene_setup(seed: int, index: int, opts: StreamOptions = StreamOptions()):
    """(size set, scene options, rng) that scene ``[seed, index]`` of a stream is rendered with."""
    rng = np.random.default_rng([seed, index, 99])
    base = replace(SceneOptions(), touching_rate=float(rng.choice(opts.touching_rates)),
                   distractor_rate=float(rng.choice(opts.distractor_rates)))
    sizes = str(rng.choice(opts.size_sets))
    base = replace(base, style=_pick(rng, opts.styles), steep_share=float(_pick(rng, opts.steep_shares)),
                   other_share=float(_pick(rng, opts.other_shares)),
                   coloured_other_rate=float(_pick(rng, opts.coloured_other_rates)))
    return sizes, base, rng


def scene_sample(seed: int, index: int, detector=None, opts: StreamOptions = StreamOptions(),
                 detector_targets: bool = True) -> dict:
    """One scene's training arrays (see the module docstring). ``detector``: an object with
    ``detect(image) -> [(box, score)]`` (a ``vision.model.DiceModel``), or None.
    ``detector_targets`` False leaves out the detector's input and targets (a classifier-only
    run: no letterbox, no heatmap, and a twentieth of the bytes through the workers' queue); the
    crops are the same either way."""
    sizes, base, rng = scene_setup(seed, index, opts)
    extras: dict = {}
    img, truths, _ = render_indexed(seed, index, sizes, base, extras)
    mirrored = rng.random() < opts.mirror   # drawn either way: the crops' jitter below uses rng next
    out = {}
    if detector_targets:
        canvas, lb = letterbox(img, DET_SIZE)
        boxes = np.array([lb.to_input(t.box) for t in truths], np.float32).reshape(-1, 4)
        if mirrored:
            canvas = np.ascontiguousarray(canvas[:, ::-1])
            boxes[:, 0] = DET_SIZE[0] - boxes[:, 0] - boxes[:, 2]
        gh, gw = DET_SIZE[1] // STRIDE, DET_SIZE[0] // STRIDE
        hm, ind, wh, off, mask = det_targets([boxes], gh, gw)
        out = {"image": canvas, "hm": hm[0, 0].astype(np.float16), "ind": ind[0].astype(np.int32),
               "wh": wh[0], "off": off[0], "mask": mask[0].astype(bool)}

    # truth crops, distractors and background: the cache's recipe on the same image
    _, _, c, v, co, d = render_sample(seed, index, sizes, base, image=(img, truths, extras))
    rows = [(c[k], v[k], co[k], d[k], KIND_TRUTH if d[k] else KIND_NEGATIVE) for k in range(len(c))]
    if detector is not None:
        for box, _score in detector.detect(img):
            crop = crop_for_classifier(img, _jitter_box(rng, box, 0.02, (0.97, 1.03)), CROP, CONTEXT)
            label = label_detector_box(box, truths)
            if label is not None:
                rows.append((crop, *label, KIND_DETECTOR))
    crops, values, colours, dies, kinds = zip(*rows) if rows else ((),) * 5
    return {
        **out, "dice": len(truths),
        "crops": np.stack(crops) if rows else np.zeros((0, CROP, CROP, 3), np.uint8),
        "value": np.array(values, np.int8), "colour": np.array(colours, np.int8),
        "die": np.array(dies, np.int8), "kind": np.array(kinds, np.int8),
    }
