"""Start screen (new game, resume, score pad, settings) and the list of saved games."""

from __future__ import annotations

import flet as ft

from companion.app.common import features
from companion.app.common.widgets import Screen, big_button, heading, note, responsive
from companion.app.common.widgets import icon_button
from companion.app.start.vm import GameFileError, SavedGamesVM, export_game, import_game, saved_games


class StartScreen(Screen):
    def view(self) -> ft.Control:
        tr, nav = self.tr, self.ctl.nav
        play = features.game_play_ready() and self.ctl.has_screen("/new")
        buttons = [
            big_button(tr("start.new_game"), ft.Icons.PLAY_ARROW, lambda e: self.ctl.new_game(),
                       disabled=not play, tooltip=None if play else tr("start.needs_engine")),
            big_button(tr("start.resume"), ft.Icons.HISTORY, lambda e: nav.go("/resume"), filled=False),
            big_button(tr("start.score_pad"), ft.Icons.SCOREBOARD, lambda e: nav.go("/scorepad"),
                       filled=False, disabled=not features.scorepad_ready(),
                       tooltip=None if features.scorepad_ready() else tr("start.needs_scoring")),
            big_button(tr("start.settings"), ft.Icons.SETTINGS, lambda e: nav.go("/settings"), filled=False),
        ]
        parts = [
            heading(tr("app.title"), 26 if not self.phone else 22),
            note(tr("start.tagline")),
            ft.Container(height=8),
            responsive(buttons, phone=12, tablet=6, desktop=3),
        ]
        if not play:
            parts.append(note(tr("start.needs_engine")))
        return ft.Column(parts, spacing=12)


class ResumeScreen(Screen):
    def title(self) -> str:
        return self.tr("resume.title")

    def actions(self) -> list[ft.Control]:
        picker = self.shell.file_picker("game-import")

        def picked(e):
            files = [f for f in (e.files or []) if f.bytes is not None]
            if not files:
                return
            try:
                import_game(files[0].bytes, files[0].name)
            except GameFileError as exc:
                self.shell.toast(self.tr("resume.import_failed", error=str(exc)), error=True)
                return
            self.shell.toast(self.tr("resume.imported", name=files[0].name))
            self.shell.render()

        picker.on_result = picked
        if not features.game_play_ready() or self.phone_page():
            return []  # a phone imports nothing into the table's saved games
        return [ft.Semantics(
            content=ft.IconButton(ft.Icons.UPLOAD_FILE, action=ft.PickFiles(
                picker, with_data=True, file_type=ft.FilePickerFileType.CUSTOM, allowed_extensions=["json"])),
            label=self.tr("resume.import"), button=True)]

    def _export_handler(self, game_id: str):
        # an async def (not a lambda returning a coroutine): Flet awaits coroutine functions only
        async def handler(e) -> None:
            await self.export(game_id)

        return handler

    async def export(self, game_id: str) -> None:
        try:
            name, data = export_game(game_id)
        except GameFileError as exc:
            self.shell.toast(str(exc), error=True)
            return
        try:
            await self.shell.file_picker("game-export").save_file(
                file_name=name, src_bytes=data, file_type=ft.FilePickerFileType.CUSTOM,
                allowed_extensions=["json"])
        except Exception as exc:
            self.shell.toast(self.tr("resume.export_failed", error=str(exc)), error=True)

    def phone_page(self) -> bool:
        """A page of another device (docs/app.md, "Joining: a code per game"): it lists only
        the games it joined and, without a name or a seat, those open on the table's screen;
        no export, no import; the saved games are the table's screen's."""
        return bool(getattr(self.ctl, "remote_client", False))

    def phone_view(self) -> ft.Control:
        from companion.app.game.holder import holder, live_games, session_store

        tr = self.tr
        games, _broken, _problem = saved_games()
        joined = holder(self.ctl).admitted
        live = set(live_games().open_ids(session_store()))
        rows: list[ft.Control] = []
        for g in games:
            if g.game_id in joined:
                title = g.title or g.seats or g.game_id
                subtitle = " · ".join(b for b in [g.seats if g.seats != title else "", g.when] if b)
            elif g.game_id in live:
                title, subtitle = tr("resume.at_table"), tr("resume.at_table_hint", when=g.when)
            else:
                continue
            rows.append(ft.ListTile(leading=ft.Icon(ft.Icons.CASINO), title=ft.Text(title),
                                    subtitle=ft.Text(subtitle),
                                    on_click=lambda e, gid=g.game_id: self.open_game(gid)))
        if not rows:  # (the store's problem names the table's folder: not for a phone)
            rows.append(note(tr("resume.none_phone")))
        return ft.Column(rows, spacing=4)

    def view(self) -> ft.Control:
        tr = self.tr
        if self.phone_page():
            return self.phone_view()
        games, broken, problem = saved_games()
        rows: list[ft.Control] = []
        if problem:
            rows.append(note(problem, error=True))
        gvm = self.games_vm
        if gvm.error and gvm.renaming is None:  # a rename's refusal is shown in its form
            rows.append(note(gvm.error, error=True))
        if not games and not problem:
            rows.append(note(tr("resume.none")))
        play = features.game_play_ready() and self.ctl.has_screen("/game")
        for g in games:
            bits = [g.when]
            if g.finished:
                bits.append(tr("resume.finished"))
            elif g.round is not None:
                bits.append(tr("resume.round", round=g.round))
            bits.append(tr("resume.actions", n=g.actions))
            if g.automas:
                bits.append(tr("resume.automas", names=", ".join(g.automas)))
            if g.imported:
                bits.append(tr("resume.imported_mark"))
            title = g.title or g.seats or g.game_id
            seats = g.seats if g.seats and g.seats != title else ""
            rows.append(ft.ListTile(
                leading=ft.Icon(ft.Icons.EMOJI_EVENTS if g.finished else ft.Icons.CASINO),
                title=ft.Text(title),
                subtitle=ft.Text(" · ".join(b for b in [seats, *bits] if b)),
                on_click=(lambda e, gid=g.game_id: self.open_game(gid)) if play else None,
                disabled=not play,
                trailing=ft.Row([
                    icon_button(ft.Icons.EDIT, tr("resume.rename", title=title),
                                lambda e, gid=g.game_id: self.manage(self.games_vm.ask_rename, gid)),
                    icon_button(ft.Icons.DELETE_OUTLINE, tr("resume.delete", title=title),
                                lambda e, gid=g.game_id: self.manage(self.games_vm.ask_delete, gid)),
                    icon_button(ft.Icons.DOWNLOAD, tr("resume.export", title=title),
                                self._export_handler(g.game_id)),
                ], tight=True, spacing=0),
            ))
            if self.games_vm.renaming == g.game_id:
                rows.append(self.rename_form(g.game_id, g.title or title))
            if self.games_vm.deleting == g.game_id:
                rows.append(self.delete_form())
        for b in broken:
            rows.append(ft.ListTile(leading=ft.Icon(ft.Icons.WARNING_AMBER, color=ft.Colors.ERROR),
                                    title=ft.Text(b.file_name), subtitle=ft.Text(b.reason)))
        if not play:
            rows.append(note(tr("start.needs_engine")))
        return ft.Column(rows, spacing=4)

    def open_game(self, game_id: str) -> None:
        self.ctl.open_game(game_id)

    # -- rename / delete (the table's screen only) --------------------------------------------
    @property
    def games_vm(self) -> SavedGamesVM:
        def make():
            from companion.app.game.holder import live_games, session_store

            return SavedGamesVM(self.tr, session_store(), live_games())

        return self.ctl.screen_state("/resume", make)

    def manage(self, fn, *args) -> bool:
        ok = fn(*args)
        vm = self.games_vm
        if vm.done:
            self.shell.toast(vm.done)
        self.shell.render()
        return ok

    def rename_form(self, game_id: str, current: str) -> ft.Control:
        tr, vm = self.tr, self.games_vm
        field = ft.TextField(label=tr("resume.rename_title"), value=current, autofocus=True,
                             on_submit=lambda e: self.manage(vm.rename, game_id, field.value))
        parts: list[ft.Control] = [field]
        if vm.error:
            parts.append(note(vm.error, error=True))
        parts.append(ft.Row([
            ft.FilledButton(tr("resume.rename_save"), on_click=lambda e: self.manage(vm.rename, game_id, field.value)),
            ft.OutlinedButton(tr("resume.cancel"), on_click=lambda e: self.manage(vm.cancel)),
        ], wrap=True, spacing=8))
        return ft.Card(ft.Container(ft.Column(parts, spacing=8), padding=ft.Padding.all(12)))

    def delete_form(self) -> ft.Control:
        tr, vm = self.tr, self.games_vm
        parts: list[ft.Control] = [heading(tr("resume.delete_title"), 16), ft.Text(vm.delete_question())]
        parts.append(ft.Row([
            ft.FilledButton(tr("resume.delete_confirm"), icon=ft.Icons.DELETE_OUTLINE,
                            on_click=lambda e: self.manage(vm.confirm_delete)),
            ft.OutlinedButton(tr("resume.cancel"), on_click=lambda e: self.manage(vm.cancel)),
        ], wrap=True, spacing=8))
        return ft.Card(ft.Container(ft.Column(parts, spacing=8), padding=ft.Padding.all(12)))
