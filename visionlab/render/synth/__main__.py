"""python -m visionlab.render.synth --seed S --count N --out DIR [--sizes mixed|webcam|phone|vga]"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from .generate import SIZE_SETS, write_dataset
from .scene import SceneOptions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m visionlab.render.synth", description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sizes", default="mixed", choices=sorted(SIZE_SETS))
    ap.add_argument("--min-dice", type=int, default=0)
    ap.add_argument("--max-dice", type=int, default=20)
    a = ap.parse_args(argv)
    if a.count < 0 or a.min_dice < 0 or a.max_dice < a.min_dice:
        ap.error("need count >= 0 and 0 <= min-dice <= max-dice")
    gt = write_dataset(a.out, a.seed, a.count, a.sizes,
                       replace(SceneOptions(), min_dice=a.min_dice, max_dice=a.max_dice))
    print(f"wrote {a.count} images and {gt}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
