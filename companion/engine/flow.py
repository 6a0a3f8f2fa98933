"""The door and the flow of the game: ``apply`` (checked), ``apply_unchecked`` (trusted
replay), ``replay``, ``new_game``, and the automatic steps run after every action.

What comes next is kept as a small stack of tasks in ``state.tasks``; automatic steps (round
start, end of turn, end of round...) run in ``_advance`` after every action, so the top task is
always one that needs an input (``pending_of``, in ``state``). Interpretations: docs/engine.md.
"""

from __future__ import annotations

from typing import Iterable

from companion.actions import (
    Academy, Action, AutomaAction, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy,
    Expedition, Pass, PlaceDice, Publish, Research, RevealAnimal, RevealExpert, RevealRoundToken,
    RollDice, RollDie, SealAction, SetCategories, StartGame, SwapCubes, TakeDie, University, UseExpert,
    checker_for,
)
from companion.content.board import Board
from companion.engine.handlers_setup import (
    _h_choose_animal, _h_choose_expert, _h_draw_animal, _h_place_dice, _h_reveal_animal, _h_reveal_expert,
    _h_roll_dice, _h_round_token, _h_set_categories, _h_start, _h_use_expert,
)
from companion.engine.handlers_turn import (
    _h_academy, _h_automa, _h_bank, _h_embassy, _h_expedition, _h_pass, _h_publish, _h_research,
    _h_roll_die, _h_seal_action, _h_take_die, _h_university, _h_swap_cubes,
)
from companion.engine.rules import _push, animal_deck_left, expert_deck_left
from companion.engine.state import State, _animal_display_has
from companion.errors import BadActionError, GameOverError


# --------------------------------------------------------------------------- public API

#: The version of the rules ``apply`` checks. A game record says which version checked it when
#: it was written (the session stores it in the game's meta); a record of an older version may
#: hold a move the rules now refuse (issue 39 made the engine stricter in places): it replays
#: with ``apply_unchecked`` where the checked ``apply`` refuses it (docs/engine.md).
#: 1: up to issue 38; 2: issue 39 (the printed rulebook's seven corrections).
RULES_VERSION = 2

#: rules version -> the refusals (message keys) it added: an action of a record checked by an
#: older version that is refused with one of these keys was legal when it was written, and
#: replays unchecked; any other refusal is still a refusal (a damaged or forged record).
RULES_CHANGES: dict[int, frozenset[str]] = {
    2: frozenset({"publish.must_start_highest", "expedition.bonus_cannot_complete",
                  "expedition.choice_cannot_complete", "research.no_cubes_left"}),
}


def refused_only_by_newer_rules(err: Exception, rules: int) -> bool:
    """True when ``err`` (a ``RuleError`` of ``apply``) is a refusal that a version after
    ``rules`` added: the action was legal under the rules that checked the record."""
    key = getattr(err, "key", None)
    return any(key in keys for v, keys in RULES_CHANGES.items() if v > rules)


def new_game(board: Board | None = None) -> State:
    """An empty state waiting for ``StartGame``."""
    return State(board)


def apply(st: State, action: Action) -> State:
    """Apply ``action`` after checking every rule; on a ``RuleError`` the state is untouched."""
    door = _DOOR.get(type(action))
    if door is None:
        raise BadActionError("action.not_an_action", got=action)
    if not st.tasks:
        raise GameOverError("turn.game_over")
    door[1](action)  # field types (BadActionError naming the field)
    door[0](st, action, True)
    st.n_actions += 1
    _advance(st)
    return st


def apply_unchecked(st: State, action: Action) -> State:
    """Apply a trusted action (replay of a log that was checked when it was written)."""
    _HANDLERS[type(action)](st, action, False)
    st.n_actions += 1
    _advance(st)
    return st


def replay(actions: Iterable[Action], board: Board | None = None, checked: bool = False) -> State:
    """The state after ``actions`` from a new game (unchecked unless ``checked``)."""
    st = State(board)
    step = apply if checked else apply_unchecked
    for a in actions:
        step(st, a)
    return st


# --------------------------------------------------------------------------- automatic steps


def _auto_refill_experts(st: State, t: tuple) -> None:
    k = min(st.expert_display.count(None), expert_deck_left(st))
    st.tasks.extend([("reveal_expert",)] * k)


def _auto_refill_animals(st: State, t: tuple) -> None:
    k = min(st.animal_display.count(None), animal_deck_left(st))
    st.tasks.extend([("reveal_animal",)] * k)


def _auto_round_start(st: State, t: tuple) -> None:
    st.round += 1
    st.bank_claimed = False
    for c in st.expedition:
        st.expedition[c] = 0
    st.dice_this_round = st.board.dice_per_seat
    st.tasks.extend((("dice",), ("round_token",), ("refill_animals",), ("refill_experts",)))


def _auto_dice(st: State, t: tuple) -> None:
    n = len(st.seats)
    st.tasks.append(("turns",))
    st.tasks.extend(("roll_dice", (st.first_player + i) % n) for i in range(n - 1, -1, -1))


def _auto_turns(st: State, t: tuple) -> None:
    st.turn_start = st.first_player
    st.turn_seat = st.first_player
    st.tasks.append(("take_die", st.first_player))


def _flush_deferred(st: State) -> None:
    if st.deferred:
        todo = [("choose_" + k, si, "reputation") for si, k in st.deferred]
        st.deferred = []
        _push(st, todo)


def _auto_end_turn(st: State, t: tuple) -> None:
    st.turn_seat = None
    st.tasks.append(("next_turn", t[1]))
    _flush_deferred(st)


def _dice_left(st: State) -> bool:
    for s in st.seats:
        for sl in s.slots:
            if sl:
                return True
    return False


def _auto_next_turn(st: State, t: tuple) -> None:
    if _dice_left(st):
        nxt = (t[1] + 1) % len(st.seats)
        st.turn_seat = nxt
        st.tasks.append(("take_die", nxt))
    else:
        st.tasks.append(("end_round",))


def _auto_end_round(st: State, t: tuple) -> None:
    n = len(st.seats)
    st.tasks.append(("round_cleanup",))
    st.tasks.extend(("seal_offer", (st.first_player + i) % n) for i in range(n - 1, -1, -1))


def _auto_end_seal(st: State, t: tuple) -> None:
    st.turn_seat = None
    _flush_deferred(st)


def _auto_round_cleanup(st: State, t: tuple) -> None:
    for i, x in enumerate(st.expert_display):
        if x is not None:
            st.discarded_experts.append(x)
            st.expert_display[i] = None
    for i, x in enumerate(st.animal_display):
        if x is not None:
            st.discarded_animals.append(x)
            st.animal_display[i] = None
    for c, k in st.central.items():
        st.bag[c] += k
        st.central[c] = 0
    if st.round >= st.board.rounds:
        st.tasks.append(("game_end",))
    else:
        st.tasks.append(("round_start",))


def _auto_game_end(st: State, t: tuple) -> None:
    for s in st.seats:
        if s.kind == "automa":
            continue  # it never publishes: its Scoring card counts the animals in front of it
        for cid in s.animals:
            s.cubes_lost += len(s.cubes.pop(cid, ()))
            st.discarded_animals.append(cid)
        s.animals = []


_AUTO = {
    "refill_experts": _auto_refill_experts,
    "refill_animals": _auto_refill_animals,
    "round_start": _auto_round_start,
    "dice": _auto_dice,
    "turns": _auto_turns,
    "end_turn": _auto_end_turn,
    "next_turn": _auto_next_turn,
    "end_round": _auto_end_round,
    "end_seal": _auto_end_seal,
    "round_cleanup": _auto_round_cleanup,
    "game_end": _auto_game_end,
}


# tasks that wait for an input with no condition to skip them
_WAITS = frozenset({"take_die", "action", "research", "reveal_animal", "reveal_expert", "roll_dice", "place_dice",
                    "round_token", "roll_die", "start"})


def _advance(st: State) -> None:
    tasks = st.tasks
    auto = _AUTO
    waits = _WAITS
    while tasks:
        t = tasks[-1]
        k = t[0]
        if k in waits:
            return
        fn = auto.get(k)
        if fn is not None:
            tasks.pop()
            fn(st, t)
            continue
        if k == "choose_animal":
            if not _animal_display_has(st, t[1]) and animal_deck_left(st, st.seats[t[1]].kind == "automa") <= 0:
                tasks.pop()
                continue
        elif k == "choose_expert":
            if st.expert_display.count(None) == len(st.expert_display) and expert_deck_left(st) <= 0:
                tasks.pop()
                continue
        elif k == "seal_offer":
            s = st.seats[t[1]]
            if s.kind == "automa" or s.seals <= 0 or not any(st.central.values()):
                tasks.pop()
                continue
        break


_HANDLERS = {
    StartGame: _h_start,
    RevealExpert: _h_reveal_expert,
    RevealAnimal: _h_reveal_animal,
    DrawAnimal: _h_draw_animal,
    SetCategories: _h_set_categories,
    SwapCubes: _h_swap_cubes,
    RevealRoundToken: _h_round_token,
    RollDice: _h_roll_dice,
    PlaceDice: _h_place_dice,
    TakeDie: _h_take_die,
    UseExpert: _h_use_expert,
    ChooseAnimal: _h_choose_animal,
    ChooseExpert: _h_choose_expert,
    Embassy: _h_embassy,
    Bank: _h_bank,
    University: _h_university,
    Academy: _h_academy,
    Expedition: _h_expedition,
    Research: _h_research,
    Publish: _h_publish,
    AutomaAction: _h_automa,
    SealAction: _h_seal_action,
    RollDie: _h_roll_die,
    Pass: _h_pass,
}


# the checked door: (handler, field checker) per action class
_DOOR = {cls: (h, checker_for(cls)) for cls, h in _HANDLERS.items()}
