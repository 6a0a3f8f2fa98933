"""Walking a drawn Flet control tree in the tests (no display): the controls in it, or the strings
it shows. One walk for every test that looks for a button, a field or a label in a screen.

A tree is a control, a list or tuple of them, or None; a control's children are looked for under
the attribute names given (``content`` and ``controls`` unless told), so a test names exactly
the parts of a control it searches (``title``, ``trailing``, ...)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import flet as ft

CHILDREN = ("content", "controls")


def every_control(root, attrs: Iterable[str] = CHILDREN) -> Iterator[ft.BaseControl]:
    """Every control in the tree, each parent before its children, in drawing order (lists and
    tuples walked through; strings, numbers and None passed over)."""
    if isinstance(root, (list, tuple)):
        for x in root:
            yield from every_control(x, attrs)
    elif isinstance(root, ft.BaseControl):
        yield root
        for name in attrs:
            yield from every_control(getattr(root, name, None), attrs)


def find_controls(root, kind, attrs: Iterable[str] = CHILDREN) -> list:
    """The controls of the tree that are instances of ``kind`` (a class or a tuple of them)."""
    return [c for c in every_control(root, attrs) if isinstance(c, kind)]


def strings(root, attrs: Iterable[str], check: Callable[[ft.BaseControl], None] | None = None) -> list[str]:
    """Every string met under ``attrs`` (a Text's value, a label, a button's text, ...), in
    drawing order; each object once, by identity. ``check`` is called on every control met."""
    out: list[str] = []
    seen: set[int] = set()

    def walk(c):
        if c is None or id(c) in seen:
            return
        seen.add(id(c))
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, (list, tuple)):
            for x in c:
                walk(x)
        elif isinstance(c, ft.BaseControl):
            if check is not None:
                check(c)
            for name in attrs:
                walk(getattr(c, name, None))

    walk(root)
    return out
