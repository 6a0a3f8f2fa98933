"""Drawing of a ``ScoreView`` (``score.vm``): verdict, bar chart and breakdown table."""

from __future__ import annotations

import flet as ft

from companion.app.score.vm import ScoreView


def score_view_controls(view: ScoreView, tr, phone: bool) -> list[ft.Control]:
    verdict = ft.Row([ft.Icon(ft.Icons.EMOJI_EVENTS, color=ft.Colors.AMBER),
                      ft.Text(view.verdict, size=16, weight=ft.FontWeight.BOLD, expand=True)])
    bars = []
    for b in view.bars:  # the bar takes whatever width the card has (phone, tablet, desktop)
        bars.append(ft.Row([
            ft.Text(b.name, width=90, overflow=ft.TextOverflow.ELLIPSIS),
            ft.ProgressBar(value=b.fraction, bar_height=18, border_radius=4, expand=True,
                           color=ft.Colors.PRIMARY if b.winner else ft.Colors.SECONDARY,
                           bgcolor=ft.Colors.with_opacity(0.0, ft.Colors.PRIMARY)),
            ft.Text(tr("pad.vp_short", vp=b.total), width=64, text_align=ft.TextAlign.END),
        ], spacing=8, vertical_alignment=ft.CrossAxisAlignment.CENTER))
    columns = [ft.DataColumn(ft.Text(tr("pad.line")))] + [
        ft.DataColumn(ft.Text(n), numeric=True) for n in view.names]
    rows = []
    for r in view.rows:
        cells = [ft.DataCell(ft.Text(r.label))]
        for vp, detail in zip(r.vps, r.details):
            cells.append(ft.DataCell(ft.Text("" if vp is None else str(vp), tooltip=detail or None)))
        rows.append(ft.DataRow(cells))
    rows.append(ft.DataRow(
        [ft.DataCell(ft.Text(tr("pad.total_row"), weight=ft.FontWeight.BOLD))]
        + [ft.DataCell(ft.Text(str(t), weight=ft.FontWeight.BOLD)) for t in view.totals]))
    table = ft.DataTable(columns=columns, rows=rows, column_spacing=16 if phone else 28,
                         data_row_min_height=32, data_row_max_height=40, heading_row_height=36)
    return [
        verdict,
        ft.Column(bars, spacing=6),
        ft.Row([table], scroll=ft.ScrollMode.AUTO),
    ]
