"""Start screen (new game, resume, score pad, settings) and the list of saved games."""

from __future__ import annotations

import flet as ft

from companion.app import features
from companion.app.ui import has_screen
from companion.app.ui.common import Screen, big_button, heading, note, responsive
from companion.app.vm_start import saved_games


class StartScreen(Screen):
    def view(self) -> ft.Control:
        tr, nav = self.tr, self.ctl.nav
        play = features.game_play_ready() and has_screen("/new")
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

    def view(self) -> ft.Control:
        tr = self.tr
        games, broken, problem = saved_games()
        rows: list[ft.Control] = []
        if problem:
            rows.append(note(problem, error=True))
        if not games and not problem:
            rows.append(note(tr("resume.none")))
        play = features.game_play_ready() and has_screen("/game")
        for g in games:
            bits = [g.when]
            if g.finished:
                bits.append(tr("resume.finished"))
            elif g.round is not None:
                bits.append(tr("resume.round", round=g.round))
            bits.append(tr("resume.actions", n=g.actions))
            if g.automas:
                bits.append(tr("resume.automas", names=", ".join(g.automas)))
            title = g.title or g.seats or g.game_id
            seats = g.seats if g.seats and g.seats != title else ""
            rows.append(ft.ListTile(
                leading=ft.Icon(ft.Icons.EMOJI_EVENTS if g.finished else ft.Icons.CASINO),
                title=ft.Text(title),
                subtitle=ft.Text(" · ".join(b for b in [seats, *bits] if b)),
                on_click=(lambda e, gid=g.game_id: self.open_game(gid)) if play else None,
                disabled=not play,
            ))
        for b in broken:
            rows.append(ft.ListTile(leading=ft.Icon(ft.Icons.WARNING_AMBER, color=ft.Colors.ERROR),
                                    title=ft.Text(b.file_name), subtitle=ft.Text(b.reason)))
        if not play:
            rows.append(note(tr("start.needs_engine")))
        return ft.Column(rows, spacing=4)

    def open_game(self, game_id: str) -> None:
        self.ctl.open_game(game_id)
