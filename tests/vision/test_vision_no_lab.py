"""The runtime stands alone: nothing in ``vision``, ``companion``, ``automa`` or ``models`` imports
the lab (``visionlab``), and the runtime imports none of the lab's heavy dependencies."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAB_ONLY = ("torch", "bpy", "mitsuba", "pyluxcore", "onnxscript")


def imported_modules(path: Path) -> list[str]:
    """Every module an ``import`` or ``from ... import`` in ``path`` names (absolute imports)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


@pytest.mark.parametrize("package", ["vision", "companion", "automa", "models"])
def test_no_import_of_the_lab(package: str) -> None:
    bad = [(str(p.relative_to(REPO)), m) for p in sorted((REPO / package).rglob("*.py"))
           for m in imported_modules(p) if m == "visionlab" or m.startswith("visionlab.")]
    assert bad == []


def test_the_runtime_imports_no_lab_dependency() -> None:
    bad = [(str(p.relative_to(REPO)), m) for p in sorted((REPO / "vision").rglob("*.py"))
           for m in imported_modules(p) if m.split(".")[0] in LAB_ONLY]
    assert bad == []
