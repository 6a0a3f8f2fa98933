"""A training cache from domain directories (scenes rendered elsewhere, e.g. by ``visionlab.render.blender``).

A domain directory holds ``domain.json`` and one ``NNNNN.json`` per scene beside its image
(``visionlab.bench.load_domain_dir``). ``build_domain_cache`` turns one or more of them into the
same cache layout as ``visionlab.train.data.build_cache`` (letterboxed detector images and boxes;
64x64 classifier crops with labels), so the detector and classifier trainers take it as they
take a cache of our own renderer. Per scene the crops are those of ``render_sample`` (one
jittered crop per die, random background crops, and, with ``negatives_from``, the detector's
proposals away from every die as negatives) plus, with a detector, one crop cut on the
detector's own box of each die it finds (the crops the reader will classify).
"""
from __future__ import annotations

from multiprocessing import get_context
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from visionlab.bench import load_domain_dir
from vision.model import crop_for_classifier

from . import data
from .data import CONTEXT, CROP, label_detector_box, render_sample


def _truths(dice) -> list[SimpleNamespace]:
    return [SimpleNamespace(box=t.box, value=t.value, colour=t.colour or "other", partial=t.partial,
                            top_visible=1.0 if not t.partial else 0.0) for t in dice]


def domain_sample(path: Path, dice, seed: int, index: int):
    """One scene of a domain directory -> the tuple of ``render_sample``."""
    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"unreadable image {path}")
    truths = _truths(dice)
    canvas, boxes, crops, values, colours, dies = render_sample(seed, index, image=(img, truths, {}))
    if data._DETECTOR is not None:
        extra, ev, ec = [], [], []
        rng = np.random.default_rng([seed, index, 11])
        for b, _score in data._DETECTOR.detect(img):
            lab = label_detector_box(b, truths)
            if lab is None or lab[2] == 0:
                continue  # negatives are in render_sample already
            extra.append(crop_for_classifier(img, data._jitter_box(rng, b, 0.03, (0.95, 1.05)), CROP, CONTEXT))
            ev.append(lab[0])
            ec.append(lab[1])
        if extra:
            crops = np.concatenate([crops, np.stack(extra)])
            values = np.concatenate([values, np.array(ev, np.int8)])
            colours = np.concatenate([colours, np.array(ec, np.int8)])
            dies = np.concatenate([dies, np.ones(len(extra), np.int8)])
    return canvas, boxes, crops, values, colours, dies


def _work(job):
    cv2.setNumThreads(1)
    seed, items = job
    return [domain_sample(p, dice, seed, i) for i, p, dice in items]


def build_domain_cache(out: Path, sources: list[Path], workers: int = 1, negatives_from: Path | None = None,
                       limit: int | None = None, seed: int = 0, log=print) -> int:
    """Every scene of ``sources`` (domain directories; ``limit``: at most this many per source)
    into a cache at ``out``. Returns the number of scenes."""
    items = []
    for src in sources:
        _info, scenes = load_domain_dir(Path(src))
        scenes = scenes[:limit] if limit else scenes
        items += [(path, dice) for path, dice in scenes]
    if not items:
        raise ValueError("no scenes in " + ", ".join(map(str, sources)))
    count = len(items)
    chunk = 25
    jobs = [(seed, [(i, items[i][0], items[i][1]) for i in range(lo, min(count, lo + chunk))])
            for lo in range(0, count, chunk)]
    with get_context("spawn").Pool(workers, initializer=data._set_detector, initargs=(negatives_from,)) as pool:
        data.write_cache(out, count, pool.imap(_work, jobs),
                         f"domains={[str(s) for s in sources]} scenes={count} limit={limit} seed={seed} "
                         f"negatives_from={negatives_from}", log=log)
    return count
