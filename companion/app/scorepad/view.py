"""Score pad screen: seats and their end-of-game counts → live totals, table, chart, winner."""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import Screen, Stepper, icon_button, note, section
from companion.app.score.view import score_view_controls
from companion.app.scorepad.vm import HUMAN_COUNTS, AUTOMA_COUNTS, PadError, ScorePad
from companion.content.board import default_board
from companion.scoring import AUTOMA_SCORING_CARDS

COUNT_LIMITS = {"reputation": 15, "sepultus": 6}


class ScorePadScreen(Screen):
    def __init__(self, shell):
        super().__init__(shell)
        self.pad: ScorePad = self.ctl.screen_state("/scorepad", lambda: ScorePad(self.tr))
        self.pad.tr = self.tr
        self.pad.recompute()  # language may have changed since
        self.totals: list[ft.Text] = []
        self.summaries: list[tuple[ft.Text, int, str]] = []  # the tiles' "N in all", kept current
        self.results = ft.Column(spacing=10)

    def title(self) -> str:
        return self.tr("pad.title")

    def actions(self) -> list[ft.Control]:
        return [icon_button(ft.Icons.DOWNLOAD, self.tr("pad.export"), self.export,
                            disabled=self.pad.view is None)]

    # -- changes -------------------------------------------------------------------------------
    def _do(self, fn, *args, redraw: bool = False) -> None:
        try:
            fn(*args)
        except PadError as exc:
            self.shell.toast(str(exc), error=True)
            return
        if redraw:
            self.shell.render()
        else:
            self.refresh()

    def refresh(self) -> None:
        """Update totals and results in place (the input fields keep focus)."""
        view = self.pad.view
        for i, t in enumerate(self.totals):
            t.value = self.tr("pad.total", vp=view.totals[i]) if view and i < len(view.totals) else "—"
        for t, i, what in self.summaries:
            if i < len(self.pad.seats):
                t.value = self.pad.summary(i, what)
        self.results.controls = self._result_controls()

    # -- drawing -------------------------------------------------------------------------------
    def view(self) -> ft.Control:
        tr, pad = self.tr, self.pad
        board = default_board()
        full = len(pad.seats) >= board.max_seats
        picker = self.shell.file_picker("scorepad")

        def opened(e):
            files = [f for f in (e.files or []) if f.bytes is not None]
            if files:
                self._do(pad.load_sheet_bytes, files[0].bytes, files[0].name, redraw=True)

        picker.on_result = opened
        add_row = ft.Row([
            ft.FilledButton(tr("pad.add_human"), icon=ft.Icons.PERSON_ADD, disabled=full,
                            on_click=lambda e: self._do(pad.add_human, redraw=True)),
            ft.OutlinedButton(tr("pad.add_automa"), icon=ft.Icons.SMART_TOY, disabled=full,
                              on_click=lambda e: self._do(pad.add_automa, redraw=True)),
            ft.TextButton(tr("pad.open_sheet"), icon=ft.Icons.FOLDER_OPEN,
                          action=ft.PickFiles(picker, with_data=True, file_type=ft.FilePickerFileType.CUSTOM,
                                              allowed_extensions=["json"])),
        ], wrap=True)
        seats = [self._seat_card(i) for i in range(len(pad.seats))]
        if not seats:
            seats = [note(tr("pad.empty"))]
        self.results.controls = self._result_controls()
        seat_col = ft.Column([add_row, *seats], spacing=12)
        from companion.app.common import layout

        if self.ctl.size_class != layout.DESKTOP or len(pad.seats) == 0:
            return ft.Column([seat_col, self.results], spacing=16)
        # wider windows: entries on the left, results on the right
        return ft.ResponsiveRow([
            ft.Container(seat_col, col={"xs": 12, "md": 7}),
            ft.Container(self.results, col={"xs": 12, "md": 5}),
        ], spacing=16)

    def _seat_card(self, i: int) -> ft.Control:
        tr, pad = self.tr, self.pad
        seat = pad.seats[i]
        view = pad.view
        total = ft.Text(tr("pad.total", vp=view.totals[i]) if view else "—", size=18,
                        weight=ft.FontWeight.BOLD)
        self.totals.append(total)
        name = ft.TextField(label=tr("pad.name", n=i + 1), value=seat.name, dense=True, expand=True,
                            on_change=lambda e: self._do(pad.set_name, i, e.control.value))
        head = ft.Row([
            ft.Icon(ft.Icons.PERSON if seat.kind == "human" else ft.Icons.SMART_TOY),
            name, total,
            icon_button(ft.Icons.DELETE_OUTLINE, tr("pad.remove", name=seat.name),
                        lambda e: self._do(pad.remove, i, redraw=True)),
        ], vertical_alignment=ft.CrossAxisAlignment.CENTER)
        parts: list[ft.Control] = [head]
        if seat.kind == "automa":
            # one card a line: three segments broke "La / Boudeus / e" on a phone (issue 41, item 7)
            parts.append(ft.RadioGroup(
                content=ft.Column([ft.Radio(value=c, label=default_board().automa_scoring_cards[c].name)
                                   for c in AUTOMA_SCORING_CARDS], spacing=0),
                value=seat.scoring,
                on_change=lambda e, i=i: self._do(pad.set_scoring, i, e.control.value),
            ))
        counts = HUMAN_COUNTS if seat.kind == "human" else AUTOMA_COUNTS
        parts.append(ft.Container(ft.Row([self._stepper(i, c, seat.counts.get(c, 0)) for c in counts],
                                         wrap=True, spacing=4, run_spacing=14), padding=ft.Padding.only(top=6)))
        board = default_board()
        if seat.kind == "human":
            parts.append(self._table_tile(i, "cubes", tr("pad.cubes"), board.categories, "cat", seat.cubes))
            parts.append(self._table_tile(i, "published", tr("pad.published"), board.continents,
                                          "continent", seat.published))
        else:
            parts.append(self._table_tile(i, "animals", tr("pad.animals"), board.continents,
                                          "continent", seat.animals))
        parts.append(self._experts_tile(i))
        return ft.Card(ft.Container(ft.Column(parts, spacing=8), padding=ft.Padding.all(12)))

    def _stepper(self, i: int, what: str, value: int, key: str | None = None, label: str | None = None):
        hi = COUNT_LIMITS.get(what, 999) if key is None else 99
        st = Stepper(label or self.tr(f"pad.{what}"), value,
                     lambda v: self._do(self.pad.set_count, i, what, v, key),
                     lo=0, hi=hi)
        return st.control

    def _summary(self, i: int, what: str) -> ft.Text:
        t = ft.Text(self.pad.summary(i, what))
        self.summaries.append((t, i, what))
        return t

    def _table_tile(self, i, what, title, keys, prefix, values) -> ft.Control:
        n = sum(values.values())
        controls = [self._stepper(i, what, values.get(k, 0), key=k, label=self.tr(f"{prefix}.{k}"))
                    for k in keys]
        return ft.ExpansionTile(
            title=ft.Text(title), subtitle=self._summary(i, what),
            controls=[ft.Container(ft.Row(controls, wrap=True, spacing=4, run_spacing=14),
                                   padding=ft.Padding.only(top=8, bottom=8))],
            expanded=n > 0,
        )

    def _experts_tile(self, i: int) -> ft.Control:
        tr, pad = self.tr, self.pad
        seat = pad.seats[i]
        rows: list[ft.Control] = []
        for name, active in seat.experts:
            row = [ft.Text(name, expand=True)]
            if seat.kind == "human":
                row.append(ft.Checkbox(label=tr("pad.expert_active"), value=active,
                                       on_change=lambda e, n=name: self._do(
                                           pad.set_expert_active, i, n, bool(e.control.value))))
            row.append(icon_button(ft.Icons.CLOSE, tr("pad.expert_remove", expert=name),
                                   lambda e, n=name: self._do(pad.remove_expert, i, n, redraw=True)))
            rows.append(ft.Row(row, vertical_alignment=ft.CrossAxisAlignment.CENTER))
        suggestions = ft.Row(wrap=True, spacing=4)

        def typed(e):
            suggestions.controls = [
                ft.TextButton(n, on_click=lambda ev, n=n: self._do(pad.add_expert, i, n, redraw=True))
                for n in pad.expert_suggestions(e.control.value or "")
            ]

        search = ft.TextField(label=tr("pad.expert_add"), dense=True, on_change=typed,
                              on_submit=lambda e: self._do(pad.add_expert, i, e.control.value or "", redraw=True))
        rows += [search, suggestions]
        if seat.kind == "human":
            rows.insert(0, note(tr("pad.experts_help")))
        return ft.ExpansionTile(title=ft.Text(tr("pad.experts")),
                                subtitle=self._summary(i, "experts"),
                                controls=rows, expanded=bool(seat.experts))

    def _result_controls(self) -> list[ft.Control]:
        tr, pad = self.tr, self.pad
        if pad.error:
            return [section(tr("pad.result"), [note(pad.error, error=True)])]
        if pad.view is None:
            return []
        return [section(tr("pad.result"), score_view_controls(pad.view, tr, self.phone))]

    # -- export ------------------------------------------------------------------------------
    async def export(self, e) -> None:
        tr, pad = self.tr, self.pad
        try:
            path = pad.save_copy()
        except (PadError, OSError) as exc:
            self.shell.toast(str(exc), error=True)
            return
        self.shell.toast(tr("pad.exported", path=str(path)))
        try:
            picker = self.shell.file_picker()
            await picker.save_file(file_name=path.name, src_bytes=pad.export_bytes(),
                                   allowed_extensions=["json"], file_type=ft.FilePickerFileType.CUSTOM)
        except Exception as exc:  # a browser that refuses the download: the copy is saved anyway
            self.shell.toast(tr("pad.export_download_failed", error=str(exc), path=str(path)), error=True)
