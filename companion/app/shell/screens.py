"""The screens the shell wires: route -> ``"module:Class"``, as data.

Each screen is a small class over a plain-Python view-model: ``title()``, ``actions()`` (app bar
buttons) and ``view()`` (the body). The shell (``shell.view.build_screen``) imports a screen's
module the first time its route is drawn, so start-up only loads the start screen. This module
imports no screen: a screen asks ``ctl.has_screen(route)`` (the controller reads this table),
never the shell.
"""

from __future__ import annotations

from companion.app.common.features import available

#: route -> "module:Class" (imported on first use)
SCREENS: dict[str, str] = {
    "/": "companion.app.start.view:StartScreen",
    "/settings": "companion.app.settings.view:SettingsScreen",
    "/resume": "companion.app.start.view:ResumeScreen",
    "/scorepad": "companion.app.scorepad.view:ScorePadScreen",
    "/new": "companion.app.game.wizard_view:NewGameScreen",
    "/game": "companion.app.game.view:GameScreen",
}

#: ``"module:function"`` called with the page's controller when a page closes, if that module
#: was loaded (a page that never opened a game has none to let go of)
ON_PAGE_CLOSE: tuple[str, ...] = (
    "companion.app.game.holder:close_page",
)


def has_screen(route: str) -> bool:
    """Whether a screen is drawn for ``route`` (its module is installed)."""
    target = SCREENS.get(route)
    return target is not None and available(target.split(":")[0])
