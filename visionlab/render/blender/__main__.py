"""CLI of the Blender dice renderer (run it with the bpy virtual environment's Python).

    python -m visionlab.render.blender render --seed S --count N [--start K] --out DIR
                                [--size 640x480|1280x960|640x640|480x640|mixed] [--hard] [--samples 8] [--threads 1]

Writes ``DIR/domain.json`` first, then ``DIR/NNNNN.jpg`` and, after it, ``DIR/NNNNN.json`` per scene
(NNNNN = the scene index).  Scenes whose .json exists are skipped, so a stopped run resumes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from visionlab.render.domaindir import render_domain, render_main

from . import geometry as g


def _render(args: argparse.Namespace) -> int:
    from . import scene   # imports bpy: only here

    domain = {"domain": "pbr", "renderer": f"blender-cycles {scene.bpy_version()}", "seed": args.seed,
              "hard": bool(args.hard), "size": args.size, "samples": args.samples,
              "denoiser": "openimagedenoise" if scene.denoiser_available() else "none"}

    def one(index: int, jpg: Path) -> tuple[dict, str]:
        s = g.sample_scene(args.seed, index, hard=args.hard, size=args.size)
        truths, info = scene.render_scene(s, jpg, samples=args.samples, threads=args.threads,
                                          verify=args.verify)
        record = {
            "image": jpg.name,
            "source": f"vision.pbr seed {args.seed} index {index} hard {bool(args.hard)} "
                      f"size {s['size']} samples {args.samples}",
            "width": s["width"], "height": s["height"], "dice": truths,
        }
        extra = "".join(f" {k} {v}" for k, v in info.items())
        return record, f"{s['size']} dice {len(truths)}/{len(s['dice'])}{extra}"

    render_domain(Path(args.out), domain, range(args.start, args.start + args.count), one)
    return 0


def _options(r: argparse.ArgumentParser) -> None:
    r.add_argument("--samples", type=int, default=8,
                   help="most samples per pixel (adaptive sampling stops early; then denoised)")
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--verify", action="store_true",
                   help="also compare the projection with bpy_extras.world_to_camera_view")


def main(argv: list[str] | None = None) -> int:
    return render_main(argv, "python -m visionlab.render.blender", __doc__.splitlines()[0],
                       "steeper views (45-65 degrees), more touching and partly hidden dice", _options, _render)


if __name__ == "__main__":
    sys.exit(main())
