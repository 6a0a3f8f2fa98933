"""Every shell screen builds its controls, in each language and size class, without a display.

(The browser test checks a few paths end to end; this checks that no screen raises while being
drawn in a combination the browser test does not visit.)"""

import json

import flet as ft
import pytest
from control_tree import find_controls

from companion.app.common.prefs import Prefs
from companion.app.scorepad.vm import ScorePad
from companion.app.shell.controller import AppController
from companion.app.shell.view import build_screen
from tests_app_paths import SAMPLES


class FakeShell:
    def __init__(self, lang="en", width=400):
        self.ctl = AppController(prefs=Prefs(language=lang), save=False)
        self.ctl.set_width(width)
        self.page = None
        self.toasts = []
        self.renders = 0
        self._pickers = {}

    def toast(self, text, error=False):
        self.toasts.append((text, error))

    def render(self):
        self.renders += 1

    def update(self):
        pass

    def file_picker(self, purpose="default"):
        return self._pickers.setdefault(purpose, ft.FilePicker())


def texts(control) -> list[str]:
    """Every string shown by a control tree (Text values, labels, button texts)."""
    out = []
    seen = set()

    def walk(c):
        if c is None or id(c) in seen:
            return
        seen.add(id(c))
        if isinstance(c, (list, tuple)):
            for x in c:
                walk(x)
            return
        if isinstance(c, str):
            out.append(c)
            return
        if not isinstance(c, ft.BaseControl):
            return
        for attr in ("value", "label", "text", "helper", "title", "subtitle", "content", "controls",
                     "leading", "segments", "columns", "rows", "cells"):
            v = getattr(c, attr, None)
            if isinstance(v, str):
                out.append(v)
            elif v is not None:
                walk(v)

    walk(control)
    return out


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
@pytest.mark.parametrize("width", [390, 800, 1280])
@pytest.mark.parametrize("route", ["/", "/settings", "/resume", "/scorepad"])
def test_every_shell_screen_draws(_private_data_dir, lang, width, route):
    shell = FakeShell(lang, width)
    if route == "/scorepad":
        pad = shell.ctl.screen_state("/scorepad", lambda: ScorePad(shell.ctl.tr))
        pad.load_sheet(json.loads((SAMPLES / "three-seats-tie.json").read_text()))
    screen = build_screen(route, shell)
    assert isinstance(screen.title(), str) and screen.title()
    assert isinstance(screen.actions(), list)
    body = screen.view()
    shown = " ".join(texts(body))
    assert shown.strip()
    if route == "/scorepad":
        assert "113" in shown  # the result is drawn with the totals


def test_score_pad_screen_speaks_the_language_and_refuses_bad_taps(_private_data_dir):
    shell = FakeShell("fr", 1280)
    screen = build_screen("/scorepad", shell)
    screen.view()
    screen._do(screen.pad.add_human, redraw=True)
    assert shell.renders == 1
    screen = build_screen("/scorepad", shell)  # what the shell's render does: a new screen
    screen.view()                               # over the same pad (kept in the controller)
    screen._do(screen.pad.set_count, 0, "coins", -3)  # refused: a toast, nothing changes
    assert shell.toasts and shell.toasts[-1][1] is True and "-3" in shell.toasts[-1][0]
    assert screen.pad.seats[0].counts == {}
    screen._do(screen.pad.set_count, 0, "vp", 12)
    screen.refresh()
    assert screen.totals[0].value == "12 PV"
    assert any("Joueur 1 gagne avec 12 PV" in t for t in texts(screen.results))


def test_start_screen_offers_the_game_when_its_screens_are_installed(_private_data_dir):
    shell = FakeShell("en", 390)
    body = build_screen("/", shell).view()
    shown = texts(body)
    for label in ("New game", "Resume a game", "Score pad", "Settings"):
        assert label in shown


def _find(control, kind) -> list:
    return find_controls(control, kind, ("content", "controls", "title", "subtitle", "leading"))


def test_score_pad_in_all_summaries_follow_the_taps_and_fields_refuse_letters(_private_data_dir):
    """Issue 41, item 4: the tiles' "N in all" stayed at their first value after +/- taps; a
    count field took letters."""
    shell = FakeShell("en", 1280)
    screen = build_screen("/scorepad", shell)
    screen.view()
    screen._do(screen.pad.add_human, redraw=True)
    screen = build_screen("/scorepad", shell)
    body = screen.view()
    tiles = {t.title.value: t for t in _find(body, ft.ExpansionTile)}
    cubes = tiles["Published research cubes"]
    assert cubes.subtitle.value == "0 in all"
    plus = [b.content for b in _find(cubes, ft.Semantics) if (b.label or "").endswith("+1")]
    plus[0].on_click(None)
    plus[0].on_click(None)
    plus[1].on_click(None)
    assert cubes.subtitle.value == "3 in all"
    minus = [b.content for b in _find(cubes, ft.Semantics) if (b.label or "").endswith("−1")]
    minus[0].on_click(None)
    assert cubes.subtitle.value == "2 in all"
    # a count field: digits only; letters pasted in are refused and change nothing
    field = _find(cubes, ft.TextField)[0]
    assert isinstance(field.input_filter, ft.NumbersOnlyInputFilter)
    before = dict(screen.pad.seats[0].cubes)
    field.value = "4a"
    field.on_change(None)
    assert field.error and field.value == "1" and screen.pad.seats[0].cubes == before
    field.value = "5"
    field.on_change(None)
    assert field.error is None and cubes.subtitle.value == "6 in all"
