"""A page that reloads comes back to its game (issue 18), without a browser: the address a page
shows names its game (``/game/<id>``); a new page on that address (a reload, a new tab) opens
the same live game at the same step, and a phone's page still has to pass the join code."""

from __future__ import annotations

import random

from companion.app.game.texts import GameText
from companion.app.shell.controller import AppController, game_in_address

from game_play import answer
from test_game_shared import make_game

T = GameText()


def test_addresses():
    assert game_in_address("/game/20261125-053107-1c9c71") == "20261125-053107-1c9c71"
    assert game_in_address("/game/abc/?x=1#y") == "abc"
    for bad in (None, "", "/", "/game/", "/game/../x", "/game/a b", "/settings", "/game/" + "a" * 65):
        assert game_in_address(bad) is None, bad
    ctl = AppController(save=False)
    assert ctl.address() == "/" and not ctl.open_address("/settings") and ctl.nav.current == "/"


def test_a_new_page_on_the_address_shows_the_same_game_at_the_same_step(monkeypatch, game_dir):
    from test_game_views import FakeShell

    from companion.app.game.holder import close_page, game_vm, holder, join_game
    from companion.app.game.view import GameScreen

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    gid = make_game(game_dir, seed=1)
    table = FakeShell()
    table.ctl.web = True
    table.ctl.open_game(gid)
    vm = game_vm(table.ctl)
    rng = random.Random(0)
    for _ in range(12):  # mid-set-up: some confirmed steps
        answer(vm, rng)
    address = table.ctl.address()
    assert address == f"/game/{gid}"
    # the page reloads: a new page (controller) opens the address
    again = FakeShell()
    again.ctl.web = True
    assert again.ctl.open_address(address) and again.ctl.nav.current == "/game"
    vm2 = game_vm(again.ctl)
    assert vm2.session is vm.session  # the same live game, not a second open of the file
    assert vm2.step.title() == vm.step.title() and vm2.log() == vm.log()
    assert vm2.step.kind == vm.step.kind and vm2.seen_version == vm.session.version
    GameScreen(again).view()  # draws
    # a phone on the same address: the join form, nothing of the game, until the code
    phone = FakeShell()
    phone.ctl.web, phone.ctl.remote_client = True, True
    assert phone.ctl.open_address(address)
    assert game_vm(phone.ctl) is None and holder(phone.ctl).gate == gid
    assert join_game(phone.ctl, "not the code") == "g.join.wrong" and game_vm(phone.ctl) is None
    assert join_game(phone.ctl, vm.session.join_code) is None
    assert game_vm(phone.ctl).session is vm.session
    for p in (table, again, phone):
        close_page(p.ctl)
    assert vm.session.closed
