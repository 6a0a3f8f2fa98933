"""The start screen (``/``: new game, resume, score pad, settings) and the saved games
(``/resume``): ``vm`` (the saved-games list, export and import over ``companion.store``) and
``view`` (the Flet screens).

What must not live here: the game screens (``companion.app.game``), storage formats (the
store's), the shell.
"""
