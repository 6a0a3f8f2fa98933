"""A tap on a control that a redraw for another page's change replaced is answered
(``companion.app.common.flet_events``, issue 18), driven through Flet 1.0.5's own ``Session`` (no
browser): the event goes through ``page.session.dispatch_event`` as Flet's connections send it."""

from __future__ import annotations

import asyncio
import gc

import flet as ft
from flet.messaging.session import Session
from flet.pubsub.pubsub_hub import PubSubHub

from companion.app.common import flet_events


class Conn:
    def __init__(self):
        self.pubsubhub = PubSubHub()
        self.sent = []

    def send_message(self, message):
        self.sent.append(message)


def run(coro):
    return asyncio.run(coro)


def test_the_flet_internal_it_relies_on_is_there():
    # if this fails after a Flet upgrade, read flet/messaging/session.py again (docs/app.md)
    assert callable(getattr(Session, "_Session__resolve_event_control", None))
    assert asyncio.iscoroutinefunction(Session.dispatch_event)


def test_a_tap_on_a_replaced_control_is_answered_and_others_go_to_flet():
    async def main():
        session = Session(Conn())
        page = session.page
        session.get_page_patch()
        hits, vanished = [], []
        guard = flet_events.install(page, lambda i, name: vanished.append((i, name)))
        assert guard is not None and flet_events.install(page, guard.on_vanished) is guard  # once
        kept = ft.Button("kept", on_click=lambda e: hits.append("kept"))
        col = ft.Column([ft.Button("old", on_click=lambda e: hits.append("old")), kept])
        page.controls = [col]
        page.update()
        old = col.controls[0]._i
        await session.dispatch_event(old, "click", None)
        assert hits == ["old"] and vanished == []
        # a redraw for another page's change replaces the old button, keeps the other
        with flet_events.replacing(page):
            col.controls[0] = ft.Button("new", on_click=lambda e: hits.append("new"))
            page.update()
        gc.collect()
        new = col.controls[0]._i
        assert old in guard.replaced[-1] and kept._i not in guard.replaced[-1] and new not in guard.replaced[-1]
        await session.dispatch_event(old, "click", None)  # Flet alone would drop it
        assert vanished == [(old, "click")] and hits == ["old"]  # answered, no handler ran
        await session.dispatch_event(old, "focus", None)  # not a tap: Flet's own behaviour
        await session.dispatch_event(10**9, "click", None)  # never replaced by a remote redraw
        assert vanished == [(old, "click")]
        await session.dispatch_event(new, "click", None)
        await session.dispatch_event(kept._i, "click", None)
        assert hits == ["old", "new", "kept"] and guard.answered == 1

    run(main())


def test_a_replacement_of_the_page_own_is_not_answered():
    async def main():
        session = Session(Conn())
        page = session.page
        session.get_page_patch()
        vanished = []
        flet_events.install(page, lambda i, name: vanished.append(i))
        col = ft.Column([ft.Button("old", on_click=lambda e: None)])
        page.controls = [col]
        page.update()
        old = col.controls[0]._i
        col.controls = [ft.Button("new", on_click=lambda e: None)]  # no `replacing`: a tap of its own
        page.update()
        gc.collect()
        await session.dispatch_event(old, "click", None)
        assert vanished == []

    run(main())


def test_it_degrades_to_flet_behaviour():
    class Page:  # no session: nothing installed
        pass

    assert flet_events.install(Page(), lambda i, n: None) is None
    with flet_events.replacing(Page()):  # and the redraw runs
        pass
    with flet_events.replacing(None):
        pass

    class Odd:  # a session whose internals differ: the check fails, the original runs
        index = None
        calls = []

        async def dispatch_event(self, control_id, name, data=None):
            self.calls.append(control_id)

    odd = Odd()
    page = type("P", (), {"session": odd})()
    guard = flet_events.install(page, lambda i, n: (_ for _ in ()).throw(AssertionError))
    guard.replaced.append(frozenset({5}))
    run(odd.dispatch_event(5, "click", None))
    assert odd.calls == [5]
    # a failing callback is logged, not raised into Flet's loop
    guard.session.index = {}
    run(odd.dispatch_event(5, "click", None))
    assert guard.answered == 1 and odd.calls == [5]


def test_a_tap_on_a_replaced_control_never_walks_the_control_tree(monkeypatch):
    """Flet's resolve walks the whole page for an id its index lacks (on the event loop, tens of
    ms for a game screen): the guard asks Flet's index instead, once, and answers the tap."""
    async def main():
        session = Session(Conn())
        page = session.page
        session.get_page_patch()
        vanished = []
        guard = flet_events.install(page, lambda i, name: vanished.append(i))
        kept = ft.Button("kept", on_click=lambda e: None)
        col = ft.Column([ft.Button("old", on_click=lambda e: None), kept])
        page.controls = [col]
        page.update()
        old = col.controls[0]._i
        for i in (old, kept._i):  # (this bare session indexes a control when an event finds it)
            await session.dispatch_event(i, "focus", None)
        with flet_events.replacing(page):
            col.controls[0] = ft.Button("new", on_click=lambda e: None)
            page.update()
        gc.collect()
        assert old in guard.replaced[-1]
        walks = []
        find = Session._Session__find_live_control
        monkeypatch.setattr(Session, "_Session__find_live_control",
                            lambda self, *a, **kw: walks.append(1) or find(self, *a, **kw))
        await session.dispatch_event(old, "click", None)
        assert vanished == [old] and guard.answered == 1
        assert walks == []
        assert guard.known(kept._i) and not guard.known(old) and walks == []

    run(main())
