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


def build_screen(route: str, shell):
    target = SCREENS.get(route)
    if target is None:
        raise LookupError(f"no screen is drawn for {route!r} yet")
    module, cls = target.split(":")
    return getattr(import_module(module), cls)(shell)
