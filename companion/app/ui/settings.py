"""Settings: language, theme, "check your box" constants, dice calibration, animal catalogue."""

from __future__ import annotations

import flet as ft

from companion.app import features
from companion.app.i18n import LANGUAGE_NAMES, LANGUAGES
from companion.app.prefs import THEMES
from companion.app.ui.common import Screen, note, section
from companion.app.vm_settings import BoxConstantsForm


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
        parts = [
            section(tr("settings.language"), [lang]),
            section(tr("settings.theme"), [theme]),
            self._box_section(),
            section(tr("settings.calibration"), [
                note(tr("settings.calibration_help")),
                note(tr("settings.calibration_missing")) if not features.dice_reader_ready() else
                note(tr("settings.calibration_reader_ok")),
            ]),
            section(tr("settings.catalogue"), [
                note(tr("settings.catalogue_help")),
                note(tr("settings.catalogue_missing")) if not features.catalogue_ready() else ft.Container(),
            ]),
        ]
        return ft.Column(parts, spacing=12, horizontal_alignment=ft.CrossAxisAlignment.STRETCH)

    # -- "check your box" -----------------------------------------------------------------
    def _box_section(self) -> ft.Control:
        tr = self.tr
        form: BoxConstantsForm = self.ctl.screen_state("settings.box", BoxConstantsForm)
        status = note("")
        fields: dict[str, ft.TextField] = {}

        def changed(key, e):
            form.set_text(key, e.control.value)

        def refresh_errors():
            for key, tf in fields.items():
                tf.error = form.fields[key].error
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
                fields[key].value = form.fields[key].text
            form.save()
            refresh_errors()

        rows = [note(tr("settings.box_help"))]
        for key in form.keys:
            f = form.fields[key]
            tf = ft.TextField(
                label=tr(f"board.{key}"), value=f.text, dense=True,
                helper=tr("settings.box_default", value=f.default_text),
                on_change=lambda e, k=key: changed(k, e),
            )
            fields[key] = tf
            rows.append(tf)
        rows.append(ft.Row([
            ft.FilledButton(tr("settings.box_save"), icon=ft.Icons.SAVE, on_click=save),
            ft.OutlinedButton(tr("settings.box_reset"), icon=ft.Icons.RESTORE, on_click=reset_all),
        ], wrap=True))
        rows.append(status)
        refresh_errors()
        return section(tr("settings.box"), rows)
