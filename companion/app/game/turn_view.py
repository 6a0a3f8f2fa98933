"""The turn panels of the game screen (Flet): the dice on the boards, a die's legal actions with
their computed results, the action being adjusted (spends, University slot, publication
choices), and the research after an expedition. View-models: ``turn_vm``.

Its methods are the game screen's (``view.GameScreen`` inherits this class): they use the
screen's ``gt``, ``vm``, ``ctl``, ``shell``, ``phone``, ``run`` and ``redraw``.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import icon_button, note, sentence
from companion.app.game.widgets import button, chip, die_chip, labelled_switch, wrap
from companion.content.vocab import COLOURS
from companion.engine import EXPERT

LOC_ICON = {"embassy": ft.Icons.ACCOUNT_BALANCE, "bank": ft.Icons.SAVINGS, "university": ft.Icons.SCHOOL,
            "academy": ft.Icons.PETS, "expedition": ft.Icons.EXPLORE, "publish": ft.Icons.MENU_BOOK}


class TurnPanel:
    """Draws ``turn`` (with its ``Draft``) and ``research``."""

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
            top = d.top_type()
            out.append(ft.Text(gt("g.draft.up_to")))
            out.append(wrap([chip(gt.pub_type(t), lambda e, t=t: self.run(d.set_up_to, t), top == t) for t in sorted(pub)]))
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
            out.append(labelled_switch(gt("g.draft.colour_by_seal"), sp.colour_by == "seal",
                                       lambda e: self.run(d.set_colour, sp.colour, "seal" if e.control.value else "token")))
        if d.kind == "university":
            s = vm.state.seats[step.seat]
            e_ = EXPERT[d.action.name]
            out.append(note(e_.text))
            if all(x is not None for x in s.face_up) and not d.action.use_now:
                out.append(ft.Text(gt("g.draft.cover")))
                out.append(wrap([chip(f"{k + 1}: {n}", lambda e, k=k: self.run(d.set_slot, k), d.action.slot == k)
                                 for k, n in enumerate(s.face_up)]
                                + [chip(gt("g.draft.under"), lambda e: self.run(d.set_under), d.action.under)]))
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
                    lines.append(gt("g.draft.pv_type", t=gt.pub_type(t), vp=v))
                out.append(ft.Container(ft.Column([ft.Text(x) for x in lines], spacing=2), padding=8,
                                        bgcolor=ft.Colors.SECONDARY_CONTAINER, border_radius=8))
        out.append(ft.Container(ft.Text(sentence(text), weight=ft.FontWeight.BOLD, color=None if legal else ft.Colors.ERROR),
                                padding=8, border_radius=8, bgcolor=ft.Colors.SURFACE_CONTAINER_HIGHEST))
        out.append(wrap([button(gt("g.draft.back"), lambda e: self.run(step.close_draft), ft.Icons.ARROW_BACK, False),
                         button(gt("g.draft.confirm"), lambda e: self.run(d.confirm), ft.Icons.CHECK, disabled=not legal)]))
        return out

    def draw_research(self, step) -> list[ft.Control]:
        gt = self.gt
        vm = self.vm
        legal, text = step.result()
        out = [ft.Text(gt("g.research.budget", value=step.value, left=step.left(), continent=gt.continent(step.continent)),
                       weight=ft.FontWeight.BOLD),
               note(gt("g.research.cubes_left", n=step.cubes_left()), error=step.cubes_left() == 0)]
        if step.out_of_cubes():
            swaps = step.swaps()
            out.append(note(gt("g.research.out" if swaps else "g.research.out_none")))
            if swaps:
                out.append(wrap([button(gt("g.research.swap", category=gt.category(c)), lambda e, c=c: self.run(step.swap, c),
                                        ft.Icons.SWAP_HORIZ, False) for c in swaps]))
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
