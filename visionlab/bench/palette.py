"""A domain of another table's dice colours, for ``bench --adapt``: our renderer (classic style,
``visionlab.render.synth``) with the five game colours drawn in ANOTHER palette (maroon red,
orange yellow, pink purple, teal blue, olive green), so the shipped classifier, trained on the
renderer's nominal colours, misreads colours it never saw while values, light and tables stay
familiar. It stands in for the issue's real coloured dice (colour 61 % with v21), which are not on
this machine; it is marked "trained on" (our renderer) by the ``synth-*`` prefix.

    python -m visionlab.bench.palette --seed 385001 --count 80 --out data/domains/synth-palette-385001

``--pips black`` paints the game dice's pips black, ``--pips engraved`` leaves them unpainted (only
the holes' shadows show, as on many real dice); ``--nominal`` keeps the renderer's own body colours,
so that only the pips are new to the shipped reader (stop 48: a table whose values, not colours,
look wrong to it).
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


PIPS = {  # --pips: (GAME_PIP_BGR, GAME_PIP_STYLE) of visionlab.render.synth.scene
    "white": ((235, 238, 240), "flat"),
    "black": ((30, 30, 32), "flat"),
    "engraved": (None, "engraved"),
}


def render(out: Path, seed: int, count: int, sizes: str = "vga", pips: str = "white", nominal: bool = False) -> int:
    if pips not in PIPS:
        raise ValueError(f"pips must be one of {sorted(PIPS)}, not {pips!r}")
    out.mkdir(parents=True, exist_ok=True)
    saved = dict(scene.BODY_BGR), scene.GAME_PIP_BGR, scene.GAME_PIP_STYLE
    if not nominal:
        scene.BODY_BGR.update(PALETTE)
    scene.GAME_PIP_BGR, scene.GAME_PIP_STYLE = PIPS[pips]
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
        scene.BODY_BGR.update(saved[0])
        scene.GAME_PIP_BGR, scene.GAME_PIP_STYLE = saved[1], saved[2]
    colours = "the renderer's own colours" if nominal else f"another table's palette {PALETTE} (BGR)"
    (out / "domain.json").write_text(json.dumps({
        "source": f"visionlab.render.synth classic style, {colours}, {pips} pips, seed {seed}",
        "seed": seed, "count": count, "sizes": sizes, "pips": pips, "nominal_colours": nominal}))
    return count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m visionlab.bench.palette", description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--pips", choices=sorted(PIPS), default="white",
                    help="the game dice's pips: white (default), black, or engraved (unpainted)")
    ap.add_argument("--nominal", action="store_true", help="keep the renderer's own body colours")
    a = ap.parse_args(argv)
    render(a.out, a.seed, a.count, pips=a.pips, nominal=a.nominal)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
