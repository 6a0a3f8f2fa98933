"""Flet screen of the new game wizard (``/new``): seats, automa cards and priorities, first
player, Sepultus. It only draws its view-model (``wizard_vm.NewGameVM``, kept in the app
controller's per-screen state so a redraw keeps every entry) and forwards taps to it.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import Screen, heading, icon_button, note, section
from companion.app.game.holder import session_store, show_new_session
from companion.app.game.widgets import CONTINENT_COLOUR, button, colour_dot, game_text, wrap
from companion.app.game.wizard_vm import (
    AUTOMA, HUMAN, NewGameVM, behaviour_keys, behaviour_label, scoring_keys, scoring_label,
)


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
            # the last game's seats, cards and options in one tap (issue 41, item 16)
            button(gt("g.wiz.same_as_last"), lambda e: self.act(vm.same_as_last, session_store()), ft.Icons.HISTORY, False),
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
            ft.Row([ft.Container(heading(vm.seat_title(i), 16), expand=True),
                    icon_button(ft.Icons.ARROW_UPWARD, gt("g.wiz.seat_earlier", n=i + 1),
                                lambda e, i=i: self.act(vm.move_seat, i, -1), disabled=i == 0),
                    icon_button(ft.Icons.ARROW_DOWNWARD, gt("g.wiz.seat_later", n=i + 1),
                                lambda e, i=i: self.act(vm.move_seat, i, +1), disabled=i == len(vm.seats) - 1),
                    icon_button(ft.Icons.DELETE_OUTLINE, gt("g.wiz.remove_seat", n=i + 1),
                                lambda e, i=i: self.act(vm.remove_seat, i), disabled=len(vm.seats) <= vm.MIN)],
                   spacing=0),
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
