"""CLI of the Mitsuba dice renderer (run it with the Python of the environment that has ``mitsuba``).

    python -m visionlab.render.mitsuba render --seed S --count N [--start K] --out DIR
                                [--size 640x480|1280x960|640x640|480x640|mixed] [--hard] [--spp 32] [--threads 1]

Writes ``DIR/domain.json`` first, then ``DIR/NNNNN.jpg`` and, after it, ``DIR/NNNNN.json`` per scene
(NNNNN = the scene index), the domain-directory format of docs/vision-pbr.md.  Scenes whose .json
exists are skipped, so a stopped run resumes.
"""
from __future__ import annotations

import argparse
import sys

from visionlab.render.domaindir import add_path_tracer_options, render_main, render_sampled

from . import geometry as g


def _render(args: argparse.Namespace) -> int:
    from . import render   # imports mitsuba: only here

    render.set_threads(args.threads)
    return render_sampled(args, "mts", f"mitsuba {render.mitsuba_version()} scalar_rgb path tracer",
                          g.sample_scene, lambda scene, jpg: render.render_scene(scene, jpg, spp=args.spp))


def _options(r: argparse.ArgumentParser) -> None:
    add_path_tracer_options(r, default_spp=32)


def main(argv: list[str] | None = None) -> int:
    return render_main(argv, "python -m visionlab.render.mitsuba", __doc__.splitlines()[0],
                       "steeper views (40-65 degrees), more and touching dice", _options, _render)


if __name__ == "__main__":
    sys.exit(main())
