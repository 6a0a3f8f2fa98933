"""On a French (or Italian) screen the engine's refusals and the action log are in that
language (issue 17, item 4), through the view-models the screens draw (no display)."""

from __future__ import annotations

import random

from companion.actions import AutomaAction, RevealExpert
from companion.app.common.engine_text import engine_text
from companion.app.game.texts import GameText
from companion.app.game.vm import GameVM, LocalCatalogue
from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
from companion.engine import apply
from companion.errors import RuleError
from companion.store import GameStore

from game_play import answer


def _french_game(game_dir, lang="fr"):
    t = GameText(lang)
    w = NewGameVM(t, random.Random(4))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(AUTOMA, "Robot")]
    w.shuffle_all()
    s = w.create(GameStore(game_dir))
    assert s is not None, w.error
    return GameVM(s, t, LocalCatalogue(game_dir / "catalogue.json"))


def _refusal(vm, action) -> RuleError:
    try:
        apply(vm.state.copy(), action)
    except RuleError as exc:
        return exc
    raise AssertionError(f"{action} was accepted")


def test_the_wizard_says_the_set_up_problem_in_french():
    w = NewGameVM(GameText("fr"), random.Random(1))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(HUMAN, "Ana")]
    assert w.problems() == ["deux joueurs s'appellent 'Ana' : donnez à chacun un nom différent"]


def test_a_refused_reveal_is_shown_in_french_and_the_log_is_french(game_dir):
    vm = _french_game(game_dir)
    step = vm.step
    assert step.kind == "reveal_expert"
    name = step.candidates()[0]
    assert step.reveal(name) and vm.error is None
    # the same card again: the engine refuses it, the screen says why in French
    assert not vm.confirm(RevealExpert(name))
    assert vm.error == f"{name} est déjà sorti de la pioche dans cette partie : vérifiez la carte"
    assert vm.error == engine_text(_refusal(vm, RevealExpert(name)), "fr")
    log = vm.log()
    assert log[0].startswith("nouvelle partie : Ana, Robot (automa) ; ")
    assert log[1] == f"la table révèle l'expert {name}"


def test_a_drafted_action_too_expensive_is_refused_in_french(game_dir):
    vm = _french_game(game_dir)
    rng = random.Random(5)
    for _ in range(300):
        if (vm.step.kind == "turn" and vm.state.seats[vm.step.seat].name == "Ana"
                and any(isinstance(a, AutomaAction) for a in vm.session.actions)):
            break
        answer(vm, rng)
    step = vm.step
    assert step.kind == "turn"
    if not step.in_hand:
        spot = step.dice()[0]
        assert step.select_die(spot.owner, spot.slot, spot.index), vm.error
    bank = next(o for o in step.options() if o.kind == "bank")
    draft = step.open(bank.index)
    coins = vm.state.seats[step.seat].coins
    draft.set_spend(coins=coins + 40)
    legal, text = draft.result()
    assert not legal
    assert text == f"il faut {coins + 40} Écus ; Ana en a {coins}"
    assert not draft.confirm() and vm.error == text
    # the log is French throughout, the automa's lines included
    log = "\n".join(vm.log())
    assert "la table révèle" in log and "Robot (automa) : " in log
    assert "the table" not in log and " takes " not in log


def test_the_same_refusal_in_italian(game_dir):
    vm = _french_game(game_dir, "it")
    name = vm.step.candidates()[0]
    assert vm.step.reveal(name)
    assert not vm.confirm(RevealExpert(name))
    assert vm.error == f"{name} è già uscito dal mazzo in questa partita: controllate la carta"
    assert vm.log()[1] == f"il tavolo scopre l'esperto {name}"


def test_the_automa_card_and_notes_speak_the_table_language(game_dir):
    """Issue 41, item 1: the automa's card (its instructions) and the notes that follow a step
    (its dice layout, what it gains) are in the screen's language."""
    for lang, words in (("fr", ("Prenez", "Placez-le", "plateau")), ("it", ("Prendete", "Mettetelo", "plancia"))):
        vm = _french_game(game_dir / lang, lang)
        rng = random.Random(3)
        cards, notes = [], []
        for _ in range(400):
            if vm.step.kind == "automa":
                cards.extend(vm.step.instructions)
            answer(vm, rng)
            notes.extend(vm.notes)
            if len(cards) > 12 and notes:
                break
        text = "\n".join(cards + notes)
        assert cards and notes, text
        assert all(w in text for w in words), text
        for english in (" takes ", "Place it", "Take the", " gains ", "board", "Set-up", "left to right"):
            assert english not in text, (lang, english, text)
