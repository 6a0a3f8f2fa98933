"""visionlab/recipes/lux-sets.sh renders each LuxCore set as docs/vision-lux.md's table says it was made,
so a set rendered again on a bare machine is the set the figures and rules name."""
from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_lux_sets_match_the_docs_table() -> None:
    listed = subprocess.run(["bash", str(ROOT / "visionlab/recipes/lux-sets.sh"), "--list"], capture_output=True,
                            text=True, check=True, timeout=30).stdout.split("\n")
    table = dict(re.findall(r"^\| `(data/[^`]+)` \| `([^`]+)`", (ROOT / "docs/vision-lux.md").read_text(), re.M))
    seen = []
    for line in filter(None, listed):
        args, out = line.split(" --out ")
        # the table leaves out the sampling default (24) and notes in brackets after the command
        assert args.replace(" --spp 24", "") == table[out], out
        seen.append(out)
    assert len(seen) == 9 and len(set(seen)) == 9
    assert {"data/lux-train-889019", "data/lux-train-889020"} <= set(seen)


def _choose():
    spec = importlib.util.spec_from_file_location("choose", ROOT / "visionlab/bench/choose.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _domain(rows: dict[float, tuple[int, int]]) -> dict:
    return {"threshold_sweep": [{"unsure_below": t, "sure": s, "sure_wrong": w} for t, (s, w) in rows.items()]}


def test_choose_rule1_takes_one_step_past_the_first_threshold_under_one_percent() -> None:
    choose = _choose()
    rows = {t: (1000, 20) for t in choose.GRID}
    rows[0.88] = (900, 9)          # 1.0 %: not under
    rows[0.90] = (850, 8)          # 0.94 %: the first under, so rule 1 gives the next value
    t, swept = choose.rule1({"a": _domain(rows)})
    assert t == 0.92 and swept[3] == (0.90, 850, 8)
    # summed over domains: a second domain's wrong reads push 0.90 over 1 %
    t2, _ = choose.rule1({"a": _domain(rows), "b": _domain({g: (100, 2) for g in choose.GRID})})
    assert t2 == choose.GRID[-1]


def test_choose_takes_a_pool_or_a_fixed_threshold_not_both(capsys) -> None:
    choose = _choose()
    for argv in (["--decide", "d", "--candidate", "x=m"],                                   # neither
                 ["--pool", "p", "--threshold", "0.85", "--decide", "d", "--candidate", "x=m"],   # both
                 ["--threshold", "0.86", "--decide", "d", "--candidate", "x=m"]):                # not swept
        with pytest.raises(SystemExit) as e:
            choose.main(argv)
        assert e.value.code == 2
    assert "threshold" in capsys.readouterr().err
