"""CLI of the LuxCore dice renderer (run it with the Python of the environment that has ``pyluxcore``).

    python -m visionlab.render.luxcore render --seed S --count N [--start K] --out DIR
                                [--size 640x480|1280x960|640x640|480x640|mixed] [--hard] [--spp 24] [--threads 1]
                                [--table T [--pip-style dimple|print|engraved|ring]] [--far]

``--table T``: every scene is a photo of one table (``geometry.sample_table(T)``: one box of dice in
other shades of the five colours, one table top, one room light, one phone), as a player's photos
are; without it every scene is a new table, new dice and a new light. ``--pip-style`` gives the
table's dice that pip style (the rest of the table as drawn from T); "engraved": unpainted pips.
``--far``: photos of the whole table from standing height (2016x1512, 10-20 dice of 30-110 px,
0-25 degrees off vertical; ``--size`` and ``--hard``'s view are ignored): small dice in a large
photo.

Writes ``DIR/domain.json`` first, then ``DIR/NNNNN.jpg`` and, after it, ``DIR/NNNNN.json`` per scene
(NNNNN = the scene index), the domain-directory format of docs/vision-pbr.md.  Scenes whose .json
exists are skipped, so a stopped run resumes.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys

from visionlab.render.domaindir import add_path_tracer_options, render_main, render_sampled

from . import geometry as g


def _render(args: argparse.Namespace) -> int:
    from . import render   # imports pyluxcore: only here

    sample, name = g.sample_scene, "lux"
    if args.table is not None:
        table = g.sample_table(args.table, hard=args.hard, pip_style=args.pip_style)
        sample, name = functools.partial(g.sample_scene, table=table), f"lux-table-{args.table}"
    elif args.pip_style is not None:
        raise SystemExit("--pip-style needs --table")
    if args.far:
        sample, name = functools.partial(sample, far=True), f"{name}-far"
    return render_sampled(args, name, f"luxcorerender {render.luxcore_version()} PATHCPU", sample,
                          lambda scene, jpg: render.render_scene(scene, jpg, spp=args.spp, threads=args.threads))


def _options(r: argparse.ArgumentParser) -> None:
    add_path_tracer_options(r, default_spp=24)
    r.add_argument("--table", type=int, default=None, metavar="T",
                   help="every scene a photo of one table (its dice, top, light and phone drawn from T)")
    r.add_argument("--pip-style", choices=g.TABLE_PIP_STYLES, default=None,
                   help="with --table: the table's dice have this pip style (engraved: unpainted pips)")
    r.add_argument("--far", action="store_true",
                   help="the whole table from standing height: 2016x1512, 10-20 dice of 30-110 px")


def main(argv: list[str] | None = None) -> int:
    return render_main(argv, "python -m visionlab.render.luxcore", __doc__.splitlines()[0],
                       "steeper views (40-66 degrees), more and touching dice", _options, _render)


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)   # pyluxcore 2.11's wheel crashes while the interpreter shuts down; the work is on disk
