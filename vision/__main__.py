"""Command line: ``python -m vision {read,live,calibrate,bench}`` (contract: docs/vision.md).

    python -m vision read IMG [IMG ...] [--json]
    python -m vision live --camera 0 | --video FILE
    python -m vision calibrate PHOTO --colours red,yellow,purple,blue,green
    python -m vision calibrate PHOTO [PHOTO ...] --colour blue
    python -m vision calibrate --show | --clear
    python -m vision learn [--profile DIR] LABELS.jsonl        (vision/profile_cli.py)
    python -m vision profile show | export F | import F | clear [--profile DIR]
    python -m vision bench [--synthetic-count N] [--seed S] [--sizes webcam|vga|mixed|phone]
                           [--real DIR | --no-real] [--speed-runs N] [--json]

``bench`` is the lab's benchmark: it hands off to ``python -m visionlab.bench`` with the same
options (``os.execv``; the runtime never imports the lab).

Common options: ``--backend auto|onnxruntime|opencv``, ``--model-dir DIR``, ``--threads N``,
``--calibration FILE`` (default: the profile's calibration), ``--no-calibration``.

Exit codes: ``read`` 0 when at least one image was read, 1 when every image failed, 2 when the
model or the arguments are unusable; ``live`` 0 at the end of the video (or Ctrl-C), 1 when a
camera stops sending frames, 2 when the source cannot be opened; ``calibrate`` 0 / 2; ``learn``
0 / 1 / 2 / 3 (vision/profile_cli.py). ``read`` and ``live`` use the table profile's adapted
model when there is one (``--profile DIR``, default the user's; ``--no-profile``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from vision.cli import (CliError, ReaderFactory, add_common_options, add_profile_options, build_reader,
                        default_reader_factory, resolve_profile)
from vision.config import DICE_COLOURS, default_calibration_path

__all__ = ["CliError", "ReaderFactory", "build_parser", "default_reader_factory", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision", description="Read Encyclopedia dice from photos and video.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("read", help="read the dice in images")
    p.add_argument("images", nargs="+", help="image files ('-' reads one image from stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per line per image")
    add_common_options(p)
    add_profile_options(p)

    p = sub.add_parser("live", help="read dice from a webcam or video whenever the scene is still")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=int, help="camera index (0 = the default camera)")
    src.add_argument("--video", help="video file")
    p.add_argument("--max-scenes", type=int, default=None, help="stop after this many scenes")
    p.add_argument("--still-seconds", type=float, default=None,
                   help="how long the scene must stay still before it is read (default from config)")
    add_common_options(p)
    add_profile_options(p)

    p = sub.add_parser("calibrate", help="learn your own dice colours under your own light")
    p.add_argument("images", nargs="*", help="photos of your dice")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--colours", help="the dice colours left to right in each photo, e.g. red,yellow,purple,blue,green")
    which.add_argument("--colour", choices=DICE_COLOURS, help="every die in the photos has this colour")
    which.add_argument("--show", action="store_true", help="print the stored calibration")
    which.add_argument("--clear", action="store_true", help="delete the stored calibration")
    p.add_argument("--fresh", action="store_true", help="forget previously calibrated colours")
    add_common_options(p, calibration=False)
    p.add_argument("--calibration", type=Path, default=None,
                   help=f"calibration file to write (default: {default_calibration_path()})")

    from vision.profile_cli import add_learn_parsers

    add_learn_parsers(sub)

    # the benchmark is the lab's (visionlab.bench): ``main`` hands ``bench ...`` off to it unparsed
    p = sub.add_parser("bench", help="accuracy and speed on held-out synthetic scenes and real photos",
                       add_help=False)
    p.add_argument("args", nargs=argparse.REMAINDER, help="the options of python -m visionlab.bench")
    return parser


# ------------------------------------------------------------------------------------------


def _load_calibration(args: argparse.Namespace, err: TextIO):
    from vision.calibration import Calibration, CalibrationError

    if getattr(args, "no_calibration", False):
        return None
    explicit = getattr(args, "calibration", None)
    path = explicit or default_calibration_path()
    try:
        return Calibration.load(path) if explicit else Calibration.load_optional(path)
    except CalibrationError as exc:
        if explicit:
            raise CliError(f"error: {exc}") from None
        err.write(f"warning: ignoring the colour calibration: {exc}\n")
        return None


def _text_line(image: str, result: Any) -> str:
    if result.error is not None:
        return f"{image}: error: {result.error}"
    if not result.dice:
        return f"{image}: no dice ({result.ms:.0f} ms)"
    parts = [f"{d.colour} {d.value}" + (f" (unsure, {d.confidence:.2f})" if d.unsure else "") for d in result.dice]
    n = len(result.dice)
    return f"{image}: {', '.join(parts)}  [{n} {'die' if n == 1 else 'dice'}, {result.ms:.0f} ms]"


def cmd_read(args: argparse.Namespace, factory: ReaderFactory, out: TextIO, err: TextIO) -> int:
    from vision.reader import ReadResult

    resolve_profile(args, err)
    reader = build_reader(args, factory, _load_calibration(args, err), err)
    failures = 0
    stdin_used = False
    for image in args.images:
        try:
            if image == "-":
                if stdin_used:
                    result = ReadResult(error="stdin was already read")
                else:
                    stdin_used = True
                    result = reader.read(sys.stdin.buffer.read())
            else:
                result = reader.read(image)
        except Exception as exc:  # never let one image stop the run; say what happened
            result = ReadResult(error=f"internal error: {type(exc).__name__}: {exc}")
        if result.error is not None:
            failures += 1
        if args.json:
            out.write(json.dumps(result.to_json(image)) + "\n")
        else:
            out.write(_text_line(image, result) + "\n")
            for w in result.warnings:
                out.write(f"  warning: {w}\n")
        out.flush()
    return 1 if failures == len(args.images) else 0


def cmd_live(args: argparse.Namespace, factory: ReaderFactory, out: TextIO, err: TextIO) -> int:
    import dataclasses

    from vision.config import DEFAULT_LIVE
    from vision.live import LiveSourceError, frames_from_capture, open_source, run_live

    config = DEFAULT_LIVE
    if args.still_seconds is not None:
        if args.still_seconds < 0:
            raise CliError("error: --still-seconds must be >= 0")
        config = dataclasses.replace(config, still_seconds=args.still_seconds)
    try:
        cap, is_file = open_source(camera=args.camera, video=args.video)
    except LiveSourceError as exc:
        raise CliError(f"error: {exc}") from None
    try:
        resolve_profile(args, err)
        reader = build_reader(args, factory, _load_calibration(args, err), err)
        source = args.video if args.video is not None else f"camera:{args.camera}"
        run_live(reader, frames_from_capture(cap, is_file, config), source, out=out, config=config,
                 max_scenes=args.max_scenes)
    except LiveSourceError as exc:
        raise CliError(f"error: {exc}", code=1) from None
    except KeyboardInterrupt:
        pass
    finally:
        cap.release()
    return 0


def cmd_calibrate(args: argparse.Namespace, factory: ReaderFactory, out: TextIO, err: TextIO) -> int:
    from vision.calibration import Calibration, CalibrationError, merge_samples, samples_from_dice

    path = args.calibration or default_calibration_path()
    if args.clear:
        if args.images:
            raise CliError("error: --clear takes no images")
        if path.exists():
            path.unlink()
            out.write(f"removed {path}\n")
        else:
            out.write(f"no calibration at {path}\n")
        return 0
    if args.show:
        try:
            cal = Calibration.load(path)
        except CalibrationError as exc:
            raise CliError(f"error: {exc}") from None
        out.write(json.dumps(cal.to_json(), indent=2) + "\n")
        return 0
    if not args.images:
        raise CliError("error: give the photos of your dice (or --show / --clear)")
    if args.colours is None and args.colour is None:
        raise CliError("error: say which colours the photos show: --colours red,yellow,... (left to right) or --colour red")
    colours = None
    if args.colours is not None:
        colours = [c.strip().lower() for c in args.colours.split(",") if c.strip()]
        bad = [c for c in colours if c not in DICE_COLOURS]
        if bad:
            raise CliError(f"error: unknown dice colour(s) {', '.join(bad)}; the colours are {', '.join(DICE_COLOURS)}")
    # the reader measures the colours; an existing calibration must not bias the new one
    reader = factory(args, None)
    parts = []
    for image in args.images:
        result = reader.read(image)
        if result.error is not None:
            raise CliError(f"error: {image}: {result.error}")
        try:
            parts.append(samples_from_dice(result.dice, colours=colours, colour=args.colour, where=image))
        except CalibrationError as exc:
            raise CliError(f"error: {exc}") from None
    new = Calibration.from_samples(merge_samples(parts))
    old = None
    if not args.fresh:
        try:
            old = Calibration.load_optional(path)
        except CalibrationError as exc:
            err.write(f"warning: replacing an unreadable calibration: {exc}\n")
    cal = old.merged_with(new) if old is not None else new
    cal.save(path)
    names = ", ".join(f"{c} ({cal.counts.get(c, 0)} sample{'s' if cal.counts.get(c, 0) != 1 else ''})" for c in cal.centroids)
    out.write(f"calibrated {', '.join(new.centroids)}; stored {names} in {path}\n")
    return 0


def cmd_bench(rest: Sequence[str], out: TextIO, err: TextIO) -> int:
    """``bench`` is the lab's benchmark: run ``python -m visionlab.bench`` with the same options in
    this process's place (the runtime never imports the lab; it does not return)."""
    for stream in (out, err, sys.stdout, sys.stderr):
        stream.flush()
    os.execv(sys.executable, [sys.executable, "-m", "visionlab.bench", *rest])
    return 2  # not reached: execv replaces the process or raises OSError


def main(
    argv: Sequence[str] | None = None,
    reader_factory: ReaderFactory | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        return cmd_bench(argv[1:], out, err)
    args = build_parser().parse_args(argv)
    factory = reader_factory or default_reader_factory
    commands = {"read": cmd_read, "live": cmd_live, "calibrate": cmd_calibrate}
    try:
        if args.command in ("learn", "profile"):
            from vision.profile_cli import cmd_learn, cmd_profile

            return (cmd_learn if args.command == "learn" else cmd_profile)(args, out, err)
        return commands[args.command](args, factory, out, err)
    except CliError as exc:
        err.write(str(exc) + "\n")
        return exc.code
    except BrokenPipeError:  # e.g. piped into `head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
