"""CLI of the LuxCore dice renderer (run it with the Python of the environment that has ``pyluxcore``).

    python -m vision.lux render --seed S --count N [--start K] --out DIR
                                [--size 640x480|1280x960|640x640|480x640|mixed] [--hard] [--spp 24] [--threads 1]

Writes ``DIR/domain.json`` first, then ``DIR/NNNNN.jpg`` and, after it, ``DIR/NNNNN.json`` per scene
(NNNNN = the scene index), the domain-directory format of docs/vision-pbr.md.  Scenes whose .json
exists are skipped, so a stopped run resumes.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from vision.domaindir import render_domain, render_main

from . import geometry as g


def _render(args: argparse.Namespace) -> int:
    from . import render   # imports pyluxcore: only here

    domain = {"domain": "lux", "renderer": f"luxcorerender {render.luxcore_version()} PATHCPU",
              "seed": args.seed, "hard": bool(args.hard), "size": args.size, "spp": args.spp}

    def one(index: int, jpg: Path) -> tuple[dict, str]:
        scene = g.sample_scene(args.seed, index, hard=args.hard, size=args.size)
        truths, _ = render.render_scene(scene, jpg, spp=args.spp, threads=args.threads)
        record = {"image": jpg.name,
                  "source": f"vision.lux seed {args.seed} index {index} hard {bool(args.hard)} "
                            f"size {scene['size']} spp {args.spp}",
                  "width": scene["width"], "height": scene["height"], "dice": truths}
        return record, f"{scene['size']} dice {len(truths)}/{len(scene['dice'])}"

    render_domain(Path(args.out), domain, range(args.start, args.start + args.count), one)
    return 0


def _options(r: argparse.ArgumentParser) -> None:
    r.add_argument("--spp", type=int, default=24, help="samples per pixel")
    r.add_argument("--threads", type=int, default=1, help="render threads (1: two processes share two cores)")


def main(argv: list[str] | None = None) -> int:
    return render_main(argv, "python -m vision.lux", __doc__.splitlines()[0],
                       "steeper views (40-66 degrees), more and touching dice", _options, _render)


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)   # pyluxcore 2.11's wheel crashes while the interpreter shuts down; the work is on disk
