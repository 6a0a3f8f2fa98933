"""The table app (Flet 1.0.5): ``encyclopedia`` or ``python -m companion.app [--web ...]``.

What lives here, one convention: each screen is a sub-package holding its view-model (``vm.py``,
plain Python, tested without a display) and its Flet view (``view.py``): ``start`` (start screen
and saved games), ``settings``, ``scorepad``, ``score`` (the final-score view the score pad and a
finished game share) and ``game`` (the new game wizard and the tracked game, split by panel).
``shell`` wires them: the controller (preferences, navigation, window size), the Flet page and
the route -> screen table. ``common`` holds what every part shares (strings, layout, navigation,
preferences, the join-code gate, small widgets); it imports nothing else of the app.
``launch`` (with ``__main__``) starts the app; ``assets/`` is served to the browser and holds
the shell's and the engine's translation tables.

Imports go one way: ``launch`` -> ``shell`` -> the screens -> ``common``, with no circle. A
screen never imports the shell (``ctl.has_screen`` answers what it needs to know); between
screens only ``score`` (used by the score pad and the game's end) and ``game.holder`` (the
resume list shows a phone the games live at the table) are shared.

What must not live here: game rules, scoring, storage, dice reading. The app only calls the
engine's public API (``companion.engine``, ``companion.session``, ``companion.store`` ...), the
automa and ``vision``; none of those ever imports the app.
"""
