"""``python -m visionlearn --profile DIR [--cache DIR] [--seed N] [--steps N] [--threads N] [--json]``

Adapts the reader to a table profile's confirmed dice (visionlearn.learn). Exit codes: 0 done
(adopted, or not adopted because it read the held-back dice worse: the last good model stays,
said on stdout); 2 nothing to learn or a broken profile; 3 the optional ``learn`` extra (torch,
onnx) is not installed; 1 an unexpected failure (the last good model stays).

``ENCYCLOPEDIA_LEARN_STEPS`` (a whole number >= 1): the steps when ``--steps`` is not given, so
that a test of the app (which starts this command itself, without options) can learn in fewer
steps than the learner's own; unset or empty: the learner's own (``learn.steps_for``). Nothing else
reads it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

EXIT_NO_EXTRA = 3
STEPS_ENV = "ENCYCLOPEDIA_LEARN_STEPS"  # the steps without --steps (tests of the app)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m visionlearn", description="Adapt the dice reader to a table profile.")
    p.add_argument("--profile", type=Path, default=None, help="table profile folder (default: your own profile)")
    p.add_argument("--cache", type=Path, default=None, help="replay cache folder (default: the profile's cache/)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=None)
    p.add_argument("--threads", type=int, default=1, help="CPU threads for training (default 1)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        sys.stderr.write(f"learning needs the optional 'learn' extra (torch, onnx): {exc}\n")
        return EXIT_NO_EXTRA
    from vision.profile import TableProfile

    from .learn import LearnError, learn

    if args.steps is None and os.environ.get(STEPS_ENV, "").strip():
        try:
            args.steps = int(os.environ[STEPS_ENV])
        except ValueError:
            sys.stderr.write(f"error: {STEPS_ENV}={os.environ[STEPS_ENV]!r} is not a whole number\n")
            return 2
    if args.steps is not None and args.steps < 1:
        sys.stderr.write("error: --steps must be at least 1\n")
        return 2
    log = (lambda m: sys.stderr.write(m + "\n")) if args.json else (lambda m: print(m, flush=True))
    try:
        report = learn(TableProfile(args.profile).path, cache_dir=args.cache, seed=args.seed,
                       steps=args.steps, threads=args.threads, log=log)
    except LearnError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    if args.json:
        print(json.dumps(report))
        return 0
    t, h = report["trained_on"], report["held_back"]
    if "train_seconds" not in report:  # nothing trained: nothing held back, or too few colours (visionlearn.learn)
        print(f"kept {t['dice']} dice of {t['photos']} photos; classifier: {report['reason']}")
        _print_detector(report)
        return 0
    print(f"learned from {t['dice']} dice of {t['photos']} photos" + (f" and {t['not_dice']} boxes that are not dice"
          if t.get("not_dice") else "") + f" ({report['steps']} steps, {report['train_seconds']:.1f} s of training, "
          f"{report['seconds']:.1f} s in all; this process used {time.process_time():.1f} s of CPU, torch's import included)")
    print(f"held back {h['dice']} dice of {h['photos']} photos: adapted {h['right']} right, shipped "
          f"{h['right_shipped']} right; sure at {report['unsure_below']}: {h['sure']} sure, {h['sure_wrong']} wrong")
    print(f"threshold: {report['threshold_rule']}")
    if "tie_why" in report:  # as many held-back dice right as the shipped one: rule W decides (visionlearn.learn)
        print(f"as many held-back dice right as the shipped one: {report['tie_why']}")
    print(f"classifier adopted: the reader uses the adapted classifier since {report['classifier_seconds']:.1f} s"
          if report["classifier_adopted"]
          else f"classifier: {report['reason']}")
    _print_detector(report)
    return 0


def _print_detector(report: dict) -> None:
    d = report.get("detector") or {}
    if "train_seconds" in d:
        h = d["held_back"]
        print(f"detector: the shipped one missed {d['missed_by_shipped']} of {d['dice']} confirmed dice of "
              f"{d['photos']} photos; trained {d['steps']} steps ({d['train_seconds']:.1f} s); held back "
              f"{h['dice']} dice of {h['photos']} photos: adapted found {h['found']} ({h['false']} boxes not a die), "
              f"shipped {h['found_shipped']} ({h['false_shipped']})")
    print(f"detector adopted: the reader uses the adapted detector since {d['switched_in_after']:.1f} s"
          if d.get("adopted") else f"detector: {d.get('reason', 'not learned')}")
    if report.get("adopted"):
        print(f"the reader now reads with the profile's model ({' and '.join(report.get('parts', []))} adapted)")


if __name__ == "__main__":
    sys.exit(main())
