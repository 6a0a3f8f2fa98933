"""A domain of another table's dice colours, for ``bench --adapt``: our renderer (classic style,
``visionlab.render.synth``) with the five game colours drawn in ANOTHER palette (maroon red,
orange yellow, pink purple, teal blue, olive green), so the shipped classifier, trained on the
renderer's nominal colours, misreads colours it never saw while values, light and tables stay
familiar. It stands in for the issue's real coloured dice (colour 61 % with v21), which are not on
this machine; it is marked "trained on" (our renderer) by the ``synth-*`` prefix.

    python -m visionlab.bench.palette --seed 385001 --count 80 --out data/domains/synth-palette-385001
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from visionlab.render.synth import scene
from visionlab.render.synth.generate import render_indexed

PALETTE = {  # BGR
    "red": (45, 40, 120),       # maroon
    "yellow": (30, 140, 245),   # orange
    "purple": (180, 110, 235),  # pink
    "blue": (150, 140, 20),     # teal
    "green": (50, 130, 110),    # olive
}


def render(out: Path, seed: int, count: int, sizes: str = "vga") -> int:
    out.mkdir(parents=True, exist_ok=True)
    saved = dict(scene.BODY_BGR)
    scene.BODY_BGR.update(PALETTE)
    try:
        for i in range(count):
            img, truths, _ = render_indexed(seed, i, sizes)
            cv2.imwrite(str(out / f"{i:05d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            dice = [{"colour": t.colour, "value": t.value, "box": [round(v, 2) for v in t.box],
                     "partial": bool(t.partial or t.top_visible < 0.9), "top_box": [round(v, 2) for v in t.top_box]}
                    for t in truths]
            (out / f"{i:05d}.json").write_text(json.dumps({"image": f"{i:05d}.jpg", "dice": dice}))
    finally:
        scene.BODY_BGR.clear()
        scene.BODY_BGR.update(saved)
    (out / "domain.json").write_text(json.dumps({
        "source": f"visionlab.render.synth classic style, another table's palette {PALETTE} (BGR), seed {seed}",
        "seed": seed, "count": count, "sizes": sizes}))
    return count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m visionlab.bench.palette", description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    render(a.out, a.seed, a.count)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
