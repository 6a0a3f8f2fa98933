"""Helpers to run the web app in a subprocess and drive it with headless Chromium.

Used by the end-to-end test, the start-up benchmark and the screenshot script. Chromium is
Debian's ``/usr/bin/chromium`` driven by the ``playwright`` package (never a downloaded browser).
Flutter draws on a canvas; its semantics tree (enabled by clicking the hidden
``flt-semantics-placeholder``) exposes buttons and fields by role and name.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]


def missing_requirements() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is not installed (apt-get install chromium; .ci/run does it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install -e '.[dev]')"
    return None


def e2e_marks() -> list:
    """``pytestmark`` of every browser test module: marked ``e2e``, skipped with the reason
    where the browser cannot run."""
    import pytest

    why = missing_requirements()
    return [pytest.mark.e2e, pytest.mark.skipif(why is not None, reason=str(why))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with code {proc.returncode}:\n{server_log(proc)}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"the app did not listen on port {port} within {timeout:.0f} s")


def server_log(proc: subprocess.Popen, tail: int = 12000) -> str:
    """The last ``tail`` characters the app started by ``running_app`` printed."""
    try:
        return Path(proc.log_path).read_text(errors="replace")[-tail:]
    except (AttributeError, OSError) as e:
        return f"(no log: {e})"


@contextmanager
def running_app(data_dir: Path | None = None, port: int | None = None, env: dict | None = None,
                host: str = "127.0.0.1"):
    """Start ``encyclopedia --web`` listening on ``host`` (localhost by default); yields
    ``(url, proc)`` with the localhost url; stops it afterwards.

    The app's output goes to a file (``proc.log_path``), never to an unread pipe: a pipe that
    fills would stop the server in the middle of a test. When the test fails, the end of that
    log is printed (pytest shows it with the failure)."""
    port = port or free_port()
    log_dir = Path(tempfile.mkdtemp(prefix="enc-app-log-"))
    own_dir = None
    if data_dir is None:
        own_dir = Path(tempfile.mkdtemp(prefix="enc-app-"))
        data_dir = own_dir
    cmd = [sys.executable, "-m", "companion.app", "--web", "--host", host,
           "--port", str(port), "--data-dir", str(data_dir)]
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    log_path = log_dir / "app.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                                text=True)
    proc.log_path = log_path
    ok = False
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/", proc
        ok = True
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not ok:
            print(f"--- the app's output (end):\n{server_log(proc)}")
        shutil.rmtree(log_dir, ignore_errors=True)
        if own_dir:
            shutil.rmtree(own_dir, ignore_errors=True)


# A browser test that hangs (a page.evaluate never answered, a close that never returns: calls
# Playwright gives no timeout) would stop the whole suite until CI's limit. ``browser`` kills
# its Chromium after this long: every pending call then fails at once and the test reports it.
BROWSER_LIMIT_S = 600.0


@contextmanager
def browser(limit_s: float | None = BROWSER_LIMIT_S):
    """A headless Chromium context (its own profile folder). After ``limit_s`` seconds (``None``:
    never) its processes are killed, so a hung test fails with a clear message instead of
    hanging the run."""
    import threading

    from playwright.sync_api import sync_playwright

    user_dir = tempfile.mkdtemp(prefix="enc-chromium-")
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        kill_chromium(user_dir)

    watchdog = threading.Timer(limit_s, kill) if limit_s else None
    if watchdog:
        watchdog.daemon = True
    try:
        with sync_playwright() as p:  # armed until Playwright has stopped: a close can hang too
            ctx = p.chromium.launch_persistent_context(
                user_dir, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 412, "height": 860},
            )
            ctx.enc_user_dir = user_dir  # its profile folder: chromium_pids(ctx.enc_user_dir)
            if watchdog:
                watchdog.start()
            try:
                yield ctx
            finally:
                ctx.close()
    except Exception as e:
        if killed.is_set():
            raise AssertionError(f"{_ran_past(limit_s)} (a hung call: {type(e).__name__}: {e})") from e
        raise
    else:
        if killed.is_set():
            raise AssertionError(_ran_past(limit_s))
    finally:
        if watchdog:
            watchdog.cancel()
        kill_chromium(user_dir)  # nothing of it outlives the test
        shutil.rmtree(user_dir, ignore_errors=True)


def _ran_past(limit_s: float) -> str:
    return f"the browser test ran past {limit_s:.0f} s: its Chromium was killed"


def chromium_pids(user_dir: str) -> list[int]:
    """The processes whose command line names the profile folder ``user_dir`` (the Chromium
    that ``browser`` started and its helpers)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if user_dir.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def kill_chromium(user_dir: str) -> int:
    """SIGKILL the processes of ``chromium_pids(user_dir)``; how many."""
    import signal

    n = 0
    for pid in chromium_pids(user_dir):
        try:
            os.kill(pid, signal.SIGKILL)
            n += 1
        except OSError:
            pass
    return n


def open_app(ctx, url: str, width: int = 412, height: int = 860, timeout_ms: int = 30000):
    """A new tab on the app with the semantics tree switched on."""
    page = ctx.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    enable_semantics(page, timeout_ms)
    return page


def enable_semantics(page, timeout_ms: int = 30000) -> None:
    page.wait_for_selector("flt-semantics-placeholder", state="attached", timeout=timeout_ms)
    page.locator("flt-semantics-placeholder").evaluate("e => e.click()")


def button(page, name: str, exact: bool = True):
    return page.get_by_role("button", name=name, exact=exact)


def textbox(page, name: str):
    return page.get_by_role("textbox", name=name, exact=True)


def settle(page, ms: int = 600) -> None:
    """Flutter paints a frame or two after the semantics tree changes: wait before a screenshot."""
    page.wait_for_timeout(ms)


def type_into(page, locator, text: str, timeout_ms: int = 10000, attempts: int = 3,
              settle_ms: int = 400) -> None:
    """Replace the text of a Flutter text field like a user: tap it, select all, type.

    (``locator.fill`` can run before Flutter has attached its editing element to the focused
    field, and the text is then lost; typing after the focus moved is reliable.)

    Flutter takes a field's keys only once its framework has attached text editing to the
    field's element, a round trip after that element took the focus; keys typed before are
    dropped, and the field shows its old text again when editing attaches (seen under load: a
    name and a score both lost in one run, the fields still "Player 2" and "0"). The engine sets
    the element's ``autocorrect`` attribute in the same step, so a field focused for the first
    time is typed into once that attribute has changed; and the typed text must still be there
    ``settle_ms`` later, or it is typed again, as a person would who sees the field unchanged.
    A field that Flutter focused before its semantics were on (an autofocused field after a
    reload) is edited through Flutter's own hidden input laid over it, which then has the focus.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    shown_value = None
    for _ in range(attempts):
        before = locator.evaluate(_EDITING_JS + "return i ? i.getAttribute('autocorrect') : null; }",
                                  timeout=timeout_ms)
        locator.click()
        # wait for THIS field's editing element to take the focus: "some input is focused" is
        # also true of the field typed into just before, for the frame or two Flutter takes to
        # move the focus, and keys typed then are lost (a score pad field kept its 0 under load)
        handle = locator.element_handle(timeout=timeout_ms)  # after the tap, which may redraw it
        editing = page.wait_for_function(_FOCUSED_JS, arg=handle, timeout=timeout_ms).json_value()
        if editing == "semantics" and before == "off":
            # first focus: wait for editing to attach (not every field autocorrects)
            try:
                page.wait_for_function(
                    _EDITING_JS + "return !i || i.getAttribute('autocorrect') !== 'off'; }",
                    arg=handle, timeout=min(timeout_ms, 3000))
            except PlaywrightTimeout:  # typed anyway, and checked below
                pass
        page.keyboard.press("Control+A")
        page.keyboard.type(text)
        page.wait_for_timeout(settle_ms)
        shown_value = (handle.evaluate(_EDITING_JS + "return i ? i.value : null; }") if editing == "semantics"
                       else page.evaluate("() => document.activeElement.value"))
        if shown_value == text:
            return
    raise AssertionError(f"the field shows {shown_value!r} after typing {text!r} {attempts} times")


# the start of a JS function of a field's semantics element that finds its editing element ``i``
_EDITING_JS = ("(e) => { const i = (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA') ? e"
               " : e.querySelector('input, textarea'); ")
# Which element edits the field ``e`` now: "semantics" (its own semantics input has the focus),
# "hidden" (Flutter's own hidden editing input over the field has it: a field focused before the
# semantics tree was switched on, e.g. an autofocused one after a reload, keeps that input), or
# false (neither yet).
_FOCUSED_JS = """(e) => {
    const a = document.activeElement;
    if (!a || (a.tagName !== 'INPUT' && a.tagName !== 'TEXTAREA')) return false;
    if (a === e || e.contains(a)) return 'semantics';
    if (!a.classList.contains('flt-text-editing')) return false;
    const r = a.getBoundingClientRect(), f = e.getBoundingClientRect();
    const cx = r.x + r.width / 2, cy = r.y + r.height / 2;
    return cx >= f.left && cx <= f.right && cy >= f.top && cy <= f.bottom ? 'hidden' : false;
}"""


def shown(page, text):
    """A locator for ``text`` (a string, or a compiled regex) on screen, whether Flutter exposes
    it as a text node or folds it into the accessible name of an enclosing card (``aria-label``)."""
    if isinstance(text, str):
        return page.get_by_text(text, exact=False).or_(page.get_by_label(text, exact=False)).first
    return page.get_by_text(text).or_(page.get_by_label(text)).first


def tap(page, name: str, settle_ms: int = 250) -> None:
    """Tap the button whose accessible name contains ``name`` (Flutter appends a chip's own text
    to its label, e.g. "add red 5 5"), then let the redraw land."""
    page.get_by_role("button", name=name).first.click()
    page.wait_for_timeout(settle_ms)


@contextmanager
def saved_game(data: Path, gid: str | None = None):
    """The saved game ``gid`` (or the one game) in ``data`` opened as Resume would, after checking
    that its log on disk equals its replay; the session is closed afterwards."""
    from companion.engine import replay
    from companion.session import GameSession
    from companion.store import GameStore

    store = GameStore(data)
    if gid is None:
        games = store.list_games().games
        assert len(games) == 1, games
        gid = games[0].game_id
    session = GameSession.open(store, gid)
    try:
        assert replay(session.actions).to_json() == session.state.to_json()
        yield session
    finally:
        session.close()


class ScreenTab:
    """A browser tab of the app as the end-to-end tests read it: ``nodes()`` (each subclass's
    own semantics query, rows beginning role, label, text), the texts on screen, the action
    log's count, polling for an effect, and a tap that is done when the log moves."""

    timeout_ms = 30000  # the shared machine can be slow; every wait is for an effect, not a delay
    artifacts: Path | None = None  # where ``shot`` writes: each test module's own folder

    def __init__(self, page, data: Path):
        self.page = page
        self.data = data
        self.shots: list[str] = []

    def shot(self, name: str) -> None:
        """A screenshot, once the page has settled, numbered in taking order (``03-name.png``)."""
        self.artifacts.mkdir(parents=True, exist_ok=True)
        settle(self.page, 350)
        path = self.artifacts / f"{len(self.shots) + 1:02d}-{name}.png"
        self.page.screenshot(path=str(path))
        self.shots.append(path.name)

    def nodes(self) -> list[list[str]]:
        raise NotImplementedError

    def texts(self) -> list[str]:
        """Every label and text on screen (a card's texts are folded into its label)."""
        return [x for row in self.nodes() for x in (row[1], row[2]) if x]

    def log_count(self) -> int | None:
        for t in self.texts():
            m = re.match(r"Action log \((\d+)\)", t)
            if m:
                return int(m.group(1))
        return None

    def wait(self, predicate, what: str, timeout_ms: int | None = None):
        """Poll the screen until ``predicate()`` is truthy (small polls, no fixed delay)."""
        deadline = time.monotonic() + (timeout_ms or self.timeout_ms) / 1000
        while True:
            v = predicate()
            if v:
                return v
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; on screen: {self.texts()[:60]}")
            self.page.wait_for_timeout(60)

    def tap_confirmed(self, locator, what: str) -> int:
        """Tap something that confirms a step: wait until the action log moves; returns its count."""
        before = self.log_count()
        locator.click()
        return self.wait(lambda: (n := self.log_count()) is not None and n != before and n, f"{what} to be saved")


SEMANTICS_JS = """() => Array.from(document.querySelectorAll('flt-semantics')).map(e => [
    e.getAttribute('role') || '', e.getAttribute('aria-label') || '',
    Array.from(e.childNodes).filter(n => n.nodeType === 3 || n.tagName === 'SPAN')
        .map(n => n.textContent).join('').trim()])"""


class SemanticsTab(ScreenTab):
    """A ``ScreenTab`` reading every semantics node (role, label, own text), an empty screen while
    the page is (re)loading, and ``shows(text)``: a label or text on screen contains ``text``."""

    def nodes(self) -> list[list[str]]:
        try:
            return self.page.evaluate(SEMANTICS_JS)
        except Exception:  # the page is (re)loading
            return []

    def shows(self, text: str) -> bool:
        return any(text in t for t in self.texts())
