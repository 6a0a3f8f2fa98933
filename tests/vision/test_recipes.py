"""models/recipes/lux-sets.sh renders each LuxCore set as docs/vision-lux.md's table says it was made,
so a set rendered again on a bare machine is the set the figures and rules name."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lux_sets_match_the_docs_table() -> None:
    listed = subprocess.run(["bash", str(ROOT / "models/recipes/lux-sets.sh"), "--list"], capture_output=True,
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
