"""Flet screen of a tracked game (``/game``); the new game wizard (``/new``) is ``wizard_view``.

The screen only draws its view-model (``vm.GameVM``) and forwards taps to it; after a change it
redraws (in place when it can). The view-model lives in the app controller's per-screen state
(``holder``), so a redraw (language, theme, window size) keeps every entry. This module holds
the screen's frame: its layout, the in-place redraw, the join form and the host's panel, the
status lines, the step's card and the log. Each kind of step is drawn by its panel, a class the
screen inherits: ``reveal_view``, ``dice_view`` (with ``live_view``), ``turn_view``,
``cards_view``, ``automa_view``, ``endgame_view``; the boards are ``board_view``'s.
"""

from __future__ import annotations

import logging
import os
import time

import flet as ft

from companion.app.common import flet_events
from companion.app.common.widgets import Screen, heading, icon_button, note, sentence
from companion.app.game.automa_view import AutomaPanel
from companion.app.game.cards_view import CardsPanel
from companion.app.game.dice_view import DicePanel
from companion.app.game.endgame_view import EndgamePanel
from companion.app.game.holder import game_vm, holder, join_game, join_info, page_lock, remembered_code_key
from companion.app.game.live_view import LivePanel
from companion.app.game.reveal_view import RevealPanel
from companion.app.game.turn_view import TurnPanel
from companion.app.game.vm import GameVM
from companion.app.game.widgets import button, game_text

log = logging.getLogger(__name__)

#: tests only (tests/app/test_e2e_rejoin.py): seconds a page waits before redrawing a change
#: made on another page, so that a tap on its old question can be made (and refused as stale)
HOLD_REMOTE_REDRAW_ENV = "ENCYCLOPEDIA_TEST_HOLD_REMOTE_REDRAW_S"
#: the scroll key of the game's head (status, messages) right above the step: shown after a step
STEP_KEY = "game-step"


# --------------------------------------------------------------------------- the join QR code


_QR: dict[str, bytes | None] = {}


def qr_png(text: str) -> bytes | None:
    """A PNG of the QR code of ``text`` (the ``qrcode`` package, kept per text); None when the
    package is missing (the address is shown as text anyway)."""
    if text not in _QR:
        try:
            import io

            import qrcode

            qr = qrcode.QRCode(border=2, box_size=6)
            qr.add_data(text)
            qr.make(fit=True)
            buf = io.BytesIO()
            qr.make_image().get_image().convert("RGB").save(buf, format="PNG")
            _QR[text] = buf.getvalue()
        except Exception:
            log.warning("no QR code for %s", text, exc_info=True)
            _QR[text] = None
    return _QR[text]


# --------------------------------------------------------------------------- the game


class GameScreen(RevealPanel, DicePanel, LivePanel, TurnPanel, CardsPanel, AutomaPanel, EndgamePanel, Screen):
    def __init__(self, shell):
        super().__init__(shell)
        self.gt = game_text(self.ctl)
        self.vm: GameVM | None = game_vm(self.ctl)
        if self.vm is not None:
            self.vm.on_remote = self.remote_changed  # the latest screen of this page hears

    def title(self) -> str:
        if self.vm is None:
            return self.gt("g.game.title")
        return self.vm.session.title or self.gt("g.game.title")

    def actions(self) -> list[ft.Control]:
        if self.vm is None:
            return []
        # an Undo tapped on a view the game has left is refused: the version of the question the
        # body shows (drawn just before the bar), not the one the page knows now, which another
        # phone's change heard between the two draws has moved on (its redraw comes after)
        drawn = getattr(self, "_drawn", None)
        seen = drawn["seen"] if drawn is not None else self.vm.seen_version
        return [
            icon_button(ft.Icons.UNDO, self.gt("g.game.undo"), lambda e: self.run(self.vm.undo, seen=seen),
                        disabled=not self.vm.can_undo),
            icon_button(ft.Icons.REDO, self.gt("g.game.redo"), lambda e: self.run(self.vm.redo, seen=seen),
                        disabled=not self.vm.can_redo),
        ]

    def remote_changed(self) -> None:
        """Another page changed the shared game (called in that page's thread): redraw this
        page in its own Flet worker, where its controls belong (docs/app.md, "Many phones,
        one game")."""
        page = getattr(self.shell, "page", None)
        run_thread = getattr(page, "run_thread", None)
        if run_thread is None:  # no Flet page (tests): redraw here
            self.remote_redraw()
            return
        try:
            run_thread(self.remote_redraw)
        except Exception:  # the page is gone
            log.debug("remote redraw not scheduled", exc_info=True)

    def remote_redraw(self) -> None:
        hold = os.environ.get(HOLD_REMOTE_REDRAW_ENV)
        if hold:  # tests only: keep this page's old question on screen a while (a stale tap)
            time.sleep(float(hold))
        with page_lock(self.ctl):
            if getattr(self.shell, "_screen", self) is not self or self.ctl.nav.current != "/game":
                return  # this page shows another screen: it draws the game fresh when it returns
            if self._page_gone():
                return  # the phone left and Flet dropped its page's session (a redraw queued before)
            try:  # a tap on a control this replaces is answered (flet_events, docs/app.md)
                with flet_events.replacing(getattr(self.shell, "page", None)):
                    self.redraw()  # quiet for a page Flet dropped meanwhile
            except Exception:
                log.error("remote redraw failed", exc_info=True)

    def _page_gone(self) -> bool:
        """This phone left and Flet dropped its page's session (``_session_gone``)."""
        return _session_gone(getattr(self.shell, "page", None))

    def vanished_tap(self) -> None:
        """A tap the browser sent for a control that a redraw for another page's change had
        already replaced (Flet dropped it; ``companion.app.common.flet_events``): nothing was applied;
        say so as for a stale question, over the game as it is."""
        if self.vm is None or getattr(self.shell, "_screen", self) is not self or self.ctl.nav.current != "/game":
            return
        if self._page_gone():
            return  # the phone left and Flet dropped its session: no one to tell (it raised in a future)
        self.run(self.vm.refuse_stale)

    def redraw(self) -> None:
        """Redraw after a tap, in place while the screen stays the game in the same language:
        while the game itself has not changed (a die tapped to preview, a spend changed, a
        refusal shown) only the messages and the step panel are replaced; after a step the
        boards' changed parts (``board_view.Parts``), the log and Undo/Redo too. A tap thus
        never pays for sending the whole drawn board again (docs/app-game.md). Otherwise, and
        if anything goes wrong, the shell draws the whole screen."""
        vm = self.vm
        drawn = getattr(self, "_drawn", None)
        page = getattr(self.shell, "page", None)
        if vm is not None and drawn is not None and page is not None and drawn["lang"] == self.gt.lang \
                and self.ctl.nav.current == "/game" and game_vm(self.ctl) is vm:
            try:
                self.patch(drawn, changed=drawn["version"] != getattr(vm, "_version", None))
                return
            except Exception:  # never leave a stale screen: draw it whole
                if self._page_gone():  # the phone left meanwhile: no screen to draw
                    log.debug("in-place redraw of a page Flet dropped", exc_info=True)
                    return
                log.error("in-place redraw failed", exc_info=True)
        try:
            self.shell.render()
        except Exception:
            if not self._page_gone():
                raise
            # the phone left and Flet dropped its session meanwhile (the load script: "An attempt
            # to fetch destroyed session" in a future no one awaited): no screen left to draw
            log.debug("redraw of a page Flet dropped", exc_info=True)

    def patch(self, drawn: dict, changed: bool) -> None:
        vm = self.vm
        step = vm.step
        drawn["seen"] = step.seen  # the version Undo/Redo are drawn with (``actions``)
        drawn["head"].controls = self.head_controls()
        drawn["parent"].controls[drawn["index"]] = self.step_panel(step)
        if not changed:
            drawn["head"].update()
            drawn["parent"].update()
            return
        self.boards_panel(step)  # the kept panels, their changed parts swapped in place
        tile = drawn.get("log")
        logs = self.log_panel(tile)  # the same tile and lines, their texts changed
        if logs is not tile:
            drawn["root"].controls[-1] = drawn["log"] = logs
        bar = self.shell.page.appbar
        buttons = self.actions()
        if bar is not None and bar.actions is not None and len(bar.actions) > len(buttons):
            bar.actions[:len(buttons)] = buttons
        drawn["version"] = getattr(vm, "_version", None)
        self.shell.page.update()

    def run(self, fn, *args, **kw) -> None:
        """Call a view-model method from a tap and redraw (its refusal shows as ``vm.error``).
        One tap or remote redraw of this page at a time (``page_lock``)."""
        with page_lock(self.ctl):
            before = getattr(self.vm, "_version", None)
            try:
                fn(*args, **kw)
            except Exception as exc:  # a bug must not freeze the table: show it and keep the game
                log.error("game action failed", exc_info=True)
                self.vm.error = f"{type(exc).__name__}: {exc}"
            self.redraw()
            if self.vm is not None and getattr(self.vm, "_version", None) != before and not self._page_gone():
                self.show_step()

    def show_step(self) -> None:
        """The game moved on by this page's tap: bring the next step on screen (its messages,
        then the step's panel, drawn under ``STEP_KEY``), wherever the page was scrolled to."""
        scroll = getattr(self.shell, "scroll_to_key", None)
        if scroll is not None:
            scroll(STEP_KEY)

    # -- layout ---------------------------------------------------------------------------
    def view(self) -> ft.Control:
        gt = self.gt
        if self.vm is None and holder(self.ctl).gate is not None and holder(self.ctl).gate == self.ctl.game_id:
            return self.join_form()
        if self.vm is None:
            problem = holder(self.ctl).problem
            return ft.Column([note(problem or gt("g.game.none"), error=bool(problem)),
                              button(gt("g.wiz.title"), lambda e: self.ctl.new_game(), ft.Icons.PLAY_ARROW)])
        vm = self.vm
        step = vm.step
        stretch = ft.CrossAxisAlignment.STRETCH
        head = ft.Column(self.head_controls(), spacing=12, horizontal_alignment=stretch, key=ft.ScrollKey(STEP_KEY))
        main = self.step_panel(step)
        central, seats = self.boards_panel(step)
        logs = self.log_panel()
        # "seen": the version of the question drawn, which Undo/Redo are drawn with (``actions``)
        drawn = {"version": getattr(vm, "_version", None), "seen": step.seen, "lang": self.gt.lang, "head": head,
                 "log": logs}
        if self.phone:
            root = ft.Column([head, main, central, *seats, logs], spacing=12, horizontal_alignment=stretch)
            self._drawn = {**drawn, "parent": root, "index": 1, "root": root}
            return root
        # the step with the seats' boards under it, the central board beside them
        main = ft.Column([main, *seats], spacing=8, horizontal_alignment=stretch)
        main.col = {"xs": 12, "md": 7}
        side = ft.Column([central], spacing=12, horizontal_alignment=stretch)
        side.col = {"xs": 12, "md": 5}
        root = ft.Column([head, ft.ResponsiveRow([main, side], spacing=16, run_spacing=12), logs], spacing=12,
                         horizontal_alignment=stretch)
        self._drawn = {**drawn, "parent": main, "index": 0, "root": root}
        return root

    def join_form(self) -> ft.Control:
        """A phone asks for the game's join code before it sees anything of the game."""
        gt = self.gt
        field = ft.TextField(label=gt("g.join.code"), keyboard_type=ft.KeyboardType.NUMBER, max_length=12,
                             autofocus=True)
        problem = ft.Text("", color=ft.Colors.ERROR, visible=False)  # the wrong code's message, named for screen readers

        def go(e):
            code = "".join((field.value or "").split())
            why = join_game(self.ctl, code)
            if why is None:
                self.remember_code(code)
                self.shell.render()
                return
            problem.value = problem.semantics_label = sentence(gt(why))
            problem.visible = True
            problem.update()

        field.on_submit = go
        self.try_remembered_code()
        return ft.Column([note(gt("g.join.ask")), field, problem, button(gt("g.join.go"), go, ft.Icons.LOGIN)],
                         spacing=12)

    def remember_code(self, code: str) -> None:
        """The browser keeps the accepted code for this game (a reload rejoins without it)."""
        prefs = getattr(self.shell, "client_prefs", lambda: None)()
        if prefs is not None and self.ctl.game_id:
            try:
                flet_events.run_task(self.shell.page, prefs.set, remembered_code_key(self.ctl.game_id),
                                     code)
            except Exception:
                log.debug("join code not remembered", exc_info=True)

    def try_remembered_code(self) -> None:
        """A phone whose browser remembers this game's code (it joined before, then reloaded or
        opened the game's address in a new tab) tries it once, checked like a typed code; a
        refused one is forgotten and the form stays."""
        h, gid = holder(self.ctl), self.ctl.game_id
        prefs = getattr(self.shell, "client_prefs", lambda: None)()
        if prefs is None or not gid or gid in h.tried_remembered:
            return
        h.tried_remembered.add(gid)
        shell, ctl, key = self.shell, self.ctl, remembered_code_key(gid)

        async def rejoin():
            code = await prefs.get(key)
            if not isinstance(code, str) or not code or ctl.game_id != gid or gid in holder(ctl).admitted:
                return
            why = join_game(ctl, code)
            if why is None:
                shell.page.run_thread(shell.render)
            elif why == "g.join.wrong":  # only a code the game refused is forgotten
                await prefs.remove(key)
            else:  # too many tries from this address or game not open: kept, tried on the next page
                holder(ctl).tried_remembered.discard(gid)

        try:
            flet_events.run_task(shell.page, rejoin)
        except Exception:
            log.debug("remembered join code not tried", exc_info=True)

    def host_panel(self) -> list[ft.Control]:
        """On the table's screen in web mode: where phones open the app and the join code, as
        text and as a QR code of the address."""
        info = join_info(self.ctl)
        if info is None:
            return []
        addresses, code = info
        address = addresses[0] if addresses else ""
        text = self.gt("g.join.host", address=address or "-", code=code)
        # on a narrow screen the QR code goes under the text (a Text that expands cannot sit in
        # a wrapping row: Flutter drew the whole game as a grey error box there)
        folded = bool(getattr(self.vm.session, "phones_joined", False))
        row: list[ft.Control] = [ft.Text(text, expand=not self.phone)]
        key = (text, address, self.phone, folded)
        kept = getattr(self, "_host", None)
        if kept is not None and kept[0] == key:  # the same controls: the QR image is not sent again
            return kept[1]
        png = qr_png(address) if address else None
        if png is not None:
            row.append(ft.Image(src=png, width=120, height=120, semantics_label=self.gt("g.join.qr", address=address)))
        box = ft.Column(row, spacing=8) if self.phone else ft.Row(row, spacing=12)
        if folded:  # phones have joined: one line with the code, the rest a tap away (issue 41, item 8)
            out = [ft.ExpansionTile(
                title=ft.Text(self.gt("g.join.folded", code=code)), leading=ft.Icon(ft.Icons.QR_CODE),
                controls=[ft.Container(box, padding=10)], expanded=False, dense=True,
                bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST, collapsed_bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST)]
        else:
            out = [ft.Container(box, padding=10, border_radius=8, bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST)]
        self._host = (key, out)
        return out

    def head_controls(self) -> list[ft.Control]:
        """The status line, the last refusal and the notes for the table."""
        vm = self.vm
        top: list[ft.Control] = [*self.host_panel(), ft.Text(vm.status_line(), weight=ft.FontWeight.BOLD)]
        if vm.error:
            error = sentence(vm.error)
            top.append(ft.Container(ft.Row([ft.Icon(ft.Icons.ERROR_OUTLINE, color=ft.Colors.ON_ERROR_CONTAINER),
                                             ft.Text(error, color=ft.Colors.ON_ERROR_CONTAINER, expand=True, selectable=True,
                                                     semantics_label=error)]),
                                    bgcolor=ft.Colors.ERROR_CONTAINER, padding=10, border_radius=8))
        for n in vm.notes:
            n = sentence(n)
            top.append(ft.Container(ft.Row([ft.Icon(ft.Icons.INFO_OUTLINE), ft.Text(n, expand=True, semantics_label=n)]),
                                    bgcolor=ft.Colors.SECONDARY_CONTAINER, padding=10, border_radius=8))
        return top

    def step_panel(self, step) -> ft.Control:
        draw = getattr(self, "draw_" + step.kind, None)
        body = draw(step) if draw else [note(step.kind)]
        return ft.Card(ft.Container(ft.Column([heading(step.title(), 18), *body], spacing=10,
                                              horizontal_alignment=ft.CrossAxisAlignment.STRETCH),
                                    padding=ft.Padding.all(14)))

    # -- boards at a glance ---------------------------------------------------------------
    def boards_panel(self, step) -> tuple[ft.Control, list[ft.Control]]:
        """The drawn central board and the seats' boards (``board_view``, ``board_vm``)."""
        from companion.app.game.board_view import boards_panel

        return boards_panel(self, step)

    def log_panel(self, tile: ft.ExpansionTile | None = None) -> ft.Control:
        """The action log, newest first (the last 40 lines), left-aligned and numbered from the
        first action, the order said under the title. Given the ``tile`` drawn before, its
        title and lines get the new texts instead of new controls, so a step sends only the
        texts that moved (docs/app-game.md)."""
        n, rows = self.vm.log_rows(40)
        texts = [f"{k}. {x}" for k, x in rows]
        order = self.gt("g.game.log_order", n=n)

        def line(x: str) -> ft.Text:
            return ft.Text(x, size=12, selectable=True, semantics_label=x, text_align=ft.TextAlign.LEFT)

        if tile is None:
            return ft.ExpansionTile(title=ft.Text(self.gt("g.game.log", n=n)), subtitle=ft.Text(order, size=12),
                                    controls=[line(x) for x in texts],
                                    expanded_cross_axis_alignment=ft.CrossAxisAlignment.START,
                                    expanded_alignment=ft.Alignment.TOP_LEFT,
                                    controls_padding=ft.Padding.symmetric(horizontal=16))
        tile.title.value = self.gt("g.game.log", n=n)
        tile.subtitle.value = order
        lines = tile.controls
        del lines[len(texts):]
        for ctl, x in zip(lines, texts):
            ctl.value = ctl.semantics_label = x
        lines.extend(line(x) for x in texts[len(lines):])
        return tile


def _session_gone(page) -> bool:
    """Flet has dropped ``page``'s session (its phone left and the session was evicted and
    freed): a redraw queued for it before would raise "An attempt to fetch destroyed session"."""
    if page is None:
        return False
    try:
        return getattr(page, "session", True) is None
    except RuntimeError:
        return True
