"""Writing a domain directory (docs/vision-pbr.md, "Output"), shared by the CLIs of the benchmark
renderers (``python -m visionlab.render.blender``, ``python -m visionlab.render.mitsuba``, ``python -m visionlab.render.luxcore``).  No drawing
code: each renderer passes a function that renders one scene."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Callable, Iterable


def add_render_arguments(parser: argparse.ArgumentParser, hard_help: str) -> None:
    """The options every renderer's ``render`` command has."""
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", default="640x480", choices=["640x480", "1280x960", "640x640", "480x640", "mixed"],
                        help="image size: 640x640 is the square of many phone photos, 480x640 a phone held "
                             "upright; \"mixed\" draws 640x480 or 1280x960 per scene")
    parser.add_argument("--hard", action="store_true", help=hard_help)


def render_main(argv: list[str] | None, prog: str, description: str, hard_help: str,
                add_options: Callable[[argparse.ArgumentParser], None],
                render: Callable[[argparse.Namespace], int]) -> int:
    """A renderer's CLI: ``PROG render`` with the common options, ``add_options``' own, then
    ``render(args)``."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="render a domain directory of dice scenes")
    add_render_arguments(r, hard_help)
    add_options(r)
    return render(ap.parse_args(argv))


def render_domain(out: Path, domain: dict[str, Any], indices: Iterable[int],
                  render_one: Callable[[int, Path], tuple[dict[str, Any], str]]) -> int:
    """Write ``out/domain.json`` first, then per scene index ``NNNNN.jpg`` (by ``render_one(index,
    jpg_path) -> (record, log line)``) and, after it, ``NNNNN.json`` (the record, atomically).
    Scenes whose ``.json`` exists are skipped, so a stopped run resumes.  Returns how many were
    rendered."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "domain.json").write_text(json.dumps(domain, indent=1) + "\n")
    done = 0
    for index in indices:
        stem = f"{index:05d}"
        if (out / f"{stem}.json").exists():
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        record, line = render_one(index, out / f"{stem}.jpg")
        tmp = out / f"{stem}.json.tmp"
        tmp.write_text(json.dumps(record, indent=1) + "\n")
        tmp.replace(out / f"{stem}.json")
        done += 1
        print(f"{stem} {line} {time.perf_counter() - t0:.1f} s (cpu {time.process_time() - c0:.1f} s)", flush=True)
    print(f"done: {done} rendered into {out}", flush=True)
    return done


def add_path_tracer_options(parser: argparse.ArgumentParser, default_spp: int) -> None:
    """``--spp`` and ``--threads``, the options of the renderers that take samples per pixel."""
    parser.add_argument("--spp", type=int, default=default_spp, help="samples per pixel")
    parser.add_argument("--threads", type=int, default=1, help="render threads (1: two processes share two cores)")


def render_sampled(args: argparse.Namespace, name: str, renderer: str,
                   sample: Callable[..., dict[str, Any]],
                   render: Callable[[dict[str, Any], Path], list[dict[str, Any]]]) -> int:
    """The ``render`` command of a renderer whose scene ``index`` is ``sample(seed, index, hard=,
    size=)`` (a dict with ``size``, ``width``, ``height``, ``dice``) and whose ``render(scene,
    jpg)`` writes the picture and returns the truth of the dice in it."""
    domain = {"domain": name, "renderer": renderer, "seed": args.seed, "hard": bool(args.hard),
              "size": args.size, "spp": args.spp}

    def one(index: int, jpg: Path) -> tuple[dict[str, Any], str]:
        scene = sample(args.seed, index, hard=args.hard, size=args.size)
        truths = render(scene, jpg)
        record = {"image": jpg.name,
                  "source": f"vision.{name} seed {args.seed} index {index} hard {bool(args.hard)} "
                            f"size {scene['size']} spp {args.spp}",
                  "width": scene["width"], "height": scene["height"], "dice": truths}
        return record, f"{scene['size']} dice {len(truths)}/{len(scene['dice'])}"

    render_domain(Path(args.out), domain, range(args.start, args.start + args.count), one)
    return 0
