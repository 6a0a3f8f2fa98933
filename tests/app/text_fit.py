"""A cheap, browser-free check that labels fit a phone (issue 41, item 7).

What it checks, and what it does not: no layout is run. Each button, chip, segment, switch label
and fixed-width text of a Flet control tree is given the width its control gets on a 390 px
phone under a simple model (below), and the widest WORD of its label is measured with Roboto's
advance widths (Flutter web's default font; a table of approximate per-letter widths, accents
ignored). A word wider than its room is one that Flutter breaks inside ("Boudeus / e") or cuts
with an ellipsis; a text drawn with an ellipsis on one line must fit whole. Lines that wrap
between words are fine and not checked. The room model:

- the screen's content is 390 - 2 x 16 (page) - 2 x 16 (a card) = 326 px wide;
- a segmented button shares it equally, and a segment's whole label must fit on its one line
  ("Stop / and tell / me" wraps between words, but three lines in a segment is not a label); a segment loses 2 x 12 px padding, an 18 px check mark
  and 8 px for its borders and gap;
- a button loses 2 x 24 px padding (and 26 px more with an icon), a chip 2 x 16 px, a switch
  60 px for the switch itself (and its label is one line: Flet does not wrap it, the end is cut
  at the screen's edge), a radio button 48 px for its circle;
- a text or container with a ``width`` gets that width, less a container's padding; a text cut
  with an ellipsis after ``max_lines`` lines is wrapped between words and must need no more;
- in a row that does not wrap, each icon takes its size and the row's spacing from the others.

The constants are Material 3's paddings, rounded up; with them the three breaks seen in
Chromium at 390 px ("La / Boudeus / e" in the score pad, "Stop / and tell / me" in Settings, the
seal switch label) fail.
"""

from __future__ import annotations

import unicodedata

import flet as ft

PHONE = 390
#: a text drawn in one of these weights is wider than Regular: Roboto Bold's advances are about
#: 7 % wider ("Pubblicazione" at 12 px: about 80 px drawn, 75 px in Regular)
BOLD = (ft.FontWeight.BOLD, ft.FontWeight.W_600, ft.FontWeight.W_700, ft.FontWeight.W_800, ft.FontWeight.W_900)
BOLD_TEXT = 1.07
CONTENT = PHONE - 2 * 16 - 2 * 16

# Roboto Regular advance widths in em (approximate); anything else 0.56
_W = {
    **dict(zip("abcdefghijklmnopqrstuvwxyz",
               [.544, .561, .523, .564, .530, .347, .561, .551, .243, .239, .507, .243, .876,
                .552, .570, .561, .568, .338, .516, .327, .551, .484, .751, .496, .473, .496])),
    **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
               [.653, .622, .652, .657, .568, .553, .681, .713, .272, .552, .627, .538, .873,
                .713, .688, .631, .688, .616, .593, .597, .649, .637, .887, .627, .601, .599])),
    " ": .248, "'": .174, "’": .2, ".": .263, ",": .196, ":": .243, "·": .263, "-": .276,
    "(": .342, ")": .348, "/": .412, "+": .566, "…": .78,
}


def text_width(text: str, size: float = 14, bold: bool = True) -> float:
    """Pixels ``text`` takes in Roboto at ``size`` (buttons' medium weight: 3 % wider)."""
    w = 0.0
    for ch in text:
        base = unicodedata.normalize("NFKD", ch)[:1] or ch
        w += _W.get(base, .56)
    return w * size * (1.03 if bold else 1.0)


def widest_word(text: str, size: float = 14, bold: bool = True) -> tuple[str, float]:
    words = text.split() or [""]
    return max(((w, text_width(w, size, bold)) for w in words), key=lambda x: x[1])


def lines(text: str, room: float, size: float = 14) -> int:
    """Lines ``text`` takes when wrapped between words into ``room`` px (a word wider than the
    room counts as one line)."""
    n, used = 1, 0.0
    space = text_width(" ", size, False)
    for word in text.split():
        w = text_width(word, size, False)
        if used and used + space + w > room:
            n, used = n + 1, w
        else:
            used = used + (space if used else 0) + w
    return n


def _label(c) -> str | None:
    for name in ("content", "label", "text"):
        v = getattr(c, name, None)
        if isinstance(v, str):
            return v
        if isinstance(v, ft.Text) and isinstance(v.value, str):
            return v.value
    return None


def problems(control, width: float = CONTENT) -> list[str]:
    """Labels of ``control``'s tree whose widest word does not fit the room the model gives."""
    out: list[str] = []
    seen: set[int] = set()

    def check(text, room, what, size=14, bold=True, whole=False):
        if not text:
            return
        if whole:
            w = text_width(text, size, bold)
            if w > room:
                out.append(f"{what} {text!r}: {w:.0f} px in {room:.0f} px (one line, or an ellipsis)")
            return
        word, w = widest_word(text, size, bold)
        if w > room:
            out.append(f"{what} {text!r}: {word!r} is {w:.0f} px in {room:.0f} px")

    def walk(c, room):
        if c is None or id(c) in seen:
            return
        seen.add(id(c))
        if isinstance(c, (list, tuple)):
            for x in c:
                walk(x, room)
            return
        if not isinstance(c, ft.BaseControl):
            return
        own = getattr(c, "width", None)
        if isinstance(own, (int, float)) and own > 0:
            room = min(room, own)
        pad = getattr(c, "padding", None)
        if isinstance(pad, (int, float)) and not isinstance(c, ft.Text):
            room -= 2 * pad
        if isinstance(c, ft.SegmentedButton):
            segs = c.segments or []
            each = room / max(1, len(segs)) - 2 * 12 - 18 - 8
            for s in segs:  # a segment is one line: its whole label must fit
                check(_label(s), each, "segment", whole=True)
            return
        if isinstance(c, (ft.FilledButton, ft.OutlinedButton, ft.TextButton, ft.Button)):
            check(_label(c), room - 48 - (26 if getattr(c, "icon", None) else 0), "button")
            return
        if isinstance(c, ft.Chip):
            check(_label(c), room - 32, "chip")
            return
        if isinstance(c, ft.Radio):
            check(c.label if isinstance(c.label, str) else None, room - 48, "radio", bold=False)
            return
        if isinstance(c, ft.Switch):
            # Flet draws a switch's label beside it on one line, cut at the screen's edge
            check(c.label if isinstance(c.label, str) else _label(c), room - 60, "switch", bold=False, whole=True)
            return
        if isinstance(c, ft.Text):
            if isinstance(c.value, str) and (isinstance(own, (int, float)) or c.overflow == ft.TextOverflow.ELLIPSIS):
                size = c.size or 14
                bold = c.weight in BOLD
                if c.overflow == ft.TextOverflow.ELLIPSIS:
                    most = c.max_lines or 1  # Flutter: an ellipsis without max_lines is one line
                    n = lines(c.value, room, size)
                    if n > most or widest_word(c.value, size, False)[1] * (BOLD_TEXT if bold else 1) > room:
                        out.append(f"text {c.value!r}: {n} lines of {room:.0f} px, {most} shown (ellipsis)")
                    return
                check(c.value, room, "text", size=size, bold=False)
            return
        if isinstance(c, ft.Row) and not c.wrap and c.controls:
            # a row's icons keep their width: the texts beside them get the rest
            # ("Pubblicazio…" beside its icon in a board location at 390 px)
            icons = [x for x in c.controls if isinstance(x, ft.Icon)]
            gap = c.spacing if isinstance(c.spacing, (int, float)) else 10
            fixed = sum((x.size or 24) + gap for x in icons)
            for x in c.controls:
                walk(x, room - fixed)
            return
        for name in ("content", "controls", "title", "subtitle", "leading", "trailing"):
            walk(getattr(c, name, None), room)

    walk(control, width)
    return out
