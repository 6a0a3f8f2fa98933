"""A raw client of Flet 1.0.5's web protocol, for tests that talk to the served app the way a
browser does, without a browser (tests/app/test_ws_gate.py).

What the installed Flet does (``flet_web/fastapi/app.py``, ``flet_app.py``,
``flet/messaging/protocol.py``, ``session.py``): the page's Flutter client opens a websocket at
``/ws``; every frame is binary, ``0x00`` + a MessagePack array ``[action, body]`` (``0x01`` +
channel id + bytes for data channels, unused here). The client sends ``REGISTER_CLIENT`` (1)
with ``{session_id, page_name, page: {route, web, platform, width, height, ...}}``; the server
answers ``REGISTER_CLIENT`` with ``{session_id, page_patch, error}`` (the page as a tree of
dicts, each control with its id ``_i`` and class ``_c``), then ``PATCH_CONTROL`` (2, ``{id,
patch}``) as the app draws, ``INVOKE_METHOD`` (5, ``{control_id, call_id, name, args}``) to call
the client (it answers with ``{control_id, call_id, result, error}``) and ``SESSION_CRASHED``
(6). The client reports taps as ``CONTROL_EVENT`` (3, ``{target, name, data}``) and field values
as ``UPDATE_CONTROL_PROPS`` (4, ``{id, props}``). The page registered here is the one a
headless Chromium registered (captured once from its websocket frames).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator

import msgpack

REGISTER_CLIENT, PATCH_CONTROL, CONTROL_EVENT, UPDATE_CONTROL_PROPS, INVOKE_METHOD, SESSION_CRASHED = 1, 2, 3, 4, 5, 6

PAGE_ID = 1  # the page is control 1 of every session


def browser_page(route: str = "/", width: float = 412.0, height: float = 860.0, **extra) -> dict:
    """The page a browser registers (as headless Chromium sent it), with ``extra`` on top."""
    pad = {"top": 0.0, "right": 0.0, "bottom": 0.0, "left": 0.0}
    page = {
        "route": route, "pwa": False, "web": True, "debug": False, "wasm": True, "test": False,
        "multi_view": False, "pyodide": False, "platform_brightness": "light",
        "width": width, "height": height, "platform": "linux", "window": {},
        "media": {"padding": pad, "view_padding": pad, "view_insets": pad, "device_pixel_ratio": 1.0,
                  "orientation": "portrait", "always_use_24_hour_format": False},
    }
    page.update(extra)
    return page


def _decode_ext(code, data):
    if code == 1:  # a datetime, as an ISO string
        return data.decode("utf-8")
    if code in (2, 4):
        return data.decode("utf-8")
    if code == 3:
        return int(data) if isinstance(data, int) else data
    return msgpack.ExtType(code, data)


def decode(frame: bytes) -> Any:
    if not frame or frame[0] != 0:
        return ["data-channel", frame]
    return msgpack.unpackb(frame[1:], ext_hook=_decode_ext, strict_map_key=False, raw=False)


def encode(action: int, body: dict) -> bytes:
    return b"\x00" + msgpack.packb([action, body])


def strings(obj: Any, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every string in a decoded message, with the dict key it was found under."""
    if isinstance(obj, str):
        yield key, obj
    elif isinstance(obj, bytes):
        yield key, obj.decode("latin-1")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str):
                yield None, k
            yield from strings(v, k if isinstance(k, str) else key)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v, key)


def controls(obj: Any) -> Iterator[dict]:
    """Every control (a dict with ``_i``) in a decoded message."""
    if isinstance(obj, dict):
        if "_i" in obj:
            yield obj
        for v in obj.values():
            yield from controls(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from controls(v)


class FletPage:
    """One page of the served app over a plain websocket: registers like a browser, answers
    the server's method calls with nothing (an empty browser storage), keeps every message.

    ``messages``: every decoded frame from the server, in order."""

    def __init__(self, ws_url: str, route: str = "/", page: dict | None = None, open_timeout: float = 20.0):
        from websockets.sync.client import connect

        self.messages: list[Any] = []
        self._cond = threading.Condition()
        self._closed = False
        self.ws = connect(ws_url, open_timeout=open_timeout, max_size=None, ping_interval=None, close_timeout=5).__enter__()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send(REGISTER_CLIENT, {"session_id": None, "page_name": "", "page": page or browser_page(route)})
        self.session_id = self.wait_for(lambda m: m[0] == REGISTER_CLIENT, "the registration")[1]["session_id"]

    # -- receiving ------------------------------------------------------------------------
    def _read(self) -> None:
        try:
            for frame in self.ws:
                if isinstance(frame, str):
                    continue
                msg = decode(frame)
                if isinstance(msg, list) and msg and msg[0] == INVOKE_METHOD:
                    body = msg[1]
                    self.send(INVOKE_METHOD, {"control_id": body.get("control_id"), "call_id": body.get("call_id"),
                                              "result": None, "error": None})
                with self._cond:
                    self.messages.append(msg)
                    self._cond.notify_all()
        except Exception:
            pass
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def wait_for(self, predicate, what: str, timeout: float = 20.0, start: int = 0):
        """The first message from index ``start`` on for which ``predicate(message)`` holds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            i = start
            while True:
                while i < len(self.messages):
                    m = self.messages[i]
                    i += 1
                    try:
                        if predicate(m):
                            return m
                    except (KeyError, IndexError, TypeError):
                        pass
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise AssertionError(f"no message for {what} within {timeout:.0f} s; "
                                         f"texts so far: {sorted(self.texts())[:80]}")
                self._cond.wait(left)

    def wait_text(self, text: str, timeout: float = 20.0, start: int = 0):
        return self.wait_for(lambda m: any(text in s for _, s in strings(m)), repr(text), timeout, start)

    def quiet(self, seconds: float = 0.5, timeout: float = 20.0) -> None:
        """Wait until the server has sent nothing for ``seconds`` (the page has drawn)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            n = len(self.messages)
            while time.monotonic() < deadline:
                self._cond.wait(seconds)
                if len(self.messages) == n:
                    return
                n = len(self.messages)

    def all_strings(self, start: int = 0) -> list[tuple[str | None, str]]:
        with self._cond:
            msgs = list(self.messages[start:])
        return [ks for m in msgs for ks in strings(m)]

    def texts(self) -> set[str]:
        return {s for _, s in self.all_strings()}

    def controls(self) -> dict[int, dict]:
        """Every control the server has sent, by id (the latest description of each)."""
        with self._cond:
            msgs = list(self.messages)
        out: dict[int, dict] = {}
        for m in msgs:
            for c in controls(m):
                if isinstance(c.get("_i"), int):
                    out.setdefault(c["_i"], {}).update(c)
        return out

    def find(self, **props) -> list[dict]:
        """Controls whose properties include ``props`` (``_c="TextField"``, ``content="Join"``)."""
        return [c for c in self.controls().values() if all(c.get(k) == v for k, v in props.items())]

    # -- sending --------------------------------------------------------------------------
    def send(self, action: int, body: dict) -> None:
        self.ws.send(encode(action, body))

    def event(self, target: int, name: str, data: Any = None) -> None:
        self.send(CONTROL_EVENT, {"target": target, "name": name, "data": data})

    def set_props(self, target: int, **props) -> None:
        self.send(UPDATE_CONTROL_PROPS, {"id": target, "props": props})

    def close(self) -> None:
        try:
            self.ws.__exit__(None, None, None)
        finally:
            self._reader.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
