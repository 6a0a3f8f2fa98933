"""The torch tests skip with a reason for every package of the ``train`` extra that is missing
(issue 40: onnxscript was not checked, so without it the export failed deep inside torch)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_package_of_the_train_extra_is_checked_before_the_torch_tests():
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
    packages = {re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0].strip().lower() for spec in extra}
    assert packages >= {"torch", "onnx", "onnxscript"}
    source = (REPO / "tests" / "visionlab" / "test_train_torch.py").read_text()
    checked = set(re.findall(r'importorskip\(\s*"([A-Za-z0-9_.]+)"', source))
    assert packages <= checked, f"not checked before the torch tests: {sorted(packages - checked)}"
