"""Shared fixtures for the vision tests (plumbing only: no trained model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision_testutil import build_tiny_classifier


@pytest.fixture
def tiny_onnx(tmp_path: Path) -> Path:
    return build_tiny_classifier(tmp_path / "tiny.onnx")
