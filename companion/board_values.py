"""The board constants a game is played with, as part of the game record.

The unverified board constants (DIGEST §2) can be corrected by each user ("check your box",
``<user data dir>/board.json``). A saved game must replay with the values it was played with,
whatever the user changes later, so ``StartGame.board`` records them: a JSON object holding
EVERY overridable constant (``shipped_unverified_keys()``) with the value in force when the
game was set up. The engine builds the game's ``Board`` from the shipped ``board.json`` with
those values applied, exactly like a user override file (same validation, same error
messages). Recording every overridable key, not only the ones the user changed, also keeps old
games stable if a later release corrects a shipped default.

- ``board_values(board)``: the record of ``board`` (a fresh dict of JSON values).
- ``current_board_values()``: the record of ``default_board()`` (the StartGame default).
- ``board_from_values(values)``: the ``Board`` a record describes (cached; raises
  ``SetupError`` naming the key when the record is not valid).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from companion.content.board import Board, BoardConfigError, board_with_override, default_board, shipped_unverified_keys
from companion.errors import SetupError

_SOURCE = "the game's board constants"  # the content loader names the record so in its messages
_BUILT: dict[str, Board] = {}  # canonical JSON of a record -> Board
_MAX_BUILT = 32
_VALUES_OF: tuple[Board | None, str] = (None, "")  # (board, canonical JSON of its record), last one asked


def _record_text(board: Board) -> str:
    global _VALUES_OF
    if _VALUES_OF[0] is board:
        return _VALUES_OF[1]
    constants = board.to_json()
    text = json.dumps({k: constants[k] for k in sorted(shipped_unverified_keys())}, sort_keys=True)
    _VALUES_OF = (board, text)
    return text


def board_values(board: Board) -> dict[str, Any]:
    """Every overridable constant of ``board`` as JSON values (a new dict each call)."""
    return json.loads(_record_text(board))


def current_board_values() -> dict[str, Any]:
    """The record of the board this installation plays with now (shipped values + the user's
    override): what a new ``StartGame`` carries unless told otherwise."""
    return board_values(default_board())


def board_from_values(values: Mapping[str, Any]) -> Board:
    """The ``Board`` of a game whose ``StartGame.board`` is ``values`` (shipped constants with
    these applied). ``SetupError`` when a key is unknown, not overridable, or a value is bad."""
    try:
        key = json.dumps(values, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise SetupError("board.not_json", detail=str(exc)) from None
    b = _BUILT.get(key)
    if b is not None:
        return b
    if not isinstance(values, Mapping):
        raise SetupError("board.not_object", type=type(values).__name__)
    try:
        b = board_with_override(dict(values), _SOURCE)
    except BoardConfigError as exc:
        raise SetupError("board.invalid", detail=str(exc)) from None
    if len(_BUILT) >= _MAX_BUILT:
        _BUILT.clear()
    _BUILT[key] = b
    return b


__all__ = ["board_values", "current_board_values", "board_from_values"]
