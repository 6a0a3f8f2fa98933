"""Size classes for the responsive layout (plain Python, no Flet).

One rule everywhere: the width of the window (or the phone screen, in logical pixels) picks
the size class, and screens ask the size class, never the raw width.

- ``phone``: under 600 px (a phone in portrait): one column, full-width buttons, big targets;
- ``tablet``: 600 to 1023 px: two columns where a screen has two parts;
- ``desktop``: 1024 px and wider: two or three columns, content width capped so lines stay readable.

The 600 / 1024 limits are Material Design's compact / medium / expanded window classes
(rounded), which is what Flet's own widgets follow.
"""

from __future__ import annotations

PHONE, TABLET, DESKTOP = "phone", "tablet", "desktop"
TABLET_MIN = 600
DESKTOP_MIN = 1024
#: widest the main content gets on a desktop window
MAX_CONTENT_WIDTH = 1100


def size_class(width: float | None) -> str:
    """The size class of a window ``width`` logical pixels wide (unknown width: phone)."""
    if width is None or width <= 0:
        return PHONE
    if width < TABLET_MIN:
        return PHONE
    if width < DESKTOP_MIN:
        return TABLET
    return DESKTOP


def columns(width: float | None) -> int:
    """How many side-by-side panels a screen should use."""
    return {PHONE: 1, TABLET: 2, DESKTOP: 3}[size_class(width)]


def content_width(width: float | None) -> float | None:
    """Width to give the main content column (``None``: fill the window)."""
    if size_class(width) == DESKTOP:
        return min(width, MAX_CONTENT_WIDTH)
    return None
