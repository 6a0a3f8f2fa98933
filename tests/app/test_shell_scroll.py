"""The shell's scroll to the next step (issue 41, item 6) never raises when the page is gone:
a tap that arrives after a phone left (its connection closed) redraws the step and asks for the
scroll; Flet's ``run_task`` then fails on the missing connection (found by
benchmarks/serve_load.py: 'NoneType' object has no attribute 'loop' in the tap's thread)."""
from types import SimpleNamespace

from companion.app.shell.view import Shell


class _GonePage:
    """The connection went away between the check and the call (Flet raises in ``run_task``)."""

    session = SimpleNamespace(connection=object())

    def __init__(self):
        self.asked = 0

    def run_task(self, handler, *a, **kw):
        self.asked += 1
        handler().close()  # the coroutine is never run: close it as Flet would leave it
        raise AttributeError("'NoneType' object has no attribute 'loop'")


class _LeftPage:
    """The phone left: Flet's session has no connection any more."""

    session = SimpleNamespace(connection=None)

    def run_task(self, handler, *a, **kw):
        raise AssertionError("run_task would make a coroutine that is never awaited")


class _DestroyedPage:
    """Flet's session itself is gone: ``page.session`` raises."""

    @property
    def session(self):
        raise RuntimeError("An attempt to fetch destroyed session.")

    def run_task(self, handler, *a, **kw):
        raise AssertionError("run_task would make a coroutine that is never awaited")


class _LivePage:
    session = SimpleNamespace(connection=object())

    def __init__(self):
        self.tasks = []

    def run_task(self, handler, *a, **kw):
        self.tasks.append(handler)


def test_a_scroll_on_a_page_whose_connection_is_gone_is_skipped():
    page = _GonePage()
    Shell.scroll_to_key(SimpleNamespace(scroller=object(), page=page), "step")
    assert page.asked == 1


def test_a_scroll_on_a_page_whose_phone_left_asks_nothing_of_flet():
    # (a coroutine Flet made and could not schedule printed "coroutine ... was never awaited")
    Shell.scroll_to_key(SimpleNamespace(scroller=object(), page=_LeftPage()), "step")
    Shell.scroll_to_key(SimpleNamespace(scroller=object(), page=_DestroyedPage()), "step")


def test_a_scroll_on_a_live_page_is_sent_to_its_loop():
    page = _LivePage()
    Shell.scroll_to_key(SimpleNamespace(scroller=object(), page=page), "step")
    assert len(page.tasks) == 1


def test_the_address_of_a_page_whose_phone_left_is_not_pushed():
    # (the same never-awaited coroutine, 'Page.push_route', in tests/app/game/test_game_ws_gate.py)
    page = _LivePage()  # records what it is asked to run...
    page.session = SimpleNamespace(connection=None)  # ...but its phone has left
    shell = _sync_address_of(page)
    assert page.tasks == [] and shell._address == "/game/x"


def test_the_address_of_a_live_page_is_pushed():
    page = _LivePage()
    _sync_address_of(page)
    assert page.tasks == [page.push_route]


def _sync_address_of(page):
    """A web page's shell moved to /game/x syncs its address; the shell, after."""
    page.web = True
    page.push_route = object()
    shell = SimpleNamespace(page=page, ctl=SimpleNamespace(address=lambda: "/game/x"), _address="/", _pushed=[])
    Shell._sync_address(shell)
    return shell
