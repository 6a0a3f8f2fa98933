"""Load check of the web server's bounds (issue 40), loopback only, bounded in count and time.

A server (``launch.run_server`` over ``launch.web_asgi_app``, the guard installed, as
``encyclopedia --web --host 127.0.0.1``) runs as a child process with one game live at the
table; the table's page (in the child) answers the game every ``--step-s`` seconds. This
process then, at the same time:

* opens ``--unregistered`` (5000) websockets to ``/ws`` that never register, from loopback
  addresses 127.1.x.y (a third close at once, a third send one garbage frame, a third send
  nothing and wait to be closed), at most ``--parallel`` at once;
* joins ``--phones`` (20) phones (raw Flet clients from 127.0.2.1 ...; each opens the game,
  types its join code) that churn the game: each taps Undo or Redo on its screen, again and
  again, and must get an answer (a redraw or the "another phone changed the game first"
  message) within 15 s each time.

Then the phones leave, and after Flet forgets their pages (``ENCYCLOPEDIA_SESSION_KEEP_S``, 5 s
here) the child's memory (VmRSS) is compared with its memory at the start (after a warm-up).
This is done ``--repeat`` times (2) on the same server: memory that is held grows again in the
second run; what the allocators keep to reuse does not. After each run the child reports where
its memory is (``mem_report``: resident memory by mapping, glibc's ``mallinfo2``, Python's
``pymalloc`` arenas, live objects by type, Flet pages and sessions still alive and what holds
them; with ``--census`` the heap's pages by the objects on them and who holds those; with
``--trace N`` a tracemalloc diff too, which slows the server several times). Finally the
child is sent SIGTERM: it must stop within 10 s and leave a save whose log on disk equals
the one in memory at the stop and replays through the engine (nothing lost).

    python benchmarks/serve_load.py [--unregistered 5000] [--phones 20] [--seconds 90] [--repeat 2]
                                    [--nice 10] [--census] [--trace 8]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "app"))
sys.path.insert(0, str(REPO / "tests" / "app" / "game"))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


# -- the server (child) ----------------------------------------------------------------------------
from server_memory import mallinfo, page_census, pymalloc_stats, smaps  # noqa: E402


def _holders(targets: list, max_depth: int = 30) -> list:
    """For each of ``targets``, a chain of referrers back to what keeps it alive (a module's
    globals, a class, a thread's running frame), by a breadth-first walk over a map of every
    gc-tracked object's referents, built once."""
    import contextvars
    import gc
    import types

    if not targets:  # (the map below is ~100 000 lists: not built for nothing)
        return []
    objs = gc.get_objects()
    back: dict = {}
    for o in objs:
        for r in gc.get_referents(o):
            back.setdefault(id(r), []).append(o)
    modules = {id(m.__dict__): name for name, m in list(sys.modules.items()) if m is not None}
    running = {id(f) for f in sys._current_frames().values()}

    def label(r, child) -> tuple:
        """(text, is a root)"""
        if isinstance(r, dict) and id(r) in modules:
            return f"globals of {modules[id(r)]}", True
        if isinstance(r, type):
            return f"class {r.__module__}.{r.__qualname__}", True
        if isinstance(r, contextvars.Context):  # a thread's (or a task's) context variables
            return f"contextvars.Context ({', '.join(v.name for v in r)})", True
        if isinstance(r, types.FrameType):
            return f"frame {r.f_code.co_qualname} ({Path(r.f_code.co_filename).name}:{r.f_lineno})", id(r) in running
        if isinstance(r, types.FunctionType):
            return f"function {r.__qualname__}", False
        if isinstance(r, dict):
            keys = [k for k, v in r.items() if v is child][:2]
            return f"dict{keys!r}", False
        t = type(r)
        return f"{t.__module__}.{t.__qualname__}", False

    chains = []
    for target in targets:
        seen = {id(target), id(objs), id(targets)}
        frontier = [(target, [])]
        found = None
        for _ in range(max_depth):
            nxt = []
            for obj, path in frontier:
                for r in back.get(id(obj), ()):
                    if id(r) in seen:
                        continue
                    seen.add(id(r))
                    text, root = label(r, obj)
                    if root:
                        found = path + [text]
                        break
                    nxt.append((r, path + [text]))
                if found:
                    break
            if found or not nxt:
                break
            frontier = nxt
        chains.append(found or ((frontier[0][1] if frontier else []) + ["(no root found)"]))
    del objs, back
    return chains


def _pages_in_workers() -> int:
    """How many of Flet's executor threads have a page in their context (``_context_page``):
    one task on each worker at once (a barrier), each reading the variable."""
    from flet.controls.context import _context_page
    from flet_web.fastapi.flet_app import app_manager

    ex = app_manager.executor
    n = len(ex._threads)
    if not n:
        return 0
    barrier = threading.Barrier(n, timeout=10)

    def probe():
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        return _context_page.get() is not None

    return sum(f.result(20) for f in [ex.submit(probe) for _ in range(n)])


def _linecache_size() -> list:
    import linecache

    return [len(linecache.cache), sum(len(v[2]) for v in linecache.cache.values() if len(v) > 2)]


def mem_report(data: Path, name: str, shared) -> dict:
    """What the server process holds now: resident memory by mapping, glibc's and Python's
    allocators, live objects by type, threads (and a tracemalloc snapshot with ``--trace``)."""
    import gc
    import tracemalloc

    gc.collect()
    counts: dict = {}
    for o in gc.get_objects():
        t = type(o)
        key = f"{t.__module__}.{t.__qualname__}"
        counts[key] = counts.get(key, 0) + 1
    from companion.app.common.serve_guard import _libc_function

    before_trim = rss_mb(os.getpid())
    trim = _libc_function("malloc_trim")
    if trim is not None:
        trim(0)
    rss_trimmed = rss_mb(os.getpid())
    # what compacting the game now would give (the server compacts it at its quiet passes,
    # which may have come before the table's last steps): a diagnostic, after the figures above
    compacted = None
    if shared is not None and trim is not None:
        with shared.lock:
            shared._session._compacted_at = None
            shared._session.compact()
        trim(0)
        compacted = rss_mb(os.getpid())
    rep = {"rss before a malloc_trim": before_trim, "rss": rss_trimmed, "rss after compacting the game": compacted,
           "pages": page_census(top=30) if os.environ.get("SERVE_LOAD_CENSUS") else {},
           "smaps": smaps(), "glibc": mallinfo(), "pymalloc": pymalloc_stats(),
           "threads": threading.active_count(), "gc objects": sum(counts.values()), "types": counts,
           "game listeners": len(getattr(shared, "_listeners", [])),
           "linecache (files, lines)": _linecache_size()}
    from flet.messaging.session import Session
    from flet_web.fastapi.flet_app import app_manager

    kept = set(map(id, getattr(app_manager, "_FletAppManager__sessions", {}).values()))
    left = [o for o in gc.get_objects() if isinstance(o, Session) and id(o) not in kept]
    rep["sessions left"] = len(left)
    rep["a session left is held by"] = _holders(left[:1])[0] if left else []
    from flet.controls.page import Page

    pages = [o for o in gc.get_objects() if isinstance(o, Page)]
    rep["pages left"] = len(pages)
    rep["pages left are held by"] = _holders(pages[:4])
    rep["pages in workers"] = _pages_in_workers()
    del left, pages
    if tracemalloc.is_tracing():
        rep["traced MB"] = round(tracemalloc.get_traced_memory()[0] / 1024 / 1024, 1)
        tracemalloc.take_snapshot().dump(str(data / f"snap-{name}.pickle"))
    return rep


def serve(port: int, data: Path, step_s: float) -> int:
    from companion.app import launch

    launch.server_allocator()  # as ``encyclopedia --web`` starts (re-executed once, same pid)
    os.environ["ENCYCLOPEDIA_DATA_DIR"] = str(data)
    if os.environ.get("SERVE_LOAD_TRACE"):
        import tracemalloc

        tracemalloc.start(int(os.environ["SERVE_LOAD_TRACE"]))
    from game_play import answer

    import companion.app.game.holder as game
    from companion.app import launch
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM, LocalCatalogue
    from companion.app.game.wizard_vm import HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    t = GameText()
    w = NewGameVM(t, random.Random(7))
    w.seats = [SeatDraft(HUMAN, "Zephyrine"), SeatDraft(HUMAN, "Quillondre")]
    w.shuffle_all()
    session = w.create(GameStore(data))
    shared = game.live_games().adopt(session)  # the table's page holds it
    vm = GameVM(shared, t, LocalCatalogue(data / "catalogue.json"))
    rng = random.Random(3)
    for _ in range(4):
        answer(vm, rng)
    stop = threading.Event()
    counts = {"table answers": 0}

    def table():
        while not stop.wait(step_s):
            if vm.step.kind == "game_over":
                return
            try:
                answer(vm, rng)
                counts["table answers"] += 1
            except AssertionError:
                pass  # refused (another page changed the game first): the next answer is fresh

    # what the server holds, read without walking the heap while the load runs (a walk
    # (``gc.get_objects``) every 2 s cost CPU, freed cycles early, and could catch a tuple
    # being built in another thread: Flet's code then failed with a SystemError): Flet's
    # sessions and connection handlers are counted through weak references, and how late the
    # event loop runs a callback is probed every 0.25 s
    import weakref

    from flet.messaging.session import Session
    from flet_web.fastapi.flet_app import FletApp

    from companion.app.common import serve_guard

    alive = {"FletApp": weakref.WeakSet(), "Session": weakref.WeakSet()}
    loop_box: list = []
    session_init = Session.__init__

    async def counted_handle(self, websocket):
        import asyncio

        if not loop_box:
            loop_box.append(asyncio.get_running_loop())
        alive["FletApp"].add(self)
        return await serve_guard.guarded_handle(self, websocket)

    def counted_session_init(self, *a, **kw):
        session_init(self, *a, **kw)
        alive["Session"].add(self)

    Session.__init__ = counted_session_init
    lag = {"max s": 0.0, "over 1 s": 0, "over 5 s": 0, "probes": 0}

    def probe_loop():
        while not stop.wait(0.25):
            if not loop_box:
                continue
            done = threading.Event()
            t0 = time.monotonic()
            loop_box[0].call_soon_threadsafe(done.set)
            done.wait()
            late = time.monotonic() - t0
            lag["probes"] += 1
            lag["max s"] = max(lag["max s"], round(late, 2))
            lag["over 1 s"] += late > 1.0
            lag["over 5 s"] += late > 5.0

    def diagnose():  # what the server holds, every 2 s (read by the parent at the end)
        from flet_web.fastapi.flet_app import app_manager

        from companion.app.common import serve_guard

        while not stop.wait(2.0):
            (data / "diag.json").write_text(json.dumps({
                "flet sessions kept": len(getattr(app_manager, "_FletAppManager__sessions", {})),
                "Session objects": len(alive["Session"]), "FletApp objects": len(alive["FletApp"]),
                "guard": serve_guard.stats(), "threads": threading.active_count(),
                "game listeners": len(getattr(shared, "_listeners", [])), "event loop lag": lag,
            }))

    def reports():  # a memory report when the parent asks (a file ``req-NAME``; see mem_report)
        while not stop.wait(0.2):
            for req in sorted(data.glob("req-*")):
                name = req.name[4:]
                req.unlink()
                tmp = data / f"mem-{name}.tmp"
                tmp.write_text(json.dumps(mem_report(data, name, shared)))
                tmp.replace(data / f"mem-{name}.json")

    app = launch.web_asgi_app()
    FletApp.handle = counted_handle  # (web_asgi_app installed the guard's handler: counted around it)
    threading.Thread(target=diagnose, daemon=True).start()
    threading.Thread(target=probe_loop, daemon=True).start()
    threading.Thread(target=reports, daemon=True).start()
    (data / "ready.json").write_text(json.dumps({"gid": session.game_id, "code": shared.join_code}))
    threading.Thread(target=table, daemon=True).start()

    real_close = launch.close_open_games

    def close_and_record():
        stop.set()
        with shared.lock:
            (data / "final.json").write_text(json.dumps({
                "actions": [a.to_json() for a in shared.actions], "version": shared.version,
                "table answers": counts["table answers"]}))
        real_close()

    launch.close_open_games = close_and_record
    return launch.run_server(app, "127.0.0.1", port)


# -- the clients (parent) --------------------------------------------------------------------------
def unregistered(port: int, n: int, parallel: int, out: dict) -> None:
    """``n`` websockets that never register, from 127.1.x.y, at most ``parallel`` at once."""
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    sem = threading.Semaphore(parallel)
    lock = threading.Lock()

    def one(i: int) -> None:
        kind = i % 3
        src = f"127.1.{(i // 250) % 250}.{i % 250 + 1}"
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(src, 0))
            ws = connect(f"ws://127.0.0.1:{port}/ws", sock=sock, open_timeout=20, close_timeout=2,
                         ping_interval=None).__enter__()
        except InvalidStatus:
            with lock:
                out["refused at the handshake"] += 1
            return
        except OSError:
            with lock:
                out["connect errors"] += 1
            return
        try:
            if kind == 0:
                ws.close()
                what = "closed by the client"
            else:
                if kind == 1:
                    ws.send(b"\x00\xc1garbage")
                t0 = time.monotonic()
                try:
                    while True:
                        ws.recv(timeout=30)
                except ConnectionClosed as exc:
                    code = exc.rcvd.code if exc.rcvd else None
                    what = f"closed by the server ({code})"
                    with lock:
                        out["server close s"].append(time.monotonic() - t0)
                except TimeoutError:
                    what = "left open by the server"
            with lock:
                out[what] = out.get(what, 0) + 1
        finally:
            try:
                ws.close()
            except Exception:
                pass

    def run(i: int) -> None:
        try:
            one(i)
        finally:
            sem.release()

    threads = []
    for i in range(n):
        sem.acquire()
        th = threading.Thread(target=run, args=(i,), daemon=True)
        th.start()
        threads.append(th)
    for th in threads:
        th.join(60)


def _phone_page_class():
    from ws_client import REGISTER_CLIENT, FletPage

    class PhonePage(FletPage):
        """tests/app/ws_client.py's raw Flet client, its socket from the loopback address ``src``."""

        def __init__(self, ws_url: str, src: str, page: dict):
            from websockets.sync.client import connect

            self.messages = []
            self._cond = threading.Condition()
            self._closed = False
            port = int(ws_url.rsplit(":", 1)[1].split("/")[0])
            sock = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(src, 0))
            self.ws = connect(ws_url, sock=sock, open_timeout=20, max_size=None, ping_interval=None,
                              close_timeout=5).__enter__()
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
            self.send(REGISTER_CLIENT, {"session_id": None, "page_name": "", "page": page})
            try:
                self.session_id = self.wait_for(lambda m: m[0] == REGISTER_CLIENT, "the registration",
                                                timeout=60)[1]["session_id"]
            except BaseException:
                self.close()
                raise

    return PhonePage


def phone(port: int, i: int, ready: dict, until: float, out: dict, lock: threading.Lock) -> None:
    from websockets.exceptions import ConnectionClosed
    from ws_client import browser_page

    PhonePage = _phone_page_class()

    from companion.app.game.texts import GameText

    gt = GameText()
    try:
        page = PhonePage(f"ws://127.0.0.1:{port}/ws", f"127.0.2.{i + 1}", browser_page(route=f"/game/{ready['gid']}"))
    except AssertionError as exc:
        with lock:
            out["phone failures"].append(f"phone {i}: {str(exc)[:400]}")
        return
    try:
        page.wait_text(gt("g.join.ask"), timeout=60)
        page.quiet(0.3)
        field = page.find(_c="TextField")
        page.set_props(field[-1]["_i"], value=ready["code"])
        go = [c for c in page.controls().values() if c.get("content") == gt("g.join.go")]
        mark = len(page.messages)
        page.event(go[-1]["_i"], "click")
        try:
            page.wait_text("Zephyrine", timeout=60)
        except AssertionError:  # what the page got after its tap on Join says why
            after = [t for _, t in page.all_strings(mark) if t.strip() and not t.startswith("#")][-10:]
            raise AssertionError(f"not in the game 60 s after its code (connection "
                                 f"{'closed' if page._closed else 'open'}; {len(page.messages) - mark} "
                                 f"messages after the tap, their last texts {after})") from None
        with lock:
            out["joined"] += 1
        rng = random.Random(i)
        while time.monotonic() < until:
            page.quiet(0.2, timeout=5)
            label = rng.choice([gt("g.game.undo"), gt("g.game.redo")])
            buttons = [c for c in page.controls().values() if c.get("_c") == "Semantics" and c.get("label") == label
                       and isinstance(c.get("content"), dict) and not c["content"].get("disabled")]
            if not buttons:
                continue
            target = max(b["content"]["_i"] for b in buttons)
            mark = len(page.messages)
            t0 = time.monotonic()
            page.event(target, "click")
            try:
                page.wait_for(lambda m: True, "an answer", timeout=15, start=mark)
                with lock:
                    out["taps answered"] += 1
                    out["answer s"].append(time.monotonic() - t0)
            except AssertionError:
                with lock:
                    out["taps unanswered"] += 1
            time.sleep(rng.uniform(0.1, 0.6))
    except AssertionError as exc:
        with lock:
            out["phone failures"].append(f"phone {i}: {str(exc)[:400]}")
    except ConnectionClosed as exc:  # the server closed the phone's websocket
        with lock:
            out["phone failures"].append(f"phone {i}: its connection was closed: {exc}")
    finally:
        page.close()


def ask_report(data: Path, child: subprocess.Popen, name: str, timeout: float = 300.0) -> dict:
    """The child's ``mem_report`` now (it writes ``mem-NAME.json`` when ``req-NAME`` appears)."""
    (data / f"req-{name}").write_text("")
    deadline = time.monotonic() + timeout
    out = data / f"mem-{name}.json"
    while not out.exists():
        assert child.poll() is None and time.monotonic() < deadline, f"no memory report {name}"
        time.sleep(0.2)
    return json.loads(out.read_text())


def print_reports(data: Path, reports: dict, trace: int) -> None:
    """Where the memory is: each report's mappings and allocators, then what changed since the start."""
    for name, rep in reports.items():
        pm = rep["pymalloc"]
        print(f"  {name}: RSS {rep['rss before a malloc_trim']:.1f} MB, {rep['rss']:.1f} MB after a malloc_trim, "
              f"{rep.get('rss after compacting the game') or 0:.1f} MB after compacting the game again and a trim; mappings {rep['smaps']}; glibc {rep['glibc']}; "
              f"pymalloc {pm.get('arenas allocated current', 0)} arenas, "
              f"{pm.get('bytes in allocated blocks', 0) / 2**20:.1f} MB in objects, "
              f"{pm.get('bytes in available blocks', 0) / 2**20:.1f} MB free in used pools, "
              f"{pm.get('bytes in available empty pools', 0) / 2**20:.1f} MB empty pools; "
              f"{rep['gc objects']} objects tracked by gc, {rep['threads']} threads"
              + (f", tracemalloc {rep['traced MB']} MB" if "traced MB" in rep else ""))
        if rep.get("pages"):
            print(f"    pages: {rep['pages']}")
    names = list(reports)
    first, last = reports[names[0]], reports[names[-1]]
    grown = sorted(((n - first["types"].get(t, 0), t) for t, n in last["types"].items()), reverse=True)[:12]
    for name, rep in reports.items():
        if rep.get("pages left"):
            print(f"  {name}: {rep['pages left']} Flet pages alive ({rep['pages in workers']} "
                  f"in the context of one of Flet's executor threads), held by:")
            for chain in rep["pages left are held by"]:
                print(f"    {' <- '.join(map(str, chain))}")
        if rep.get("sessions left"):
            print(f"  {name}: {rep['sessions left']} Flet sessions no longer kept by Flet are alive, "
                  f"held by: {' <- '.join(map(str, rep['a session left is held by']))}")
    held = "held by (on pages with 1-3 objects)"
    if held in first.get("pages", {}) and held in last.get("pages", {}):
        a, b = first["pages"][held], last["pages"][held]
        more = sorted(((n - a.get(c, 0), c) for c, n in b.items()), reverse=True)
        print(f"  lone objects' holders, {names[-1]} minus {names[0]}: "
              + ", ".join(f"{c} {d:+d}" for d, c in more if d > 0))
    print(f"  objects by type, {names[-1]} minus {names[0]}: "
          + ", ".join(f"{t} {d:+d}" for d, t in grown if d > 0))
    if trace:
        import tracemalloc

        a = tracemalloc.Snapshot.load(str(data / f"snap-{names[0]}.pickle"))
        b = tracemalloc.Snapshot.load(str(data / f"snap-{names[-1]}.pickle"))
        print(f"  tracemalloc, {names[-1]} minus {names[0]} (the largest growths):")
        diff = b.compare_to(a, "traceback")
        for st in diff[:12]:
            print(f"    {st.size_diff / 1024:+.0f} kB in {st.count_diff:+d} blocks, at")
            for line in st.traceback.format(limit=trace)[-2 * trace:]:
                print(f"      {line}")
        # blocks left, not bytes, pin glibc's pages: the places that left the most blocks
        print(f"  tracemalloc, {names[-1]} minus {names[0]} (the most blocks left):")
        for st in sorted(diff, key=lambda st: -st.count_diff)[:12]:
            print(f"    {st.count_diff:+d} blocks ({st.size_diff / 1024:+.0f} kB), at")
            for line in st.traceback.format(limit=trace)[-2 * trace:]:
                print(f"      {line}")


def run_load(port: int, ready: dict, args, out: dict, lock: threading.Lock, child: subprocess.Popen,
             peak: list) -> tuple:
    """One run: the phones churn while the unregistered websockets come; then the phones leave."""
    sampling = threading.Event()

    def sample():
        while not sampling.wait(0.5):
            peak[0] = max(peak[0], rss_mb(child.pid))

    threading.Thread(target=sample, daemon=True).start()
    t0 = time.monotonic()
    until = t0 + args.seconds
    phones = [threading.Thread(target=phone, args=(port, i, ready, until, out, lock), daemon=True)
              for i in range(args.phones)]
    for th in phones:
        th.start()
    unreg = threading.Thread(target=unregistered, args=(port, args.unregistered, args.parallel, out))
    unreg.start()
    unreg.join(args.seconds + 300)
    unreg_s = time.monotonic() - t0
    for th in phones:
        th.join(args.seconds + 120)
    during_mb = rss_mb(child.pid)
    # the phones have left: Flet forgets their pages after 5 s (evicted every 10 s)
    time.sleep(25)
    sampling.set()
    return unreg_s, during_mb, rss_mb(child.pid)


def print_run(args, out: dict, unreg_s: float) -> None:
    times = sorted(out["answer s"])
    closes = sorted(out["server close s"])

    def pct(xs, q):
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")

    print(f"  unregistered websockets: {args.unregistered} in {unreg_s:.1f} s "
          f"({args.parallel} at once, from {min(args.unregistered, 62500)} addresses 127.1.x.y)")
    for key in sorted(k for k in out if k.startswith(("closed", "left open", "refused", "connect"))):
        print(f"    {key}: {out[key]}")
    print(f"    closed by the server after (s): median {pct(closes, 0.5):.2f}, max {pct(closes, 1.0):.2f}")
    print(f"  phones: {out['joined']} of {args.phones} joined; taps answered {out['taps answered']}, "
          f"unanswered {out['taps unanswered']}; answer median {pct(times, 0.5):.2f} s, "
          f"p95 {pct(times, 0.95):.2f} s, max {pct(times, 1.0):.2f} s")
    for f in out["phone failures"]:
        print(f"    {f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unregistered", type=int, default=5000)
    ap.add_argument("--parallel", type=int, default=64)
    ap.add_argument("--phones", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=90.0, help="how long the phones churn")
    ap.add_argument("--step-s", type=float, default=2.0, help="the table's page answers this often")
    ap.add_argument("--repeat", type=int, default=2,
                    help="runs one after the other on the same server (memory is read after each)")
    ap.add_argument("--nice", type=int, default=0,
                    help="run this script's clients at this niceness once the server has started (the "
                         "server stays at 0): the attackers and phones are other machines at a table")
    ap.add_argument("--census", action="store_true",
                    help="count the heap's resident pages by the objects on them and their holders at each "
                         "report (its own tables move the next run's figures by a few MB)")
    ap.add_argument("--trace", type=int, default=0, metavar="FRAMES",
                    help="run the server under tracemalloc (FRAMES frames) and print what grew")
    ap.add_argument("--serve", nargs=2, metavar=("PORT", "DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        return serve(int(args.serve[0]), Path(args.serve[1]), args.step_s)
    assert args.unregistered <= 20000 and args.phones <= 100 and args.seconds <= 600 and 1 <= args.repeat <= 3, \
        "bounded"

    from webapp import free_port

    with tempfile.TemporaryDirectory(prefix="enc-serve-load-") as d:
        data = Path(d)
        port = free_port()
        env = dict(os.environ, PYTHONPATH=str(REPO), ENCYCLOPEDIA_SESSION_KEEP_S="5")
        if args.trace:
            env["SERVE_LOAD_TRACE"] = str(args.trace)
        if args.census:
            env["SERVE_LOAD_CENSUS"] = "1"
        child = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(data), "--step-s", str(args.step_s)],
                                 cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        child_log: list = []  # read as it comes: a full pipe (64 kB of logged tracebacks) blocked the server

        def drain():
            for line in child.stdout:
                child_log.append(line)
                del child_log[:-400]

        drainer = threading.Thread(target=drain, daemon=True)
        drainer.start()
        if args.nice:
            os.nice(args.nice)
        try:
            deadline = time.monotonic() + 60
            while not (data / "ready.json").exists() or not _port_open(port):
                assert child.poll() is None and time.monotonic() < deadline, "".join(child_log)
                time.sleep(0.1)
            ready = json.loads((data / "ready.json").read_text())
            cold_mb = rss_mb(child.pid)
            out = {"refused at the handshake": 0, "connect errors": 0, "server close s": [], "joined": 0,
                   "taps answered": 0, "taps unanswered": 0, "answer s": [], "phone failures": []}
            lock = threading.Lock()
            # warm-up: one phone joins and taps a few times and leaves, a few unregistered
            # connections come and go (the game screens and Flet's machinery are imported and
            # built once, when the first page opens a game); the start is measured after it
            phone(port, 99, ready, time.monotonic() + 3, out, lock)
            unregistered(port, 30, 30, out)
            time.sleep(22)  # the warm-up page is forgotten (5 s, evicted every 10 s)
            start_mb = rss_mb(child.pid)
            reports = {"start": ask_report(data, child, "start")}
            print(f"server pid {child.pid} on 127.0.0.1:{port}: {cold_mb:.1f} MB before any client, "
                  f"{start_mb:.1f} MB after a warm-up (one phone, 30 unregistered connections): the start")
            peak = [start_mb]
            runs = []
            for r in range(args.repeat):
                out = {k: (type(v)() if not isinstance(v, int) else 0) for k, v in out.items()}
                unreg_s, during_mb, after_mb = run_load(port, ready, args, out, lock, child, peak)
                reports[f"after-{r + 1}"] = ask_report(data, child, f"after-{r + 1}")
                runs.append((out, during_mb, after_mb))
                print(f"run {r + 1} of {args.repeat}:")
                print_run(args, out, unreg_s)
                print(f"  server memory: {during_mb:.1f} MB when the phones left, {after_mb:.1f} MB after their "
                      f"pages were forgotten ({after_mb - start_mb:+.1f} MB over the start)", flush=True)
            diag = (data / "diag.json").read_text() if (data / "diag.json").exists() else "{}"
            t_stop = time.monotonic()
            child.send_signal(signal.SIGTERM)
            child.wait(timeout=30)
            drainer.join(10)
            log = "".join(child_log)
            stop_s = time.monotonic() - t_stop
            final = json.loads((data / "final.json").read_text())
            from companion.actions import action_from_json
            from companion.engine import replay
            from companion.store import GameStore

            with GameStore(data).open(ready["gid"]) as saved:
                on_disk = saved.actions()
            replay([action_from_json(a) for a in on_disk])  # raises if a step is not legal
            lost = on_disk != final["actions"]
            print(f"the table's page answered {final['table answers']} steps; game version {final['version']}, "
                  f"{len(on_disk)} actions on disk")
            print(f"server memory: {start_mb:.1f} MB at the start, peak {peak[0]:.1f} MB, after each run "
                  + ", ".join(f"{a:.1f} MB ({a - start_mb:+.1f})" for _, _, a in runs))
            print("where it is (RSS by mapping, glibc's malloc, Python's pymalloc, objects):")
            print_reports(data, reports, args.trace)
            print(f"what the server held then: {diag}")
            print(f"SIGTERM: stopped in {stop_s:.2f} s, exit status {child.returncode}")
            print("nothing lost: the log on disk equals the one in memory at the stop and replays"
                  if not lost else "LOST: the log on disk differs from the one in memory")
            ok = (not lost and child.returncode == 0 and stop_s < 10
                  and all(a - start_mb <= 20 for _, _, a in runs)
                  and all(o["joined"] == args.phones and o["taps unanswered"] == 0
                          and o.get("left open by the server", 0) == 0 and not o["phone failures"]
                          for o, _, _ in runs))
            print("PASS" if ok else "FAIL")
            if not ok:
                print(log[-3000:])
            return 0 if ok else 1
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(5)


def _port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
