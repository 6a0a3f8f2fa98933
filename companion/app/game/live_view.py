"""The desktop live camera on the dice panel (Flet): "Live camera" / "Stop the camera" and the
preview with its "Use this read" button. The camera loop is ``live_vm`` (loaded on the first
start, so the app starts without OpenCV's import).

Its methods are the game screen's (``view.GameScreen`` inherits this class): they use the
screen's ``gt``, ``vm``, ``ctl``, ``shell``, ``phone``, ``run`` and ``redraw``.
"""

from __future__ import annotations

import flet as ft

from companion.app.common.widgets import note
from companion.app.game.widgets import button


class LivePanel:
    """The dice panel's live camera (desktop window only)."""

    # -- desktop live camera (companion.app.game.live_vm)-----------------------------------
    def live_run(self):
        return self.ctl.screen_state("game:live", dict).get("run")

    def live_buttons(self, step) -> list[ft.Control]:
        """"Live camera" / "Stop the camera": only in the desktop window (a browser's page cannot
        reach the camera of the computer serving it)."""
        page = getattr(self.shell, "page", None)
        if page is None or getattr(page, "web", True):
            return []
        run = self.live_run()
        if run is not None and run.running and run.step is step:
            return [button(self.gt("g.live.stop"), lambda e: self.stop_live(), ft.Icons.VIDEOCAM_OFF, False)]
        return [button(self.gt("g.live.start"), lambda e: self.start_live(step), ft.Icons.VIDEOCAM, False)]

    def live_panel(self, step) -> ft.Control | None:
        run = self.live_run()
        if run is None:
            return None
        if run.step is not step:
            run.stop()
            return None
        if run.problem:
            return note(run.problem, error=True)
        if not run.running:
            return None
        run.image = ft.Image(src=run.preview.jpeg or b"", gapless_playback=True, fit=ft.BoxFit.CONTAIN,
                             height=300, semantics_label=self.gt("g.live.start"))
        run.use_button = button(self.gt("g.live.use"), lambda e: self.use_live(step), ft.Icons.CHECK, False,
                                disabled=run.preview.usable_read() is None)
        return ft.Column([note(self.gt("g.live.hint")), run.image, run.use_button], spacing=6)

    def start_live(self, step) -> None:
        from companion.app.game.live_vm import LiveRun

        self.stop_live()
        run = LiveRun.start(self.vm, step, self.ctl, self.gt)
        self.ctl.screen_state("game:live", dict)["run"] = run
        self.redraw()  # draws the image the loop fills
        if run.running:
            self.shell.page.run_thread(run.loop)

    def stop_live(self) -> None:
        run = self.live_run()
        if run is not None:
            run.stop()
        self.ctl.screen_state("game:live", dict).pop("run", None)
        self.redraw()

    def use_live(self, step) -> None:
        run = self.live_run()
        read = run.preview.usable_read() if run is not None else None
        if read is not None:
            step.entry.load_read(read)
        self.redraw()
