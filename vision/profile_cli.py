"""``python -m vision learn`` and ``python -m vision profile`` (docs/vision.md, "The table profile").

    python -m vision learn [--profile DIR] LABELS.jsonl [--no-learn] [--seed N] [--steps N]
    python -m vision profile show | export FILE.zip | import FILE.zip | clear  [--profile DIR]

``learn`` checks the whole labels file first (a bad line, an unreadable image, a box outside its
image: exit 2, the profile unchanged), adds the confirmed dice to the profile (runtime code, this
module), then runs the learner as another process, ``python -m visionlearn --profile DIR`` (torch,
the optional ``learn`` extra; the runtime never imports it), and says what it learned and how
long it took. Exit codes: 0 learned (or ``--no-learn``: dice kept); 2 unusable input or profile,
nothing changed; 3 the dice were kept but the ``learn`` extra is not installed (reads go on with
the last good model); 1 the learner failed (the dice were kept, the last good model stays); 2
also when the learner finds nothing to learn (no confirmed die in the profile).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

from vision.cli import CliError

EXIT_NO_EXTRA = 3  # visionlearn's exit code when torch (the learn extra) is missing

__all__ = ["EXIT_NO_EXTRA", "add_learn_parsers", "cmd_learn", "cmd_profile", "run_learner"]


def add_learn_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("learn", help="add confirmed dice to the table profile and adapt the reader to them")
    p.add_argument("labels", type=Path, help="JSON lines: {\"image\": PATH, \"dice\": [{\"box\", \"value\", \"colour\"}]}")
    p.add_argument("--profile", type=Path, default=None, help="table profile folder (default: your own profile)")
    p.add_argument("--no-learn", action="store_true", help="only add the dice to the profile")
    p.add_argument("--seed", type=int, default=None, help="the learner's seed (default: the learner's)")
    p.add_argument("--steps", type=int, default=None, help="the learner's training steps (default: the learner's)")
    p.add_argument("--cache", type=Path, default=None, help="the learner's replay cache folder (default: in the profile)")

    p = sub.add_parser("profile", help="show, export, import or clear the table profile")
    p.add_argument("action", choices=["show", "export", "import", "clear"])
    p.add_argument("file", nargs="?", type=Path, help="the zip file (export, import)")
    p.add_argument("--profile", type=Path, default=None, help="table profile folder (default: your own profile)")


def _proposals():
    """(the shipped detector's candidate boxes that the reader would classify, in working pixels;
    whether the shipped classifier finds each of the boxes it is given (those at the photo's border) a
    die, ``CUT_DIE_FROM``), or (None, None)
    when the shipped model cannot be loaded (the dice are still added)."""
    from vision.model import DiceModel, ModelConfig
    from vision.profile import CUT_DIE_FROM
    from vision.runtime import create_runtime

    try:
        cfg = ModelConfig()
        det = DiceModel.from_files(create_runtime, config=cfg)
    except Exception:  # noqa: BLE001 - no negatives without a model; the dice still count
        return None, None
    floor = cfg.gate

    def looks_like_a_die(image, boxes):
        return [bool(p >= CUT_DIE_FROM) for p in det.classify(image, boxes)[2]]

    return ((lambda image: [b for b, peak in det.detect(image) if peak >= floor]),
            None if CUT_DIE_FROM is None else looks_like_a_die)


def run_learner(profile: Path, out: TextIO, err: TextIO, extra: list[str] | None = None) -> int:
    """``python -m visionlearn --profile DIR ...`` as a child process (its lines passed on)."""
    cmd = [sys.executable, "-m", "visionlearn", "--profile", str(profile), *(extra or [])]
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out.write(proc.stdout)
    err.write(proc.stderr)
    return proc.returncode


def cmd_learn(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from vision.labels import LabelsError, parse_labels
    from vision.profile import ProfileError, TableProfile

    start = time.perf_counter()
    try:
        photos = parse_labels(args.labels)
    except LabelsError as exc:
        raise CliError(f"error: {exc}; nothing was added") from None
    profile = TableProfile(args.profile)
    try:
        proposals, looks_like_a_die = _proposals()
        added = profile.add_photos(photos, proposals=proposals, derived=True, looks_like_a_die=looks_like_a_die)
    except (ProfileError, LabelsError) as exc:
        raise CliError(f"error: {exc}; nothing was added") from None
    total = profile.dice()
    out.write(f"profile {profile.path}: added {added['dice']} dice of {added['photos']} photos"
              + (f" and {added['negatives']} boxes that are not dice" if added["negatives"] else "")
              + (f" ({added['skipped']} photos already there or without dice)" if added["skipped"] else "")
              + f"; it holds {sum(d.die for d in total)} dice of {len({d.photo for d in total})} photos\n")
    out.flush()
    if args.no_learn:
        return 0
    extra = []
    for opt in ("seed", "steps", "cache"):
        if getattr(args, opt) is not None:
            extra += [f"--{opt}", str(getattr(args, opt))]
    code = run_learner(profile.path, out, err, extra)
    secs = time.perf_counter() - start
    if code == EXIT_NO_EXTRA:
        err.write("the dice are kept in the profile; reads go on with the last good model. Learning needs the "
                  "optional 'learn' extra: pip install 'encyclopedia-companion[learn]'\n")
        return EXIT_NO_EXTRA
    if code == 2:
        err.write("nothing was learned; reads go on with the last good model\n")
        return 2
    if code != 0:
        err.write(f"learning failed (exit {code}); the dice are kept and reads go on with the last good model\n")
        return 1
    out.write(f"done in {secs:.1f} s (adding and learning)\n")
    return 0


def cmd_profile(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from vision.profile import ProfileError, TableProfile

    profile = TableProfile(args.profile)
    try:
        if args.action == "show":
            if args.file is not None:
                raise CliError("error: show takes no file")
            out.write(json.dumps(profile.summary(), indent=1) + "\n")
            return 0
        if args.action == "clear":
            if args.file is not None:
                raise CliError("error: clear takes no file")
            out.write(("cleared " if profile.clear() else "no table profile at ") + f"{profile.path}\n")
            return 0
        if args.file is None:
            raise CliError(f"error: {args.action} needs the zip file")
        if args.action == "export":
            out.write(f"exported {profile.path} to {profile.export(args.file)}\n")
            return 0
        got = profile.import_from(args.file)
        out.write(f"imported {got['dice']} dice of {got['photos']} photos into {profile.path}\n")
        return 0
    except ProfileError as exc:
        raise CliError(f"error: {exc}") from None
