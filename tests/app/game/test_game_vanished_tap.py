"""The game screen's answer to a tap that Flet dropped because another page's change had
replaced its control (``companion.app.common.flet_events``; issue 18): the stale message over the game
as it is, nothing applied. Without a browser (the browser check: tests/app/test_e2e_rejoin.py)."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from test_game_shared import T, check_log, texts_of, two_screens


def test_a_vanished_tap_shows_the_stale_message_and_applies_nothing(monkeypatch, game_dir):
    from companion.app.game.holder import close_page

    a, b, sa, sb = two_screens(monkeypatch, game_dir)
    b._screen = sb
    shared = sa.vm.session
    sa.run(sa.vm.step.reveal, sa.vm.step.candidates()[0])
    n = shared.state.n_actions
    log = list(shared.actions)
    sb.vanished_tap()
    assert sb.vm.error == T("g.err.stale")
    assert T("g.err.stale") in " ".join(texts_of(sb.view()))
    assert shared.state.n_actions == n and list(shared.actions) == log
    check_log(shared, game_dir)
    # a screen that is no longer the page's current one does nothing
    sb.vm.error = None
    b._screen = object()
    sb.vanished_tap()
    assert sb.vm.error is None
    # a tap that arrives after the phone left and Flet dropped its page's session: nothing to tell
    # (telling it raised "An attempt to fetch destroyed session" in a future no one awaited)
    b._screen = sb
    page = b.page
    b.page = SimpleNamespace(session=None)
    sb.vanished_tap()
    assert sb.vm.error is None
    assert shared.state.n_actions == n and list(shared.actions) == log
    b.page = page
    close_page(a.ctl), close_page(b.ctl)


def test_a_page_dropped_during_a_tap_is_not_redrawn_and_the_tap_is_kept(monkeypatch, game_dir, caplog):
    """The phone leaves and Flet destroys its session while its tap is applied: the redraw that
    follows raised "An attempt to fetch destroyed session" (benchmarks/serve_load.py); the step is
    applied and saved, and nothing else is drawn or raised."""
    from companion.app.game.holder import close_page

    a, b, sa, sb = two_screens(monkeypatch, game_dir)
    b._screen = sb
    shared = sb.vm.session
    n = shared.state.n_actions
    page = b.page

    class Destroyed:
        @property
        def session(self):
            raise RuntimeError("An attempt to fetch destroyed session.")

        def update(self, *controls):
            raise RuntimeError("An attempt to fetch destroyed session.")

    def leave_then(fn):
        def tap(*args):
            fn(*args)
            b.page = Destroyed()
        return tap

    drawn = b.renders
    b.render = lambda: b.page.update()  # as the shell draws a page: through its session
    sb.run(leave_then(sb.vm.step.reveal), sb.vm.step.candidates()[0])  # redrawn in place
    assert shared.state.n_actions == n + 1 and b.renders == drawn
    b.page, sb._drawn = page, None  # back, and a screen not yet drawn: the shell draws it whole
    sb.run(leave_then(sb.vm.step.reveal), sb.vm.step.candidates()[0])
    assert shared.state.n_actions == n + 2 and b.renders == drawn
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]  # nothing "failed"
    del b.render
    check_log(shared, game_dir)
    b.page = page
    close_page(a.ctl), close_page(b.ctl)
