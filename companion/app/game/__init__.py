"""The tracked game's screens: the new game wizard (``/new``) and the game (``/game``).

What lives here: one module pair per panel, the view-model (plain Python, tested without a
display) and its Flet view:

- ``wizard_vm`` / ``wizard_view``: the new game (seats, automa cards, first player, Sepultus);
- ``vm`` / ``view``: the game screen (``GameVM``: the current question, undo/redo, the shared
  game; ``GameScreen``: its frame, redraws, join form, log), over ``steps.Step``;
- ``reveal_vm`` / ``reveal_view``: set-up and reveals; ``dice_vm`` / ``dice_view``: dice entry
  and placement (``live_vm`` / ``live_view``: the desktop camera); ``turn_vm`` / ``turn_view``:
  a human's turn and research; ``cards_vm`` / ``cards_view``: cards chosen or drawn, seals,
  categories; ``automa_vm`` / ``automa_view``: an automa's turn; ``board_vm`` / ``board_view``:
  the drawn boards; ``endgame_vm`` / ``endgame_view``: the end of the game at a glance;
- ``holder``: the open game of each page and the process's shared games (join codes);
  ``catalogue``: the local animal catalogue; ``texts`` and ``i18n/<lang>.json``: the game's
  strings; ``widgets``: the panels' small controls.

The shell (``companion.app.shell.screens``) names the two screens; nothing here imports the
shell. What must not live here: game rules. The screens only call the engine's public API
(``companion.engine``, ``companion.session``, ``companion.engine.queries`` ...) and the automa; the
engine never imports the app. This ``__init__`` imports nothing.
"""
