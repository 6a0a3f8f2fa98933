"""Which pages are *phones* (they must type a game's join code) and which is the *table's screen*
(docs/app.md, "Joining: a code per game").

Decided from what the server knows, never from what a browser says about itself. Flet's web
server sets ``page.client_ip`` from the socket's peer address when a page registers, but the
page is a plain object that the browser may patch afterwards (an ``UPDATE_CONTROL_PROPS``
message on the page can set ``client_ip`` or ``web``, and it can arrive before the app's
``main`` runs), and ``page.web`` is the browser's own claim from the start. So:

* ``note_client`` is Flet's ``before_main`` hook (``launch.serve_web``): Flet calls it while it
  handles the page's registration, right after it set ``client_ip`` from the socket and before
  any further message of that page is read; the address is kept here, out of the browser's reach;
* ``is_phone(page)``: in web mode a page is a phone unless its noted address is the loopback
  address; a page of the web server without a noted address counts as another device; with
  ``ENCYCLOPEDIA_REQUIRE_CODE=1`` every page of the web server is a phone, this machine's too
  (that setting can only make the gate stricter). No header (``X-Forwarded-For`` ...) is read.

The addresses ``encyclopedia --web`` serves on (``served_addresses``, which ``launch.serve_web``
puts in ``ENCYCLOPEDIA_SERVED_AT``) and which addresses are this machine's (``is_local_client``)
are kept here too: the launcher, the shell and the game's host panel read them, and this module
imports nothing of the app.
"""

from __future__ import annotations

import os
import threading
import weakref

#: set to 1 to treat every browser page as a phone, the serving machine's own too
REQUIRE_CODE_ENV = "ENCYCLOPEDIA_REQUIRE_CODE"

#: the environment variable holding the addresses ``serve_web`` printed (LAN address first)
SERVED_ENV = "ENCYCLOPEDIA_SERVED_AT"

LOCAL_CLIENTS = {"127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost"}

_LOCK = threading.Lock()
_NOTED: dict[int, str] = {}  # id(page) -> the peer address Flet saw when the page registered


def served_addresses() -> list[str]:
    """The addresses the web server was started on (empty outside ``--web``)."""
    return os.environ.get(SERVED_ENV, "").split()


def is_local_client(ip: str | None) -> bool:
    """Whether a browser page comes from the machine that serves the app (the table's screen).
    An unknown address counts as another device."""
    return (ip or "").strip() in LOCAL_CLIENTS


def require_code_everywhere() -> bool:
    """``ENCYCLOPEDIA_REQUIRE_CODE`` is set to a true value (1, true, yes, on)."""
    return os.environ.get(REQUIRE_CODE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def note_client(page) -> None:
    """Flet's ``before_main``: keep the address the server saw for this page (see the module)."""
    key = id(page)
    with _LOCK:
        _NOTED[key] = str(getattr(page, "client_ip", "") or "")
    try:
        weakref.finalize(page, _forget, key)
    except TypeError:  # not weakly referable (a test double): kept until the process ends
        pass


def _forget(key: int) -> None:
    with _LOCK:
        _NOTED.pop(key, None)


def noted_address(page) -> str | None:
    """The address noted for ``page`` when it registered with the web server, or None."""
    with _LOCK:
        return _NOTED.get(id(page))


def is_phone(page) -> bool:
    """Whether ``page`` must type a game's join code before it sees anything of the game."""
    noted = noted_address(page)
    if noted is not None or served_addresses():  # a page of our web server
        if require_code_everywhere():
            return True
        return not is_local_client(noted)  # not noted: an unknown address
    # not served by ``encyclopedia --web`` (the desktop window, a page built by a test)
    if not getattr(page, "web", False):
        return False
    return require_code_everywhere() or not is_local_client(getattr(page, "client_ip", None))
