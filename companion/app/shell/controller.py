"""The app's state outside any screen: preferences, language, navigation, window size.

Plain Python (no Flet): the Flet shell (``companion/app/shell/view.py``) reads it to draw and
calls its methods from event handlers; the tests drive it directly. Screens reach it as
``screen.ctl`` (``has_screen``: whether a route has a screen, from ``shell.screens``).
"""

from __future__ import annotations

import re
from typing import Callable

from companion.app.common import layout
from companion.app.common.i18n import LANGUAGES, Translator
from companion.app.common.nav import Navigator
from companion.app.common.prefs import THEMES, Prefs, load_prefs, save_prefs
from companion.app.shell import screens

#: every screen of the app, by route
ROUTES: tuple[str, ...] = (
    "/",          # start
    "/settings",
    "/scorepad",  # stand-alone score pad
    "/new",       # new game wizard
    "/resume",
    "/game",      # the game in progress
)

#: the browser address of a game: ``/game/<id>``
GAME_ADDRESS = "/game/"
_GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")  # the store's game ids


def game_in_address(route: str | None) -> str | None:
    """The game id of a browser address ``/game/<id>`` (query and fragment ignored), or None."""
    path = (route or "").split("?", 1)[0].split("#", 1)[0]
    if not path.startswith(GAME_ADDRESS):
        return None
    gid = path[len(GAME_ADDRESS):].rstrip("/")
    return gid if _GAME_ID.match(gid) else None


class AppController:
    def __init__(self, prefs: Prefs | None = None, save: bool = True):
        """``prefs``: start from these instead of the saved ones; ``save=False``: never write them."""
        if prefs is None:
            prefs, self.prefs_problem = load_prefs()
        else:
            self.prefs_problem = None
        self.prefs = prefs
        self._save = save
        self.tr = Translator(prefs.language)
        self.nav = Navigator(ROUTES)
        self.width: float | None = None
        self._listeners: list[Callable[[str], None]] = []
        self._screens: dict[str, object] = {}
        #: the saved game the "/game" screen shows (set by open_game)
        self.game_id: str | None = None

    # -- change notification -------------------------------------------------------------
    def subscribe(self, listener: Callable[[str], None]) -> None:
        """``listener(what)`` is called after a change: ``"language"``, ``"theme"``, ``"size"``."""
        self._listeners.append(listener)

    def _notify(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(what)

    # -- preferences ---------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        if lang == self.prefs.language:
            return
        self.prefs = self.prefs.with_(language=lang)
        self.tr.set_language(lang)
        self._persist()
        self._notify("language")

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r}; choose one of {', '.join(THEMES)}")
        if theme == self.prefs.theme:
            return
        self.prefs = self.prefs.with_(theme=theme)
        self._persist()
        self._notify("theme")

    def keep_prefs_on_page(self) -> None:
        """Language and theme change this page only and are never written (a phone's page:
        the preferences file is the table's, docs/app.md)."""
        self._save = False

    def _persist(self) -> None:
        if self._save:
            save_prefs(self.prefs)

    # -- layout --------------------------------------------------------------------------
    @property
    def size_class(self) -> str:
        return layout.size_class(self.width)

    def set_width(self, width: float | None) -> bool:
        """Record the window width; ``True`` when the size class changed (screens re-lay out)."""
        before = self.size_class
        self.width = width
        changed = self.size_class != before
        if changed:
            self._notify("size")
        return changed

    # -- screens -------------------------------------------------------------------------
    def has_screen(self, route: str) -> bool:
        """Whether a screen is drawn for ``route`` (``companion.app.shell.screens``)."""
        return screens.has_screen(route)

    # -- games ---------------------------------------------------------------------------
    def open_game(self, game_id: str) -> None:
        """Show the saved game ``game_id`` (from the resume list, or once the wizard created it).

        The wizard's screen is replaced, so "back" from the game returns to the start screen."""
        if not game_id:
            raise ValueError("no game to open")
        self.game_id = game_id
        self.drop_screen_state("/game")
        if self.nav.current == "/new":
            self.drop_screen_state("/new")
            self.nav.replace("/game")
        else:
            self.nav.go("/game")

    def new_game(self) -> None:
        self.drop_screen_state("/new")
        self.nav.go("/new")

    # -- the browser's address (web mode: a reload or a new tab comes back to the game) ------
    def address(self) -> str:
        """What the browser's address bar shows: ``/game/<id>`` while a game is on screen,
        else ``/`` (docs/app.md, "Many phones, one game": a page that reloads comes back)."""
        if self.nav.current == "/game" and self.game_id:
            return GAME_ADDRESS + self.game_id
        return "/"

    def open_address(self, route: str | None) -> bool:
        """Open the game named by a browser address ``/game/<id>`` (a reloaded page, a new tab
        on a copied address); False, and nothing changes, for any other address. The game is
        opened like one picked from the saved-games list: a phone still needs its join code."""
        gid = game_in_address(route)
        if gid is None:
            return False
        if self.nav.current == "/game" and self.game_id == gid:
            return True
        self.open_game(gid)
        return True

    # -- per-screen view-models (kept while the app runs, so going back keeps entries) -----
    def screen_state(self, route: str, factory: Callable[[], object]) -> object:
        if route not in self._screens:
            self._screens[route] = factory()
        return self._screens[route]

    def drop_screen_state(self, route: str) -> None:
        self._screens.pop(route, None)
