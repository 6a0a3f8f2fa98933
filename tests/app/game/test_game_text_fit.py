"""Issue 41, item 7: the game screens' labels fit a 390 px phone in EN/FR/IT, every step of two
rounds of a 2-seat game drawn (no browser; the model and what it does not check:
``tests/app/text_fit.py``)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from game_play import FakeReader, answer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from text_fit import problems  # noqa: E402

from companion.app.game.holder import game_vm  # noqa: E402
from companion.app.game.texts import GameText  # noqa: E402
from companion.app.game.wizard_vm import NewGameVM  # noqa: E402
from companion.app.shell.view import build_screen  # noqa: E402
from test_game_views import FakeShell  # noqa: E402


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_every_step_of_two_rounds_fits_a_phone(monkeypatch, game_dir, lang):
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell(width=390, lang=lang)
    shell.ctl.new_game()
    shell.ctl.screen_state("/new", lambda: NewGameVM(GameText(lang), random.Random(2)))
    screen = build_screen("/new", shell)
    found = set(problems(screen.view()))
    screen.start()
    vm = game_vm(shell.ctl)
    reader = FakeReader()
    vm._reader_factory = lambda: reader
    rng = random.Random(11)
    for _ in range(400):
        if vm.state.round > 2:
            break
        step = vm.step
        if step.kind == "turn" and not step.in_hand:  # draw a draft too (spends, the seal switch)
            spot = step.dice()[0]
            if step.select_die(spot.owner, spot.slot, spot.index):
                for o in step.options():
                    d = step.open(o.index)
                    found |= set(problems(build_screen("/game", shell).view()))
                    other = next(c for c in ("red", "yellow", "purple", "blue", "green")
                                 if c != step.die[0])
                    try:  # the colour changed: the seal switch is drawn
                        d.set_colour(other, "token")
                    except Exception:
                        continue
                    found |= set(problems(build_screen("/game", shell).view()))
        found |= set(problems(build_screen("/game", shell).view()))
        if answer(vm, rng, reader) == "game_over":
            break
    assert sorted(found) == []
