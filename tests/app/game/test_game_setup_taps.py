"""Issue 41, item 16: round set-up costs fewer taps (counted by ``benchmarks/setup_taps.py``)."""

from __future__ import annotations

import random

from companion.app.game.texts import GameText
from companion.app.game.vm import GameVM, LocalCatalogue
from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
from companion.store import GameStore

T = GameText()


def new_vm(game_dir, seed=0):
    w = NewGameVM(T, random.Random(seed))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(AUTOMA, "Automa")]
    w.shuffle_all()
    s = w.create(GameStore(game_dir))
    assert s is not None, w.error
    return GameVM(s, T, LocalCatalogue(game_dir / "catalogue.json"), reader_factory=lambda: None)


def test_the_whole_expert_display_in_one_confirm(game_dir):
    vm = new_vm(game_dir)
    step = vm.step
    assert step.kind == "reveal_expert" and step.slots_left() == 6
    found, unclear = step.names_typed("saf, gao zh; pora\nthao, mathia, lotte")
    assert found == ["Safi Limbila", "Gao Zhelan", "Pora Paniu", "Thao Trí Hùng", "Mathias Hass", "Lotte Paulsen"]
    assert unclear == []
    n = len(vm.session.actions)
    assert step.reveal_typed("saf, gao zh; pora\nthao, mathia, lotte"), vm.error
    assert len(vm.session.actions) == n + 6
    assert list(vm.state.expert_display) == found
    assert vm.step.kind == "reveal_animal"


def test_a_typed_list_that_is_unclear_reveals_nothing(game_dir):
    vm = new_vm(game_dir)
    step = vm.step
    n = len(vm.session.actions)
    assert not step.reveal_typed("saf, ma")  # "ma": Maddalena, Manuel, Mathias, ...
    assert "ma" in vm.error and len(vm.session.actions) == n
    assert not step.reveal_typed("saf, gao, pora, thao, mathia, lotte, akona")  # 7 for 6 slots
    assert len(vm.session.actions) == n
    assert not step.reveal_typed("  ")
    # spaces alone separate names when the piece as a whole names no one expert
    assert step.names_typed("safi gao") == (["Safi Limbila", "Gao Zhelan"], [])
    assert step.names_typed("safi limbila") == (["Safi Limbila"], [])
    # fewer than the display: the rest one by one as before
    assert step.reveal_typed("safi, gao"), vm.error
    assert vm.step.kind == "reveal_expert" and vm.step.slots_left() == 4
    assert "Safi Limbila" not in vm.step.candidates()


def test_same_as_last_game_copies_the_seats_in_one_tap(game_dir):
    store = GameStore(game_dir)
    w = NewGameVM(T, random.Random(1))
    assert not w.same_as_last(store) and w.error  # no earlier game: said, nothing changed
    w.seats = [SeatDraft(AUTOMA, "Robot"), SeatDraft(HUMAN, "Ana"), SeatDraft(HUMAN, "Carl")]
    w.set_behaviour(0, "abraham-trembley")
    w.set_scoring(0, "l-astrolabe")
    w.first_player, w.sepultus = 2, True
    w.shuffle_all()
    assert w.create(store) is not None, w.error
    again = NewGameVM(T, random.Random(2))
    assert again.same_as_last(store), again.error
    assert [(s.kind, s.name, s.behaviour, s.scoring) for s in again.seats if s.kind == AUTOMA] == [
        (AUTOMA, "Robot", "abraham-trembley", "l-astrolabe")]
    assert [s.name for s in again.seats] == ["Robot", "Ana", "Carl"]
    assert again.first_player == 2 and again.sepultus is True
    assert again.problems() == []
    assert again.create(store) is not None
