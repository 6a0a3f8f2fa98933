"""The bounds of ``companion/app/common/serve_guard.py`` (issue 40), through raw websocket
clients from 127.x addresses against the app of ``--web`` served in this process (as
tests/app/game/test_game_ws_gate.py does), and the server's stop on SIGTERM/SIGINT as a
subprocess. Loopback only, bounded counts."""

from __future__ import annotations

import gc
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import msgpack
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/app: ws_client, webapp

import ws_client  # noqa: E402
from ws_client import FletPage  # noqa: E402

from companion.app.common import serve_guard  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def serving(**limits):
    """The app of ``--web`` (``launch.web_asgi_app``) under uvicorn with ``launch.server_config``
    on a free loopback port, the guard's limits changed by ``limits``."""
    import uvicorn

    from companion.app import launch
    from webapp import free_port

    before = serve_guard.LIMITS
    serve_guard.reset()
    serve_guard.set_limits(**limits)
    port = free_port()
    config = launch.server_config(launch.web_asgi_app(), "127.0.0.1", port)
    config.lifespan = "off"  # Flet's app manager is process-wide: later tests still use it
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(15)
        serve_guard.LIMITS = before
        serve_guard.reset()


def connect(port: int, source: str = "127.0.0.1", **kw):
    """A websocket to /ws from the loopback address ``source``."""
    from websockets.sync.client import connect as ws_connect

    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return ws_connect(f"ws://127.0.0.1:{port}/ws", sock=sock, open_timeout=10, close_timeout=2,
                      ping_interval=None, max_size=None, **kw).__enter__()


def close_code(ws, timeout: float = 10.0):
    """Wait until the server closes ``ws``; its close code (None if it stayed open)."""
    from websockets.exceptions import ConnectionClosed

    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ws.recv(timeout=max(0.01, deadline - time.monotonic()))
    except ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd else None
    except TimeoutError:
        return None
    return None


def page_close_code(page: FletPage, timeout: float = 10.0):
    """The close code the server sent a ``FletPage`` (its reader thread receives)."""
    wait_for(lambda: page._closed, "the server did not close the page", timeout)
    rcvd = page.ws.protocol.close_rcvd
    return rcvd.code if rcvd else None


def register_frame(**page) -> bytes:
    return ws_client.encode(ws_client.REGISTER_CLIENT, {"session_id": None, "page_name": "",
                                                        "page": ws_client.browser_page(**page)})


def flet_apps() -> int:
    from flet_web.fastapi.flet_app import FletApp

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, FletApp))


def wait_for(cond, what: str, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_connections_that_never_register_are_closed_and_freed():
    with serving(register_s=1.0) as port:
        base = flet_apps()
        idle = [connect(port, f"127.0.3.{i + 1}") for i in range(30)]  # send nothing
        for i in range(30):  # open and close at once
            connect(port, f"127.0.4.{i + 1}").close()
        garbage = []
        for i in range(30):  # one garbage frame
            ws = connect(port, f"127.0.5.{i + 1}")
            ws.send(b"\x00\xc1garbage")
            garbage.append(ws)
        t0 = time.monotonic()
        assert [close_code(ws) for ws in idle] == [1008] * 30
        assert time.monotonic() - t0 < 5.0  # closed by the server, about register_s after opening
        assert [close_code(ws) for ws in garbage] == [1007] * 30
        wait_for(lambda: serve_guard.stats()["open"] == 0 and serve_guard.stats()["pending"] == 0,
                 f"connections still held: {serve_guard.stats()}")
        wait_for(lambda: flet_apps() <= base, "FletApp objects left behind")



def test_addresses_are_forgotten_once_idle_and_their_limits_refilled(monkeypatch):
    """Every address the guard saw stayed in its table (up to 65 536, ~400 B each: 5000
    probes of the load script held 2 MB and pinned the allocator's arenas); now an address
    with no open connection is forgotten once its buckets are full again (a new entry would be
    the same), swept at admission and, once the server is idle, by a timer."""
    monkeypatch.setattr(serve_guard, "SWEEP_S", 0.2)
    with serving(register_s=1.0) as port:
        for i in range(20):
            connect(port, f"127.0.6.{i + 1}").close()
        held = connect(port, "127.0.7.1")  # stays open: kept whatever its buckets
        wait_for(lambda: serve_guard.stats()["addresses"] <= 1 and serve_guard.stats()["open"] == 1,
                 f"idle addresses not forgotten: {serve_guard.stats()}", timeout=8)
        assert close_code(held) == 1008  # (never registered: closed by the guard)
        wait_for(lambda: serve_guard.stats()["addresses"] == 0, f"the last address stayed: {serve_guard.stats()}",
                 timeout=8)


def test_an_address_is_kept_until_each_of_its_buckets_has_refilled():
    serve_guard.reset()
    st = serve_guard._STATE
    try:
        for _ in range(serve_guard.LIMITS.connect_burst):  # a burst of connections: refused after it
            assert serve_guard._admit("10.9.0.1") is None
            serve_guard._release("10.9.0.1", pending=True)
        assert serve_guard._admit("10.9.0.1") is not None
        assert serve_guard._admit("10.9.0.2") is None  # one connection that registered a page
        assert serve_guard._registered("10.9.0.2")
        serve_guard._release("10.9.0.2", pending=False)
        assert serve_guard._admit("10.9.0.3") is None  # still open
        t = time.monotonic()
        refill_connect = serve_guard.LIMITS.connect_burst / serve_guard.LIMITS.connect_per_s
        refill_register = 1 / serve_guard.LIMITS.register_per_s
        assert st.sweep(t + 0.1) == 3
        assert st.sweep(t + refill_register - 0.5) == 3  # its registration bucket is not full yet
        assert st.sweep(t + refill_register + 0.5) == 2 and "10.9.0.2" not in st.addresses
        assert st.sweep(t + refill_connect - 0.5) == 2  # the burst's bucket is not full yet
        assert st.sweep(t + refill_connect + 0.5) == 1 and list(st.addresses) == ["10.9.0.3"]
        assert st.sweep(t + 3600) == 1  # open: kept
        serve_guard._release("10.9.0.3", pending=True)
        assert st.sweep(t + refill_connect + 0.5) == 0
    finally:
        serve_guard.reset()


def _evicted_and_freed(monkeypatch, make_page, collect_first: bool = False, collect_after: bool = False) -> bool:
    """Flet's session eviction loop (patched by the guard, ``asyncio.sleep`` shortened) run on a
    manager holding one expired session made by ``make_page`` (no reference kept here):
    whether the page is freed once evicted.
    ``collect_first``: a full collection before the loop starts (the page is then in the oldest
    generation, as a phone's page is after a game); ``collect_after``: one after the eviction."""
    import asyncio
    import weakref

    from flet_web.fastapi.flet_app_manager import FletAppManager

    serve_guard.install()
    real_sleep = asyncio.sleep

    async def fast_sleep(delay, *a, **kw):
        await real_sleep(min(delay, 0.01), *a, **kw)

    async def scenario():
        manager = FletAppManager()
        sessions = manager._FletAppManager__sessions
        await manager.add_session("gone", make_page())
        ref = weakref.ref(sessions["gone"])
        if collect_first:
            gc.collect()
        monkeypatch.setattr(asyncio, "sleep", fast_sleep)
        task = asyncio.create_task(manager._FletAppManager__evict_expired_sessions())
        try:
            for _ in range(200):
                await real_sleep(0.01)
                if not sessions:
                    break
            await real_sleep(0.05)  # the loop sleeps again
            assert not sessions, "the expired session was not evicted"
            if collect_after:
                gc.collect()
            return ref() is None
        finally:
            task.cancel()

    return asyncio.run(scenario())


def _expired(seconds: float = -1):
    from datetime import datetime, timedelta, timezone

    return datetime.now(timezone.utc) + timedelta(seconds=seconds)


def test_flets_session_eviction_keeps_no_evicted_page_alive(monkeypatch):
    """Flet 1.0.5's eviction loop left its loop variable bound to the last session it looked
    at: once the last phone had left, that whole page stayed alive (the load script found one
    game page, 8 000 dicts and 600 Texts, held by the task's frame)."""

    class Page:  # what the loop reads of a session
        def __init__(self):
            self.expires_at = _expired()

        def close(self):
            pass

    assert _evicted_and_freed(monkeypatch, Page, collect_after=True), \
        "the evicted session is still alive (held by the eviction loop)"


def test_pages_flet_evicts_are_freed_and_their_memory_given_back_at_once(monkeypatch):
    """A page's controls are reference cycles: once Flet dropped its session the page was
    freed only by the cycle collector's next full pass (minutes away on a quiet server), after
    the guard's ``malloc_trim`` had run, so its memory stayed mapped (benchmarks/serve_load.py:
    185 MB after 20 phones had left, 131 MB after a collection and a trim). Now the eviction
    pass that dropped a session collects and trims (1 s later, and again on the next pass)."""
    trims = []
    monkeypatch.setitem(serve_guard._TRIM, "fn", lambda pad: trims.append(pad))

    class Page:  # a session whose page is a cycle, as a real one is
        def __init__(self):
            self.expires_at = _expired()
            self.me = self

        def close(self):
            pass

    gc.disable()  # no automatic pass in between: only the eviction's own collection frees it
    try:
        assert _evicted_and_freed(monkeypatch, Page, collect_first=True), \
            "the evicted page is still in memory (a cycle not collected)"
    finally:
        gc.enable()
    assert trims and set(trims) == {0}, "the freed memory was not given back (malloc_trim)"


def test_the_guards_sweep_timer_keeps_no_page_alive(monkeypatch):
    """The guard's sweep timer was scheduled from a connection's task, and a timer takes a copy
    of the current context, where Flet keeps the page (``_context_page``); each pass scheduled
    the next from that copy: one phone's page stayed alive as long as the guard remembered any
    address (the load script found 3 pages held by a ``contextvars.Context``)."""
    import asyncio
    import contextvars
    import weakref

    from flet.controls.context import _context_page

    class Stand:  # a page
        pass

    async def scenario():
        serve_guard.reset()
        page = Stand()
        ref = weakref.ref(page)
        task_context = contextvars.copy_context()  # a connection's task's, its page current

        def connection_ends(its_page):
            _context_page.set(its_page)
            serve_guard._admit("127.0.7.1")
            serve_guard._schedule_sweep()

        task_context.run(connection_ends, page)
        del page, task_context
        gc.collect()
        assert serve_guard._STATE.sweep_timer, "no sweep scheduled"
        return ref() is None

    monkeypatch.setattr(serve_guard, "SWEEP_S", 60.0)
    try:
        assert asyncio.run(scenario()), "the sweep timer keeps the page of the connection that scheduled it"
    finally:
        serve_guard.reset()


def test_a_page_run_in_flets_executor_is_not_kept_by_the_worker_thread():
    """``page.run_thread`` (Flet 1.0.5) set the page in the worker thread's own context: each
    executor thread kept the last page it ran a handler for (the load script found every phone
    page that had left held by a thread's ``flet_session_page``)."""
    import weakref
    from concurrent.futures import ThreadPoolExecutor

    from flet.controls.context import _context_page
    from flet.controls.page import Page

    serve_guard.install()

    class Stand:  # what the wrapper reads of its page: nothing
        pass

    page = Stand()
    ref = weakref.ref(page)
    seen = []

    def handler(n):
        seen.append((n, _context_page.get() is ref()))

    wrapper = Page._Page__context_wrapper(page, handler)
    with ThreadPoolExecutor(1) as ex:
        ex.submit(wrapper, 7).result()
        assert seen == [(7, True)]  # the handler ran with its page as the current page
        del page, wrapper
        assert ex.submit(_context_page.get).result() is None
        gc.collect()
        assert ref() is None, "the worker thread keeps the page"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_install_sets_glibcs_malloc_to_give_memory_back():
    serve_guard.install()
    assert serve_guard.MALLOC_TUNED == {name: True for name in serve_guard.MALLOC_SETTINGS}


def test_a_method_result_for_a_control_a_redraw_replaced_does_not_end_the_connection():
    """Flet 1.0.5 raised for it, which ended the page's receive loop (the load script: a phone
    closed with 1000 mid-game); the answer now reaches the call that waits for it."""
    import threading as _threading

    from flet.messaging.session import Session

    serve_guard.install()

    class Stand:  # a session's method-call tables; control 5 is gone
        pass

    sess = Stand()
    evt = _threading.Event()
    sess._Session__index = {}
    sess._Session__method_calls = {"c1": evt}
    sess._Session__method_call_results = {}
    Session.handle_invoke_method_results(sess, 5, "c1", "done", None)
    assert evt.is_set() and sess._Session__method_call_results[evt] == ("done", None)
    Session.handle_invoke_method_results(sess, 5, "unknown", None, None)  # no call waits: dropped

def test_a_redraw_for_a_phone_that_has_just_disconnected_is_dropped_without_an_error():
    """Flet 1.0.5's send_message raised AttributeError once the phone's send loop had ended (its
    queue None, the session kept for a reconnect): the redrawing thread logged "in-place redraw
    failed" and drew the page again, which raised again (benchmarks/serve_load.py). The frame is
    dropped now; a connected page's frames still go out."""
    import asyncio as _asyncio

    from flet.messaging.protocol import Message, MessageAction
    from flet_web.fastapi.flet_app import FletApp

    serve_guard.install()
    app = FletApp.__new__(FletApp)
    app._FletApp__send_queue = None
    FletApp.send_message(app, Message(MessageAction.PATCH_CONTROL, {"id": 1, "patch": []}))  # no error
    queue = _asyncio.Queue()
    app._FletApp__send_queue = queue
    FletApp.send_message(app, Message(MessageAction.PATCH_CONTROL, {"id": 1, "patch": []}))
    assert queue.qsize() == 1 and queue.get_nowait()[:1] == b"\x00"


def test_malformed_frames_close_the_socket():
    with serving() as port:
        cases = [
            ("text frame", lambda ws: ws.send("hello"), 1003),
            ("not msgpack", lambda ws: ws.send(b"\x00\xc1"), 1007),
            ("unknown type", lambda ws: ws.send(b"\x07abc"), 1008),
            ("event before registering", lambda ws: ws.send(ws_client.encode(3, {"target": 1, "name": "click", "data": None})), 1008),
            ("route as a number", lambda ws: ws.send(register_frame(route=5)), 1008),
            ("width as a string", lambda ws: ws.send(register_frame(width="wide")), 1008),
            ("unknown registration field", lambda ws: ws.send(ws_client.encode(1, {"evil": 1, "page": {}})), 1008),
            ("too big before registering", lambda ws: ws.send(b"\x00" + b"\x90" * (70 * 1024)), 1009),
        ]
        for i, (what, send, code) in enumerate(cases):
            ws = connect(port, f"127.0.6.{i + 1}")
            send(ws)
            assert close_code(ws) == code, what
        wait_for(lambda: serve_guard.stats()["open"] == 0, f"held: {serve_guard.stats()}")


def test_a_registered_page_that_sends_a_bad_route_or_resize_is_closed_without_a_traceback(caplog, _private_data_dir):
    caplog.set_level(logging.DEBUG)
    with serving() as port:
        for i, (what, frame) in enumerate([
            ("route as a number", ws_client.encode(4, {"id": 1, "props": {"route": 42}})),
            ("resize without a width", ws_client.encode(3, {"target": 1, "name": "resize", "data": {"height": 3}})),
            ("a second registration", register_frame()),
            ("an action a client does not send", ws_client.encode(2, {"id": 1, "patch": []})),
        ]):
            page = FletPage(f"ws://127.0.0.1:{port}/ws")
            page.quiet(0.3)
            page.ws.send(frame)
            assert page_close_code(page) in (1008, 1007), what
            page.close()
    assert "AttributeError" not in caplog.text
    assert "Traceback" not in caplog.text


def test_the_shell_ignores_a_route_that_is_not_a_string_and_a_resize_without_width(_private_data_dir):
    """The same two at the shell (a client the guard would let through must not raise)."""
    from types import SimpleNamespace

    from companion.app.shell.controller import AppController
    from companion.app.shell.view import Shell

    shell = Shell.__new__(Shell)
    shell.ctl = AppController(save=False)
    shell._pushed, shell._address = [], "/"
    shell.page = SimpleNamespace(web=True)
    shell.render = lambda: None
    shell._on_route_change(SimpleNamespace(route=42))
    shell._on_resize(SimpleNamespace(height=3))
    shell._on_resize(SimpleNamespace(width=None))


def test_connections_per_address_are_rate_limited_but_other_addresses_are_not():
    from websockets.exceptions import InvalidStatus

    with serving(connect_burst=5, connect_per_s=0.01, register_s=2.0) as port:
        opened, refused = [], 0
        for _ in range(8):
            try:
                opened.append(connect(port, "127.0.7.1"))
            except InvalidStatus as exc:
                assert exc.response.status_code == 403
                refused += 1
        assert len(opened) == 5 and refused == 3
        other = connect(port, "127.0.7.2")  # another phone is not held by it
        other.close()
        for ws in opened:
            ws.close()


def test_open_connections_per_address_and_pending_are_capped():
    from websockets.exceptions import InvalidStatus

    with serving(open_per_address=3, pending_max=5, register_s=3.0) as port:
        mine = [connect(port, "127.0.8.1") for _ in range(3)]
        with pytest.raises(InvalidStatus):
            connect(port, "127.0.8.1")
        others = [connect(port, f"127.0.8.{i + 2}") for i in range(2)]  # 5 pending now
        with pytest.raises(InvalidStatus):
            connect(port, "127.0.8.9")
        for ws in mine + others:
            ws.close()
        wait_for(lambda: serve_guard.stats()["pending"] == 0, f"held: {serve_guard.stats()}")
        connect(port, "127.0.8.9").close()


def test_a_flood_of_messages_closes_the_page(_private_data_dir):
    with serving(message_burst=50, message_per_s=1.0) as port:
        page = FletPage(f"ws://127.0.0.1:{port}/ws")
        page.quiet(0.3)
        frame = ws_client.encode(3, {"target": 999999, "name": "click", "data": None})
        from websockets.exceptions import ConnectionClosed

        try:
            for _ in range(200):
                page.ws.send(frame)
        except ConnectionClosed:
            pass
        assert page_close_code(page) == 1008
        page.close()


def test_registrations_per_address_are_limited(_private_data_dir):
    with serving(register_burst=2, register_per_s=0.001) as port:
        pages = [FletPage(f"ws://127.0.0.1:{port}/ws") for _ in range(2)]
        ws = connect(port)
        ws.send(register_frame())
        assert close_code(ws) == 1008
        for p in pages:
            p.close()


def test_upload_answers_4xx_not_500():
    import httpx

    with serving() as port:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20) as http:
            r = http.put("/upload", params={"f": "x.txt", "e": "2100-01-01T00:00:00+00:00", "s": "0" * 64},
                         content=b"not a photo")
            assert 400 <= r.status_code < 500, r.status_code
            r = http.put("/upload", content=b"x")
            assert 400 <= r.status_code < 500, r.status_code


def test_check_frame_accepts_what_a_browser_sends():
    ok = [
        (register_frame(), False),
        (ws_client.encode(3, {"target": 5, "name": "click", "data": None}), True),
        (ws_client.encode(3, {"target": 1, "name": "resize", "data": {"width": 400.0, "height": 800.0}}), True),
        (ws_client.encode(4, {"id": 9, "props": {"value": "12"}}), True),
        (ws_client.encode(4, {"id": 1, "props": {"route": "/game/x"}}), True),
        (ws_client.encode(5, {"control_id": 3, "call_id": "a", "result": None, "error": None}), True),
        (b"", True),
    ]
    for frame, registered in ok:
        assert serve_guard.check_frame(frame, registered) is None, msgpack.unpackb(frame[1:]) if frame else frame


# -- stopping ----------------------------------------------------------------------------------


def _serve_subprocess(tmp_path):
    from webapp import free_port

    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO), ENCYCLOPEDIA_DATA_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "companion.app", "--web", "--host", "127.0.0.1",
                             "--port", str(port), "--data-dir", str(tmp_path)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
            time.sleep(0.1)
    return proc, port


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_server_stops_on_a_signal_whatever_clients_did(tmp_path, sig):
    from webapp import free_port  # noqa: F401  (tests/app/webapp.py)

    proc, port = _serve_subprocess(tmp_path)
    try:
        idle = connect(port, "127.0.9.1")  # never registers
        garbage = connect(port, "127.0.9.2")
        garbage.send(b"\x00\xc1")
        page = FletPage(f"ws://127.0.0.1:{port}/ws")  # a registered page, open
        page.quiet(0.3)
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=15)
        took = time.monotonic() - t0
        assert proc.returncode == 0, out
        assert took < 8.0, f"{took:.1f} s to stop"
        assert "open games were saved and closed" in out
        for ws in (idle, garbage):
            ws.close()
        page.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc")
def test_the_web_server_runs_on_glibcs_malloc(tmp_path, monkeypatch):
    """``encyclopedia --web`` re-executes itself once (same pid) with ``launch.SERVER_ENV``:
    Python's objects from glibc's malloc, no per-thread cache, so that the memory a load
    freed is given back page by page (docs/app.md, "Load check of the server's bounds")."""
    from companion.app import launch

    for name in ("PYTHONMALLOC", launch.REEXEC_ENV, "GLIBC_TUNABLES"):
        monkeypatch.delenv(name, raising=False)
    proc, port = _serve_subprocess(tmp_path)
    try:
        env = dict(item.split("=", 1) for item in
                   Path(f"/proc/{proc.pid}/environ").read_text().split("\0") if "=" in item)
        assert {k: env.get(k) for k in launch.SERVER_ENV} == launch.SERVER_ENV
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=15)
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_no_forwarded_for_header_is_trusted(_private_data_dir):
    """README: the server decides who is the table from the socket's address; a proxy header
    is read from nobody (uvicorn applies X-Forwarded-For from 127.0.0.1 unless told not to)."""
    from companion.app.common import gate
    from websockets.sync.client import connect as ws_connect

    with serving() as port:
        before = set(gate._NOTED)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.1", 0))
        ws = ws_connect(f"ws://127.0.0.1:{port}/ws", sock=sock, open_timeout=10, close_timeout=2,
                        ping_interval=None, max_size=None,
                        additional_headers={"X-Forwarded-For": "10.1.2.3", "X-Real-IP": "10.1.2.3",
                                            "Forwarded": "for=10.1.2.3"}).__enter__()
        ws.send(register_frame())
        ws.recv(timeout=10)
        wait_for(lambda: set(gate._NOTED) - before, "the page was not noted")
        noted = {gate._NOTED[k] for k in set(gate._NOTED) - before}
        ws.close()
    assert noted == {"127.0.0.1"}


def test_settle_heap_collects_then_freezes_what_exists():
    import weakref

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    ref = weakref.ref(a)
    del a, b
    frozen = gc.get_freeze_count()
    try:
        serve_guard.settle_heap()
        assert ref() is None  # collected before freezing: garbage is never frozen
        assert gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()


def test_quiet_hooks_run_after_the_collection_and_a_failing_one_stops_nothing(caplog, monkeypatch):
    calls = []
    monkeypatch.setattr(serve_guard, "_QUIET_HOOKS", [])
    monkeypatch.setattr(serve_guard, "_give_memory_back", lambda force=False: calls.append("trim"))
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)

    def broken():
        calls.append("broken")
        raise RuntimeError("boom")

    serve_guard.on_quiet(broken)
    serve_guard.on_quiet(lambda: calls.append("compact"))
    serve_guard.on_quiet(broken)  # registered once
    with caplog.at_level("ERROR"):
        serve_guard._collect_and_trim()
    assert calls == ["collect", "trim", "broken", "compact", "trim"]
    assert "a quiet-time hook failed" in caplog.text


def test_the_server_compacts_its_open_games_when_quiet(monkeypatch):
    """``launch.run_server`` registers ``compact_open_games`` before it serves."""
    from companion.app import launch

    monkeypatch.setattr(serve_guard, "_QUIET_HOOKS", [])
    monkeypatch.setattr(serve_guard, "settle_heap", lambda: None)
    ran = []
    monkeypatch.setattr(launch, "server_config", lambda app, host, port: ran.append("config"))

    class Stop(Exception):
        pass

    import uvicorn

    def run(self):
        ran.append(list(serve_guard._QUIET_HOOKS))
        raise Stop

    monkeypatch.setattr(uvicorn.Server, "__init__", lambda self, config: None)
    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr(launch, "close_open_games", lambda: None)
    with pytest.raises(Stop):
        launch.run_server(None, "127.0.0.1", 0)
    assert ran == ["config", [launch.compact_open_games]]


def test_a_quiet_pass_drops_the_source_lines_tracebacks_read(monkeypatch):
    import linecache

    monkeypatch.setattr(serve_guard, "_QUIET_HOOKS", [])
    monkeypatch.setattr(serve_guard, "_give_memory_back", lambda force=False: None)
    linecache.getline(serve_guard.__file__, 1)  # as a logged traceback or a warning would
    assert serve_guard.__file__ in linecache.cache
    serve_guard._collect_and_trim()
    assert serve_guard.__file__ not in linecache.cache
