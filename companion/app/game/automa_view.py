"""The automa's panel of the game screen (Flet): its instructions and one "Done" (with the card
drawn from a deck when it takes one). View-model: ``automa_vm``.

Its methods are the game screen's (``view.GameScreen`` inherits this class): they use the
screen's ``gt``, ``vm``, ``ctl``, ``shell``, ``phone``, ``run`` and ``redraw``.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import note
from companion.app.game.widgets import button


class AutomaPanel:
    """Draws ``automa``."""

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
