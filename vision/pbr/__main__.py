"""CLI of the Blender dice renderer (run it with the bpy virtual environment's Python).

    python -m vision.pbr render --seed S --count N [--start K] --out DIR
                                [--size 640x480|1280x960|mixed] [--hard] [--samples 8] [--threads 1]

Writes ``DIR/domain.json`` first, then ``DIR/NNNNN.jpg`` and, after it, ``DIR/NNNNN.json`` per scene
(NNNNN = the scene index).  Scenes whose .json exists are skipped, so a stopped run resumes.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import geometry as g


def _render(args: argparse.Namespace) -> int:
    from . import scene   # imports bpy: only here

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    domain = {"domain": "pbr", "renderer": f"blender-cycles {scene.bpy_version()}", "seed": args.seed,
              "hard": bool(args.hard), "size": args.size, "samples": args.samples,
              "denoiser": "openimagedenoise" if scene.denoiser_available() else "none"}
    (out / "domain.json").write_text(json.dumps(domain, indent=1) + "\n")
    done = 0
    for index in range(args.start, args.start + args.count):
        stem = f"{index:05d}"
        if (out / f"{stem}.json").exists():
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        s = g.sample_scene(args.seed, index, hard=args.hard, size=args.size)
        jpg = out / f"{stem}.jpg"
        truths, info = scene.render_scene(s, jpg, samples=args.samples, threads=args.threads,
                                          verify=args.verify)
        record = {
            "image": jpg.name,
            "source": f"vision.pbr seed {args.seed} index {index} hard {bool(args.hard)} "
                      f"size {s['size']} samples {args.samples}",
            "width": s["width"], "height": s["height"], "dice": truths,
        }
        tmp = out / f"{stem}.json.tmp"
        tmp.write_text(json.dumps(record, indent=1) + "\n")
        tmp.replace(out / f"{stem}.json")
        done += 1
        extra = "".join(f" {k} {v}" for k, v in info.items())
        print(f"{stem} {s['size']} dice {len(truths)}/{len(s['dice'])} "
              f"{time.perf_counter() - t0:.1f} s (cpu {time.process_time() - c0:.1f} s){extra}", flush=True)
    print(f"done: {done} rendered into {out}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.pbr", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="render a domain directory of dice scenes")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--out", required=True)
    r.add_argument("--size", default="640x480", choices=["640x480", "1280x960", "mixed"])
    r.add_argument("--hard", action="store_true",
                   help="steeper views (45-65 degrees), more touching and partly hidden dice")
    r.add_argument("--samples", type=int, default=8,
                   help="most samples per pixel (adaptive sampling stops early; then denoised)")
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--verify", action="store_true",
                   help="also compare the projection with bpy_extras.world_to_camera_view")
    args = ap.parse_args(argv)
    if args.command == "render":
        return _render(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
