"""Settings: language, theme, "check your box" constants, dice calibration, the table profile (the
table's dice the reader learns from), animal catalogue."""

from __future__ import annotations

import flet as ft

from companion.app.common import features
from companion.app.common.i18n import LANGUAGE_NAMES, LANGUAGES
from companion.app.common.prefs import THEMES
from companion.app.common.widgets import Screen, note, section
from companion.app.settings.tools_vm import (CALIBRATION_ORDER, CalibrationTools, CatalogueTools, ProfileBusyError,
                                             ProfileTools, ToolError)
from companion.app.settings.vm import MAX_CELL, BoxConstantsForm, SettingsAccess, cell_label

#: px between rows of the box's number fields and above the first: a field's floating label may
#: take two lines (12 px each) above its border
LABEL_ROOM = 24


class SettingsScreen(Screen):
    def title(self) -> str:
        return self.tr("settings.title")

    def view(self) -> ft.Control:
        tr, ctl = self.tr, self.ctl
        lang = ft.SegmentedButton(
            segments=[ft.Segment(value=l, label=LANGUAGE_NAMES[l]) for l in LANGUAGES],
            selected=[ctl.prefs.language],
            on_change=lambda e: ctl.set_language(e.control.selected[0]),
        )
        theme = ft.SegmentedButton(
            segments=[ft.Segment(value=t, label=tr(f"settings.theme_{t}")) for t in THEMES],
            selected=[ctl.prefs.theme],
            on_change=lambda e: ctl.set_theme(e.control.selected[0]),
        )
        access = SettingsAccess.of(ctl)
        parts = [
            section(tr("settings.language"), [lang]),
            section(tr("settings.theme"), [theme]),
        ]
        if access.table:
            parts += [self._box_section(), self._calibration_section(), self._profile_section(), self._catalogue_section()]
        else:  # a phone: its page's language and theme only (docs/app.md, issue 40)
            parts.append(note(tr("settings.table_only")))
        return ft.Column(parts, spacing=12, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)

    # -- "check your box" -----------------------------------------------------------------
    def _box_section(self) -> ft.Control:
        tr = self.tr
        form: BoxConstantsForm = self.ctl.screen_state("settings.box", BoxConstantsForm)  # the table's page only
        status = note("")
        cells: dict[tuple, ft.TextField] = {}
        groups: dict[str, ft.Text] = {}

        def changed(key, path, e):
            form.set_cell(key, path, e.control.value)
            err = form.cell_errors.get((key, path))
            e.control.error = tr(err, max=MAX_CELL) if err else None
            e.control.update()

        def refresh_errors():
            for key, t in groups.items():
                t.value = form.fields[key].error or ""
                t.visible = bool(form.fields[key].error)
            if form.error:
                status.value, status.color = tr("settings.box_not_saved", error=form.error), ft.Colors.ERROR
            elif form.message:
                status.value, status.color = tr("settings.box_saved", path=str(form.override_path)), None
            else:
                status.value = ""

        def save(e):
            form.save()
            refresh_errors()

        def reset_all(e):
            for key in form.keys:
                form.reset(key)
            for c in form_cells():
                tf = cells.get((c.key, c.path))
                if tf is not None:
                    tf.value, tf.error = str(c.value), None
            form.save()
            refresh_errors()

        def form_cells():
            return [c for key in form.keys for c in form.cells(key)]

        rows = [note(tr("settings.box_help"))]
        for key in form.keys:
            fields_of_key = []
            for c in form.cells(key):
                err = form.cell_errors.get((key, c.path))
                tf = ft.TextField(
                    label=cell_label(tr, key, c.path), value=str(c.value), dense=True, width=150,
                    keyboard_type=ft.KeyboardType.NUMBER,
                    helper=tr("settings.cell.default", value=c.default) if c.default is not None else None,
                    error=tr(err, max=MAX_CELL) if err else None,
                    on_change=lambda e, k=key, p=c.path: changed(k, p, e),
                )
                cells[(key, c.path)] = tf
                fields_of_key.append(tf)
            err_text = ft.Text("", color=ft.Colors.ERROR, size=12, visible=False)
            groups[key] = err_text
            rows.append(ft.Column([
                ft.Text(tr(f"board.{key}"), weight=ft.FontWeight.BOLD),
                ft.Text(tr(f"board.{key}_help"), size=12),
                # room above each field for a label on two lines ("Casella 1: bonus al valore" in a
                # 150 px field floats as two lines over the border: it covered the help line above)
                ft.Container(ft.Row(fields_of_key, wrap=True, spacing=8, run_spacing=LABEL_ROOM),
                             padding=ft.Padding.only(top=LABEL_ROOM - 8)),
                err_text,
            ], spacing=4))
        rows.append(ft.Row([
            ft.FilledButton(tr("settings.box_save"), icon=ft.Icons.SAVE, on_click=save),
            ft.OutlinedButton(tr("settings.box_reset"), icon=ft.Icons.RESTORE, on_click=reset_all),
        ], wrap=True))
        rows.append(status)
        refresh_errors()
        return section(tr("settings.box"), rows, stretch=True)

    # -- dice colour calibration ------------------------------------------------------------
    def _calibration_section(self) -> ft.Control:
        tr = self.tr
        if not features.dice_reader_ready():
            return section(tr("settings.calibration"), [note(tr("settings.calibration_missing"))])
        tools: CalibrationTools = self.ctl.screen_state("settings.calibration", CalibrationTools)
        status_text = note("")

        def show_status():
            st = tools.status()
            if st.problem:
                status_text.value, status_text.color = st.problem, ft.Colors.ERROR
            elif st.colours:
                names = ", ".join(tr(f"colour.{c}") for c in st.colours)
                status_text.value = tr("settings.calibration_done", colours=names, when=st.created[:16].replace("T", " "))
                status_text.color = None
            else:
                status_text.value, status_text.color = tr("settings.calibration_none"), None

        picker = self.shell.file_picker("calibration")

        def calibrate(data: bytes):
            try:
                tools.calibrate(data)
            except ToolError as exc:
                self.shell.toast(tr("settings.calibration_failed", error=str(exc)), error=True)
            else:
                self.shell.toast(tr("settings.calibration_saved"))
            show_status()
            self.shell.update()  # a picker event updates the picker, not the page

        def picked(e):
            files = [f for f in (e.files or []) if f.bytes]
            if not files:
                return
            status_text.value, status_text.color = tr("settings.calibration_reading"), None
            # the photo is decoded and read in a worker, not in the event loop all pages share
            run_thread = getattr(getattr(self.shell, "page", None), "run_thread", None)
            if run_thread is None:
                calibrate(files[0].bytes)
            else:
                self.shell.update()
                run_thread(calibrate, files[0].bytes)

        picker.on_result = picked

        def clear(e):
            tools.clear()
            show_status()

        show_status()
        order = " · ".join(tr(f"colour.{c}") for c in CALIBRATION_ORDER)
        return section(tr("settings.calibration"), [
            note(tr("settings.calibration_help")),
            ft.Text(tr("settings.calibration_order", order=order), weight=ft.FontWeight.BOLD),
            ft.Row([
                ft.FilledButton(tr("settings.calibration_photo"), icon=ft.Icons.PHOTO_CAMERA,
                                action=ft.PickFiles(picker, with_data=True,
                                                    file_type=ft.FilePickerFileType.IMAGE)),
                ft.OutlinedButton(tr("settings.calibration_clear"), icon=ft.Icons.DELETE_OUTLINE, on_click=clear),
            ], wrap=True),
            status_text,
        ])

    # -- the table profile (issue 38) -------------------------------------------------------
    def _profile_section(self) -> ft.Control:
        tr = self.tr
        tools: ProfileTools = self.ctl.screen_state("settings.profile", ProfileTools)  # the table's page only
        info = note("")
        ask = ft.Column([], spacing=4)

        def show():
            st = tools.status()
            if st.problem:
                info.value, info.color = st.problem, ft.Colors.ERROR
            elif st.dice:
                info.value = tr("settings.profile_count", dice=st.dice, photos=st.photos, learned=st.learned_from)
                info.color = None
            else:
                info.value, info.color = tr("settings.profile_none"), None
            ask.controls = [note(tr("settings.profile_clear_ask")), ft.Row([
                ft.FilledButton(tr("settings.profile_clear_yes"), icon=ft.Icons.DELETE_FOREVER, on_click=clear_yes),
                ft.OutlinedButton(tr("settings.profile_clear_no"), on_click=clear_no),
            ], wrap=True)] if tools.clear_asked else []

        def done(fn, ok_text):
            try:
                result = fn()
            except ProfileBusyError:  # the learner is running: wait for it (docs/vision.md)
                self.shell.toast(tr("settings.profile_busy"), error=True)
            except ToolError as exc:
                self.shell.toast(tr("settings.profile_failed", error=str(exc)), error=True)
            else:
                if ok_text is not None:
                    self.shell.toast(ok_text(result))
            show()
            self.shell.update()

        def export(e):
            done(tools.export, lambda path: tr("settings.profile_exported", name=path.name))

        def clear_ask(e):
            done(tools.ask_clear, None)

        def clear_yes(e):
            done(tools.clear, lambda _: tr("settings.profile_cleared"))

        def clear_no(e):
            done(tools.cancel_clear, None)

        picker = self.shell.file_picker("profile")

        def picked(e):
            files = [f for f in (e.files or []) if f.bytes is not None]
            if files:
                done(lambda: tools.import_bytes(files[0].bytes, files[0].name), lambda _: tr("settings.profile_imported"))

        picker.on_result = picked
        show()
        return section(tr("settings.profile"), [
            note(tr("settings.profile_help")),
            info,
            ft.Row([
                ft.OutlinedButton(tr("settings.profile_export"), icon=ft.Icons.DOWNLOAD, on_click=export),
                ft.OutlinedButton(tr("settings.profile_import"), icon=ft.Icons.UPLOAD_FILE,
                                  action=ft.PickFiles(picker, with_data=True, file_type=ft.FilePickerFileType.CUSTOM,
                                                      allowed_extensions=["zip"])),
                ft.OutlinedButton(tr("settings.profile_clear"), icon=ft.Icons.DELETE_OUTLINE, on_click=clear_ask),
            ], wrap=True),
            ask,
        ])

    # -- animal catalogue ---------------------------------------------------------------------
    def _catalogue_section(self) -> ft.Control:
        tr = self.tr
        tools = CatalogueTools()
        info = note("")
        # one choice a line: three segments cut "Stop and tell me" on a phone (issue 41, item 7)
        conflict = ft.RadioGroup(
            content=ft.Column([ft.Radio(value=v, label=tr(f"settings.catalogue_conflict_{v}"))
                               for v in ("error", "keep", "replace")], spacing=0),
            value="error",
        )

        def show_summary():
            s = tools.summary()
            if s.problem:
                info.value, info.color = s.problem, ft.Colors.ERROR
            else:
                info.value = tr("settings.catalogue_count", animals=s.animals, sepultus=s.sepultus)
                info.color = None

        picker = self.shell.file_picker("catalogue")

        def picked(e):
            files = [f for f in (e.files or []) if f.bytes is not None]
            if not files:
                return
            try:
                report = tools.import_bytes(files[0].bytes, files[0].name, conflict.value or "error")
            except ToolError as exc:
                self.shell.toast(tr("settings.catalogue_import_failed", error=str(exc)), error=True)
            else:
                self.shell.toast(tr("settings.catalogue_imported", summary=report.summary()))
            show_summary()
            self.shell.update()  # a picker event updates the picker, not the page

        picker.on_result = picked

        async def export(e):
            try:
                data = tools.export_bytes()
            except ToolError as exc:
                self.shell.toast(str(exc), error=True)
                return
            try:
                await picker.save_file(file_name=tools.export_name(), src_bytes=data,
                                       file_type=ft.FilePickerFileType.CUSTOM, allowed_extensions=["json"])
            except Exception as exc:
                self.shell.toast(tr("settings.catalogue_export_failed", error=str(exc)), error=True)

        show_summary()
        return section(tr("settings.catalogue"), [
            note(tr("settings.catalogue_help")),
            info,
            ft.Text(tr("settings.catalogue_conflict")),
            conflict,
            ft.Row([
                ft.FilledButton(tr("settings.catalogue_import"), icon=ft.Icons.UPLOAD_FILE,
                                action=ft.PickFiles(picker, with_data=True, file_type=ft.FilePickerFileType.CUSTOM,
                                                    allowed_extensions=["json"])),
                ft.OutlinedButton(tr("settings.catalogue_export"), icon=ft.Icons.DOWNLOAD, on_click=export),
            ], wrap=True),
        ])
