"""The table profile from the game's dice step (issue 38, the app side): a confirmed photo's dice
go to the profile, learning starts in the background, the reader follows the adapted model, a
broken profile never breaks the dice step; "It is right" moves to the next unsure die."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np

from companion.app.game.learning import TableLearning
from companion.app.game.vm import GameVM, LocalCatalogue
from companion.app.game.wizard_vm import HUMAN, NewGameVM, SeatDraft
from companion.app.game.texts import GameText
from companion.store import GameStore
from game_play import FakeDie, FakeRead, FakeReader
from test_game_vm import advance_to

T = GameText()


def _vm(game_dir, learning, factory_calls=None):
    w = NewGameVM(T, random.Random(5))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(HUMAN, "Ben")]
    w.shuffle_all()
    s = w.create(GameStore(game_dir))
    assert s is not None, w.error
    reader = FakeReader()

    def factory():
        if factory_calls is not None:
            factory_calls.append(1)
        return reader

    vm = GameVM(s, T, LocalCatalogue(game_dir / "catalogue.json"), reader_factory=factory, learning=learning)
    return vm, reader


def _photo(tmp_path):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    p = tmp_path / "dice.png"
    cv2.imwrite(str(p), img)
    return p


def _die(colour, value, x, unsure=False):
    d = FakeDie(colour, value, unsure=unsure, confidence=0.5 if unsure else 0.99)
    d.box = (x, 100, 40, 40)
    return d


def _read_four(step, reader, photo, unsure=()):
    bag = step.entry.bag
    colours = [c for c, k in bag.items() for _ in range(k)][:4]
    reader.queue.append(FakeRead([_die(c, 3, 20 + 90 * i, unsure=i in unsure) for i, c in enumerate(colours)]))
    assert step.read_photo(photo)
    return colours


class Later:
    """An injected starter: keeps the background jobs, runs them when told."""

    def __init__(self):
        self.jobs = []

    def __call__(self, job):
        self.jobs.append(job)

    def run(self):
        jobs, self.jobs = self.jobs, []
        for j in jobs:
            j()


def test_a_confirmed_photo_adds_its_dice_and_learns_in_the_background(game_dir, tmp_path):
    later, learned = Later(), []
    learning = TableLearning(tmp_path / "profile", starter=later, learner=lambda folder: learned.append(folder) or 3)
    vm, reader = _vm(game_dir, learning)
    step = advance_to(vm, "roll_dice", random.Random(5))
    colours = _read_four(step, reader, _photo(tmp_path).read_bytes(), unsure=(1,))
    e = step.entry
    other = next(c for c in ("red", "yellow", "purple", "blue", "green") if c != colours[1] and e.of_colour(c) < e.bag[c])
    assert e.set_colour(1, other) and e.set_value(1, 6)
    assert step.submit()
    # the tap returned: nothing added yet, one background job
    assert len(later.jobs) == 1 and not learning.profile.exists() and not learned
    later.run()
    dice = learning.profile.dice()
    assert [(d.colour, d.value) for d in dice] == [(colours[0], 3), (other, 6), (colours[2], 3), (colours[3], 3)]
    assert all(d.die for d in dice) and dice[1].box == (110.0, 100.0, 40.0, 40.0)
    assert learned == [learning.profile.path] and learning.last_exit == 3  # no learn extra: the dice are kept
    assert learning.problem is None and not any(learning.profile.path.parent.glob(".confirmed-photo-*"))
    assert learning.profile.views()[1].complete  # every die of the photo confirmed with its box


def test_one_learn_at_a_time(tmp_path):
    later, learned = Later(), []
    learning = TableLearning(tmp_path / "profile", starter=later, learner=lambda folder: learned.append(1) or 0)
    photo = _photo(tmp_path)
    learning.add_photo(photo, [((20, 100, 40, 40), "red", 2)])
    learning.add_photo(photo.read_bytes(), [((20, 100, 40, 40), "red", 2)])  # the worker is busy: queued
    assert len(later.jobs) == 1
    later.run()
    assert learned == [1] and len(learning.profile.dice()) == 1  # the same photo is kept once
    learning.add_photo(photo, [((200, 100, 40, 40), "blue", 5)], removed=[(300, 20, 40, 40)])
    assert len(later.jobs) == 1  # free again: a new worker


def test_a_removed_unsure_read_is_kept_as_not_a_die(game_dir, tmp_path):
    learning = TableLearning(tmp_path / "profile", starter=lambda job: job(), learner=lambda f: 0)
    vm, reader = _vm(game_dir, learning)
    step = advance_to(vm, "roll_dice", random.Random(5))
    bag = step.entry.bag
    colours = [c for c, k in bag.items() for _ in range(k)][:4]
    photo = _photo(tmp_path)
    # the fourth read is unsure and wrong: the player removes it and taps the die in
    reader.queue.append(FakeRead([_die(c, 2, 10 + 70 * i) for i, c in enumerate(colours[:3])] + [_die(colours[3], 4, 330, unsure=True)]))
    assert step.read_photo(str(photo))
    step.entry.remove(3)
    assert step.entry.add(colours[3], 4)
    assert step.submit()
    dice = learning.profile.dice()
    assert sum(d.die for d in dice) == 3 and [d.box for d in dice if not d.die] == [(330.0, 100.0, 40.0, 40.0)]
    assert not learning.profile.views()[1].complete  # a die tapped in: the detector must not learn from it


def test_a_sure_read_removed_is_not_kept_as_not_a_die(game_dir, tmp_path):
    learning = TableLearning(tmp_path / "profile", starter=lambda job: job(), learner=lambda f: 0)
    vm, reader = _vm(game_dir, learning)
    step = advance_to(vm, "roll_dice", random.Random(5))
    colours = _read_four(step, reader, str(_photo(tmp_path)))
    step.entry.remove(0)  # maybe another seat's die: not "not a die"
    assert step.entry.add(colours[0], 3)
    assert step.submit()
    assert [d.die for d in learning.profile.dice()] == [True, True, True]
    assert not learning.profile.views()[1].complete


def test_a_read_with_reads_left_out_is_not_complete(game_dir, tmp_path):
    """The reads of no game colour beyond the seat's dice are left out of the chips: the photo
    holds dice (or something) the confirmation does not list, so the detector does not learn it."""
    learning = TableLearning(tmp_path / "profile", starter=lambda job: job(), learner=lambda f: 0)
    vm, reader = _vm(game_dir, learning)
    step = advance_to(vm, "roll_dice", random.Random(5))
    bag = step.entry.bag
    colours = [c for c, k in bag.items() for _ in range(k)][:4]
    reader.queue.append(FakeRead([_die(c, 2, 10 + 70 * i) for i, c in enumerate(colours)] + [_die("unknown", 5, 330)]))
    assert step.read_photo(str(_photo(tmp_path)))
    assert len(step.entry.chips) == 4 and not step.entry.photo_complete()
    assert step.submit()
    assert len(learning.profile.dice()) == 4 and not learning.profile.views()[1].complete


def test_a_broken_profile_does_not_break_the_dice_step(game_dir, tmp_path, capsys):
    folder = tmp_path / "profile"
    folder.mkdir()
    (folder / "profile.json").write_text("{torn")
    (folder / "model").mkdir()
    (folder / "model" / "current.json").write_text('{"folder": "m-1"}')
    learning = TableLearning(folder, starter=lambda job: job(), learner=lambda f: 0)
    vm, reader = _vm(game_dir, learning)
    step = advance_to(vm, "roll_dice", random.Random(5))
    _read_four(step, reader, _photo(tmp_path))
    assert step.learned_from() == 0
    assert step.submit()  # the game goes on
    assert learning.problem and "profile.json" in learning.problem
    assert capsys.readouterr().err.count("table profile is ignored") == 1  # reported once
    assert (folder / "profile.json").read_text() == "{torn"  # nothing written into it


def _switch_model(learning, dice):
    p = learning.profile
    p.ensure_writable()
    folder = p.new_model_folder()
    (folder / "dice_classifier.onnx").write_bytes(b"onnx")
    p.switch_model(folder, {"unsure_below": 0.9, "trained_on": {"photos": 2, "dice": dice}})


def test_the_reader_follows_the_adapted_model_and_the_step_says_how_many_dice(game_dir, tmp_path):
    learning = TableLearning(tmp_path / "profile", starter=lambda job: job(), learner=lambda f: 0)
    calls = []
    vm, reader = _vm(game_dir, learning, calls)
    step = advance_to(vm, "roll_dice", random.Random(5))
    assert vm.dice_reader()[0] is reader and vm.dice_reader()[0] is reader and len(calls) == 1
    assert step.learned_from() == 0
    _switch_model(learning, 27)
    vm.dice_reader()
    assert len(calls) == 2 and step.learned_from() == 27  # a new model: a new reader, once
    vm.dice_reader()
    assert len(calls) == 2
    assert T("g.dice.learned", n=27) == "Learned from 27 of your dice"
    assert T("g.dice.learned", n=1) == "Learned from 1 of your dice"


def test_it_is_right_moves_to_the_next_unsure_die(game_dir, tmp_path):
    vm, reader = _vm(game_dir, None)
    step = advance_to(vm, "roll_dice", random.Random(5))
    _read_four(step, reader, _photo(tmp_path), unsure=(0, 2, 3))
    e = step.entry
    assert e.selected == 0
    e.confirm_chip(0)
    assert e.selected == 2
    e.select(3)
    e.confirm_chip(3)
    assert e.selected == 2  # wraps round to the one left
    e.confirm_chip(2)
    assert e.selected is None and not any(c.unsure for c in e.chips)


def test_all_are_right_confirms_every_unsure_die_of_a_game_colour_in_one_tap(game_dir, tmp_path):
    """"All N unsure dice are right": what "It is right" does die by die, in one tap; a read
    of an unknown colour stays unsure (its colour must be chosen) and is selected."""
    vm, reader = _vm(game_dir, None)
    step = advance_to(vm, "roll_dice", random.Random(5))
    colours = _read_four(step, reader, _photo(tmp_path), unsure=(0, 2, 3))
    e = step.entry
    assert e.unsure_known() == 3 and e.problem() is not None
    e.confirm_all()
    assert e.selected is None and not any(c.unsure for c in e.chips) and e.unsure_known() == 0
    assert [(c.colour, c.value) for c in e.chips] == [(c, 3) for c in colours]
    assert e.problem() is None and step.submit()
    # with a read of an unknown colour among them
    step = advance_to(vm, "roll_dice", random.Random(5))
    bag = step.entry.bag
    known = [c for c, k in bag.items() for _ in range(k)][:3]
    reader.queue.append(FakeRead([_die(known[0], 2, 20, unsure=True), _die("other", 5, 110),
                                  _die(known[1], 4, 200, unsure=True), _die(known[2], 6, 290)]))
    assert step.read_photo(_photo(tmp_path))
    e = step.entry
    assert e.unsure_known() == 2 and e.chips[1].colour == "unknown" and e.chips[1].unsure
    e.confirm_all()
    assert [c.unsure for c in e.chips] == [False, True, False, False] and e.selected == 1
    assert e.problem() is not None  # the unknown colour is still to choose


def test_no_profile_keeps_nothing(game_dir, tmp_path):
    vm, reader = _vm(game_dir, None)
    step = advance_to(vm, "roll_dice", random.Random(5))
    _read_four(step, reader, _photo(tmp_path))
    assert step.submit() and step.learned_from() == 0
    json.dumps(vm.state.to_json())


def _game_screen(monkeypatch, game_dir):
    """A game started from the wizard's screen in the app's data dir ``game_dir``: (the fake
    shell, the game's view-model)."""
    from companion.app.game.holder import game_vm
    from companion.app.shell.view import build_screen
    from test_game_views import FakeShell

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell()
    shell.ctl.new_game()
    shell.ctl.screen_state("/new", lambda: NewGameVM(GameText(), random.Random(2)))
    build_screen("/new", shell).start()
    return shell, game_vm(shell.ctl)


def test_the_dice_step_shows_how_many_dice_the_reader_learned_from(monkeypatch, game_dir, tmp_path):
    from companion.app.shell.view import build_screen
    from test_game_views import texts

    shell, vm = _game_screen(monkeypatch, game_dir)
    assert vm.learning is not None and vm.learning.profile.path == game_dir / "table-profile"  # the app's data dir
    reader = FakeReader()
    vm._reader_factory = lambda: reader
    vm.learning = TableLearning(tmp_path / "profile", starter=lambda job: job(), learner=lambda f: 0)
    advance_to(vm, "roll_dice", random.Random(5), seat_kind="human", reader=reader)
    words = " ".join(texts(build_screen("/game", shell).view()))
    assert "Learned from" not in words
    _switch_model(vm.learning, 27)
    words = " ".join(texts(build_screen("/game", shell).view()))
    assert "Learned from 27 of your dice" in words


def test_the_dice_step_offers_all_are_right_beside_it_is_right(monkeypatch, game_dir, tmp_path):
    """The selected unsure die shows "It is right" and, while two or more unsure reads of a game
    colour are left, "All N unsure dice are right"; one tap on it confirms them all."""
    import flet as ft

    from companion.app.shell.view import build_screen
    from control_tree import find_controls
    from test_game_views import texts

    shell, vm = _game_screen(monkeypatch, game_dir)
    reader = FakeReader()
    vm._reader_factory = lambda: reader
    vm.learning = None
    step = advance_to(vm, "roll_dice", random.Random(5), seat_kind="human", reader=reader)
    _read_four(step, reader, _photo(tmp_path), unsure=(0, 2, 3))

    def button_named(text):
        body = build_screen("/game", shell).view()
        found = [b for b in find_controls(body, ft.OutlinedButton) if b.content == text or text in texts(b)]
        return found[0] if found else None

    assert button_named("It is right") is not None
    all_right = button_named("All 3 unsure dice are right")
    assert all_right is not None
    all_right.on_click(None)
    assert not any(c.unsure for c in step.entry.chips)
    assert button_named("It is right") is None and "unsure dice are right" not in " ".join(texts(build_screen("/game", shell).view()))
    # one unsure read left: "It is right" alone
    _read_four(step, reader, _photo(tmp_path), unsure=(1,))
    assert button_named("It is right") is not None and button_named("All 1 unsure dice are right") is None
