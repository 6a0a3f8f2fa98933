"""The set-up and reveal panels of the game screen (Flet): the set-up list, the next expert
(searchable, filtered by continent), the next animal (one tap on its continent, or a catalogue
suggestion; a Sepultus card), the round token. View-models: ``reveal_vm``.

Its methods are the game screen's (``view.GameScreen`` inherits this class): they use the
screen's ``gt``, ``vm``, ``ctl``, ``shell``, ``phone``, ``run`` and ``redraw``.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import note
from companion.app.game.widgets import CONTINENT_COLOUR, DIE_BG, DIE_FG, button, chip, colour_dot, wrap
from companion.app.game.wizard_vm import setup_steps
from companion.content.vocab import CATEGORIES_BY_TYPE
from companion.engine import EXPERT


class RevealPanel:
    """Draws ``reveal_expert``, ``reveal_animal`` and ``reveal_round_token`` (and the Sepultus
    form that ``cards_view`` also uses)."""

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
        # the whole display in one Confirm: "saf, gao, pora ..." (issue 41, item 16)
        found = ft.Text(size=13)
        many = button(gt("g.reveal.typed_button", n=0), lambda e: self.run(step.reveal_typed, many_field.value or ""))

        def typed_many(e):
            names, unclear = step.names_typed(e.control.value or "")
            found.value = gt("g.reveal.typed_found", names=", ".join(names)) if names else ""
            many.content = gt("g.reveal.typed_button", n=len(names))
            many.disabled = not names or bool(unclear)
            found.update()
            many.update()

        many.disabled = True
        many_field = ft.TextField(label=gt("g.reveal.typed_label"), on_change=typed_many, multiline=False)
        return [*self.setup_note(),
                many_field, found, many,
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
