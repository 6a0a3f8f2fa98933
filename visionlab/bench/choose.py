"""Count a choice between candidate models by the rule of stops 31 and 33 (docs/vision-history.md; verbatim: git show 1567b46:models/tried/rules-2026-11-26.md).

    python visionlab/bench/choose.py --pool DIR [DIR ...] --decide DIR [DIR ...] \\
        --candidate v21=models --candidate A=/tmp/m/A --candidate B=/tmp/m/B [--out counts.json]
    python visionlab/bench/choose.py --threshold 0.85 --decide DIR [DIR ...] --candidate ...   # stop 35's rule

For each candidate (a folder with the two ONNX files):
1. rule 1 on the calibration pool (the ``--pool`` sets read as one): the first value of the grid
   0.80, 0.85, 0.88, 0.90, 0.92, 0.95, 0.97, 0.98 whose sure reads are under 1 % wrong, plus one
   step (the last value when none is, or when the first is the last);
2. at that threshold, on the ``--decide`` sets: dice sure and right, sure reads wrong, dice read
   right, recall (dice found), from the bench's threshold sweep;
3. at that threshold, on the real photos' ``valid`` split: recall, value, sure and wrong, false
   detections; and the median read time of the bench scene (8 dice, one core; ``--speed-runs``).
With ``--threshold T`` step 1 is skipped (no pool is read) and every candidate is counted at T.
It prints one table and, with ``--out``, writes every count as JSON. It decides nothing: the rule
does, on these counts. Each candidate costs a few minutes of one core per 100 scenes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

GRID = (0.80, 0.85, 0.88, 0.90, 0.92, 0.95, 0.97, 0.98)


def bench(model_dir: str, dirs: list[str], extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "visionlab.bench", "--json", "--synthetic-count", "0", "--domain-root", "/nonexistent",
           "--model-dir", model_dir, *extra]
    for d in dirs:
        cmd += ["--domain-dir", d]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def sweep_at(domains: dict, t: float) -> tuple[int, int]:
    """(sure, sure wrong) at ``unsure_below`` t, summed over the domains."""
    sure = wrong = 0
    for d in domains.values():
        row = next(r for r in d["threshold_sweep"] if abs(r["unsure_below"] - t) < 1e-9)
        sure, wrong = sure + row["sure"], wrong + row["sure_wrong"]
    return sure, wrong


def rule1(domains: dict) -> tuple[float, list]:
    rows = [(t, *sweep_at(domains, t)) for t in GRID]
    first = next((i for i, (_, s, w) in enumerate(rows) if s and w / s < 0.01), len(GRID) - 1)
    return GRID[min(first + 1, len(GRID) - 1)], rows


def count(name: str, model_dir: str, pool: list[str], decide: list[str], speed_runs: int,
          threshold: float | None = None) -> dict:
    if threshold is None:
        p = bench(model_dir, pool, ["--no-real", "--speed-runs", "0"])["domains"]
        t, rows = rule1(p)
    else:
        t, rows = threshold, []
    d = bench(model_dir, decide, ["--no-real", "--speed-runs", "0"])["domains"]
    sure, wrong = sweep_at(d, t)
    dice = sum(x["dice"] for x in d.values())
    found = sum(round(x["recall"] * x["dice"]) for x in d.values())
    read_right = sum(round(x["read_right"] * x["dice"]) for x in d.values())
    r = bench(model_dir, [], ["--no-domains", "--speed-runs", str(speed_runs), "--unsure-below", str(t)])
    valid = next(v for k, v in r["real"].items() if k.endswith("/valid"))
    return {"name": name, "model_dir": model_dir, "pool_sweep": rows, "threshold": t,
            "pool_sure_right_at_t": next((s - w for g, s, w in rows if g == t), None),
            "decide": {"dice": dice, "found": found, "sure": sure, "sure_wrong": wrong, "sure_right": sure - wrong,
                       "read_right": read_right},
            "real_valid": {k: valid.get(k) for k in ("recall", "value_accuracy", "confident_reads", "confident_wrong",
                                                     "false_detections", "no_tap_images")},
            "median_ms": r.get("speed", {}).get("median_ms")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", nargs="+", default=[])
    ap.add_argument("--threshold", type=float, help="count every candidate at this unsure_below (no pool, no rule 1)")
    ap.add_argument("--decide", nargs="+", required=True)
    ap.add_argument("--candidate", action="append", required=True, help="NAME=MODEL_DIR")
    ap.add_argument("--speed-runs", type=int, default=30)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if (args.threshold is None) == (not args.pool):
        ap.error("give either --pool (rule 1 picks each threshold) or --threshold, not both or neither")
    if args.threshold is not None and not any(abs(args.threshold - g) < 1e-9 for g in GRID):
        ap.error(f"--threshold must be a value of the grid {GRID} (the bench's sweep counts those)")
    results = [count(*c.split("=", 1), args.pool, args.decide, args.speed_runs, args.threshold) for c in args.candidate]
    print(f"{'candidate':12}{'pool sure/wrong at ' + ', '.join(f'{t:.2f}' for t in GRID[:4]):>44}{'T':>6}"
          f"{'decide: sure+right / wrong / read right / found':>50}{'valid: recall value wrong fd':>32}{'ms':>7}")
    for x in results:
        pool = ", ".join(f"{s}/{w}" for _, s, w in x["pool_sweep"][:4]) or "(fixed threshold)"
        dd, v = x["decide"], x["real_valid"]
        print(f"{x['name']:12}{pool:>44}{x['threshold']:>6.2f}"
              f"{dd['sure_right']:>22} / {dd['sure_wrong']} / {dd['read_right']} / {dd['found']} of {dd['dice']}"
              f"{v['recall']:>12} {v['value_accuracy']} {v['confident_wrong']}/{v['confident_reads']} {v['false_detections']}"
              f"{x['median_ms'] if x['median_ms'] is not None else '-':>7}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
