"""The game screen's answer to a tap that Flet dropped because another page's change had
replaced its control (``companion.app.common.flet_events``; issue 18): the stale message over the game
as it is, nothing applied. Without a browser (the browser check: tests/app/test_e2e_rejoin.py)."""

from __future__ import annotations

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
