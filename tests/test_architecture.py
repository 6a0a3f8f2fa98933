"""The layout is the architecture (docs/architecture.md): these checks read the source tree.

- no import circle in the runtime packages (``companion``, ``automa``, ``vision``, ``models``),
  counting imports made inside functions too (a deferred import is still a dependency);
- the arrows go one way: app -> automa -> engine, app -> vision; the engine imports no UI and no
  vision, vision no game code, nothing outside ``companion.app`` imports the app;
- the lab (``visionlab``), the table's learner (``visionlearn``, torch) and the heavy libraries
  (torch, bpy, mitsuba, pyluxcore) are never imported by the runtime packages nor by their tests
  (the runtime runs the learner as another process, ``python -m visionlearn``);
- no source file over 800 lines; the model card under 40 KB; no experiment patch under ``models/``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ("companion", "automa", "vision", "models")
LAB_AND_HEAVY = ("visionlab", "visionlearn", "torch", "bpy", "mitsuba", "pyluxcore", "onnxscript")
NOT_RUNTIME_TESTS = ("visionlab", "visionlearn")  # the lab's and the learner's tests may import them
MAX_LINES = 800


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(path: Path, module: str) -> list[str]:
    """Every module name imported anywhere in the file (function bodies included), except under
    ``if TYPE_CHECKING:``; relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    visit(sub)
                continue
            if isinstance(child, ast.Import):
                out.extend(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    pkg = module if is_pkg else module.rpartition(".")[0]
                    for _ in range(child.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    base = f"{pkg}.{base}" if base else pkg
                out.append(base)
                out.extend(f"{base}.{a.name}" for a in child.names)
            visit(child)

    visit(tree)
    return out


def _sources(*tops: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in tops:
        for path in sorted((ROOT / top).rglob("*.py")):
            found[_module_name(path)] = path
    return found


RUNTIME_MODULES = _sources(*RUNTIME)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for mod, path in RUNTIME_MODULES.items():
        edges = set()
        for name in _imports(path, mod):
            while name and name not in RUNTIME_MODULES:
                name = name.rpartition(".")[0]
            if name and name != mod:
                edges.add(name)
        graph[mod] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_the_checker_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_runtime_packages():
    assert _cycles(_graph()) == []


def _in(mod: str, pkg: str) -> bool:
    return mod == pkg or mod.startswith(pkg + ".")


def _offenders(allowed_from, forbidden) -> list[str]:
    bad = []
    for mod, path in RUNTIME_MODULES.items():
        if not allowed_from(mod):
            continue
        for name in _imports(path, mod):
            if any(_in(name, f) for f in forbidden):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return sorted(set(bad))


def test_nothing_outside_the_app_imports_the_app():
    assert _offenders(lambda m: not _in(m, "companion.app"), ["companion.app"]) == []


def test_the_engine_imports_no_ui_no_vision_no_automa():
    assert _offenders(lambda m: _in(m, "companion") and not _in(m, "companion.app"),
                      ["flet", "vision", "automa", "cv2", "onnxruntime"]) == []


def test_vision_imports_no_game_code():
    assert _offenders(lambda m: _in(m, "vision") or _in(m, "models"),
                      ["companion", "automa", "flet"]) == []


def test_the_automa_imports_no_app_and_no_vision():
    assert _offenders(lambda m: _in(m, "automa"), ["companion.app", "vision", "flet"]) == []


def test_the_runtime_never_imports_the_lab_or_its_libraries():
    assert _offenders(lambda m: True, LAB_AND_HEAVY) == []


def test_the_runtime_tests_never_import_the_lab():
    bad = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.relative_to(ROOT / "tests").parts[0] in NOT_RUNTIME_TESTS:
            continue
        for name in _imports(path, _module_name(path)):
            if any(_in(name, f) for f in LAB_AND_HEAVY):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert sorted(set(bad)) == []


@pytest.mark.parametrize("top", ["companion", "automa", "vision", "visionlab", "visionlearn", "models", "tests",
                                 "benchmarks"])
def test_no_source_file_over_800_lines(top):
    long = []
    for path in sorted((ROOT / top).rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert long == []


def test_every_package_says_what_lives_there():
    bare = []
    for top in RUNTIME + ("visionlab", "visionlearn"):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            if not doc or len(doc) < 40:
                bare.append(str(init.relative_to(ROOT)))
    assert bare == []


def test_the_model_card_is_short_and_models_ships_no_patch():
    card = ROOT / "models" / "README.md"
    assert card.stat().st_size < 40_000, f"models/README.md is {card.stat().st_size} bytes"
    assert sorted(p.name for p in (ROOT / "models").rglob("*.patch")) == []
