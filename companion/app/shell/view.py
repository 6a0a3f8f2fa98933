"""The Flet side of the app: one page, an app bar, and the current screen drawn from the
plain-Python controller (``companion.app.shell.controller``). The screens are the sub-packages
of ``companion/app/`` (``start``, ``settings``, ``scorepad``, ``game``), named by route in
``companion.app.shell.screens``; ``build_screen`` imports one the first time it is drawn.

``app_main(page)`` is what ``ft.run`` calls, once per window / browser tab.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import traceback
from importlib import import_module
from pathlib import Path

import flet as ft

from companion.app.common import flet_events, layout
from companion.app.common.gate import is_phone, noted_address
from companion.app.common.widgets import icon_button, sentence
from companion.app.shell.controller import AppController
from companion.app.shell.screens import ON_PAGE_CLOSE, SCREENS
from companion.content.paths import user_data_dir

log = logging.getLogger(__name__)

SEED_COLOUR = "#2E7D5B"  # the green of the game's box


def assets_dir() -> Path:
    """``companion/app/assets``: served to the browser (and the shell's translation tables)."""
    return Path(__file__).parent.parent / "assets"


def upload_dir() -> Path:
    """Where photos uploaded from phones land before the dice reader reads them."""
    try:
        d = user_data_dir(create=True) / "uploads"
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        d = Path(tempfile.gettempdir()) / "encyclopedia-companion-uploads"
        d.mkdir(parents=True, exist_ok=True)
    return d


def build_screen(route: str, shell):
    """The screen of ``route`` (``screens.SCREENS``), its module imported on first use."""
    target = SCREENS.get(route)
    if target is None:
        raise LookupError(f"no screen is drawn for {route!r} yet")
    module, cls = target.split(":")
    return getattr(import_module(module), cls)(shell)


class Shell:
    """Draws the current route of ``ctl.nav`` into ``page`` and re-draws on changes."""

    def __init__(self, page: ft.Page, ctl: AppController):
        self.page = page
        self.ctl = ctl
        self.tr = ctl.tr
        self._screen = None
        self._client_prefs = None

    def start(self) -> None:
        page = self.page
        page.theme = ft.Theme(color_scheme_seed=SEED_COLOUR)
        page.dark_theme = ft.Theme(color_scheme_seed=SEED_COLOUR)
        page.padding = 0
        page.on_resize = self._on_resize
        page.on_close = self._on_close  # the session expired: let go of its game
        # a page served to another device must enter a game's join code (docs/app.md)
        self.ctl.web = bool(page.web)
        # (common.gate: from the address the server saw, not from what the browser says)
        self.ctl.remote_client = is_phone(page)
        # the address the join-code limits count wrong codes by (the server's word, not the page's)
        self.ctl.client_address = noted_address(page) or ""
        if self.ctl.remote_client:  # the preferences file is the table's: a phone's stay on its page
            self.ctl.keep_prefs_on_page()
        # file pickers are page services (constructing one inside main or an event handler
        # registers it); one per purpose, so each screen sets its own on_result
        self._pickers: dict[str, ft.FilePicker] = {"default": ft.FilePicker()}
        # the address bar names the open game (/game/<id>): a reload, or a new tab on that
        # address, comes back to it (a phone still enters the join code; docs/app.md)
        route = page.route if isinstance(page.route, str) and page.route else "/"
        self._address, self._pushed = route, []
        if page.web:
            self.ctl.open_address(route)
            page.on_route_change = self._on_route_change
        # a tap on a control that another phone's change replaced gets the stale message
        flet_events.install(page, self._vanished_tap)
        self.ctl.nav.subscribe(lambda route: self.render())
        self.ctl.subscribe(self._on_change)
        self.ctl.set_width(page.width if isinstance(page.width, (int, float)) else None)
        self.render()
        if self.ctl.prefs_problem:
            self.toast(self.tr("settings.prefs_unreadable", problem=self.ctl.prefs_problem))

    # -- events --------------------------------------------------------------------------
    def _on_resize(self, e) -> None:
        width = getattr(e, "width", None)
        if not isinstance(width, (int, float)) or isinstance(width, bool):
            return  # a resize without a width (a malformed client): nothing to lay out
        if self.ctl.set_width(width):
            pass  # the controller notified "size": already re-rendered

    def _on_close(self, e) -> None:
        for target in ON_PAGE_CLOSE:  # e.g. the game's: loaded only if a game screen was opened
            module, fn = target.split(":")
            loaded = sys.modules.get(module)
            if loaded is not None:
                getattr(loaded, fn)(self.ctl)

    def _vanished_tap(self, control_id: int, event_name: str) -> None:
        """Flet's event loop: a tap on a control replaced by a redraw for another page's change
        (``companion.app.common.flet_events``); the current screen answers it in a worker, if it can."""
        answer = getattr(self._screen, "vanished_tap", None)
        if answer is not None:
            self.page.run_thread(answer)

    def _on_change(self, what: str) -> None:
        self.render()

    def _on_route_change(self, e) -> None:
        """The browser's address changed: our own push coming back, or the user (Back/Forward,
        a typed address): open the game it names, or leave the game for the start screen."""
        route = getattr(e, "route", None)
        if not isinstance(route, str) or not route:  # (a number from a malformed client)
            route = "/"
        if route in self._pushed:
            del self._pushed[:self._pushed.index(route) + 1]
            return
        self._address = route
        if not self.ctl.open_address(route) and self.ctl.nav.current == "/game":
            self.ctl.nav.home()

    def _sync_address(self) -> None:
        want = self.ctl.address()
        if not self.page.web or want == self._address:
            return
        self._address = want
        self._pushed = [*self._pushed[-7:], want]
        try:
            flet_events.run_task(self.page, self.page.push_route, want)
        except Exception:  # the page is gone
            log.debug("address not updated", exc_info=True)

    # -- helpers for screens -------------------------------------------------------------
    def toast(self, text: str, error: bool = False) -> None:
        text = sentence(text)
        bar = ft.SnackBar(ft.Text(text, semantics_label=text), bgcolor=ft.Colors.ERROR if error else None,
                          show_close_icon=True, duration=ft.Duration(seconds=6))
        self.page.show_dialog(bar)

    def file_picker(self, purpose: str = "default") -> ft.FilePicker:
        """The page's file picker for ``purpose`` (created on first use)."""
        if purpose not in self._pickers:
            self._pickers[purpose] = ft.FilePicker()
        return self._pickers[purpose]

    def client_prefs(self):
        """The browser's own storage for this page (Flet's SharedPreferences; web mode only)."""
        if not self.page.web:
            return None
        if self._client_prefs is None:
            self._client_prefs = ft.SharedPreferences()
        return self._client_prefs

    def update(self) -> None:
        self.page.update()

    # -- drawing -------------------------------------------------------------------------
    def render(self) -> None:
        page, tr, ctl = self.page, self.tr, self.ctl
        page.title = tr("app.title")
        page.theme_mode = {"light": ft.ThemeMode.LIGHT, "dark": ft.ThemeMode.DARK}.get(
            ctl.prefs.theme, ft.ThemeMode.SYSTEM)
        try:
            screen = build_screen(ctl.nav.current, self)
            body, title, actions = screen.view(), screen.title(), screen.actions()
        except Exception as exc:  # a screen that cannot draw must not leave a blank page
            log.error("screen %s failed", ctl.nav.current, exc_info=True)
            body = ft.Column([
                ft.Text(tr("app.screen_failed"), size=18, weight=ft.FontWeight.BOLD),
                ft.Text(f"{type(exc).__name__}: {exc}", selectable=True),
                ft.Text(traceback.format_exc(limit=3), size=11, selectable=True),
            ])
            title, actions, screen = tr("app.title"), [], None
        self._screen = screen
        leading = None
        if ctl.nav.can_go_back:
            leading = icon_button(ft.Icons.ARROW_BACK, tr("nav.back"), lambda e: ctl.nav.back())
        theme_button = icon_button(
            ft.Icons.LIGHT_MODE if self.is_dark() else ft.Icons.DARK_MODE,
            tr("nav.toggle_theme"),
            lambda e: ctl.set_theme("light" if self.is_dark() else "dark"),
        )
        page.appbar = ft.AppBar(
            leading=leading, automatically_imply_leading=False,
            title=ft.Text(title, overflow=ft.TextOverflow.ELLIPSIS),
            actions=[*actions, theme_button],
        )
        width = ctl.width
        cw = layout.content_width(width)
        inner = ft.Container(body, width=cw, padding=ft.Padding.all(12 if ctl.size_class == layout.PHONE else 20))
        align = ft.CrossAxisAlignment.STRETCH if cw is None else ft.CrossAxisAlignment.CENTER
        self.scroller = ft.Column([inner], scroll=ft.ScrollMode.AUTO, expand=True, horizontal_alignment=align)
        page.controls = [ft.SafeArea(self.scroller, expand=True)]
        page.update()
        self._sync_address()

    def scroll_to_key(self, key: str) -> None:
        """Bring the control drawn with ``ft.ScrollKey(key)`` to the top of the screen (the
        game's next step after a Confirm; issue 41, item 6). Flet's ``scroll_to`` is a
        coroutine: it runs on the page's loop after the redraw that was just sent."""
        scroller, page = getattr(self, "scroller", None), self.page
        if scroller is None or page is None:
            return

        async def go() -> None:
            try:
                await scroller.scroll_to(scroll_key=key, duration=250)
            except Exception:  # a page gone or a control replaced meanwhile: nothing to scroll
                log.debug("scroll to %s skipped", key, exc_info=True)

        try:
            flet_events.run_task(page, go)  # nothing when the phone has left
        except (AttributeError, RuntimeError):  # the page's connection is gone (a phone left)
            log.debug("scroll to %s skipped: the page is gone", key, exc_info=True)

    def is_dark(self) -> bool:
        theme = self.ctl.prefs.theme
        if theme == "system":
            return self.page.platform_brightness == ft.Brightness.DARK
        return theme == "dark"


def app_main(page: ft.Page) -> None:
    ctl = AppController()
    Shell(page, ctl).start()
