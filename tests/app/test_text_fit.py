"""Issue 41, item 7: the main screens' labels fit a 390 px phone in EN/FR/IT, without a browser
(the model and what it does not check: ``text_fit.py``)."""

from __future__ import annotations

import json
import random

import pytest

from companion.app.scorepad.vm import ScorePad
from companion.app.shell.view import build_screen
from test_screens import FakeShell
from tests_app_paths import SAMPLES
from text_fit import problems, text_width


def test_the_width_model_measures_like_roboto():
    assert 55 < text_width("Boudeuse") < 70
    assert text_width("ili") < text_width("mwm")


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
@pytest.mark.parametrize("route", ["/", "/settings", "/resume", "/scorepad"])
def test_shell_screens_fit_a_phone(_private_data_dir, lang, route):
    shell = FakeShell(lang, 390)
    if route == "/scorepad":
        pad = shell.ctl.screen_state("/scorepad", lambda: ScorePad(shell.ctl.tr))
        pad.load_sheet(json.loads((SAMPLES / "three-seats-tie.json").read_text()))
        pad.add_automa() if hasattr(pad, "add_automa") else None
    screen = build_screen(route, shell)
    assert problems(screen.view()) == []


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_the_new_game_wizard_fits_a_phone(_private_data_dir, lang):
    shell = FakeShell(lang, 390)
    screen = build_screen("/new", shell)
    assert problems(screen.view()) == []
