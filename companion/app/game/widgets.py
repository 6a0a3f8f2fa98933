"""Small Flet controls shared by the game's panels: dice chips, colour dots, chips, buttons,
and the colours of dice and continents.
"""

from __future__ import annotations

import flet as ft

from companion.app.game.texts import GameText

DIE_BG = {"red": "#C62828", "yellow": "#F9A825", "purple": "#6A1B9A", "blue": "#1565C0", "green": "#2E7D32",
          "unknown": "#757575"}
DIE_FG = {"yellow": "#000000"}
CONTINENT_COLOUR = {"america": "red", "africa": "yellow", "asia": "purple", "europe": "blue", "oceania": "green"}


def game_text(ctl) -> GameText:
    return GameText(lambda: ctl.tr.lang)



# --------------------------------------------------------------------------- small controls


def die_face(colour: str, value, size=44, unsure=False, on_click=None) -> ft.Container:
    """A die's coloured square with its value, nothing around it (no accessible name: a drag's
    feedback under the finger uses it as it is)."""
    return ft.Container(
        ft.Text(str(value), size=size * 0.45, weight=ft.FontWeight.BOLD, color=DIE_FG.get(colour, "#FFFFFF")),
        width=size, height=size, bgcolor=DIE_BG.get(colour, DIE_BG["unknown"]), border_radius=8,
        alignment=ft.Alignment.CENTER, border=ft.Border.all(4, ft.Colors.AMBER) if unsure else None,
        on_click=on_click,
    )


def die_chip(colour: str, value, label: str, on_click=None, selected=False, unsure=False, size=44) -> ft.Control:
    """A die as a tappable square. Unsure: an amber border; selected: a dark ring around it,
    outside the amber one, so a selected unsure die still shows that it is unsure."""
    box = die_face(colour, value, size, unsure, on_click)
    if selected:
        box = ft.Container(box, border=ft.Border.all(3, ft.Colors.ON_SURFACE), border_radius=11, padding=2)
    return ft.Semantics(content=box, label=label, button=on_click is not None, selected=selected, container=True)


def colour_dot(colour: str, size=14) -> ft.Control:
    return ft.Container(width=size, height=size, border_radius=size / 2, bgcolor=DIE_BG.get(colour, DIE_BG["unknown"]))


def named(text: str, name: str) -> ft.Text:
    """A button's text with a fuller accessible name ("Take" read as "Take Safi Limbila")."""
    return ft.Text(text, semantics_label=name)


def chip(label: str, on_click, selected=False, disabled=False, colour: str | None = None,
         name: str | None = None) -> ft.Control:
    """A choice chip; ``name``: its accessible name when the label alone is not enough."""
    return ft.Chip(label=ft.Text(label, semantics_label=name), on_click=on_click, selected=selected, disabled=disabled,
                   leading=colour_dot(colour) if colour else None)


def wrap(controls, spacing=8) -> ft.Row:
    return ft.Row(controls, wrap=True, spacing=spacing, run_spacing=spacing)


def button(text, on_click, icon=None, filled=True, disabled=False) -> ft.Control:
    cls = ft.FilledButton if filled else ft.OutlinedButton
    return cls(text, icon=icon, on_click=on_click, disabled=disabled)


def labelled_switch(label: str, value: bool, on_change) -> ft.Control:
    """A switch with its label beside it, wrapped over as many lines as it needs (Flet's own
    ``Switch(label=...)`` is one line, cut at a phone's edge; issue 41, item 7). The switch
    keeps the label as its accessible name."""
    sw = ft.Switch(value=value, on_change=on_change)
    return ft.Row([ft.Semantics(content=sw, label=label), ft.Text(label, expand=True)],
                  spacing=8, vertical_alignment=ft.CrossAxisAlignment.CENTER)
