"""Where a server process's memory is (a diagnostic of ``benchmarks/serve_load.py``'s memory
report, read inside the server): glibc's ``mallinfo2``, resident memory by mapping, the heap's
resident pages by the Python objects on them, and pymalloc's arenas."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def mallinfo() -> dict:
    """glibc's heap figures (MB): arena (sbrk heap + arenas), used, free (kept by malloc), mmapped."""
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                   "fsmblks", "uordblks", "fordblks", "keepcost")]
    from companion.app.common.serve_guard import _libc_function

    mallinfo2 = _libc_function("mallinfo2")
    if mallinfo2 is None:
        return {}
    mallinfo2.restype = MallInfo2
    m = mallinfo2()
    mb = 1024 * 1024
    return {"arena": round(m.arena / mb, 1), "used": round(m.uordblks / mb, 1), "free": round(m.fordblks / mb, 1),
            "mmapped": round(m.hblkhd / mb, 1)}


def smaps() -> dict:
    """The process's resident memory (MB) by kind of mapping."""
    kinds: dict = {}
    name = "?"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if not head:
            continue
        if not head[0].endswith(":") and "-" in head[0]:
            path = head[5] if len(head) > 5 else ""
            name = ("[heap]" if path == "[heap]" else "[stack]" if path.startswith("[stack") else
                    "file " + Path(path).suffix if path.startswith("/") else "anonymous")
        elif head[0] == "Rss:":
            kinds[name] = kinds.get(name, 0) + int(head[1])
    return {k: round(v / 1024, 1) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]) if v >= 512}


def page_census(top: int = 12) -> dict:
    """Which objects keep the heap's pages resident (a diagnostic): the resident 4 kB pages of
    the heap and anonymous mappings (``/proc/self/pagemap``, readable by root; else empty), the
    Python objects on each (gc-tracked ones and what they refer to, by address and size), and,
    for pages that hold 1-3 objects, those objects' types; pages that hold none are held by C
    allocations (SQLite's cache, buffers) or by free memory glibc has not handed back."""
    import gc
    import struct

    ranges = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        f = line.split()
        if len(f) < 5 or "w" not in f[1]:
            continue
        if (len(f) == 6 and f[5] == "[heap]") or len(f) == 5:
            a, b = (int(x, 16) for x in f[0].split("-"))
            ranges.append((a, b, f[5] if len(f) == 6 else "anonymous"))
    resident: dict = {}
    try:
        with open("/proc/self/pagemap", "rb") as pm:
            for a, b, kind in ranges:
                pm.seek((a >> 12) * 8)
                raw = pm.read(((b - a) >> 12) * 8)
                for i, (v,) in enumerate(struct.iter_unpack("<Q", raw)):
                    if v >> 63:
                        resident[(a >> 12) + i] = kind
    except OSError as e:
        return {"error": str(e)}
    seen: dict = {}
    everything = gc.get_objects()
    for o in everything:
        seen[id(o)] = o
        for r in gc.get_referents(o):
            seen.setdefault(id(r), r)
    per_page: dict = {}
    for addr, o in seen.items():
        try:
            size = sys.getsizeof(o)
        except Exception:  # noqa: BLE001 - a diagnostic
            size = 16
        for page in range(addr >> 12, ((addr + max(size, 1) - 1) >> 12) + 1):
            if page in resident:
                per_page.setdefault(page, []).append(o)
    sparse: dict = {}
    n_sparse = 0
    lonely: dict = {}  # id -> object, the objects on pages that hold 1-3
    for page, objs in per_page.items():
        if len(objs) <= 3:
            n_sparse += 1
            for o in objs:
                sparse[_type_name(o)] = sparse.get(_type_name(o), 0) + 1
                lonely[id(o)] = o
    # who holds them: for each lonely object the type of a gc object referring to it, and for a
    # referring dict or list, the type of what holds that in turn ("str < dict < State")
    containers = (dict, list, tuple, set, frozenset)

    # the census's own tables refer to everything: never a holder (those made after ``everything``
    # are not in it)
    mine = {id(seen), id(per_page), id(lonely), id(everything), id(resident)} | {id(v) for v in per_page.values()}

    def holders_of(ids: set) -> dict:
        # one referrer each, preferring one that is not a plain container (it names an owner)
        found: dict = {}
        for o in everything:
            if id(o) in mine:
                continue
            for r in gc.get_referents(o):
                if id(r) in ids and r is not o:
                    old = found.get(id(r))
                    if old is None or (isinstance(old, containers) and not isinstance(o, containers)):
                        found[id(r)] = o
        return found

    def label(h, detail: bool) -> str:
        # a holder's type; for a dict, what it is if that shows: a module's globals, a class's
        # namespace, or two of its keys
        name = _type_name(h)
        if isinstance(h, dict):
            if isinstance(h.get("__name__"), str) and "__builtins__" in h:
                return f"globals of {h['__name__']}"
            if detail:
                keys = list(h)[:2]
                return f"dict{{{', '.join(repr(k)[:24] for k in keys)}{', ...' if len(h) > 2 else ''}}}"
        return name

    # up to four holders up, while the holder is a plain container
    hops = [holders_of(set(lonely))]
    for _ in range(3):
        wanted = {id(h) for h in hops[-1].values() if isinstance(h, containers)}
        if not wanted:
            break
        hops.append(holders_of(wanted))
    chains: dict = {}
    examples: dict = {}
    samples: dict = {}
    for i, o in lonely.items():
        parts, shown, cur = [_type_name(o)], [repr(o)[:40]], i
        for level in hops:
            h = level.get(cur)
            if h is None:
                parts.append("(no gc holder)" if len(parts) == 1 else "?")
                break
            parts.append(label(h, False))
            shown.append(label(h, True))
            if not isinstance(h, containers):
                break
            cur = id(h)
        chain = " < ".join(parts)
        chains[chain] = chains.get(chain, 0) + 1
        ex = examples.setdefault(chain, [])
        if len(ex) < 3:
            ex.append(" < ".join(shown))
        if isinstance(o, str) and len(samples) < 400:
            samples[o[:40]] = samples.get(o[:40], 0) + 1
    by_kind: dict = {}
    for page, kind in resident.items():
        k = by_kind.setdefault(kind, [0, 0, 0])
        k[0] += 1
        n = len(per_page.get(page, ()))
        k[1] += n == 0
        k[2] += 0 < n <= 3
    frequent = sorted(chains.items(), key=lambda kv: -kv[1])
    return {"resident pages (all / with no Python object / with 1-3)": by_kind,
            "types on pages with 1-3 objects": dict(sorted(sparse.items(), key=lambda kv: -kv[1])[:top]),
            "held by (on pages with 1-3 objects)": dict(frequent[:2 * top]),
            "examples of the most frequent": {c: examples[c] for c, _ in frequent[:top]},
            "strings there (first 40 characters)": dict(sorted(samples.items(), key=lambda kv: -kv[1])[:top]),
            "pages with 1-3 objects": n_sparse}


def _type_name(o) -> str:
    t = type(o)
    return f"{t.__module__}.{t.__qualname__}"


def pymalloc_stats() -> dict:
    """Python's small-object allocator (``sys._debugmallocstats``): arenas of 256 kB, bytes in use."""
    r, w = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(w, 2)
        os.close(w)
        sys._debugmallocstats()  # a few kB of text: it fits the pipe
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    text = b""
    while chunk := os.read(r, 65536):
        text += chunk
    os.close(r)
    out = {}
    for line in text.decode(errors="replace").splitlines():
        for key in ("# arenas allocated current", "# bytes in allocated blocks", "# bytes in available blocks",
                    "# bytes in available empty pools", "Total"):
            if line.startswith(key + " ") and key.lstrip("# ") not in out:
                out[key.lstrip("# ")] = int(line.rsplit("=", 1)[-1].strip().replace(",", ""))
    return out
