"""Reading speed of the dice reader on one core (prints figures; no assertion).

    taskset -c 0 python benchmarks/vision_large_photo.py [--runs N] [--json] [--first-pass-only] [--profile DIR]

- a 4032x3024 JPEG (quality 90) with 20 small dice (boxes of about 80-125 px, rendered by
  ``visionlab.bench.large``, seed ``SPEED_SEED``), JPEG bytes in, dice out: decoding, both detection
  passes and the classifier included (issue 38 item 6: <= 150 ms median);
- the bench's 640x480 JPEG with 8 dice (``visionlab.bench.speed``; <= 25 ms median), 2 of them
  wholly in the frame (5 read), and, since stop 59, a 640x480 JPEG whose 8 dice all lie wholly in
  the frame (``SPEED_WHOLE_SEED``: 8 read, the issue's frame as a player takes it).

OpenCV and onnxruntime use one thread and the process is pinned to one CPU (``speed.one_core``).
Each figure is the median wall time of ``--runs`` reads after two warm-up reads, with the median
CPU time of this process beside it (``time.process_time``): on a machine shared with other work
the wall time also measures the neighbours, the CPU time much less so. ``--first-pass-only``
measures with the finer pass off (``ModelConfig.fine_below_px = None``), for comparison;
``--profile DIR`` reads with a table profile's adapted classifier (``benchmarks/vision_learn.py`` makes
one), the issue's "a read with an adapted model" figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.reader import DiceReader  # noqa: E402
from visionlab.bench.large import bench_large_speed  # noqa: E402
from visionlab.bench.speed import SPEED_SEED, SPEED_WHOLE_SEED, dice_count, one_core, speed_scene  # noqa: E402


def small_photo_speed(reader: DiceReader, runs: int, seed: int = SPEED_SEED) -> dict:
    data, n, whole = speed_scene(seed)
    with one_core() as pinning:
        for _ in range(2):
            reader.read(data)
        walls, cpus = [], []
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            result = reader.read(data)
            walls.append((time.perf_counter() - t0) * 1000.0)
            cpus.append((time.process_time() - c0) * 1000.0)
    return {"image": "640x480 JPEG, synthetic", "dice_in_scene": n,
            "whole_dice_in_scene": whole, "dice_read": len(result.dice), "runs": runs,
            "median_ms": round(statistics.median(walls), 1), "median_cpu_ms": round(statistics.median(cpus), 1),
            "cpu": pinning}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/vision_large_photo.py")
    p.add_argument("--runs", type=int, default=20, help="timed reads per image (default 20)")
    p.add_argument("--first-pass-only", action="store_true", help="the finer pass off, for comparison")
    p.add_argument("--profile", type=Path, default=None,
                   help="read with this table profile's adapted model (python -m vision learn)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be >= 1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.profile is not None:
        from vision.profile import TableProfile

        model = TableProfile(args.profile).current_model()
        if model is None:
            p.error(f"{args.profile}: no adapted model in this profile")
        reader = DiceReader.from_files(threads=1, config=model.reader_config(), **model.files)
        classifier = f"adapted ({model.classifier or 'the shipped classifier'}, {model.detector or 'the shipped detector'})"
    else:
        reader = DiceReader.from_files(threads=1)
        classifier = "shipped"
    if args.first_pass_only:
        reader.model.config = replace(reader.model.config, fine_below_px=None)
    figures = {"large": bench_large_speed(reader, args.runs), "small": small_photo_speed(reader, args.runs),
               "small_whole": small_photo_speed(reader, args.runs, SPEED_WHOLE_SEED),
               "finer_pass": not args.first_pass_only,
               "classifier": classifier,
               "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}
    if args.json:
        print(json.dumps(figures))
        return 0
    for key in ("large", "small", "small_whole"):
        f = figures[key]
        print(f"{f['image']} with {dice_count(f)}: median {f['median_ms']:.1f} ms "
              f"({f['median_cpu_ms']:.1f} ms of CPU), {f['runs']} runs, one thread, {f['cpu']}")
    la = figures["load_average"]
    print(f"classifier: {figures['classifier']}; finer pass {'on' if figures['finer_pass'] else 'off'}; machine load average "
          f"{'-' if la is None else ', '.join(f'{v:.1f}' for v in la)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
