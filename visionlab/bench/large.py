"""Large photos with small dice (issue 38 item 6): a seeded domain of phone-sized renders, recall and
hands-free by die size in pixels for every domain with boxes, and the 12-megapixel speed figure.

The domain ``synth-large-12mp``: scene ``i`` of seed ``LARGE_SEED`` comes from
``default_rng([LARGE_SEED, i])`` and ``visionlab.render.synth.render_scene`` at a phone size
(4032x3024, 3024x4032 or 4000x3000), 12 to 20 game dice whose whole-die boxes measure about 90 to
220 px (the maintainers' blue-dice photos: 100 to 210 px across, 3 to 5 % of the photo's width),
camera from straight above to 45 degrees, the renderer's tables (wood, cloth, board, plain) and its
pip-less distractor cubes; read as JPEG bytes (quality 90), as a phone photo is. Nothing is stored:
the scenes are rendered when the bench runs (about 6 s each on one core).

Die size = the longer side of the whole die's box in original-image pixels (what a person measures
"across" on the photo); bins ``SIZE_BINS``. ``scoring.score_synthetic_image`` counts every scored
die that has a box into ``Tally.by_size`` (summary key ``by_size``) (every synthetic and domain set; the real photos' labels are
pip-pattern centres, so they have none).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace
from typing import Any, Sequence, TextIO

import cv2
import numpy as np

LARGE_SEED = 383940          # not a training or tuning seed (docs/vision-model.md, models/training.json)
LARGE_DOMAIN = "synth-large-12mp"
LARGE_RANDOM_DOMAIN = "synth-large-12mp-random"   # the same photos' settings in the random style (stop 47)
LARGE_DEFAULT_COUNT = 12     # scenes read by default (fewer when --synthetic-count is smaller)
LARGE_SIZES = ((4032, 3024), (4032, 3024), (3024, 4032), (4000, 3000))
#: the die side as a share of the photo's long side: boxes of about 90..220 px at 4032 (a box is
#: larger than the die's side by its turn and, seen at a slant, its side faces)
LARGE_DIE_SHARE = (0.0155, 0.036)
SIZE_BINS = (80, 120, 160, 220)   # px; bins "<80", "80-120", "120-160", "160-220", ">=220"
SIZE_PREFIX = "die size "
SPEED_SEED = 383941          # the 12 MP speed photo with 20 dice


def size_label(box: Sequence[float]) -> str:
    """The size bin of a whole-die box (x, y, w, h): its longer side in pixels."""
    side = max(float(box[2]), float(box[3]))
    lo = None
    for edge in SIZE_BINS:
        if side < edge:
            return f"{SIZE_PREFIX}<{edge} px" if lo is None else f"{SIZE_PREFIX}{lo}-{edge} px"
        lo = edge
    return f"{SIZE_PREFIX}>={SIZE_BINS[-1]} px"


def size_labels() -> list[str]:
    """Every bin's label, smallest first."""
    edges = [0.0, *SIZE_BINS]
    return [size_label((0, 0, e, e)) for e in edges]


def large_scene(seed: int, index: int, min_dice: int = 12, max_dice: int = 20,
                size: tuple[int, int] | None = None,
                die_share: tuple[float, float] = LARGE_DIE_SHARE, style: str = "classic",
                distractor_rate: float | None = None) -> tuple[np.ndarray, list[Any]]:
    """Scene ``index`` of the large-photo domain ``seed``: (BGR image, ground truth); ``size`` and
    ``die_share`` (the die's side as a share of the long side) override the domain's. ``style``
    "random": the renderer's random style with other games' dice in 30 % of the scenes (its
    default share; the classic domain has none), as docs/vision.md's "random style at phone sizes"
    figures; ``distractor_rate``: the chance of pip-less cubes (default the renderer's)."""
    from visionlab.render.synth import SceneOptions, render_scene

    rng = np.random.default_rng([seed, index])
    w, h = size or LARGE_SIZES[int(rng.integers(len(LARGE_SIZES)))]
    opts = replace(SceneOptions(), width=w, height=h, min_dice=min_dice, max_dice=max_dice,
                   die_px=die_share, other_share=0.0, steep_share=0.0, touching_rate=0.1)
    if style == "random":
        opts = replace(opts, style="random", other_share=SceneOptions().other_share)
    elif style != "classic":
        raise ValueError(f"style must be 'classic' or 'random', not {style!r}")
    if distractor_rate is not None:
        opts = replace(opts, distractor_rate=distractor_rate)
    return render_scene(rng, opts)


def jpeg_bytes(image: np.ndarray, quality: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the scene as JPEG")
    return buf.tobytes()


def bench_large(reader: Any, count: int, seed: int = LARGE_SEED, progress: TextIO | None = None,
                style: str = "classic") -> dict[str, Any]:
    """The large-photo domain's figures (the domain matching, ``match_by_centre_distance``);
    ``style`` "random": the domain ``LARGE_RANDOM_DOMAIN`` (``large_scene``)."""
    from .scoring import match_by_centre_distance
    from .sets import _tally_scenes

    name = LARGE_DOMAIN if style == "classic" else LARGE_RANDOM_DOMAIN

    def scenes():
        for i in range(count):
            img, truths = large_scene(seed, i, style=style)
            yield jpeg_bytes(img), truths, f"large seed {seed} scene {i}"
            if progress is not None:
                progress.write(f"  {name} {i + 1}/{count}\n")
                progress.flush()

    tally = _tally_scenes(reader, scenes(), count, name, match_by_centre_distance, None)
    out = tally.summary(with_colour=True)
    out.update({"source": f"vision.synth{' style random' if style == 'random' else ''} at phone sizes, "
                          f"dice of about 90-220 px, seed {seed}"})
    return out


def by_size(summary: dict[str, Any]) -> list[tuple[str, int, float | None]]:
    """[(bin label, dice, recall)] of a set's summary, smallest bin first (bins with dice only)."""
    groups = summary.get("by_size") or {}
    return [(label, groups[label]["dice"], groups[label]["recall"]) for label in size_labels()
            if label in groups and groups[label]["dice"]]


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def format_by_size(domains: dict[str, Any]) -> str:
    """Two lines per domain with boxes: recall, then hands-free (of its game dice), in each die-size bin."""
    lines = []
    for name in sorted(domains, key=lambda n: (domains[n].get("trained_on", False), n)):
        rows = by_size(domains[name])
        if not rows:
            continue
        groups = domains[name]["by_size"]
        cells = "  ".join(f"{label[len(SIZE_PREFIX):]}: {_pct(r)} ({n})" for label, n, r in rows)
        lines.append(f"recall by die size, {name}: {cells}")
        cells = "  ".join(f"{label[len(SIZE_PREFIX):]}: {_pct(groups[label].get('hands_free'))}"
                          for label, _, _ in rows)
        lines.append(f"hands-free by die size, {name}: {cells}")
    return "\n".join(lines)


def bench_large_speed(reader: Any, runs: int, dice: int = 20) -> dict[str, Any]:
    """Median ms of ``reader.read`` on a 4032x3024 JPEG (bytes in: decoding included) with
    ``dice`` dice of about 90-220 px, on one core (``speed.one_core``)."""
    from .speed import one_core, whole_dice

    img, truths = large_scene(SPEED_SEED, 0, dice, dice, size=(4032, 3024))
    data = jpeg_bytes(img)
    with one_core() as pinning:
        for _ in range(2):
            reader.read(data)
        walls, cpus = [], []
        found = 0
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            result = reader.read(data)
            walls.append((time.perf_counter() - t0) * 1000.0)
            cpus.append((time.process_time() - c0) * 1000.0)
            found = len(result.dice)
    return {"image": "4032x3024 JPEG, synthetic", "dice_in_scene": len(truths),
            "whole_dice_in_scene": whole_dice(truths), "dice_read": found,
            "runs": runs, "median_ms": round(statistics.median(walls), 1),
            "median_cpu_ms": round(statistics.median(cpus), 1), "cpu": pinning}


# ------------------------------------------------------------------------------------------
# Real photos made small: mosaics of the real-dice photos (``--real-mosaic K``)
# ------------------------------------------------------------------------------------------

def real_mosaics(pairs: Sequence[tuple[Any, Any]], k: int, quality: int = 92):
    """Yield (JPEG bytes, labels [(value, cx, cy)] in mosaic pixels, name) for each ``k`` x ``k``
    mosaic of consecutive photos of ``pairs`` ([(image path, YOLO label path)]): real dice shown
    ``k`` times smaller to the first pass (a 4x4 mosaic of 640x480 photos is 2560x1920). Photos
    of another size than the first readable one are skipped; a last incomplete mosaic is left out."""
    from .sets import read_yolo_labels

    size = None
    batch: list[tuple[np.ndarray, list[tuple[int, float, float]], str]] = []
    for img_path, label_path in pairs:
        img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        size = size or img.shape[:2]
        if img.shape[:2] != size:
            continue
        h, w = size
        batch.append((img, read_yolo_labels(label_path, w, h), str(getattr(img_path, "name", img_path))))
        if len(batch) == k * k:
            canvas = np.zeros((h * k, w * k, 3), np.uint8)
            labels = []
            for q, (im, lab, _) in enumerate(batch):
                r, c = divmod(q, k)
                canvas[r * h:(r + 1) * h, c * w:(c + 1) * w] = im
                labels += [(v, cx + c * w, cy + r * h) for v, cx, cy in lab]
            yield jpeg_bytes(canvas, quality), labels, f"mosaic of {batch[0][2]}..{batch[-1][2]}"
            batch = []


def bench_real_mosaics(reader: Any, root: Any, k: int) -> dict[str, Any]:
    """{"real SPLIT mosaic KxK": figures} for every split of the real-dice dataset under ``root``
    (value only, matched by centre as the real photos are)."""
    from .scoring import Tally, reader_threshold, score_real_image
    from .sets import real_splits

    out: dict[str, Any] = {}
    for split, pairs in real_splits(root).items():
        tally = Tally(unsure_below=reader_threshold(reader))
        for data, labels, name in real_mosaics(pairs, k):
            result = reader.read(data)
            if result.error is not None:
                tally.failed_images += 1
                tally.add_image(False)
                continue
            tally.ms.append(result.ms)
            score_real_image(tally, result.dice, labels, name=name)
        if tally.images:
            out[f"real {split} mosaic {k}x{k}"] = tally.summary(with_colour=False)
    return out
