"""Flet screens. Each is a small class over a plain-Python view-model: ``title()``,
``actions()`` (app bar buttons) and ``view()`` (the body). ``build_screen(route, shell)``
picks the class for a route.
"""

from __future__ import annotations

from importlib import import_module

#: route -> "module:Class" (imported on first use, so start-up only loads the start screen)
SCREENS: dict[str, str] = {
    "/": "companion.app.ui.start:StartScreen",
    "/settings": "companion.app.ui.settings:SettingsScreen",
    "/resume": "companion.app.ui.start:ResumeScreen",
    "/scorepad": "companion.app.ui.scorepad:ScorePadScreen",
}


def all_screens() -> dict[str, str]:
    """The shell's screens plus the game screens' (``companion.app.game.SCREENS``, same form),
    for the routes ``/new`` and ``/game``. The game package may be absent or incomplete."""
    screens = dict(SCREENS)
    try:
        game = import_module("companion.app.game")
    except ImportError:
        return screens
    for route, target in dict(getattr(game, "SCREENS", {}) or {}).items():
        screens.setdefault(route, target)
    return screens


def has_screen(route: str) -> bool:
    return route in all_screens()


def build_screen(route: str, shell):
    target = all_screens().get(route)
    if target is None:
        raise LookupError(f"no screen is drawn for {route!r} yet")
    module, cls = target.split(":")
    return getattr(import_module(module), cls)(shell)
