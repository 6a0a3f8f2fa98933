"""A tap on a control that another phone's change has replaced gets an answer (issue 18).

When another page changes the shared game, this page's game screen is redrawn in place
(``GameScreen.remote_redraw``). **Flet 1.0.5** takes every replaced control out of the
session's index at once (``flet/messaging/session.py``, ``Session.patch_control``), and an
event that the browser sent for a control it still showed, but the server no longer knows, is
dropped in ``Session.dispatch_event`` ("Control with ID ... not found", debug level) before any
handler of the app runs. Nothing is applied, but the player got no message either.

This module wraps ``page.session.dispatch_event`` (an instance attribute set on the page's own
``Session``; every Flet connection calls ``self.session.dispatch_event(target, name, data)``,
so the wrapper sees each event of that page). For an event whose control Flet cannot resolve
(checked with the session's own ``_Session__resolve_event_control`` when it exists, else with
``session.index``), that is a tap (``TAP_EVENTS``), and whose control id was on screen just
before a redraw caused by **another page's change** and gone after it (``replacing``, around
such a redraw in the game screen), it calls the page's callback (the game screen then shows
``g.err.stale`` over the game as it is). Every other event goes to Flet unchanged; an unknown
id that no remote redraw replaced is dropped as before (a double tap on the page's own
redraw, a closed dialog).

It degrades to Flet's own behaviour: if the page has no session, the session no
``dispatch_event`` or ``index``, or anything in the wrapper fails, the event is handed to the
original ``dispatch_event`` (or nothing is installed), and a failing callback is logged.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from typing import Callable

log = logging.getLogger(__name__)

#: event names (without ``on_``) that are a player's tap; others are never answered here
TAP_EVENTS = frozenset({"click", "tap", "long_press", "submit", "select", "double_tap"})
#: how many remote redraws' replaced ids a page remembers
KEEP_REDRAWS = 4
_ATTR = "_encyclopedia_vanished_guard"


class Guard:
    """The wrapper of one page's ``Session.dispatch_event``."""

    def __init__(self, session, original, on_vanished: Callable[[int, str], None]):
        self.session = session
        self.original = original
        self.on_vanished = on_vanished
        self.replaced: collections.deque[set[int]] = collections.deque(maxlen=KEEP_REDRAWS)
        self.answered = 0  # taps answered by on_vanished (for the tests)

    def was_replaced(self, control_id) -> bool:
        return any(control_id in ids for ids in list(self.replaced))

    def known(self, control_id) -> bool:
        """Whether Flet still has the control: a control its index no longer holds is gone
        (Flet's patch takes a replaced control out of the index and puts a moved one back in the
        same step), so it is not looked for. Flet's own resolve (``__resolve_event_control``)
        walks the page's whole control tree for an id its index lacks, on the event loop: a
        phone's tap on a replaced control cost that walk twice, and with 20 phones churning one
        game the walks were two thirds of the loop's busy time (py-spy, benchmarks/serve_load.py,
        docs/app.md stop 41). A control the index holds is checked by Flet's resolve (mounted:
        at once; not mounted: Flet's walk, as before)."""
        if self.session.index.get(control_id) is None:
            return False
        resolve = getattr(self.session, "_Session__resolve_event_control", None)
        if callable(resolve):
            return resolve(control_id) is not None
        return True

    async def dispatch_event(self, control_id, event_name, event_data=None):
        try:
            vanished = (event_name in TAP_EVENTS and self.was_replaced(control_id)
                        and not self.known(control_id))
        except Exception:  # Flet's internals differ: its own behaviour
            log.debug("vanished-tap check failed", exc_info=True)
            vanished = False
        if not vanished:
            return await self.original(control_id, event_name, event_data)
        log.debug("tap %s on control %s replaced by another page's change", event_name, control_id)
        self.answered += 1
        try:
            self.on_vanished(control_id, event_name)
        except Exception:
            log.error("answering a tap on a replaced control failed", exc_info=True)
        return None


def install(page, on_vanished: Callable[[int, str], None]) -> Guard | None:
    """Wrap ``page.session.dispatch_event`` once; ``on_vanished(control_id, event_name)`` is
    called in the session's event loop (do the work in a worker: ``page.run_thread``).
    Returns the guard, or None (nothing changed) when the page is not a Flet 1.0.5-like one."""
    try:
        session = getattr(page, "session", None)
        original = getattr(session, "dispatch_event", None)
        if session is None or not callable(original) or not hasattr(session, "index"):
            return None
        guard = getattr(session, _ATTR, None)
        if isinstance(guard, Guard):
            guard.on_vanished = on_vanished
            return guard
        if not asyncio.iscoroutinefunction(original):
            return None
        guard = Guard(session, original, on_vanished)
        session.dispatch_event = guard.dispatch_event
        setattr(session, _ATTR, guard)
        return guard
    except Exception:
        log.debug("vanished-tap guard not installed", exc_info=True)
        return None


def guard_of(page) -> Guard | None:
    guard = getattr(getattr(page, "session", None), _ATTR, None)
    return guard if isinstance(guard, Guard) else None


def _indexed(page) -> set[int]:
    """The ids Flet's session knows for ``page`` (its index: every control sent to the browser
    and not yet removed). A copy of the index's plain dict of keys (``WeakValueDictionary.data``)
    is taken in one step, so a tap handled on Flet's loop meanwhile cannot break it."""
    index = page.session.index
    ids = set(getattr(index, "data", index))
    ids.discard(getattr(page, "_i", None))
    return ids


@contextlib.contextmanager
def replacing(page):
    """Around a redraw for another page's change: the ids Flet knew for ``page`` before it and
    forgot during it (the controls the redraw replaced) are remembered (all of them while it
    runs), so that a tap on one of them, which Flet then drops, is answered. Controls the redraw
    keeps are not remembered (a later redraw of the page's own that replaces them is not another
    phone's change). Reading Flet's index costs microseconds where walking the ~840 controls of
    a game screen twice cost about 30 ms per redraw. Does nothing without a guard; a failure
    here never stops the redraw."""
    guard = guard_of(page)
    ids = None
    if guard is not None:
        try:  # noted before the redraw: a tap may come in while it runs (Flet's loop, another thread)
            ids = _indexed(page)
            guard.replaced.append(ids)
        except Exception:
            log.debug("controls before the redraw not noted", exc_info=True)
    yield
    if ids:
        try:  # keep only those the redraw replaced (the kept ones are still in Flet's index anyway)
            ids.difference_update(_indexed(page))
        except Exception:
            log.debug("replaced controls not noted", exc_info=True)


def run_task(page, handler, *args) -> bool:
    """``page.run_task(handler, *args)`` unless the page's phone has left (its Flet session has
    no connection, or is destroyed); whether it was handed to Flet. Flet's ``run_task`` makes
    the coroutine before it looks for the connection's loop, so on a departed page it failed
    and left the coroutine never awaited (a RuntimeWarning, and Flet's ``page.py`` read into
    ``linecache``: docs/app.md, stop 41). What ``page.run_task`` raises otherwise is the
    caller's, as before."""
    try:
        if page.session.connection is None:
            return False
    except (AttributeError, RuntimeError):  # no session, or Flet's session destroyed
        return False
    page.run_task(handler, *args)
    return True
