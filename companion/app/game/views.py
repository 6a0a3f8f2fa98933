"""Flet screens of a tracked game: the new game wizard (``/new``) and the game (``/game``).

Each screen only draws its view-model (``wizard.NewGameVM``, ``vm.GameVM``) and forwards taps
to it; after a change the shell redraws the page. View-models live in the app controller's
per-screen state, so a redraw (language, theme, window size) keeps every entry.
"""

from __future__ import annotations

import logging
import os
import time

import flet as ft

from companion.app import flet_events
from companion.app.game import (
    game_vm, holder, join_game, join_info, page_lock, remembered_code_key, session_store, show_new_session,
)
from companion.app.game.texts import GameText
from companion.app.game.vm import GameVM
from companion.app.game.wizard import (
    AUTOMA, HUMAN, NewGameVM, behaviour_keys, behaviour_label, scoring_keys, scoring_label, setup_steps,
)
from companion.app.ui.common import Screen, heading, icon_button, note, section
from companion.content.vocab import CATEGORIES_BY_TYPE, COLOURS
from companion.engine import EXPERT

log = logging.getLogger(__name__)

#: tests only (tests/app/test_e2e_rejoin.py): seconds a page waits before redrawing a change
#: made on another page, so that a tap on its old question can be made (and refused as stale)
HOLD_REMOTE_REDRAW_ENV = "ENCYCLOPEDIA_TEST_HOLD_REMOTE_REDRAW_S"

DIE_BG = {"red": "#C62828", "yellow": "#F9A825", "purple": "#6A1B9A", "blue": "#1565C0", "green": "#2E7D32",
          "unknown": "#757575"}
DIE_FG = {"yellow": "#000000"}
CONTINENT_COLOUR = {"america": "red", "africa": "yellow", "asia": "purple", "europe": "blue", "oceania": "green"}


def game_text(ctl) -> GameText:
    return GameText(lambda: ctl.tr.lang)


# --------------------------------------------------------------------------- small controls


def die_chip(colour: str, value, label: str, on_click=None, selected=False, unsure=False, size=44) -> ft.Control:
    border = None
    if selected:
        border = ft.Border.all(4, ft.Colors.ON_SURFACE)
    elif unsure:
        border = ft.Border.all(4, ft.Colors.AMBER)
    box = ft.Container(
        ft.Text(str(value), size=size * 0.45, weight=ft.FontWeight.BOLD, color=DIE_FG.get(colour, "#FFFFFF")),
        width=size, height=size, bgcolor=DIE_BG.get(colour, DIE_BG["unknown"]), border_radius=8,
        alignment=ft.Alignment.CENTER, border=border, on_click=on_click,
    )
    return ft.Semantics(content=box, label=label, button=on_click is not None, selected=selected, container=True)


def colour_dot(colour: str, size=14) -> ft.Control:
    return ft.Container(width=size, height=size, border_radius=size / 2, bgcolor=DIE_BG.get(colour, DIE_BG["unknown"]))


def chip(label: str, on_click, selected=False, disabled=False, colour: str | None = None) -> ft.Control:
    return ft.Chip(label=ft.Text(label), on_click=on_click, selected=selected, disabled=disabled,
                   leading=colour_dot(colour) if colour else None)


def wrap(controls, spacing=8) -> ft.Row:
    return ft.Row(controls, wrap=True, spacing=spacing, run_spacing=spacing)


def button(text, on_click, icon=None, filled=True, disabled=False) -> ft.Control:
    cls = ft.FilledButton if filled else ft.OutlinedButton
    return cls(text, icon=icon, on_click=on_click, disabled=disabled)


# --------------------------------------------------------------------------- new game wizard


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


class NewGameScreen(Screen):
    def __init__(self, shell):
        super().__init__(shell)
        self.gt = game_text(self.ctl)
        self.vm: NewGameVM = self.ctl.screen_state("/new", lambda: NewGameVM(self.gt))

    def title(self) -> str:
        return self.gt("g.wiz.title")

    def redraw(self) -> None:
        self.shell.render()

    def view(self) -> ft.Control:
        gt, vm = self.gt, self.vm
        parts: list[ft.Control] = []
        for i, s in enumerate(vm.seats):
            parts.append(self.seat_card(i, s))
        add_row = wrap([
            button(gt("g.wiz.add_human"), lambda e: self.act(vm.add_seat, HUMAN), ft.Icons.PERSON_ADD, False,
                   disabled=len(vm.seats) >= vm.MAX),
            button(gt("g.wiz.add_automa"), lambda e: self.act(vm.add_seat, AUTOMA), ft.Icons.SMART_TOY, False,
                   disabled=len(vm.seats) >= vm.MAX),
        ])
        first = self.first_dropdown = ft.Dropdown(
            label=gt("g.wiz.first_player"), value=str(vm.first_player), width=260,
            options=self.first_options(), on_select=lambda e: self.set_first(e.control.value),
        )
        sep = ft.Switch(label=gt("g.wiz.sepultus"), value=vm.sepultus, on_change=lambda e: self.set_sep(e.control.value))
        title = ft.TextField(label=gt("g.wiz.game_title"), value=vm.title, on_change=lambda e: setattr(vm, "title", e.control.value))
        problems = vm.problems()
        parts += [add_row, section(gt("g.wiz.table"), [first, sep, title])]
        if vm.error:
            parts.append(note(vm.error, error=True))
        self.problem_note = note(problems[0] if problems else "", error=True)
        self.problem_note.visible = bool(problems)
        self.start_button = button(gt("g.wiz.start"), lambda e: self.start(), ft.Icons.PLAY_ARROW, disabled=bool(problems))
        parts += [self.problem_note, self.start_button]
        return ft.Column(parts, spacing=12, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)

    def seat_card(self, i: int, s) -> ft.Control:
        gt, vm = self.gt, self.vm
        kind = ft.SegmentedButton(
            segments=[ft.Segment(value=HUMAN, label=ft.Text(gt("g.wiz.human")), icon=ft.Icon(ft.Icons.PERSON)),
                      ft.Segment(value=AUTOMA, label=ft.Text(gt("g.wiz.automa")), icon=ft.Icon(ft.Icons.SMART_TOY))],
            selected=[s.kind], on_change=lambda e, i=i: self.set_kind(i, e.control.selected),
        )
        # no redraw on blur: a tap on "Start the game" right after typing would be lost in it
        name = ft.TextField(label=gt("g.wiz.name"), value=s.name, width=240,
                            on_change=lambda e, i=i: self.set_name(i, e.control.value))
        rows: list[ft.Control] = [
            ft.Row([heading(gt("g.wiz.seat_n", n=i + 1), 16),
                    icon_button(ft.Icons.DELETE_OUTLINE, gt("g.wiz.remove_seat", n=i + 1),
                                lambda e, i=i: self.act(vm.remove_seat, i), disabled=len(vm.seats) <= vm.MIN)],
                   alignment=ft.MainAxisAlignment.SPACE_BETWEEN),
            kind, name,
        ]
        if s.kind == AUTOMA:
            rows.append(ft.Dropdown(
                label=gt("g.wiz.behaviour"), value=s.behaviour, width=320,
                options=[ft.DropdownOption(key=k, text=behaviour_label(k)) for k in behaviour_keys()],
                on_select=lambda e, i=i: (vm.set_behaviour(i, e.control.value), self.redraw())))
            rows.append(ft.Dropdown(
                label=gt("g.wiz.scoring"), value=s.scoring, width=320,
                options=[ft.DropdownOption(key=k, text=scoring_label(k)) for k in scoring_keys()],
                on_select=lambda e, i=i: (vm.set_scoring(i, e.control.value), self.redraw())))
            prio = []
            for k, c in enumerate(s.priority):
                prio.append(ft.Row([
                    ft.Text(f"{k + 1}."), colour_dot(CONTINENT_COLOUR[c]), ft.Text(self.gt.continent(c), width=90),
                    icon_button(ft.Icons.ARROW_UPWARD, gt("g.wiz.prio_up", continent=self.gt.continent(c)),
                                lambda e, i=i, c=c: (vm.move_priority(i, c, -1), self.redraw()), disabled=k == 0),
                    icon_button(ft.Icons.ARROW_DOWNWARD, gt("g.wiz.prio_down", continent=self.gt.continent(c)),
                                lambda e, i=i, c=c: (vm.move_priority(i, c, +1), self.redraw()), disabled=k == 4),
                ], spacing=4, tight=True))
            rows.append(ft.Text(gt("g.wiz.priority_entered" if s.priority_entered else "g.wiz.priority_shuffled")))
            rows.append(ft.Column(prio, spacing=0))
            rows.append(button(gt("g.wiz.shuffle"), lambda e, i=i: (vm.shuffle(i), self.redraw()), ft.Icons.SHUFFLE, False))
        return ft.Card(ft.Container(ft.Column(rows, spacing=8), padding=ft.Padding.all(14)))

    def first_options(self) -> list[ft.DropdownOption]:
        return [ft.DropdownOption(key=str(i), text=s.name or self.gt("g.wiz.seat_n", n=i + 1))
                for i, s in enumerate(self.vm.seats)]

    def set_name(self, i: int, name: str) -> None:
        """A name typed: the first-player list, the set-up problem and Start follow in place
        (Flet sends the changes after the handler); no redraw, which would lose a tap."""
        self.vm.set_name(i, name)
        if getattr(self, "start_button", None) is None:
            return
        self.first_dropdown.options = self.first_options()
        problems = self.vm.problems()
        self.problem_note.value = problems[0] if problems else ""
        self.problem_note.visible = bool(problems)
        self.start_button.disabled = bool(problems)

    def act(self, fn, *args) -> None:
        fn(*args)
        self.redraw()

    def set_kind(self, i, selected) -> None:
        kind = list(selected)[0] if selected else HUMAN
        self.vm.set_kind(i, kind)
        self.redraw()

    def set_first(self, value) -> None:
        self.vm.first_player = int(value)
        self.redraw()

    def set_sep(self, on) -> None:
        self.vm.sepultus = bool(on)

    def start(self) -> None:
        session = self.vm.create(session_store())
        if session is None:
            self.redraw()
            return
        show_new_session(self.ctl, session)


# --------------------------------------------------------------------------- the game


class GameScreen(Screen):
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
        seen = self.vm.seen_version  # an Undo tapped on a view the game has left is refused
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
            try:  # a tap on a control this replaces is answered (flet_events, docs/app.md)
                with flet_events.replacing(getattr(self.shell, "page", None)):
                    self.redraw()
            except Exception:
                log.error("remote redraw failed", exc_info=True)

    def vanished_tap(self) -> None:
        """A tap the browser sent for a control that a redraw for another page's change had
        already replaced (Flet dropped it; ``companion.app.flet_events``): nothing was applied;
        say so as for a stale question, over the game as it is."""
        if self.vm is None or getattr(self.shell, "_screen", self) is not self or self.ctl.nav.current != "/game":
            return
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
                log.error("in-place redraw failed", exc_info=True)
        self.shell.render()

    def patch(self, drawn: dict, changed: bool) -> None:
        vm = self.vm
        step = vm.step
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
            try:
                fn(*args, **kw)
            except Exception as exc:  # a bug must not freeze the table: show it and keep the game
                log.error("game action failed", exc_info=True)
                self.vm.error = f"{type(exc).__name__}: {exc}"
            self.redraw()

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
        head = ft.Column(self.head_controls(), spacing=12, horizontal_alignment=stretch)
        main = self.step_panel(step)
        central, seats = self.boards_panel(step)
        logs = self.log_panel()
        drawn = {"version": getattr(vm, "_version", None), "lang": self.gt.lang, "head": head, "log": logs}
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
        problem = ft.Text("", color=ft.Colors.ERROR, visible=False)

        def go(e):
            code = "".join((field.value or "").split())
            why = join_game(self.ctl, code)
            if why is None:
                self.remember_code(code)
                self.shell.render()
                return
            problem.value, problem.visible = gt(why), True
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
                self.shell.page.run_task(prefs.set, remembered_code_key(self.ctl.game_id), code)
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
            if join_game(ctl, code) is None:
                shell.page.run_thread(shell.render)
            else:
                await prefs.remove(key)

        try:
            shell.page.run_task(rejoin)
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
        row: list[ft.Control] = [ft.Text(text, expand=not self.phone)]
        key = (text, address, self.phone)
        kept = getattr(self, "_host", None)
        if kept is not None and kept[0] == key:  # the same controls: the QR image is not sent again
            return kept[1]
        png = qr_png(address) if address else None
        if png is not None:
            row.append(ft.Image(src=png, width=120, height=120, semantics_label=self.gt("g.join.qr", address=address)))
        box = ft.Column(row, spacing=8) if self.phone else ft.Row(row, spacing=12)
        out = [ft.Container(box, padding=10, border_radius=8, bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST)]
        self._host = (key, out)
        return out

    def head_controls(self) -> list[ft.Control]:
        """The status line, the last refusal and the notes for the table."""
        vm = self.vm
        top: list[ft.Control] = [*self.host_panel(), ft.Text(vm.status_line(), weight=ft.FontWeight.BOLD)]
        if vm.error:
            top.append(ft.Container(ft.Row([ft.Icon(ft.Icons.ERROR_OUTLINE, color=ft.Colors.ON_ERROR_CONTAINER),
                                             ft.Text(vm.error, color=ft.Colors.ON_ERROR_CONTAINER, expand=True, selectable=True,
                                                     semantics_label=vm.error)]),
                                    bgcolor=ft.Colors.ERROR_CONTAINER, padding=10, border_radius=8))
        for n in vm.notes:
            top.append(ft.Container(ft.Row([ft.Icon(ft.Icons.INFO_OUTLINE), ft.Text(n, expand=True)]),
                                    bgcolor=ft.Colors.SECONDARY_CONTAINER, padding=10, border_radius=8))
        return top

    def step_panel(self, step) -> ft.Control:
        draw = getattr(self, "draw_" + step.kind, None)
        body = draw(step) if draw else [note(step.kind)]
        return ft.Card(ft.Container(ft.Column([heading(step.title(), 18), *body], spacing=10,
                                              horizontal_alignment=ft.CrossAxisAlignment.STRETCH),
                                    padding=ft.Padding.all(14)))

    # -- setup / reveals ------------------------------------------------------------------
    def setup_note(self) -> list[ft.Control]:
        if self.vm.state.round != 0:
            return []
        return [ft.ExpansionTile(title=ft.Text(self.gt("g.setup.title")), expanded=False,
                                 controls=[ft.Text("• " + s) for s in setup_steps(self.vm.state, self.gt)])]

    def draw_reveal_expert(self, step) -> list[ft.Control]:
        gt = self.gt
        results = ft.Column(spacing=4)

        def fill():
            names = step.candidates()
            results.controls = [
                ft.ListTile(title=ft.Text(n), subtitle=ft.Text(gt.continent(EXPERT[n].continent) + " · " + EXPERT[n].text),
                            leading=colour_dot(CONTINENT_COLOUR[EXPERT[n].continent], 18), dense=True,
                            on_click=lambda e, n=n: self.run(step.reveal, n))
                for n in names[:12]
            ]
            if len(names) > 12:
                results.controls.append(note(gt("g.reveal.more", n=len(names) - 12)))

        def typed(e):
            step.query = e.control.value or ""
            fill()
            results.update()

        fill()
        filters = [chip(gt("g.reveal.all"), lambda e: self.set_filter(step, None), step.continent is None)]
        for c in self.vm.state.board.continents:
            filters.append(chip(gt.continent(c), lambda e, c=c: self.set_filter(step, c), step.continent == c, colour=CONTINENT_COLOUR[c]))
        return [*self.setup_note(),
                note(gt("g.reveal.expert_slot", slot=step.slot + 1, size=step.size)),
                ft.TextField(label=gt("g.reveal.search"), value=step.query, on_change=typed, autofocus=not self.phone,
                             prefix_icon=ft.Icons.SEARCH),
                wrap(filters), results]

    def set_filter(self, step, continent) -> None:
        step.continent = continent
        self.redraw()

    def draw_reveal_animal(self, step) -> list[ft.Control]:
        gt = self.gt
        left = step.continents_left()
        sugg = ft.Column(spacing=2)

        def fill():
            # one tap on a catalogue card reveals it with its continent and categories
            sugg.controls = [ft.TextButton(step.suggestion_label(c), on_click=lambda e, c=c: self.run(step.pick, c))
                             for c in step.suggestions()] if step.name else []

        def typed(e):
            step.name = e.control.value or ""
            fill()
            sugg.update()

        fill()
        buttons = []
        for c in self.vm.state.board.continents:
            # the button's own text names it ("Africa (15 left)"): no Semantics wrapper, which
            # gave screen readers a second, untappable "Africa" button
            buttons.append(ft.FilledButton(
                gt("g.reveal.continent_left", continent=gt.continent(c), n=left[c]),
                style=ft.ButtonStyle(bgcolor=DIE_BG[CONTINENT_COLOUR[c]], color=DIE_FG.get(CONTINENT_COLOUR[c], "#FFFFFF")),
                disabled=left[c] <= 0, on_click=lambda e, c=c: self.run(step.reveal, c)))
        out = [*self.setup_note(),
               note(gt("g.reveal.animal_slot", slot=step.slot + 1, size=step.size)),
               wrap(buttons),
               ft.TextField(label=gt("g.reveal.animal_name"), value=step.name, on_change=typed, dense=True),
               sugg]
        if step.sepultus_allowed:
            out.append(self.sepultus_form(lambda d: step.reveal_sepultus(d["die"], d["cost"], d["categories"], step.name)))
        return out

    def sepultus_form(self, submit) -> ft.Control:
        gt = self.gt
        st = {"die": None, "cost": None, "categories": []}
        die = ft.Dropdown(label=gt("g.sep.die"), width=140, options=[ft.DropdownOption(key=str(v), text=str(v)) for v in range(1, 7)],
                          on_select=lambda e: st.__setitem__("die", int(e.control.value)))
        cost = ft.TextField(label=gt("g.sep.cost"), width=160, keyboard_type=ft.KeyboardType.NUMBER,
                            on_change=lambda e: st.__setitem__("cost", int(e.control.value) if (e.control.value or "").isdigit() else None))

        def toggle(c, on):
            if on and c not in st["categories"]:
                st["categories"].append(c)
            elif not on and c in st["categories"]:
                st["categories"].remove(c)

        cats = wrap([ft.Checkbox(label=gt.category(c), on_change=lambda e, c=c: toggle(c, e.control.value))
                     for t in (1, 2, 3, 4) for c in CATEGORIES_BY_TYPE[t]], spacing=2)

        def go(e):
            if st["die"] is None or st["cost"] is None or not st["categories"]:
                self.vm.error = gt("g.sep.incomplete")
                self.redraw()
                return
            self.run(submit, dict(st))

        return ft.ExpansionTile(title=ft.Text(gt("g.sep.title")), controls=[
            ft.Row([die, cost], wrap=True), cats, button(gt("g.sep.add"), go, ft.Icons.ADD, False)])

    def draw_reveal_round_token(self, step) -> list[ft.Control]:
        gt = self.gt
        return [note(gt("g.reveal.token_hint", round=self.vm.state.round)),
                wrap([button(gt("g.reveal.token", effect=gt.token(e), n=n), lambda e, eff=e: self.run(step.reveal, eff),
                             disabled=n <= 0, filled=False) for e, n in step.choices()])]

    # -- dice ------------------------------------------------------------------------------
    def draw_roll_dice(self, step) -> list[ft.Control]:
        gt = self.gt
        e = step.entry
        chips = []
        for i, c in enumerate(e.chips):
            chips.append(die_chip(c.colour, c.value,
                                  gt("g.dice.chip", die=gt.die((c.colour, c.value))) + (" " + gt("g.dice.unsure") if c.unsure else ""),
                                  on_click=lambda ev, i=i: (e.select(i), self.redraw()), selected=e.selected == i,
                                  unsure=c.unsure))
        out: list[ft.Control] = [
            note(gt("g.dice.hint", name=step.seat_name, count=e.count) + (" " + gt("g.dice.automa_hint") if step.automa else "")),
            ft.Row([ft.Text(gt("g.dice.bag")), *[ft.Row([colour_dot(c), ft.Text(str(e.bag[c]))], spacing=2, tight=True) for c in COLOURS]],
                   wrap=True, spacing=8),
            wrap(chips) if chips else note(gt("g.dice.none_yet")),
        ]
        if e.message:
            out.append(note(e.message, error=e.message_is_error))
        if e.selected is not None and e.selected < len(e.chips):
            i = e.selected
            c = e.chips[i]
            out.append(ft.Text(gt("g.dice.correct", n=i + 1)))
            out.append(wrap([chip(gt.colour(col), lambda ev, col=col: self.run(e.set_colour, i, col), c.colour == col, colour=col)
                             for col in COLOURS]))
            out.append(wrap([chip(str(v), lambda ev, v=v: self.run(e.set_value, i, v), c.value == v) for v in range(1, 7)]))
            row = [button(gt("g.dice.remove"), lambda ev: self.run(e.remove, i), ft.Icons.DELETE_OUTLINE, False)]
            if c.unsure and c.colour != "unknown":
                row.insert(0, button(gt("g.dice.looks_right"), lambda ev: (e.confirm_chip(i), e.select(None), self.redraw()),
                                     ft.Icons.CHECK, False))
            out.append(wrap(row))
        elif len(e.chips) < e.count:
            out.append(ft.Text(gt("g.dice.tap_in")))
            for col in COLOURS:
                out.append(ft.Row([ft.Container(ft.Text(gt.colour(col)), width=64)]
                                  + [die_chip(col, v, gt("g.dice.add", die=gt.die((col, v))),
                                              on_click=lambda ev, col=col, v=v: self.run(e.add, col, v), size=36)
                                     for v in range(1, 7)], spacing=4, wrap=True))
        live = self.live_panel(step)
        if live is not None:
            out.append(live)
        out.append(wrap([
            self.photo_button(),
            *self.live_buttons(step),
            button(gt("g.dice.clear"), lambda ev: self.run(e.clear), ft.Icons.CLEAR_ALL, False, disabled=not e.chips),
            button(gt("g.dice.confirm"), lambda ev: self.run(step.submit), ft.Icons.CHECK, disabled=e.problem() is not None),
        ]))
        return out

    # -- desktop live camera (companion.app.game.live) -------------------------------------
    def live_run(self):
        return self.ctl.screen_state("game:live", dict).get("run")

    def live_buttons(self, step) -> list[ft.Control]:
        """"Live camera" / "Stop the camera": only in the desktop window (a browser's page cannot
        reach the camera of the computer serving it)."""
        page = getattr(self.shell, "page", None)
        if page is None or getattr(page, "web", True):
            return []
        run = self.live_run()
        if run is not None and run.running and run.step is step:
            return [button(self.gt("g.live.stop"), lambda e: self.stop_live(), ft.Icons.VIDEOCAM_OFF, False)]
        return [button(self.gt("g.live.start"), lambda e: self.start_live(step), ft.Icons.VIDEOCAM, False)]

    def live_panel(self, step) -> ft.Control | None:
        run = self.live_run()
        if run is None:
            return None
        if run.step is not step:
            run.stop()
            return None
        if run.problem:
            return note(run.problem, error=True)
        if not run.running:
            return None
        run.image = ft.Image(src=run.preview.jpeg or b"", gapless_playback=True, fit=ft.BoxFit.CONTAIN,
                             height=300, semantics_label=self.gt("g.live.start"))
        run.use_button = button(self.gt("g.live.use"), lambda e: self.use_live(step), ft.Icons.CHECK, False,
                                disabled=run.preview.usable_read() is None)
        return ft.Column([note(self.gt("g.live.hint")), run.image, run.use_button], spacing=6)

    def start_live(self, step) -> None:
        from companion.app.game.live import LiveRun

        self.stop_live()
        run = LiveRun.start(self.vm, step, self.ctl, self.gt)
        self.ctl.screen_state("game:live", dict)["run"] = run
        self.redraw()  # draws the image the loop fills
        if run.running:
            self.shell.page.run_thread(run.loop)

    def stop_live(self) -> None:
        run = self.live_run()
        if run is not None:
            run.stop()
        self.ctl.screen_state("game:live", dict).pop("run", None)
        self.redraw()

    def use_live(self, step) -> None:
        run = self.live_run()
        read = run.preview.usable_read() if run is not None else None
        if read is not None:
            step.entry.load_read(read)
        self.redraw()

    def photo_button(self) -> ft.Control:
        """Opens the file picker inside the tap (phones' browsers allow it only there and offer
        the camera); the picked photo arrives in ``photo_result``."""
        picker = self.shell.file_picker()
        picker.on_result = self.photo_result
        return ft.OutlinedButton(self.gt("g.dice.photo"), icon=ft.Icons.PHOTO_CAMERA,
                                 action=ft.PickFiles(picker, dialog_title=self.gt("g.dice.photo"),
                                                     file_type=ft.FilePickerFileType.IMAGE, with_data=True))

    def photo_result(self, e) -> None:
        files = list(getattr(e, "files", None) or [])
        if not files or self.vm is None:
            return
        step = self.vm.step
        if step.kind != "roll_dice":
            return
        f = files[0]
        source = f.bytes if f.bytes else f.path
        if not source:
            self.vm.error = self.gt("g.dice.no_data")
            self.redraw()
            return
        self.run(step.read_photo, source)

    def draw_place_dice(self, step) -> list[ft.Control]:
        gt = self.gt
        b = self.vm.state.board
        unplaced = [die_chip(d[0], d[1], gt("g.place.die", die=gt.die(d)), on_click=lambda e, i=i: (step.select(i), self.redraw()),
                             selected=step.selected == i)
                    for i, d in enumerate(step.rolled) if step.slots[i] is None]
        slots = []
        for sl in range(4):
            inside = [die_chip(step.rolled[j][0], step.rolled[j][1], gt("g.place.die", die=gt.die(step.rolled[j])),
                               on_click=lambda e, j=j: (step.select(j), self.redraw()), selected=step.selected == j, size=36)
                      for j in step.in_slot(sl)]
            slots.append(ft.Semantics(content=ft.Container(
                ft.Column([ft.Text(gt("g.place.slot", n=sl + 1), weight=ft.FontWeight.BOLD),
                           note(gt("g.place.gives", what=gt.gift(b.slot_effects[sl]))), ft.Row(inside, spacing=4)],
                          spacing=4, horizontal_alignment=ft.CrossAxisAlignment.CENTER),
                width=150 if not self.phone else 160, padding=8, border_radius=8,
                border=ft.Border.all(2, ft.Colors.OUTLINE), on_click=lambda e, sl=sl: (step.put(sl), self.redraw())),
                label=gt("g.place.slot", n=sl + 1), button=True, container=True))
        return [note(gt("g.place.hint")),
                wrap(unplaced) if unplaced else note(gt("g.place.all_placed")),
                wrap(slots),
                wrap([button(gt("g.place.clear"), lambda e: (step.clear(), self.redraw()), ft.Icons.CLEAR_ALL, False),
                      button(gt("g.place.confirm"), lambda e: self.run(step.submit), ft.Icons.CHECK, disabled=not step.ready())])]

    # -- the turn --------------------------------------------------------------------------
    def draw_turn(self, step) -> list[ft.Control]:
        gt = self.gt
        st = self.vm.state
        out: list[ft.Control] = []
        if step.in_hand:
            out.append(ft.Row([ft.Text(gt("g.turn.in_hand")), die_chip(step.die[0], step.die[1], gt.die(step.die), size=36)]))
        else:
            out.append(note(gt("g.turn.pick")))
            by_owner: dict[int, list] = {}
            for d in step.dice():
                by_owner.setdefault(d.owner, []).append(d)
            for owner, spots in by_owner.items():
                row = []
                for d in spots:
                    sel = step.take is not None and (step.take.owner, step.take.slot, step.take.index) == (d.owner, d.slot, d.index)
                    gift = "" if d.owner == step.seat else " · " + gt("g.turn.gives", name=st.seats[d.owner].name, what=gt.gift(d.effect))
                    row.append(die_chip(d.colour, d.value, gt("g.turn.die_on", die=gt.die((d.colour, d.value)),
                                                                name=st.seats[d.owner].name, slot=d.slot + 1) + gift,
                                        on_click=lambda e, d=d: self.run(step.select_die, d.owner, d.slot, d.index), selected=sel))
                out.append(ft.Row([ft.Text(st.seats[owner].name, width=90, overflow=ft.TextOverflow.ELLIPSIS), *row], wrap=True, spacing=6))
        shots = step.one_shots()
        if shots:
            out.append(wrap([button(gt("g.turn.use_expert", name=n), lambda e, n=n: self.run(step.use_expert, n), ft.Icons.BOLT, False)
                             for n in shots]))
        if step.draft is not None:
            out.extend(self.draft_panel(step, step.draft))
        elif step.trial is not None:
            out.append(ft.Text(gt("g.turn.options", die=gt.die(step.die)), weight=ft.FontWeight.BOLD))
            for o in step.options():
                out.append(ft.ListTile(title=ft.Text(o.label), subtitle=ft.Text(o.result), dense=True,
                                       leading=ft.Icon(LOC_ICON.get(o.kind, ft.Icons.CHEVRON_RIGHT)),
                                       on_click=lambda e, i=o.index: self.run(step.open, i)))
        return out

    def draft_panel(self, step, d) -> list[ft.Control]:
        gt = self.gt
        vm = self.vm
        legal, text = d.result()
        sp = d.spend
        lim = d.limits()
        out: list[ft.Control] = [ft.Text(d.label, weight=ft.FontWeight.BOLD, size=16)]

        def stepper(field, label, hi):
            v = getattr(sp, field)
            return ft.Row([
                ft.Text(label, width=150),
                icon_button(ft.Icons.REMOVE, gt("g.draft.less", what=label), lambda e: self.run(d.set_spend, **{field: v - 1}), disabled=v <= 0),
                ft.Text(str(v), width=28, text_align=ft.TextAlign.CENTER, weight=ft.FontWeight.BOLD),
                icon_button(ft.Icons.ADD, gt("g.draft.more", what=label), lambda e: self.run(d.set_spend, **{field: v + 1}), disabled=v >= hi),
            ], spacing=2, tight=True)

        if d.kind == "publish":
            pub = d.publishable()
            top = d.action.up_to if d.action.up_to is not None else d.top_type()
            out.append(ft.Text(gt("g.draft.up_to")))
            out.append(wrap([chip(gt("g.draft.type", t=t), lambda e, t=t: self.run(d.set_up_to, t), top == t) for t in sorted(pub)]))
        if lim["coins"] > 0 or sp.coins:
            out.append(stepper("coins", gt("g.draft.coins"), lim["coins"]))
        if d.kind == "expedition" and (lim["tokens"] > 0 or sp.tokens):
            out.append(stepper("tokens", gt("g.draft.tokens"), lim["tokens"]))
        if lim["seals"] > 0 or sp.seals:
            out.append(stepper("seals", gt("g.draft.seals"), lim["seals"] + sp.seals))
        if lim["seals_for_coins"] > 0 or sp.seals_for_coins:
            out.append(stepper("seals_for_coins", gt("g.draft.seals_for_coins"), lim["seals_for_coins"] + sp.seals_for_coins))
        # colour: what the die counts as
        cols = [chip(gt.colour(step.die[0]) + " " + gt("g.draft.as_rolled"), lambda e: self.run(d.set_colour, None),
                     not sp.colour, colour=step.die[0])]
        for c in COLOURS:
            if c != step.die[0]:
                cols.append(chip(gt.colour(c), lambda e, c=c: self.run(d.set_colour, c, sp.colour_by or "token"), sp.colour == c, colour=c))
        out.append(ft.Text(gt("g.draft.colour")))
        out.append(wrap(cols))
        if sp.colour:
            out.append(ft.Switch(label=gt("g.draft.colour_by_seal"), value=sp.colour_by == "seal",
                                 on_change=lambda e: self.run(d.set_colour, sp.colour, "seal" if e.control.value else "token")))
        if d.kind == "university":
            s = vm.state.seats[step.seat]
            e_ = EXPERT[d.action.name]
            out.append(note(e_.text))
            if all(x is not None for x in s.face_up) and not d.action.use_now:
                out.append(ft.Text(gt("g.draft.cover")))
                out.append(wrap([chip(f"{k + 1}: {n}", lambda e, k=k: self.run(d.set_slot, k), d.action.slot == k)
                                 for k, n in enumerate(s.face_up)]))
            if e_.duration == "oneshot":
                out.append(ft.Switch(label=gt("g.draft.use_now"), value=d.action.use_now,
                                     on_change=lambda e: self.run(d.set_use_now, bool(e.control.value))))
        if d.kind == "publish":
            extra = d.extra_choices()
            if extra:
                out.append(ft.Text(gt("g.draft.extra")))
                out.append(wrap([chip(f"{vm.card_label(cid, step.trial)}: {gt.category(cat)}", lambda e, x=(cid, cat): self.run(d.toggle_extra, x),
                                      (cid, cat) in d.action.extra) for cid, cat in extra]))
            keep = d.keep_choices()
            if keep:
                out.append(ft.Text(gt("g.draft.keep")))
                out.append(wrap([chip(vm.card_label(cid, step.trial), lambda e, c=cid: self.run(d.toggle_keep, c), cid in d.action.keep)
                                 for cid in keep]))
            pv = d.preview()
            if pv is not None:
                lines = [gt("g.draft.pv_total", vp=pv.vp)]
                for t, v in pv.vp_by_type.items():
                    lines.append(gt("g.draft.pv_type", t=t, vp=v))
                out.append(ft.Container(ft.Column([ft.Text(x) for x in lines], spacing=2), padding=8,
                                        bgcolor=ft.Colors.SECONDARY_CONTAINER, border_radius=8))
        out.append(ft.Container(ft.Text(text, weight=ft.FontWeight.BOLD, color=None if legal else ft.Colors.ERROR),
                                padding=8, border_radius=8, bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST))
        out.append(wrap([button(gt("g.draft.back"), lambda e: self.run(step.close_draft), ft.Icons.ARROW_BACK, False),
                         button(gt("g.draft.confirm"), lambda e: self.run(d.confirm), ft.Icons.CHECK, disabled=not legal)]))
        return out

    def draw_research(self, step) -> list[ft.Control]:
        gt = self.gt
        vm = self.vm
        legal, text = step.result()
        out = [ft.Text(gt("g.research.budget", value=step.value, left=step.left(), continent=gt.continent(step.continent)),
                       weight=ft.FontWeight.BOLD)]
        by_card: dict[int, list] = {}
        for cid, cat, cost in step.options():
            by_card.setdefault(cid, []).append((cat, cost))
        if not by_card:
            out.append(note(gt("g.research.none")))
        for cid, cubes in by_card.items():
            out.append(ft.Text(vm.card_label(cid)))
            out.append(wrap([chip(gt("g.research.cube", cat=gt.category(cat), cost=cost),
                                  lambda e, c=cid, k=cat: self.run(step.toggle, c, k), (cid, cat) in step.chosen,
                                  disabled=not step.affordable((cid, cat))) for cat, cost in cubes]))
        out.append(note(text, error=not legal and bool(step.chosen)))
        out.append(button(gt("g.research.confirm"), lambda e: self.run(step.submit), ft.Icons.CHECK, disabled=not legal))
        return out

    # -- cards -----------------------------------------------------------------------------
    def draw_choose_animal(self, step) -> list[ft.Control]:
        gt, vm = self.gt, self.vm
        out = [note(gt(f"g.choose.reason.{step.pending.reason or 'round'}"))]
        if step.pending.from_deck:
            out.append(note(gt("g.choose.from_deck")))
            out.append(self.deck_animal_entry(lambda cont, name, sep=None: step.draw(cont, name, sep)))
            return out
        tiles = []
        for cid in step.cards():
            c = vm.state.cards[cid]
            colour = CONTINENT_COLOUR.get(c.continent, "unknown")
            tiles.append(ft.ListTile(title=ft.Text(vm.card_label(cid)), leading=colour_dot(colour, 18), dense=True,
                                     subtitle=ft.Text(", ".join(gt.category(x) for x in c.categories) if c.categories else ""),
                                     on_click=lambda e, cid=cid: self.run(step.take, cid)))
        return out + tiles

    def deck_animal_entry(self, submit) -> ft.Control:
        gt = self.gt
        name = ft.TextField(label=gt("g.reveal.animal_name"), dense=True)
        buttons = [ft.FilledButton(gt.continent(c), style=ft.ButtonStyle(bgcolor=DIE_BG[CONTINENT_COLOUR[c]],
                                                                        color=DIE_FG.get(CONTINENT_COLOUR[c], "#FFFFFF")),
                                   on_click=lambda e, c=c: self.run(submit, c, name.value or ""))
                   for c in self.vm.state.board.continents]
        parts = [name, wrap(buttons)]
        if self.vm.state.sepultus:
            parts.append(self.sepultus_form(lambda d: submit(None, name.value or "", d)))
        return ft.Column(parts, spacing=8)

    def draw_choose_expert(self, step) -> list[ft.Control]:
        gt = self.gt
        s = self.vm.state.seats[step.seat]
        out = [note(gt(f"g.choose.reason.{step.pending.reason or 'round'}"))]
        if step.pending.from_deck:
            out.append(note(gt("g.choose.expert_deck")))
        slot_pick = step.needs_slot()
        if slot_pick:
            out.append(note(gt("g.choose.cover_hint")))
        for n in step.names()[:20]:
            e = EXPERT[n]
            row = [ft.TextButton(gt("g.choose.take"), on_click=lambda ev, n=n: self.run(step.take, n))] if not slot_pick else \
                [ft.TextButton(gt("g.choose.cover", n=k + 1), on_click=lambda ev, n=n, k=k: self.run(step.take, n, k)) for k in range(4)]
            if e.duration == "oneshot":
                row.append(ft.TextButton(gt("g.choose.use_now"), on_click=lambda ev, n=n: self.run(step.take, n, None, True)))
            out.append(ft.Column([ft.Row([colour_dot(CONTINENT_COLOUR[e.continent], 18), ft.Text(n, weight=ft.FontWeight.BOLD)]),
                                  note(e.text), wrap(row)], spacing=2))
        if slot_pick:
            out.append(note(gt("g.choose.face_up", names=", ".join(x or "—" for x in s.face_up))))
        return out

    def draw_seal_action(self, step) -> list[ft.Control]:
        gt = self.gt
        s = self.vm.state.seats[step.seat]
        return [note(gt("g.seal.hint", name=s.name, seals=s.seals)),
                wrap([button(gt("g.seal.take", colour=gt.colour(c), n=k), lambda e, c=c: self.run(step.take, c), filled=False)
                      for c, k in step.colours()]),
                button(gt("g.seal.pass"), lambda e: self.run(step.pass_), ft.Icons.SKIP_NEXT)]

    def draw_roll_die(self, step) -> list[ft.Control]:
        gt = self.gt
        c = step.colour() or "unknown"
        return [note(gt("g.rolldie.hint", colour=gt.colour(c))),
                wrap([die_chip(c, v, gt("g.rolldie.value", v=v), on_click=lambda e, v=v: self.run(step.roll, v)) for v in range(1, 7)])]

    def draw_categories(self, step) -> list[ft.Control]:
        gt = self.gt
        out = [note(gt("g.cats.hint"))]
        for typ in (1, 2, 3, 4):
            out.append(ft.Text(gt(f"g.cats.type{typ}")))
            out.append(wrap([chip(gt.category(c), lambda e, typ=typ, c=c: (step.choose(typ, c), self.redraw()),
                                  step.chosen[typ - 1] == c) for c in step.choices(typ)]))
        out.append(button(gt("g.cats.confirm"), lambda e: self.run(step.submit), ft.Icons.CHECK,
                          disabled=any(x is None for x in step.chosen)))
        return out

    def draw_automa(self, step) -> list[ft.Control]:
        gt = self.gt
        out = [ft.Row([ft.Icon(ft.Icons.SMART_TOY), ft.Text(gt("g.automa.hint"), expand=True)])]
        for line in step.instructions:
            out.append(ft.Row([ft.Icon(ft.Icons.CHEVRON_RIGHT, size=18), ft.Text(line, expand=True, size=15)]))
        if step.waits_for == "animal_from_deck":
            out.append(note(gt("g.automa.deck_animal")))
            out.append(self.deck_animal_entry(lambda cont, name, sep=None: self._automa_draw(step, cont, name, sep)))
            return out
        if step.waits_for == "expert_from_deck":
            results = ft.Column(spacing=2)

            def fill():
                results.controls = [ft.TextButton(n, on_click=lambda e, n=n: self.run(step.done, expert=n)) for n in step.expert_names()[:10]]

            def typed(e):
                step.query = e.control.value or ""
                fill()
                results.update()

            fill()
            out += [note(gt("g.automa.deck_expert")), ft.TextField(label=gt("g.reveal.search"), on_change=typed), results]
            return out
        out.append(button(gt("g.automa.done"), lambda e: self.run(step.done), ft.Icons.CHECK))
        return out

    def _automa_draw(self, step, continent, name, sep):
        step.name = name
        return step.done(continent=continent, sepultus=sep)

    def draw_game_over(self, step) -> list[ft.Control]:
        from companion.app.game.endgame_view import endgame_controls
        from companion.app.ui.score_view import score_view_controls
        from companion.app.vm_score import build_view

        breakdowns, ranking = step.scores()
        view = build_view(breakdowns, ranking, self.tr, self.vm.state.board)
        return score_view_controls(view, self.tr, self.phone) + endgame_controls(
            step.at_a_glance((breakdowns, ranking)), self.gt, self.phone)

    # -- boards at a glance ---------------------------------------------------------------
    def boards_panel(self, step) -> tuple[ft.Control, list[ft.Control]]:
        """The drawn central board and the seats' boards (``board_view``, ``board_vm``)."""
        from companion.app.game.board_view import boards_panel

        return boards_panel(self, step)

    def log_panel(self, tile: ft.ExpansionTile | None = None) -> ft.Control:
        """The action log, newest first (the last 40 lines). Given the ``tile`` drawn before, its
        title and lines get the new texts instead of new controls, so a step sends only the
        texts that moved (docs/app-game.md)."""
        n, last = self.vm.log_tail(40)
        texts = [f"{n - i}. {x}" for i, x in enumerate(reversed(last))]
        if tile is None:
            return ft.ExpansionTile(title=ft.Text(self.gt("g.game.log", n=n)),
                                    controls=[ft.Text(x, size=12, selectable=True) for x in texts])
        tile.title.value = self.gt("g.game.log", n=n)
        lines = tile.controls
        del lines[len(texts):]
        for line, x in zip(lines, texts):
            line.value = x
        lines.extend(ft.Text(x, size=12, selectable=True) for x in texts[len(lines):])
        return tile


LOC_ICON = {"embassy": ft.Icons.ACCOUNT_BALANCE, "bank": ft.Icons.SAVINGS, "university": ft.Icons.SCHOOL,
            "academy": ft.Icons.PETS, "expedition": ft.Icons.EXPLORE, "publish": ft.Icons.MENU_BOOK}
