"""What a stranger on the Wi-Fi can make the web server hold, bounded (issue 40; docs/app.md,
"What the server bounds").

Written against Flet 1.0.5 (``flet_web/fastapi/flet_app.py``). Its connection handler
(``FletApp.handle``) accepts a websocket, starts a send loop, runs the receive loop, then waits
for the send loop, which only a registered session ever stops: a connection that closes (or
sends one bad frame) before registering leaves that handler waiting forever, with its socket,
its queue and its ``FletApp`` (70-80 kB each), and uvicorn then never finishes a shutdown, so
SIGINT/SIGTERM stop working. ``install()`` replaces ``FletApp.handle`` with ``guarded_handle``,
the same steps with these bounds, all in this one module:

* **admission** (before the websocket is accepted; a refusal is an HTTP 403): new connections
  per address (a token bucket), open connections per address, and connections not yet
  registered, all addresses together;
* **registration**: a connection must send Flet's ``REGISTER_CLIENT`` as its first frame within
  ``register_s`` seconds, and only once; registrations per address are a token bucket too (each
  one is a page the server builds and keeps for ``session_keep_s`` after it disconnects);
* **frames**: a size cap (small until registered), a message rate per address, and a check of
  every frame's shape before Flet reads it (``0x00`` + MessagePack ``[action, body]`` with a known
  action and the body's fields of the right types; a page route that is not a string; a page
  resize without a numeric width): anything else closes the socket (1007/1008/1009);
* **the end of a connection**: the send loop is stopped whether or not a page registered, the
  socket is closed, a registered page is handed to Flet's session manager as before;
* **uploads**: Flet's ``/upload`` answers 4xx, never 500 (the app takes photos through the
  websocket; the upload route has no signing key and refuses everything);
* **what stays after the phones leave**: an address is forgotten once it has no open
  connection and its buckets have refilled (``_State.sweep``); two of Flet's references that
  kept a phone's whole page alive after it left are dropped: its session eviction loop's loop
  variable (``_evict_expired_sessions``) and the page ``page.run_thread`` left in each
  executor thread's context (``_context_wrapper``); glibc's malloc is set to give big buffers
  and its heaps' free tops back (``MALLOC_SETTINGS``); once pages are dropped or a flood of
  connections is over, their cycles are collected and the freed memory trimmed
  (``_collect_and_trim``; ``launch.server_allocator`` puts Python's objects in glibc's heap);
* **late answers**: a page's answer to a method call whose control a redraw has replaced goes
  to the waiting call (``_handle_invoke_method_results``); Flet's error closed the connection;
  a redraw for a page whose phone has just disconnected (its send queue gone, its session kept
  for a reconnect) is dropped as Flet drops a data-channel frame then (``_send_message``); Flet
  raised AttributeError in the redrawing thread.

The limits are ``LIMITS`` (a ``GuardLimits``); tests replace it. ``stats()`` reports what is
held now (open, pending, addresses tracked).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["GuardLimits", "LIMITS", "install", "guarded_handle", "stats", "reset", "set_limits"]


@dataclass(frozen=True)
class GuardLimits:
    #: seconds a websocket may stay open without registering a page
    register_s: float = 5.0
    #: websockets not yet registered, all addresses together
    pending_max: int = 256
    #: websockets open at once from one address
    open_per_address: int = 24
    #: new websockets per address: a burst, then this many a second
    connect_burst: int = 40
    connect_per_s: float = 2.0
    #: page registrations per address: a burst, then this many a second
    register_burst: int = 30
    register_per_s: float = 0.2
    #: frames per address (all its websockets): a burst, then this many a second
    message_burst: int = 600
    message_per_s: float = 150.0
    #: the largest frame before registering, and after (a phone's photo comes in one frame)
    frame_max_unregistered: int = 64 * 1024
    frame_max: int = 16 * 1024 * 1024
    #: how long Flet keeps a disconnected page's session for a reload (Flet's default: 1 hour)
    session_keep_s: int = int(os.environ.get("ENCYCLOPEDIA_SESSION_KEEP_S", "600") or 600)
    #: addresses remembered at most (idle ones are forgotten first)
    addresses_max: int = 65536


LIMITS = GuardLimits()

# the close codes of RFC 6455 used here
POLICY, TOO_BIG, BAD_DATA, UNSUPPORTED = 1008, 1009, 1007, 1003

# Flet's MessageAction values a client may send
_REGISTER, _EVENT, _PROPS, _INVOKE = 1, 3, 4, 5
_REGISTER_FIELDS = {"session_id", "page_name", "page"}


def set_limits(**changes) -> GuardLimits:
    """Replace some limits (tests, the load script); returns the new ``LIMITS``."""
    global LIMITS
    LIMITS = replace(LIMITS, **changes)
    return LIMITS


class _Bucket:
    __slots__ = ("tokens", "at")

    def __init__(self, burst: float, now: float):
        self.tokens, self.at = float(burst), now

    def take(self, burst: float, per_s: float, now: float) -> bool:
        self.tokens = min(float(burst), self.tokens + (now - self.at) * per_s)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class _Address:
    __slots__ = ("open", "connect", "register", "message", "seen")

    def __init__(self, now: float):
        lim = LIMITS
        self.open = 0
        self.connect = _Bucket(lim.connect_burst, now)
        self.register = _Bucket(lim.register_burst, now)
        self.message = _Bucket(lim.message_burst, now)
        self.seen = now


class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.addresses: dict[str, _Address] = {}
        self.pending = 0
        self.open = 0
        self.refused = 0
        self.closed_by_guard = 0
        self.swept_at = 0.0
        #: the longest a connection that never registered was held (seconds, from its
        #: admission to its close), and how many were held over ``register_s`` + 2 s
        self.unregistered_held_max = 0.0
        self.unregistered_late = 0
        self.ended = 0  # connections ended since the last collection (``_timed_sweep``)
        self.sweep_timer = False  # a timed sweep is scheduled (``_schedule_sweep``)

    def address(self, ip: str, now: float) -> _Address:
        a = self.addresses.get(ip)
        if a is None:
            if len(self.addresses) >= LIMITS.addresses_max:
                self._forget_idle(now)
            a = self.addresses[ip] = _Address(now)
        a.seen = now
        return a

    def _forget_idle(self, now: float) -> None:
        idle = sorted((a.seen, ip) for ip, a in self.addresses.items() if a.open == 0)
        for _, ip in idle[: max(1, len(idle) // 2)]:
            del self.addresses[ip]

    def sweep(self, now: float) -> int:
        """Forget every address with no open connection whose buckets have all filled up
        again: a new ``_Address`` for it would be the same, so no limit changes (at the
        defaults, one connection's token is back after 0.5 s, a burst of 40 after 20 s, one
        registration's after 5 s, a burst of 30 after 150 s). Without this, every address ever
        seen stayed (up to ``addresses_max``).
        Returns how many are left."""
        lim = LIMITS
        full = (("connect", lim.connect_burst, lim.connect_per_s), ("register", lim.register_burst, lim.register_per_s),
                ("message", lim.message_burst, lim.message_per_s))
        gone = [ip for ip, a in self.addresses.items() if a.open == 0 and all(
            getattr(a, name).tokens + (now - getattr(a, name).at) * per_s >= burst for name, burst, per_s in full)]
        for ip in gone:
            del self.addresses[ip]
        self.swept_at = now
        return len(self.addresses)


_STATE = _State()


def reset() -> None:
    """Forget every address and count (tests)."""
    global _STATE
    _STATE = _State()


def stats() -> dict:
    with _STATE.lock:
        return {"open": _STATE.open, "pending": _STATE.pending, "addresses": len(_STATE.addresses),
                "refused": _STATE.refused, "closed_by_guard": _STATE.closed_by_guard,
                "unregistered_held_max_s": round(_STATE.unregistered_held_max, 2),
                "unregistered_late": _STATE.unregistered_late}


#: seconds between two sweeps of the addresses (``_State.sweep``)
SWEEP_S = 10.0


def _admit(ip: str) -> str | None:
    """Count a new websocket from ``ip`` in, or say why it is refused."""
    now = time.monotonic()
    lim = LIMITS
    with _STATE.lock:
        if now - _STATE.swept_at >= SWEEP_S:
            _STATE.sweep(now)
        a = _STATE.address(ip, now)
        why = None
        if a.open >= lim.open_per_address:
            why = "too many open connections from this address"
        elif _STATE.pending >= lim.pending_max:
            why = "too many connections waiting to register"
        elif not a.connect.take(lim.connect_burst, lim.connect_per_s, now):
            why = "too many new connections from this address"
        if why:
            _STATE.refused += 1
            return why
        a.open += 1
        _STATE.open += 1
        _STATE.pending += 1
        return None


def _registered(ip: str) -> bool:
    """A connection of ``ip`` asks to register: no longer pending; False when over the rate."""
    now = time.monotonic()
    lim = LIMITS
    with _STATE.lock:
        a = _STATE.address(ip, now)
        return a.register.take(lim.register_burst, lim.register_per_s, now)


def _message_allowed(ip: str) -> bool:
    now = time.monotonic()
    lim = LIMITS
    with _STATE.lock:
        a = _STATE.address(ip, now)
        return a.message.take(lim.message_burst, lim.message_per_s, now)


def _release(ip: str, pending: bool, held_s: float = 0.0) -> None:
    with _STATE.lock:
        _STATE.ended += 1
        if pending:
            _STATE.unregistered_held_max = max(_STATE.unregistered_held_max, held_s)
            _STATE.unregistered_late += held_s > LIMITS.register_s + 2.0
        a = _STATE.addresses.get(ip)
        if a is not None:
            a.open = max(0, a.open - 1)
        _STATE.open = max(0, _STATE.open - 1)
        if pending:
            _STATE.pending = max(0, _STATE.pending - 1)


_TRIM = {"at": 0.0, "fn": None}


def _libc_function(name: str):
    """glibc's function ``name`` (``malloc_trim``, ``mallopt``) through ctypes; None where there
    is no such C library or function (not Linux, another libc)."""
    try:
        import ctypes
        import ctypes.util

        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None


def _give_memory_back(force: bool = False) -> None:
    """Once the server holds no connection (or at most every 10 s while it is busy), hand
    the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere nothing):
    the buffers of thousands of short connections are freed, but glibc keeps them mapped."""
    now = time.monotonic()
    with _STATE.lock:
        idle = _STATE.open == 0
        if not force and now - _TRIM["at"] < (1.0 if idle else 10.0):
            return
        _TRIM["at"] = now
    fn = _TRIM["fn"]
    if fn is None:
        fn = _TRIM["fn"] = _libc_function("malloc_trim") or False
    if fn:
        fn(0)


def settle_heap() -> None:
    """For the serving process, once, before it serves: collect, then freeze what exists (the
    modules, the app; Python's ``gc.freeze``) so that the cycle collector never walks it again:
    each full collection then walks only what pages and games built since (docs/app.md, stop
    39: taps p95 4.3 s instead of 7.5 s in the run that decided it, not repeated in the next).
    A full collection every few seconds while the server is busy left less memory after the
    load run, but taps went unanswered (docs/app.md): not done."""
    import gc

    gc.collect()
    gc.freeze()


def _collect_and_trim() -> None:
    """Pages were dropped (Flet deleted their sessions): free them now and hand the freed
    memory back. A page's controls are cycles, so they are freed only by the cycle collector,
    whose next full pass may be minutes away: the ``malloc_trim`` that ran when the last phone
    left (``_give_memory_back``) came before the pages were freed, and their memory stayed
    mapped (benchmarks/serve_load.py: 185 MB after 20 phones had left, 131 MB after a
    collection and a trim). On the eviction pass that dropped a session, 1 s after (Flet's
    ``Session.close`` starts a task that holds the page until the page's close event has run)
    and on the next pass; ~0.1 s each. Source lines read for a logged traceback or a warning
    are dropped too (``linecache`` keeps every file it read, for ever: one warning about Flet's
    page left its 1 100 lines scattered over the heap's pages; docs/app.md, stop 41)."""
    import gc
    import linecache

    linecache.clearcache()
    gc.collect()
    _give_memory_back(force=True)
    if _QUIET_HOOKS:
        for hook in list(_QUIET_HOOKS):
            try:
                hook()
            except Exception:  # noqa: BLE001 - memory housekeeping never stops the server
                log.error("a quiet-time hook failed", exc_info=True)
        _give_memory_back(force=True)


#: what runs when the server is quiet, after the collection and the trim (``on_quiet``), then
#: the heap is trimmed again
_QUIET_HOOKS: list = []


def on_quiet(fn) -> None:
    """Run ``fn()`` whenever the server is quiet and has handed freed memory back (pages dropped,
    a flood over: ``_collect_and_trim``), before a second trim. ``launch.run_server`` registers
    ``LiveGames.compact``: the open games build their long-lived objects again, packed in the
    memory just freed, and the pages the old ones kept resident are handed back."""
    if fn not in _QUIET_HOOKS:
        _QUIET_HOOKS.append(fn)


def _schedule_sweep() -> None:
    """While the guard remembers any address, sweep them every ``SWEEP_S`` (a quiet server has
    no new connection to sweep them at admission); once connections have ended and none is
    waiting to register (a flood is over), collect the cycles they left (a ``FletApp`` and its
    tasks are cycles) and hand the memory back after the sweep (``_collect_and_trim``)."""
    state = _STATE
    with state.lock:
        if state.sweep_timer or not state.addresses:
            return
        state.sweep_timer = True
    try:
        # in an empty context: a timer takes a copy of the current one, and this is called from
        # a connection's task, whose context holds its page (Flet's ``_context_page``); each
        # pass schedules the next from the same copy, so one phone's page stayed alive as long
        # as the guard remembered any address (3 pages after a load run)
        asyncio.get_running_loop().call_later(SWEEP_S, _timed_sweep, state, context=contextvars.Context())
    except RuntimeError:  # no loop running (a test calling in directly)
        state.sweep_timer = False


def _timed_sweep(state: "_State") -> None:
    with state.lock:
        state.sweep_timer = False
        state.sweep(time.monotonic())
        # connections ended since the last pass and none is waiting to register: a flood is over
        # (the table's own page may still be open)
        quiet = state.pending == 0 and state.ended > 0
        if quiet:
            state.ended = 0
    if state is _STATE:
        if quiet:  # the connections' handlers (cycles) freed, then their memory handed back
            _collect_and_trim()
        _schedule_sweep()


#: glibc's malloc settings for the server (``mallopt``, set by ``install``): big buffers
#: (>= 128 kB: a page's first drawing, a photo) are mapped for themselves and unmapped when
#: freed, a heap's free top is given back above 128 kB, and all threads share 2 arenas. glibc's
#: defaults raise both thresholds as big buffers come and go (up to 32 and 64 MB) and give each
#: thread its own arena, whose free top ``malloc_trim`` does not give back: the free memory of
#: Flet's worker threads' arenas then grew with every run of benchmarks/serve_load.py
#: (+41 MB, then +77 MB; with these settings +29 MB, then +33 MB: docs/app.md).
#: Fastbins stay (stop 39: without them, ``M_MXFAST`` 0, less memory stayed after the load run,
#: but two runs of that tree left 8 and 6 taps unanswered in their second run: docs/app.md).
MALLOC_SETTINGS = {"M_TRIM_THRESHOLD": (-1, 128 * 1024), "M_MMAP_THRESHOLD": (-3, 128 * 1024), "M_ARENA_MAX": (-8, 2)}
MALLOC_TUNED: dict = {}


def _tune_malloc() -> dict:
    """Apply ``MALLOC_SETTINGS`` with glibc's ``mallopt`` (elsewhere nothing); what was set."""
    mallopt = _libc_function("mallopt")
    if mallopt is None:
        return {}
    return {name: bool(mallopt(param, value)) for name, (param, value) in MALLOC_SETTINGS.items()}


def _not_pending() -> None:
    with _STATE.lock:
        _STATE.pending = max(0, _STATE.pending - 1)


# -- frames --------------------------------------------------------------------------------------
def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _opt(v: Any, kind) -> bool:
    return v is None or isinstance(v, kind)


def _check_page(page: Any) -> str | None:
    if page is None:
        return None
    if not isinstance(page, dict):
        return "the page is not a map"
    if not _opt(page.get("route"), str):
        return "the page's route is not a string"
    for key in ("width", "height"):
        if page.get(key) is not None and not _is_num(page.get(key)):
            return f"the page's {key} is not a number"
    return None


def check_frame(frame: Any, registered: bool) -> str | None:
    """Why ``frame`` (one websocket message) is not one a Flet 1.0.5 client sends, or None.
    Returns the decoded message's problem only; the frame is decoded again by Flet."""
    import msgpack

    from flet.messaging.protocol import decode_ext_from_msgpack

    if not isinstance(frame, (bytes, bytearray)):
        return "a text frame"
    if not frame:
        return None  # Flet skips empty frames
    kind = frame[0]
    if kind == 0x01:  # a data channel frame (the app opens none: Flet drops unknown channels)
        return None if registered and len(frame) >= 5 else "a data-channel frame out of place"
    if kind != 0x00:
        return f"an unknown frame type 0x{kind:02x}"
    try:
        msg = msgpack.unpackb(bytes(frame[1:]), ext_hook=decode_ext_from_msgpack)
    except Exception as exc:  # noqa: BLE001 - any decoding failure is a malformed frame
        return f"not MessagePack ({type(exc).__name__})"
    if not isinstance(msg, (list, tuple)) or len(msg) != 2 or not isinstance(msg[1], dict):
        return "not an [action, body] pair"
    action, body = msg
    if not registered:
        if action != _REGISTER:
            return "a message before the page registered"
        if not set(body) <= _REGISTER_FIELDS:
            return "unknown registration fields"
        if not _opt(body.get("session_id"), str) or not _opt(body.get("page_name"), str):
            return "a registration field of the wrong type"
        return _check_page(body.get("page"))
    if action == _REGISTER:
        return "a second registration on one connection"
    if action == _EVENT:
        if set(body) != {"target", "name", "data"} or not isinstance(body["target"], int) \
                or not isinstance(body["name"], str):
            return "a malformed control event"
        if body["name"] == "resize":
            data = body["data"]
            if isinstance(data, dict):
                if not _is_num(data.get("width")) or not _is_num(data.get("height")):
                    return "a resize without a numeric width and height"
            elif data is not None and not isinstance(data, str):
                return "a malformed resize"
        if body["name"] == "route_change" and isinstance(body["data"], dict) \
                and not _opt(body["data"].get("route"), str):
            return "a route that is not a string"
        return None
    if action == _PROPS:
        if set(body) != {"id", "props"} or not isinstance(body["id"], int) or not isinstance(body["props"], dict):
            return "a malformed property update"
        props = body["props"]
        if not all(isinstance(k, str) for k in props):
            return "a property name that is not a string"
        if "route" in props and not _opt(props["route"], str):
            return "a route that is not a string"
        for key in ("width", "height"):
            if key in props and props[key] is not None and not _is_num(props[key]):
                return f"a {key} that is not a number"
        return None
    if action == _INVOKE:
        if not set(body) <= {"control_id", "call_id", "result", "error"} or not isinstance(body.get("control_id"), int):
            return "a malformed method result"
        return None
    return f"an action a client does not send ({action!r})"


class _Closed(Exception):
    """The guard closes the connection: ``code`` and ``reason`` go to the client."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


def _disconnect_class():
    from starlette.websockets import WebSocketDisconnect

    return WebSocketDisconnect


class GuardedSocket:
    """What Flet's handler reads from: the websocket, with the bounds of this module applied
    to every frame it receives."""

    def __init__(self, websocket, app, ip: str):
        self._ws = websocket
        self._app = app
        self.ip = ip
        self.opened = time.monotonic()
        self.deadline = self.opened + LIMITS.register_s
        self.registered = False  # the page registered (Flet holds a session)
        self.register_seen = False
        self.close_code: int | None = None
        self.close_reason = ""

    # what Flet reads of the websocket
    @property
    def client(self):
        return self._ws.client

    @property
    def headers(self):
        return self._ws.headers

    @property
    def cookies(self):
        return self._ws.cookies

    @property
    def url(self):
        return self._ws.url

    async def accept(self, *a, **kw):
        return await self._ws.accept(*a, **kw)

    async def send_bytes(self, data: bytes):
        return await self._ws.send_bytes(data)

    def _refuse(self, code: int, reason: str):
        self.close_code, self.close_reason = code, reason
        with _STATE.lock:
            _STATE.closed_by_guard += 1
        log.info("websocket from %s closed: %s", self.ip, reason)
        # a WebSocketDisconnect: Flet's receive loop ends quietly on it
        err = _disconnect_class()(code, reason)
        return err

    async def receive_bytes(self) -> bytes:
        lim = LIMITS
        if not self.registered and self.register_seen:
            # the registration was handed to Flet: did it make a session?
            if getattr(self._app, "_FletApp__session", None) is not None:
                self.registered = True
                _not_pending()
        if self.registered:
            message = await self._ws.receive()
        else:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self._refuse(POLICY, "no page registered in time")
            try:
                message = await asyncio.wait_for(self._ws.receive(), left)
            except asyncio.TimeoutError:
                raise self._refuse(POLICY, "no page registered in time") from None
        if message.get("type") == "websocket.disconnect":
            raise _disconnect_class()(message.get("code", 1000), message.get("reason") or "")
        data = message.get("bytes")
        if data is None:
            raise self._refuse(UNSUPPORTED, "a text frame")
        cap = lim.frame_max if self.registered else lim.frame_max_unregistered
        if len(data) > cap:
            raise self._refuse(TOO_BIG, f"a frame of {len(data)} bytes (the limit is {cap})")
        if not _message_allowed(self.ip):
            raise self._refuse(POLICY, "too many messages from this address")
        problem = check_frame(data, self.registered or self.register_seen)
        if problem:
            raise self._refuse(BAD_DATA if "MessagePack" in problem else POLICY, problem)
        if not self.register_seen:
            self.register_seen = True
            if not _registered(self.ip):
                raise self._refuse(POLICY, "too many pages registered from this address")
        return data


async def guarded_handle(self, websocket) -> None:
    """``FletApp.handle`` of Flet 1.0.5 with the bounds of this module (see the module)."""
    from flet_web.fastapi.flet_app import app_manager

    ip = websocket.client.host if websocket.client else ""
    why = _admit(ip)
    _schedule_sweep()
    if why is not None:
        log.info("websocket from %s refused: %s", ip, why)
        try:
            await websocket.close(code=POLICY)  # before accept: an HTTP 403
        except Exception:  # noqa: BLE001 - the client went away already
            pass
        return
    sock = GuardedSocket(websocket, self, ip)
    send_task = None
    try:
        self._FletApp__websocket = sock
        self._FletApp__client_ip = ip
        self._FletApp__client_user_agent = websocket.headers.get("user-agent", "")[:512]
        self._FletApp__oauth_state_id = websocket.cookies.get("flet_oauth_state")
        self._FletApp__session_timeout_seconds = min(self._FletApp__session_timeout_seconds, LIMITS.session_keep_s)
        self.pubsubhub = app_manager.get_pubsubhub(self._FletApp__main, loop=self.loop)
        self.page_url = str(websocket.url).rsplit("/", 1)[0]
        self.page_name = websocket.url.path.rsplit("/", 1)[0].lstrip("/")
        if not self._FletApp__upload_endpoint_path:
            self._FletApp__upload_endpoint_path = f"{'' if self.page_name == '' else '/'}{self.page_name}/upload"
        await sock.accept()
        self._FletApp__send_queue = asyncio.Queue()
        send_task = asyncio.create_task(self._FletApp__send_loop())
        await self._FletApp__receive_loop()
    finally:
        session = getattr(self, "_FletApp__session", None)
        if sock.register_seen and not sock.registered and session is not None:
            sock.registered = True
            _not_pending()
        # stop the send loop whether or not a page registered (Flet 1.0.5 waits for ever)
        queue = getattr(self, "_FletApp__send_queue", None)
        if send_task is not None and not send_task.done():
            if queue is not None:
                queue.put_nowait(None)
            try:
                await asyncio.wait_for(asyncio.shield(send_task), 5.0)
            except BaseException:  # noqa: BLE001 - a stuck send: cancel it
                send_task.cancel()
        elif send_task is not None and send_task.done() and not send_task.cancelled():
            send_task.exception()  # (retrieved: a failed send is not an "unretrieved" error)
        try:
            await websocket.close(code=sock.close_code or 1000, reason=sock.close_reason[:120])
        except Exception:  # noqa: BLE001 - already closed by the client or the server
            pass
        _release(ip, pending=not sock.registered, held_s=time.monotonic() - sock.opened)
        _give_memory_back()
        _schedule_sweep()
        if session is not None:
            try:
                await app_manager.disconnect_session(
                    self._FletApp__get_unique_session_id(session.id), self._FletApp__session_timeout_seconds)
            except Exception:  # noqa: BLE001
                log.debug("disconnect_session failed", exc_info=True)


async def _guarded_upload(self, request) -> None:
    """Flet's upload handler, answering 4xx instead of 500: this app receives photos through
    the websocket and gives the upload route no signing key, so every upload is refused."""
    from fastapi import HTTPException

    try:
        return await _ORIGINAL_UPLOAD(self, request)
    except HTTPException:
        raise
    except Exception as exc:  # noqa: BLE001 - Flet raises plain errors for a missing key
        raise HTTPException(status_code=403, detail="uploads are not accepted by this server") from exc


async def _evict_expired_sessions(self) -> None:
    """Flet 1.0.5's ``FletAppManager.__evict_expired_sessions`` (every 10 s, delete the
    sessions whose time for a reload is over), without its loop variable: Flet's loop left
    ``session`` bound to the last session it looked at while it slept, so once the last phone
    had left, that page (its controls, its game screen, its view-models: 5-8 MB for a game
    page) stayed alive for good."""
    from datetime import datetime, timezone

    collect_next = False
    while True:
        await asyncio.sleep(10)
        now = datetime.now(timezone.utc)
        sessions = self._FletAppManager__sessions
        expired = [sid for sid, s in list(sessions.items()) if s.expires_at and now > s.expires_at]
        for sid in expired:
            await self.delete_session(sid)
        if expired:  # once their close events have run (tasks Flet's close starts), free them
            await asyncio.sleep(1)
        if expired or collect_next:  # and again on the next pass (a close handler still running)
            _collect_and_trim()
        collect_next = bool(expired)


def _context_wrapper(self, handler):
    """Flet 1.0.5's ``Page.__context_wrapper`` (what ``page.run_thread`` runs in Flet's
    executor): the handler runs with this page as the current page (``_context_page``), in a
    copy of the worker thread's context dropped afterwards. Flet's set the page in the worker
    thread's own context, so each executor thread (6 on two cores) kept the last page it ran a
    handler for (``GameScreen.remote_redraw`` runs there for every phone at every step): a
    phone's whole game page, alive for good after the phone had left."""
    from flet.controls.context import _context_page

    def wrapper(*args, **kwargs):
        def run():
            _context_page.set(self)
            handler(*args, **kwargs)

        contextvars.copy_context().run(run)

    return wrapper


def _handle_invoke_method_results(self, control_id, call_id, result, error) -> None:
    """Flet 1.0.5's ``Session.handle_invoke_method_results``, for an answer to a method call
    (a scroll, a read of the browser's storage) whose control a redraw has replaced meanwhile:
    the answer goes to the call waiting for it (by its call id) as any other. Flet raised
    RuntimeError ("Control with ID ... is not registered"), which ended the phone's receive loop
    and closed its connection (benchmarks/serve_load.py: a phone closed with 1000 mid-game)."""
    evt = self._Session__method_calls.pop(call_id, None)
    if evt is None:
        return
    self._Session__method_call_results[evt] = (result, error)
    evt.set()


def _send_message(self, message) -> None:
    """Flet 1.0.5's ``FletApp.send_message``, for a connection whose phone has gone: its send
    loop has ended and dropped the queue (None), so Flet's ``put_nowait`` raised AttributeError in
    whatever thread was redrawing the page (the load script: "in-place redraw failed" and a
    second, whole redraw that raised again). The frame is dropped, as Flet's own
    ``send_data_channel_frame`` drops one then: a phone that comes back is sent its page whole."""
    if self._FletApp__send_queue is None:
        return
    _ORIGINAL_SEND(self, message)


_ORIGINAL_UPLOAD = None
_ORIGINAL_SEND = None
_INSTALLED = False


def install() -> None:
    """Put ``guarded_handle`` in place of Flet 1.0.5's ``FletApp.handle``, guard its upload
    handler, replace its session eviction loop (``_evict_expired_sessions``) and the wrapper of
    ``page.run_thread`` (``_context_wrapper``) and its method results' handler (a late answer
    no longer closes the connection), and set glibc's ``MALLOC_SETTINGS``; idempotent."""
    global _INSTALLED, _ORIGINAL_UPLOAD, _ORIGINAL_SEND
    if _INSTALLED:
        return
    from flet.controls.page import Page
    from flet.messaging.session import Session
    from flet_web.fastapi.flet_app import FletApp
    from flet_web.fastapi.flet_app_manager import FletAppManager
    from flet_web.fastapi.flet_upload import FletUpload

    for cls, name in ((FletApp, "_FletApp__receive_loop"), (FletApp, "_FletApp__send_loop"),
                      (FletApp, "_FletApp__get_unique_session_id"), (FletApp, "send_message"),
                      (FletAppManager, "_FletAppManager__evict_expired_sessions"), (Page, "_Page__context_wrapper"),
                      (Session, "handle_invoke_method_results")):
        if not hasattr(cls, name):  # Flet changed: refuse to guess
            raise RuntimeError(f"serve_guard: Flet's {cls.__name__} has no {name} (written against Flet 1.0.5)")
    MALLOC_TUNED.update(_tune_malloc())
    FletApp.handle = guarded_handle
    FletAppManager._FletAppManager__evict_expired_sessions = _evict_expired_sessions
    Page._Page__context_wrapper = _context_wrapper
    Session.handle_invoke_method_results = _handle_invoke_method_results
    _ORIGINAL_SEND = FletApp.send_message
    FletApp.send_message = _send_message
    _ORIGINAL_UPLOAD = FletUpload.handle
    FletUpload.handle = _guarded_upload
    _INSTALLED = True
