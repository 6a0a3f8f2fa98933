"""Flet drawing of the end-of-game charts (``endgame_vm.EndGame``), under the final score table.

Charts are composed of plain controls: bars are ``Container``s whose lengths are flex factors
(``expand``) of a ``Row``, so they take whatever width the card has (a 390 px phone as well as a
desktop) and need no chart extension (``flet-charts`` is a separate Flutter extension that the
served web client does not include). Every number is also written as text beside or under its
bar, for small screens and screen readers.
"""

from __future__ import annotations

import flet as ft

from companion.app.game.endgame_vm import OTHER, SOURCES, EndGame
from companion.app.game.texts import GameText

#: one colour per source (legend order = stacking order)
SOURCE_COLOUR = {"track": "#546E7A", "collections": "#2E7D32", "experts": "#6A1B9A", "seals": "#C62828",
                 "coins": "#F9A825", "tokens": "#1565C0", OTHER: "#9E9E9E"}
TRACK_HEIGHT = 120  # px of the tallest bar of the track chart


def _swatch(colour: str, size: int = 12) -> ft.Control:
    return ft.Container(width=size, height=size, border_radius=3, bgcolor=colour)


def _legend(items: list[tuple[str, str]]) -> ft.Control:
    return ft.Row([ft.Row([_swatch(c), ft.Text(label, size=12)], spacing=4, tight=True) for c, label in items],
                  wrap=True, spacing=10, run_spacing=4)


def _title(text: str) -> ft.Control:
    return ft.Text(text, size=16, weight=ft.FontWeight.BOLD)


def source_label(gt: GameText, source: str) -> str:
    return gt(f"g.end.source.{source}")


def points_chart(eg: EndGame, gt: GameText) -> list[ft.Control]:
    """One stacked bar per seat (its length: the seat's total against the best one), the
    numbers under it, and the legend."""
    best = max((p.total for p in eg.points), default=0)
    colour_of = {n: eg.track.colour(i) for i, n in enumerate(eg.track.names)}
    rows: list[ft.Control] = []
    for p in eg.points:
        segs = [ft.Container(expand=vp, height=22, bgcolor=SOURCE_COLOUR[s], tooltip=gt("g.end.part", source=source_label(gt, s), vp=vp))
                for s, vp in p.parts if vp > 0]
        if best - p.total > 0 and segs:
            segs.append(ft.Container(expand=best - p.total, height=22))
        bar = ft.Container(ft.Row(segs, spacing=0), border_radius=4, clip_behavior=ft.ClipBehavior.HARD_EDGE) if segs \
            else ft.Container(height=22)
        swatch = [_swatch(colour_of[p.name])] if p.name in colour_of else []
        head = ft.Row([*swatch, ft.Text(p.name, weight=ft.FontWeight.BOLD, expand=True, overflow=ft.TextOverflow.ELLIPSIS),
                       ft.Text(gt("g.end.vp", vp=p.total), weight=ft.FontWeight.BOLD)])
        detail = " · ".join(gt("g.end.part", source=source_label(gt, s), vp=vp) for s, vp in p.parts)
        rows.append(ft.Column([head, bar, ft.Text(detail, size=12)], spacing=3))
    used = [s for s in (*SOURCES, OTHER) if any(p.vp(s) for p in eg.points)]
    return [_title(gt("g.end.by_source")), *rows, _legend([(SOURCE_COLOUR[s], source_label(gt, s)) for s in used])]


def track_chart(eg: EndGame, gt: GameText, phone: bool) -> list[ft.Control]:
    """Grouped columns: for each round, one bar per seat (its height: the seat's track at the
    end of the round against the highest value), then the same numbers as a small table."""
    tr = eg.track
    if not tr.rounds:
        return []
    groups = []
    for k, r in enumerate(tr.rounds):
        bars = [ft.Container(expand=1, height=max(2, round(TRACK_HEIGHT * tr.fraction(i, k))),
                             bgcolor=tr.colour(i), border_radius=ft.BorderRadius.only(top_left=2, top_right=2),
                             tooltip=f"{tr.names[i]}: {gt('g.end.vp', vp=tr.vp[i][k])}")
                for i in range(len(tr.names))]
        groups.append(ft.Column([
            ft.Container(ft.Row(bars, spacing=2, vertical_alignment=ft.CrossAxisAlignment.END), height=TRACK_HEIGHT,
                         alignment=ft.Alignment.BOTTOM_CENTER),
            ft.Text(gt("g.end.round_short", n=r), size=12, text_align=ft.TextAlign.CENTER),
        ], spacing=2, expand=1, horizontal_alignment=ft.CrossAxisAlignment.STRETCH))
    chart = ft.Row([
        ft.Column([ft.Text(str(tr.best), size=11), ft.Container(expand=True), ft.Text("0", size=11)],
                  height=TRACK_HEIGHT, spacing=0, horizontal_alignment=ft.CrossAxisAlignment.END),
        ft.Row(groups, spacing=6 if phone else 12, expand=True, vertical_alignment=ft.CrossAxisAlignment.START),
    ], spacing=6, vertical_alignment=ft.CrossAxisAlignment.START)
    name_w, num_w = (76, 34) if phone else (140, 48)
    table = [ft.Row([ft.Text("", width=name_w)] + [ft.Text(gt("g.end.round_short", n=r), size=12, width=num_w,
                                                          text_align=ft.TextAlign.END, weight=ft.FontWeight.BOLD)
                                                  for r in tr.rounds], spacing=0)]
    for i, name in enumerate(tr.names):
        table.append(ft.Row(
            [ft.Row([_swatch(tr.colour(i), 10),
                     ft.Text(name, size=12, overflow=ft.TextOverflow.ELLIPSIS, expand=True)], width=name_w, spacing=4)]
            + [ft.Text(str(v), size=12, width=num_w, text_align=ft.TextAlign.END) for v in tr.vp[i]], spacing=0))
    return [_title(gt("g.end.track")), ft.Text(gt("g.end.track_note"), size=12), chart,
            _legend([(tr.colour(i), n) for i, n in enumerate(tr.names)]),
            ft.Row([ft.Column(table, spacing=2)], scroll=ft.ScrollMode.AUTO)]


def cards_list(eg: EndGame, gt: GameText) -> list[ft.Control]:
    lines = []
    for sc in eg.cards:
        key = "g.end.cards_published" if sc.kind == "human" else "g.end.cards_held"
        lines.append(ft.Text(gt(key, name=sc.name, cards=", ".join(sc.cards) or gt("g.end.cards_none")), size=13,
                             selectable=True))
    return [_title(gt("g.end.cards")), *lines]


def endgame_controls(eg: EndGame, gt: GameText, phone: bool) -> list[ft.Control]:
    """The charts and the cards, each part in its own block, for the game-over step."""
    parts = [points_chart(eg, gt), track_chart(eg, gt, phone), cards_list(eg, gt)]
    return [ft.Column(p, spacing=8, horizontal_alignment=ft.CrossAxisAlignment.STRETCH) for p in parts if p]


class EndgamePanel:
    """Draws ``game_over``: the final score table (``companion.app.score``) and these charts.
    Its method is the game screen's (``view.GameScreen`` inherits this class)."""

    def draw_game_over(self, step) -> list[ft.Control]:
        from companion.app.score.view import score_view_controls
        from companion.app.score.vm import build_view

        breakdowns, ranking = step.scores()
        view = build_view(breakdowns, ranking, self.tr, self.vm.state.board)
        return score_view_controls(view, self.tr, self.phone) + endgame_controls(
            step.at_a_glance((breakdowns, ranking)), self.gt, self.phone) + [self.end_buttons()]

    def end_buttons(self) -> ft.Control:
        """What a finished game offers next (issue 41, item 14): a new game, or the start screen."""
        gt = self.gt
        return ft.Row([
            ft.FilledButton(gt("g.end.new_game"), icon=ft.Icons.PLAY_ARROW, on_click=lambda e: self.ctl.new_game()),
            ft.OutlinedButton(gt("g.end.back_to_start"), icon=ft.Icons.HOME, on_click=lambda e: self.ctl.nav.go("/")),
        ], wrap=True, spacing=12, run_spacing=8)
