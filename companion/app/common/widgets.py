"""The ``Screen`` base of every screen and the small Flet building blocks the screens share."""

from __future__ import annotations

from typing import Callable

import flet as ft

from companion.app.common import layout


class Screen:
    """Base of every screen: ``shell`` gives the page, the controller and the translator."""

    def __init__(self, shell):
        self.shell = shell
        self.ctl = shell.ctl
        self.tr = shell.ctl.tr

    @property
    def phone(self) -> bool:
        return self.ctl.size_class == layout.PHONE

    def title(self) -> str:
        return self.tr("app.title")

    def actions(self) -> list[ft.Control]:
        return []

    def view(self) -> ft.Control:  # pragma: no cover - overridden
        raise NotImplementedError


def icon_button(icon, label: str, on_click: Callable, disabled: bool = False, **kw) -> ft.Control:
    """An icon button whose ``label`` is both its tooltip and its accessible name.

    (Flet puts an IconButton's tooltip on a wrapper, not on the button, so screen readers and the
    browser test would see a nameless button; a tooltip on the ``Semantics`` is read twice
    ("Back Back"). So: a semantics label and no tooltip.)
    """
    return ft.Semantics(
        content=ft.IconButton(icon, on_click=on_click, disabled=disabled, **kw),
        label=label, button=True,
    )


def heading(text: str, size: int = 20) -> ft.Text:
    return ft.Text(text, size=size, weight=ft.FontWeight.BOLD)


def sentence(text: str | None) -> str:
    """A message shown on its own as a sentence: its first letter upper-case (the engine's
    refusals and log lines are written to be built into other sentences, so they start
    lower-case: "il faut 44 Écus ; Ana en a 4" is shown "Il faut 44 Écus ; Ana en a 4")."""
    text = text or ""
    return text[:1].upper() + text[1:]


def note(text: str, error: bool = False) -> ft.Text:
    """A short message (a hint, a refusal): a sentence, named by its text for screen readers."""
    text = sentence(text)
    return ft.Text(text, size=13, color=ft.Colors.ERROR if error else ft.Colors.ON_SURFACE_VARIANT,
                   semantics_label=text or None)


def big_button(text: str, icon, on_click: Callable, filled: bool = True, disabled: bool = False,
               tooltip: str | None = None) -> ft.Control:
    cls = ft.FilledButton if filled else ft.OutlinedButton
    return cls(text, icon=icon, on_click=on_click, disabled=disabled, tooltip=tooltip,
               style=ft.ButtonStyle(padding=ft.Padding.symmetric(horizontal=20, vertical=18)))


def responsive(controls: list[ft.Control], phone: int = 12, tablet: int = 6, desktop: int = 4,
               spacing: int = 12) -> ft.ResponsiveRow:
    """Lay ``controls`` out one per row on a phone, side by side on wider windows."""
    for c in controls:
        c.col = {"xs": phone, "sm": phone, "md": tablet, "lg": desktop, "xl": desktop}
    return ft.ResponsiveRow(controls, spacing=spacing, run_spacing=spacing)


def section(title: str, controls: list[ft.Control], stretch: bool = False) -> ft.Control:
    """A titled card; ``stretch``: children take the card's full width (text fields)."""
    col = ft.Column([heading(title, 17), *controls], spacing=10,
                    horizontal_alignment=ft.CrossAxisAlignment.STRETCH if stretch else ft.CrossAxisAlignment.START)
    return ft.Card(ft.Container(col, padding=ft.Padding.all(14)))


class Stepper:
    """``label  [−] [ value ] [+]``: taps for small changes, the field for typing a number.

    ``on_change(value)`` is called with the new integer; the field takes digits only (whole
    numbers from 0: letters are filtered as typed, and a pasted value with letters puts the
    last number back) and refuses anything outside ``lo..hi``, showing why.
    """

    def __init__(self, label: str, value: int, on_change: Callable[[int], None], lo: int = 0,
                 hi: int = 999, minus_tip: str = "−1", plus_tip: str = "+1", width: int = 190):
        self.label, self.lo, self.hi, self.on_change = label, lo, hi, on_change
        self.field = ft.TextField(
            value=str(value), label=label, width=width, dense=True,
            keyboard_type=ft.KeyboardType.NUMBER, text_align=ft.TextAlign.CENTER,
            input_filter=ft.NumbersOnlyInputFilter(),  # letters are refused as they are typed
            on_change=self._typed,
        )
        self._last = value
        self.minus = icon_button(ft.Icons.REMOVE, f"{label} {minus_tip}", lambda e: self._step(-1))
        self.plus = icon_button(ft.Icons.ADD, f"{label} {plus_tip}", lambda e: self._step(+1))
        self.control = ft.Row([self.minus, self.field, self.plus], spacing=0, tight=True)

    @property
    def value(self) -> int | None:
        try:
            return int(self.field.value.strip())
        except (ValueError, AttributeError):
            return None

    def set_value(self, v: int) -> None:
        self.field.value = str(v)
        self.field.error = None
        self._last = v

    def _step(self, d: int) -> None:
        v = self.value if self.value is not None else self.lo
        v = max(self.lo, min(self.hi, v + d))
        self.set_value(v)
        self.on_change(v)

    def _typed(self, e) -> None:
        text = (self.field.value or "").strip()
        if text == "":
            return  # being retyped
        if not (text.isdigit() and text.isascii()):
            # letters or signs that got past the filter (pasted): refused, the last number back
            self.field.value = str(self._last)
            self.field.error = f"{self.lo}–{self.hi}"
            return
        v = int(text)
        if not self.lo <= v <= self.hi:
            self.field.error = f"{self.lo}–{self.hi}"
            return
        self.field.error = None
        self._last = v
        self.on_change(v)
