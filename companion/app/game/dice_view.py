"""The dice panels of the game screen (Flet): a seat's dice tapped in or read from a photo, the
dice placed on the slots, one die rolled again. View-models: ``dice_vm``; the desktop camera's
buttons and preview are ``live_view``'s.

Its methods are the game screen's (``view.GameScreen`` inherits this class): they use the
screen's ``gt``, ``vm``, ``ctl``, ``shell``, ``phone``, ``run`` and ``redraw``.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import note
from companion.app.game.widgets import button, chip, colour_dot, die_chip, die_face, wrap
from companion.content.vocab import COLOURS

PLACE_GROUP = "place-die"  # the dice of the placing step and its slots: a drag goes only there


class DicePanel:
    """Draws ``roll_dice``, ``place_dice`` and ``roll_die``."""

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
        learned = step.learned_from()
        if learned:
            out.insert(1, note(gt("g.dice.learned", n=learned)))
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
                row.insert(0, button(gt("g.dice.looks_right"), lambda ev: (e.confirm_chip(i), self.redraw()),
                                     ft.Icons.CHECK, False))
                if e.unsure_known() > 1:
                    row.insert(1, button(gt("g.dice.all_right", n=e.unsure_known()),
                                         lambda ev: (e.confirm_all(), self.redraw()), ft.Icons.DONE_ALL, False))
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
        # decoding a photo takes a while: in a worker, never in the event loop every phone's page
        # shares (``vision.io`` bounds how many decode at once)
        run_thread = getattr(getattr(self.shell, "page", None), "run_thread", None)
        if run_thread is None:  # no Flet page (tests): here
            self.run(step.read_photo, source)
        else:
            run_thread(self.run, step.read_photo, source)

    def draw_place_dice(self, step) -> list[ft.Control]:
        """The dice and the four slots. One gesture moves a die: dragged (placed or not) and
        dropped on a slot (``step.move``); or two taps, the die then the slot (``select`` +
        ``put``: the same move, for those who cannot drag, and the browser tests)."""
        gt = self.gt
        b = self.vm.state.board

        def die(i: int, size: int = 44) -> ft.Control:
            c, v = step.rolled[i]
            return ft.Draggable(
                group=PLACE_GROUP, data=i, max_simultaneous_drags=1,
                content=die_chip(c, v, gt("g.place.die", die=gt.die(step.rolled[i])),
                                 on_click=lambda e: (step.select(i), self.redraw()), selected=step.selected == i, size=size),
                content_feedback=die_face(c, v, size),
                content_when_dragging=ft.Container(width=size, height=size, border_radius=8,
                                                   border=ft.Border.all(2, ft.Colors.OUTLINE_VARIANT)))

        unplaced = [die(i) for i in range(len(step.rolled)) if step.slots[i] is None]
        slots = []
        for sl in range(4):
            inside = [die(j, 36) for j in step.in_slot(sl)]
            slots.append(ft.DragTarget(group=PLACE_GROUP, on_accept=lambda e, sl=sl: self.place_drop(step, e, sl),
                                       content=ft.Semantics(content=ft.Container(
                ft.Column([ft.Text(gt("g.place.slot", n=sl + 1), weight=ft.FontWeight.BOLD),
                           note(gt("g.place.gives", what=gt.gift(b.slot_effects[sl]))), ft.Row(inside, spacing=4)],
                          spacing=4, horizontal_alignment=ft.CrossAxisAlignment.CENTER),
                width=150 if not self.phone else 160, padding=8, border_radius=8,
                border=ft.Border.all(2, ft.Colors.OUTLINE), on_click=lambda e, sl=sl: (step.put(sl), self.redraw())),
                label=gt("g.place.slot", n=sl + 1), button=True, container=True)))
        return [note(gt("g.place.from_photo" if step.from_photo else "g.place.hint")),
                wrap(unplaced) if unplaced else note(gt("g.place.all_placed")),
                wrap(slots),
                wrap([button(gt("g.place.clear"), lambda e: (step.clear(), self.redraw()), ft.Icons.CLEAR_ALL, False),
                      button(gt("g.place.confirm"), lambda e: self.run(step.submit), ft.Icons.CHECK, disabled=not step.ready())])]

    def place_drop(self, step, e, slot: int) -> None:
        """A die dropped on ``slot``: the dragged control carries the die's index (``data``)."""
        i = getattr(getattr(e, "src", None), "data", None)
        if step.move(i, slot):
            self.redraw()

    def draw_roll_die(self, step) -> list[ft.Control]:
        gt = self.gt
        c = step.colour() or "unknown"
        return [note(gt("g.rolldie.hint", colour=gt.colour(c))),
                wrap([die_chip(c, v, gt("g.rolldie.value", v=v), on_click=lambda e, v=v: self.run(step.roll, v)) for v in range(1, 7)]),
                *self.one_shot_buttons(step)]
