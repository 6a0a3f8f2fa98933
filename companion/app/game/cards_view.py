"""The card panels of the game screen (Flet): an animal or an expert to choose (from a display
or the top of a deck), the end-of-round seal action, an animal's four categories. View-models:
``cards_vm``.

Its methods are the game screen's (``view.GameScreen`` inherits this class): they use the
screen's ``gt``, ``vm``, ``ctl``, ``shell``, ``phone``, ``run`` and ``redraw``.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import note
from companion.app.game.widgets import named
from companion.app.game.widgets import CONTINENT_COLOUR, DIE_BG, DIE_FG, button, chip, colour_dot, wrap
from companion.engine import EXPERT


class CardsPanel:
    """Draws ``choose_animal``, ``choose_expert``, ``seal_action`` and ``categories`` (and the
    entry of a card drawn from a deck, which ``automa_view`` also uses)."""

    # -- cards -----------------------------------------------------------------------------
    def one_shot_buttons(self, step) -> list[ft.Control]:
        """The seat's face-up one-shot experts, when the engine lets it use one now (its own
        turn, the bonus card step included)."""
        shots = step.one_shots()
        if not shots:
            return []
        return [wrap([button(self.gt("g.turn.use_expert", name=n), lambda e, n=n: self.run(step.use_expert, n),
                             ft.Icons.BOLT, False) for n in shots])]

    def draw_choose_animal(self, step) -> list[ft.Control]:
        gt, vm = self.gt, self.vm
        out = [note(gt(f"g.choose.reason.{step.pending.reason or 'round'}"))] + self.one_shot_buttons(step)
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
        out = [note(gt(f"g.choose.reason.{step.pending.reason or 'round'}"))] + self.one_shot_buttons(step)
        if step.pending.from_deck:
            out.append(note(gt("g.choose.expert_deck")))
        slot_pick = step.needs_slot()
        if slot_pick:
            out.append(note(gt("g.choose.cover_hint")))
        for n in step.names()[:20]:
            e = EXPERT[n]
            # each button is named with the expert for screen readers ("Take Safi Limbila"), its
            # text stays short beside the expert's name
            row = [ft.TextButton(named(gt("g.choose.take"), gt("g.choose.take_named", name=n)),
                                 on_click=lambda ev, n=n: self.run(step.take, n))] if not slot_pick else \
                [ft.TextButton(named(gt("g.choose.cover", n=k + 1), gt("g.choose.cover_named", name=n, n=k + 1)),
                               on_click=lambda ev, n=n, k=k: self.run(step.take, n, k)) for k in range(4)] + \
                [ft.TextButton(named(gt("g.choose.under"), gt("g.choose.under_named", name=n)),
                               on_click=lambda ev, n=n: self.run(step.take, n, None, False, True))]
            if e.duration == "oneshot":
                row.append(ft.TextButton(named(gt("g.choose.use_now"), gt("g.choose.use_now_named", name=n)),
                                         on_click=lambda ev, n=n: self.run(step.take, n, None, True)))
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

    def draw_categories(self, step) -> list[ft.Control]:
        gt = self.gt
        out = [note(gt("g.cats.hint"))]
        for typ in (1, 2, 3, 4):
            group = gt(f"g.cats.type{typ}")
            out.append(ft.Text(group))
            # each chip is named with its group for screen readers ("Type I · class: mammal")
            out.append(wrap([chip(gt.category(c), lambda e, typ=typ, c=c: (step.choose(typ, c), self.redraw()),
                                  step.chosen[typ - 1] == c, name=gt("g.cats.chip", group=group, category=gt.category(c)))
                             for c in step.choices(typ)]))
        out.append(button(gt("g.cats.confirm"), lambda e: self.run(step.submit), ft.Icons.CHECK,
                          disabled=any(x is None for x in step.chosen)))
        return out
