"""How long the table profile's learning takes (issue 38: <= 30 s for 10 photos on one core).

    python benchmarks/vision_learn.py [--photos 10] [--domain DIR] [--keep DIR] [--json]

Renders ``--photos`` photos of another table's dice colours (``visionlab.bench.palette``, seed
``SEED``: our renderer, the five colours in another palette, 640x480) into a temporary folder, writes
their labels file (every wholly framed die with its box, value and colour: a player's
confirmations), and runs ``python -m vision learn --profile TMP LABELS.jsonl`` twice on a FRESH profile,
pinned to one CPU (``taskset -c 0`` where it exists), as the app and the bench run it:

1. *first learn*: no replay cache yet (the learner renders its replay crops once, then keeps them
   in the profile), torch's import included;
2. *next learn*: the same profile after one more photo is confirmed (the replay cache is there),
   the case of every confirmation after the first.

Prints wall seconds and the CPU seconds of the child process for each (on a shared machine the
wall time also measures the neighbours), and the learner's own lines. ``--keep DIR`` leaves the
profile there, e.g. for ``benchmarks/vision_large_photo.py --profile DIR``. ``--domain DIR``: the
photos of a rendered domain folder instead (``NNNNN.jpg`` + ``NNNNN.json``, e.g. a LuxCore table of
docs/vision-lux.md), in their order: a table whose dice the shipped detector misses also trains the
detector (``visionlearn.detector``), the learn's longest case. No assertion.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SEED = 385003  # a palette seed no curve or choice used (bench --adapt reads 385001, the learner's steps 385002)


def labels_for(folder: Path, first: int, n: int) -> list[dict]:
    lines = []
    for i in range(first, first + n):
        js = json.loads((folder / f"{i:05d}.json").read_text())
        dice = [{"box": d["box"], "value": d["value"], "colour": d["colour"]} for d in js["dice"] if not d["partial"]]
        lines.append({"image": str((folder / js["image"]).resolve()), "dice": dice})
    return lines


def learn_once(profile: Path, labels: list[dict], work: Path, tag: str) -> dict:
    lab = work / f"{tag}.jsonl"
    lab.write_text("".join(json.dumps(x) + "\n" for x in labels))
    cmd = [sys.executable, "-m", "vision", "learn", "--profile", str(profile), str(lab)]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    env = dict(os.environ, PYTHONPATH=str(REPO) + (os.pathsep + os.environ["PYTHONPATH"]
                                                   if os.environ.get("PYTHONPATH") else ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"vision learn failed (exit {proc.returncode}): {proc.stderr.strip()[-800:]}")
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "dice": sum(len(x["dice"]) for x in labels),
            "photos": len(labels), "output": proc.stdout.strip()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/vision_learn.py")
    p.add_argument("--photos", type=int, default=10, help="photos confirmed before the first learn (default 10)")
    p.add_argument("--keep", type=Path, default=None, help="keep the profile in this folder (must not exist)")
    p.add_argument("--domain", type=Path, default=None, help="a rendered domain folder's photos instead of the palette's")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.photos < 1:
        p.error("--photos must be >= 1")
    if args.keep is not None and args.keep.exists():
        p.error(f"{args.keep} exists; --keep wants a new folder")
    if args.domain is not None and not (args.domain / f"{args.photos:05d}.json").is_file():
        p.error(f"{args.domain}: not a rendered domain folder of {args.photos + 1} photos or more")
    work = Path(tempfile.mkdtemp(prefix="vision-learn-bench-"))
    try:
        photos = args.domain
        if photos is None:
            from visionlab.bench.palette import render

            photos = work / "photos"
            render(photos, SEED, args.photos + 1)
        profile = args.keep or work / "profile"
        first = learn_once(profile, labels_for(photos, 0, args.photos), work, "first")
        nxt = learn_once(profile, labels_for(photos, args.photos, 1), work, "next")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figures = {"first": first, "next": nxt, "pinned": bool(shutil.which("taskset")),
               "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}
    if args.json:
        print(json.dumps(figures))
        return 0
    for name, f in (("first learn (fresh profile, no replay cache)", first),
                    ("next learn (one more photo, cache kept)", nxt)):
        print(f"{name}: {f['photos']} photos added ({f['dice']} dice): {f['wall_s']} s wall, {f['cpu_s']} s CPU")
        print("  " + f["output"].replace("\n", "\n  "))
    la = figures["load_average"]
    print(f"pinned to one CPU: {'yes' if figures['pinned'] else 'no'}; machine load average "
          f"{'-' if la is None else ', '.join(f'{v:.1f}' for v in la)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
