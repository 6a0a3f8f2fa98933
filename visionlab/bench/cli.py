"""The benchmark's command line: ``python -m visionlab.bench`` (and ``python -m vision bench``,
which hands off to it) with the options and the output of the benchmark in ``visionlab.bench``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from vision.cli import CliError, ReaderFactory, add_common_options, default_reader_factory

from .large import (LARGE_DEFAULT_COUNT, LARGE_DOMAIN, LARGE_RANDOM_DOMAIN, LARGE_SEED, bench_large, bench_large_speed,
                    bench_real_mosaics, format_by_size)
from .report import format_domains, format_table
from .sets import (DEFAULT_COUNT, DEFAULT_REAL, DEFAULT_SIZES, DOMAIN_ROOT, HELD_OUT_SEED, SYNTH_RANDOM,
                   bench_domain_dir, bench_real, bench_synth_random, bench_synthetic, domain_dirs, real_splits,
                   trained_domains, was_trained_on)
from .scoring import reader_threshold
from .speed import DEFAULT_SPEED_RUNS, bench_awkward, bench_speed, dice_count, model_size


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m visionlab.bench")
    p.add_argument("--synthetic-count", type=int, default=None, help="synthetic scenes to render (default 300)")
    p.add_argument("--seed", type=int, default=None, help="seed of the held-out synthetic set (default 424242)")
    p.add_argument("--sizes", default=None, help="synthetic image sizes: webcam (default), vga, mixed, phone")
    p.add_argument("--real", type=Path, default=None, help="real-dice dataset folder (default ../shared/datasets/real-dice)")
    p.add_argument("--no-real", action="store_true", help="skip the real photos")
    p.add_argument("--speed-runs", type=int, default=None, help="timed reads of the 640x480 8-dice scene")
    p.add_argument("--awkward", action="store_true", help="also time the awkward inputs (empty, text, huge, ...)")
    p.add_argument("--domain-dir", type=Path, action="append", default=None,
                   help="a domain directory (domain.json + NNNNN.json/.jpg) to read as well; repeatable")
    p.add_argument("--domain-root", type=Path, default=None,
                   help="read every domain directory under this folder (default data/domains)")
    p.add_argument("--domain-limit", type=int, default=None, help="read at most this many scenes per domain directory")
    p.add_argument("--no-domains", action="store_true", help="skip the per-domain figures")
    p.add_argument("--large-count", type=int, default=None,
                   help=f"photos of the large-photo domain {LARGE_DOMAIN} (12 MP, small dice; default "
                        f"{LARGE_DEFAULT_COUNT}, at most --synthetic-count; 0 skips it)")
    p.add_argument("--large-random", type=int, default=0, metavar="N",
                   help=f"also read N photos of {LARGE_RANDOM_DOMAIN} (the large-photo domain in the random style, "
                        "other games' dice in 30 %% of them; 0: no)")
    p.add_argument("--real-mosaic", type=int, default=0, metavar="K",
                   help="also read the real photos as K x K mosaics (real dice K times smaller; 0: no)")
    p.add_argument("--large-speed-runs", type=int, default=None,
                   help="timed reads of the 12 MP photo with 20 small dice (default: --speed-runs, at most 10)")
    pip = p.add_mutually_exclusive_group()
    pip.add_argument("--pip-check", dest="pip_check", action="store_true", default=None,
                     help="measure with the pip check (vision.pips) on, for comparison (off by default from v16)")
    pip.add_argument("--no-pip-check", dest="pip_check", action="store_false",
                     help="measure with the pip check off (the default from v16)")
    p.add_argument("--unsure-below", type=float, default=None,
                   help="measure with this threshold instead of the shipped one, for comparison")
    p.add_argument("--trained-on", default=None,
                   help="comma-separated domains the model was trained on (default models/training.json)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.add_argument("--adapt", action="store_true",
                   help="the table profile's learning curve per domain (visionlab/bench/adapt.py) instead of the figures")
    p.add_argument("--adapt-ks", type=int, nargs="+", default=None,
                   help="with --adapt: the numbers of confirmed photos (default 0 1 2 5 10 20)")
    p.add_argument("--adapt-steps", type=int, default=None, help="with --adapt: the learner's steps (default its own)")
    p.add_argument("--adapt-trained", action="store_true", help="with --adapt: also the domains the shipped model trained on")
    p.add_argument("--adapt-values-only", action="store_true",
                   help="with --adapt: the player confirms values only (colour null), as a table that never taps a colour")
    add_common_options(p, calibration=False)
    return p


def run_from_args(args: argparse.Namespace, factory: Callable, out: TextIO, err: TextIO) -> int:
    if getattr(args, "adapt", False):
        from .adapt import run_adapt

        return run_adapt(args, out, err)
    count = DEFAULT_COUNT if args.synthetic_count is None else args.synthetic_count
    if count < 0:
        raise CliError("error: --synthetic-count must be >= 0")
    seed = HELD_OUT_SEED if args.seed is None else args.seed
    runs = DEFAULT_SPEED_RUNS if args.speed_runs is None else args.speed_runs
    sizes = getattr(args, "sizes", None) or DEFAULT_SIZES
    large_runs = min(runs, 10) if getattr(args, "large_speed_runs", None) is None else args.large_speed_runs
    for flag, v in (("--large-count", getattr(args, "large_count", None)), ("--large-speed-runs", large_runs),
                    ("--real-mosaic", getattr(args, "real_mosaic", 0)),
                    ("--large-random", getattr(args, "large_random", 0))):
        if v is not None and v < 0:
            raise CliError(f"error: {flag} must be >= 0")
    reader = factory(args, None)  # no calibration: the benchmark measures the model
    cfg = getattr(reader, "config", None)
    pip_on = cfg is not None and cfg.pip_confirm_from is not None
    report: dict[str, Any] = {"backend": args.backend, "pip_check": pip_on, "unsure_below": reader_threshold(reader)}
    if count:
        err.write(f"rendering and reading {count} held-out synthetic scenes (seed {seed}, sizes {sizes})...\n")
        report["synthetic"] = bench_synthetic(reader, count, seed, sizes, progress=err)
    if not args.no_real:
        root = args.real or DEFAULT_REAL
        if real_splits(root):
            err.write(f"reading the real photos in {root}...\n")
            report["real"] = bench_real(reader, root)
            if getattr(args, "real_mosaic", 0):
                err.write(f"reading the real photos as {args.real_mosaic}x{args.real_mosaic} mosaics...\n")
                report["real_mosaic"] = bench_real_mosaics(reader, root, args.real_mosaic)
        else:
            report["real_skipped"] = f"no dataset at {root}"
            # said where the progress goes too: with --json the report alone would hide it (stop 62)
            err.write(f"no real photos at {root}: the real sets are skipped (--real DIR, or --no-real)\n")
    if runs:
        report["speed"] = bench_speed(reader, runs)
    if large_runs:
        report["speed_large"] = bench_large_speed(reader, large_runs)
    if getattr(args, "awkward", False):
        import tempfile

        with tempfile.TemporaryDirectory(prefix="vision-awkward-") as tmp:
            report["awkward"] = bench_awkward(reader, Path(tmp))
    domains = run_domains(args, reader, report, count, seed, sizes, err)
    report["model_size"] = model_size(args.model_dir)
    if args.json:
        out.write(json.dumps(report) + "\n")
    else:
        text = format_table(report)
        if domains:
            sizes = format_by_size(domains)
            text = format_domains(domains) + ("\n" + sizes if sizes else "") + "\n\n" + text
        sl = report.get("speed_large")
        if sl:
            text += (f"\nspeed, large photo: median {sl['median_ms']:.1f} ms ({sl['median_cpu_ms']:.1f} ms of CPU) per "
                     f"{sl['image']} with {dice_count(sl)}, decoding included, "
                     f"{sl['runs']} runs, one thread, {sl['cpu']}")
        out.write(text + "\n")
    return 0


def run_domains(args: argparse.Namespace, reader: Any, report: dict[str, Any], count: int, seed: int,
                sizes: str, err: TextIO) -> dict[str, Any]:
    """Every domain's figures in ``report["domains"]``, each marked ``trained_on`` from
    ``models/training.json`` (or ``--trained-on``)."""
    domains: dict[str, Any] = {}
    if getattr(args, "no_domains", False):
        return domains
    if count:
        err.write(f"rendering and reading {count} randomised synthetic scenes (seed {seed})...\n")
        domains[SYNTH_RANDOM] = bench_synth_random(reader, count, seed, sizes, progress=err)
    large = getattr(args, "large_count", None)
    large = min(count, LARGE_DEFAULT_COUNT) if large is None else large
    if large:
        err.write(f"rendering and reading {large} large photos with small dice (seed {LARGE_SEED})...\n")
        domains[LARGE_DOMAIN] = bench_large(reader, large, progress=err)
    if getattr(args, "large_random", 0):
        err.write(f"rendering and reading {args.large_random} large photos in the random style (seed {LARGE_SEED})...\n")
        domains[LARGE_RANDOM_DOMAIN] = bench_large(reader, args.large_random, progress=err, style="random")
    folders = dict(domain_dirs(getattr(args, "domain_root", None) or DOMAIN_ROOT))
    for extra in getattr(args, "domain_dir", None) or []:
        if not (Path(extra) / "domain.json").is_file():
            raise CliError(f"error: {extra} is not a domain directory (no domain.json)")
        folders[Path(extra).name] = Path(extra)
    for name, folder in folders.items():
        err.write(f"reading domain {name} ({folder})...\n")
        try:
            domains[name] = bench_domain_dir(reader, folder, progress=err, limit=getattr(args, "domain_limit", None))
        except ValueError as exc:
            raise CliError(f"error: {exc}") from None
    for split, s in (report.get("real") or {}).items():
        domains[f"real {split}"] = s
    domains.update(report.get("real_mosaic") or {})
    if report.get("synthetic"):
        domains["synth-classic"] = report["synthetic"]
    trained = getattr(args, "trained_on", None)
    trained = trained.split(",") if trained else trained_domains()
    for name, s in domains.items():
        # a mosaic of real photos is of the photos it is made of (large.bench_real_mosaics)
        s["trained_on"] = was_trained_on(name.split(" mosaic ")[0], trained)
    report["domains"] = domains
    report["trained_on"] = trained
    return domains


def main(
    argv: Sequence[str] | None = None,
    reader_factory: ReaderFactory | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the benchmark (``argv``: its options, without ``bench``); the exit code as
    ``python -m vision`` gives it (2 with the error on ``err`` when the model or the arguments
    are unusable)."""
    out = out or sys.stdout
    err = err or sys.stderr
    args = build_parser().parse_args(argv)
    try:
        return run_from_args(args, reader_factory or default_reader_factory, out, err)
    except CliError as exc:
        err.write(str(exc) + "\n")
        return exc.code
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
