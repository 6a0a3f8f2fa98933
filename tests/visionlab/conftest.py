"""The lab's tests (``visionlab``: renderers, trainer, benchmark, recipes).  They share the runtime
tests' helpers: ``vision_testutil`` (the drawn scenes and the fake model) is in tests/vision."""

from __future__ import annotations

import sys
from pathlib import Path

_RUNTIME_TESTS = str(Path(__file__).resolve().parents[1] / "vision")
if _RUNTIME_TESTS not in sys.path:
    sys.path.insert(0, _RUNTIME_TESTS)
