"""The game screen's answer to a tap that Flet dropped because another page's change had
replaced its control (``companion.app.flet_events``; issue 18): the stale message over the game
as it is, nothing applied. Without a browser (the browser check: tests/app/test_e2e_rejoin.py)."""

from __future__ import annotations

from test_game_shared import T, check_log, make_game, texts_of
from test_game_views import FakeShell


def test_a_vanished_tap_shows_the_stale_message_and_applies_nothing(monkeypatch, game_dir):
    from companion.app.game import close_page
    from companion.app.game.views import GameScreen

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    gid = make_game(game_dir)
    a, b = FakeShell(), FakeShell()
    for shell in (a, b):
        shell.ctl.open_game(gid)
    sa, sb = GameScreen(a), GameScreen(b)
    sa.view(), sb.view()
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
    close_page(a.ctl), close_page(b.ctl)
