"""Start the app: ``encyclopedia`` (desktop window) or ``encyclopedia --web`` (browsers on the LAN).

``python -m companion.app`` comes here too (``companion/app/__main__.py``).

Web mode serves the Flutter client from the installed ``flet-web`` package with ``no_cdn=True``
so nothing is fetched from the internet: phones at the table open the printed address. The
desktop window needs Flet's desktop client; on a Linux machine without a display there is no
window to open, so the app serves to browsers instead and says so.
"""

from __future__ import annotations

import argparse
import errno
import os
import platform
import socket
import sys
from pathlib import Path

from companion.app.common.gate import SERVED_ENV

DEFAULT_PORT = 8550
DEFAULT_WEB_HOST = "0.0.0.0"


def lan_ip() -> str:
    """This machine's address on the local network (``127.0.0.1`` when it has none).

    Connecting a UDP socket sends no packet; it only asks the OS which interface would be used.
    """
    for probe in ("10.255.255.255", "192.168.255.255"):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.connect((probe, 1))
            ip = sock.getsockname()[0]
            if ip and not ip.startswith("0."):
                return ip
        except OSError:
            pass
        finally:
            sock.close()
    try:
        ip = socket.gethostbyname(socket.gethostname())
        if ip:
            return ip
    except OSError:
        pass
    return "127.0.0.1"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free right now on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def check_port(host: str, port: int) -> str | None:
    """``None`` when ``host:port`` can be bound, else a sentence saying why not."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} is already in use (is the app already running?); try --port {port + 1}"
            if exc.errno == errno.EADDRNOTAVAIL:
                return f"{host} is not an address of this machine"
            if exc.errno == errno.EACCES:
                return f"not allowed to use port {port}; use a port above 1023"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def web_addresses(host: str, port: int) -> list[str]:
    """The addresses to print for a server bound to ``host``."""
    if host in ("0.0.0.0", ""):
        ips = [lan_ip(), "127.0.0.1"]
        ips = list(dict.fromkeys(ips))
    else:
        ips = [host]
    return [f"http://{ip}:{port}/" for ip in ips]


def has_display() -> bool:
    """False on a Linux machine without a graphical session (a server, a CI box)."""
    if platform.system() != "Linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="encyclopedia",
        description="Encyclopedia Companion: the table app (desktop window, or --web for phones).",
    )
    p.add_argument("--web", action="store_true",
                   help="serve the app to browsers on the local network instead of opening a window")
    p.add_argument("--port", type=int, default=None,
                   help=f"web mode: TCP port (default {DEFAULT_PORT}; 0 = any free port)")
    p.add_argument("--host", default=None,
                   help=f"web mode: address to listen on (default {DEFAULT_WEB_HOST}: every "
                        "interface, so phones can connect; 127.0.0.1 keeps it to this machine)")
    p.add_argument("--data-dir", default=None,
                   help="folder for saved games and settings (default: the user data folder; "
                        "same as $ENCYCLOPEDIA_DATA_DIR)")
    return p


#: the environment the web server runs under on Linux with glibc (``server_allocator``):
#: Python's objects come from glibc's malloc instead of Python's own allocator (pymalloc).
#: pymalloc hands memory back only by whole 1 MiB arenas, and a few objects that stay (the
#: game's log, its states kept for undo) allocated while 20 phones' pages were drawn kept
#: ~50 such arenas after the phones had left (+53 MB in benchmarks/serve_load.py); glibc's
#: ``malloc_trim`` (serve_guard) gives back every free 4 KiB page; and glibc keeps no
#: per-thread cache of freed blocks (its tcache: a cached block keeps its page; 20 phones left
#: +30.9 MB with it, +21.1 MB without) (docs/app.md, "Load check of the server's bounds").
SERVER_ENV = {"PYTHONMALLOC": "malloc", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}
#: set in the re-executed process (never re-executed twice)
REEXEC_ENV = "ENCYCLOPEDIA_SERVER_REEXEC"


def server_allocator(argv: list[str] | None = None) -> None:
    """Re-execute this process (same pid, same arguments) with ``SERVER_ENV`` when it is not
    set yet: the allocator is chosen when Python starts. Only on Linux with glibc (where the
    guard trims glibc's heap), not in a frozen app, and never twice; a ``PYTHONMALLOC`` the
    user set is kept. Returns when nothing is to be done (or the exec failed)."""
    import platform

    if (sys.platform != "linux" or platform.libc_ver()[0] != "glibc" or getattr(sys, "frozen", False)
            or os.environ.get(REEXEC_ENV) or "PYTHONMALLOC" in os.environ):
        return
    env = dict(os.environ, **SERVER_ENV, **{REEXEC_ENV: "1"})
    if os.environ.get("GLIBC_TUNABLES"):  # the user's own tunables are kept (theirs win)
        env["GLIBC_TUNABLES"] = f"{SERVER_ENV['GLIBC_TUNABLES']}:{os.environ['GLIBC_TUNABLES']}"
    args = list(argv) if argv is not None else list(sys.orig_argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, [sys.executable, *args], env)
    except OSError as exc:  # serve with Python's allocator rather than not at all
        print(f"encyclopedia: could not restart with {SERVER_ENV}: {exc}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import logging

    # errors inside screens and event handlers go to stderr (Flet logs them; nothing is shown otherwise)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.port is not None and not 0 <= args.port <= 65535:
        print(f"encyclopedia: --port must be between 0 and 65535, not {args.port}", file=sys.stderr)
        return 2
    if not args.web and (args.port is not None or args.host is not None):
        print("encyclopedia: --port and --host only apply with --web", file=sys.stderr)
        return 2
    if args.data_dir:
        data_dir = Path(args.data_dir).expanduser()
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"encyclopedia: cannot use --data-dir {data_dir}: {exc}", file=sys.stderr)
            return 2
        os.environ["ENCYCLOPEDIA_DATA_DIR"] = str(data_dir.resolve())

    headless = not args.web and not has_display()
    web = args.web or headless
    if web and argv is None:  # from the command line (a caller's argv is not re-executed)
        server_allocator()
    if headless:
        print("encyclopedia: no display found, so no window can open; serving to browsers "
              "instead (same as --web)", file=sys.stderr)
    if web:
        return serve_web(args.host or DEFAULT_WEB_HOST,
                         DEFAULT_PORT if args.port is None else args.port)
    return open_window()


def serve_web(host: str, port: int) -> int:
    import flet as ft

    if port == 0:
        port = free_port("127.0.0.1" if host in ("127.0.0.1", "localhost") else "0.0.0.0")
    problem = check_port(host, port)
    if problem:
        print(f"encyclopedia: {problem}", file=sys.stderr)
        return 1
    # do not pop a browser tab on the serving machine; the address is printed instead
    os.environ["FLET_FORCE_WEB_SERVER"] = "1"
    addresses = web_addresses(host, port)
    # the game's host screen shows them to the phones (docs/app.md; ``gate.served_addresses``);
    # through the environment because this module may run as __main__
    os.environ[SERVED_ENV] = " ".join(addresses)
    print("Encyclopedia Companion is being served. Open on a phone or a browser on the same network:")
    for url in addresses:
        print(f"  {url}")
    print("Press Ctrl+C to stop.", flush=True)
    return run_server(web_asgi_app(), host, port)


def server_config(app, host: str, port: int):
    """uvicorn's settings for ``--web``: Flet's websocket implementation, no forwarded-for
    header trusted from anyone (the gate decides from the socket's address; README), a frame
    cap, and a shutdown that does not wait for clients longer than a few seconds."""
    import uvicorn

    from companion.app.common import serve_guard

    return uvicorn.Config(
        app, host=host, port=port, ws="websockets-sansio", log_level="warning",
        proxy_headers=False, forwarded_allow_ips="",
        ws_max_size=serve_guard.LIMITS.frame_max, ws_ping_interval=20.0, ws_ping_timeout=20.0,
        timeout_graceful_shutdown=3, timeout_keep_alive=5, limit_concurrency=4096,
    )


def run_server(app, host: str, port: int) -> int:
    """Serve ``app`` until SIGINT or SIGTERM (uvicorn handles both), then flush and close every
    open game and exit, whatever clients did (docs/app.md, "What the server bounds")."""
    import threading
    import time

    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            super().handle_exit(sig, frame)
            # uvicorn raises the signal again once it has shut down, which would kill the
            # process before the open games are closed: the stop is ours (a second Ctrl+C
            # still forces uvicorn's exit)
            self._captured_signals.clear()

    from companion.app.common import serve_guard

    server = Server(server_config(app, host, port))
    serve_guard.settle_heap()  # the cycle collector walks only what is built from now on
    serve_guard.on_quiet(compact_open_games)
    try:
        server.run()
    finally:
        close_open_games()
    # a worker thread of a page still running (a read of a photo): give it a moment, then go
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline and any(
            t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()):
        time.sleep(0.1)
    print("Encyclopedia Companion stopped; open games were saved and closed.", flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()):
        os._exit(0)  # every confirmed step is on disk already (the store commits before "done")
    return 0


def _open_games():
    """The registry of the games the server holds open, or ``None`` where the game screens are
    not installed."""
    try:
        from companion.app.game.holder import live_games
    except ImportError:
        return None
    return live_games()


def compact_open_games() -> None:
    """The open games' long-lived objects built again when the server is quiet
    (``serve_guard.on_quiet``, ``LiveGames.compact``)."""
    games = _open_games()
    if games is not None:
        games.compact()


def close_open_games() -> None:
    """Close every game the server holds open (its file flushed and closed)."""
    games = _open_games()
    if games is None:
        return
    try:
        games.close_all()
    except Exception as exc:  # noqa: BLE001 - stopping anyway; say so
        print(f"encyclopedia: closing the open games failed: {exc}", file=sys.stderr)


def web_app_options() -> dict:
    """What ``serve_web`` hands to ``ft.run``: the app, Flet's ``before_main`` that notes each
    page's address for the join-code gate (``companion.app.common.gate``), no CDN, assets, uploads."""
    from companion.app.common.gate import note_client
    from companion.app.shell.view import app_main, assets_dir, upload_dir

    return dict(main=app_main, before_main=note_client, no_cdn=True, assets_dir=str(assets_dir()),
                upload_dir=str(upload_dir()), name="")


def web_asgi_app():
    """The ASGI app ``--web`` serves (the same routes and handlers), for a test that serves it
    in its own process (tests/app/test_ws_gate.py)."""
    import flet as ft

    from companion.app.common import serve_guard

    serve_guard.install()  # Flet's connection handler with its bounds (issue 40)
    return ft.run(export_asgi_app=True, **web_app_options())


def open_window() -> int:
    import flet as ft

    from companion.app.shell.view import app_main, assets_dir, upload_dir

    ft.run(app_main, assets_dir=str(assets_dir()), upload_dir=str(upload_dir()))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
