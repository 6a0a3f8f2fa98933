"""Child process for the crash tests (run as a script, killed with SIGKILL by the test).

    python crash_child.py store DATA_DIR GAME_ID    append/undo/redo plain dicts (store level)
    python crash_child.py create DATA_DIR           create games one after the other
    python crash_child.py session DATA_DIR GAME_ID  confirm real engine actions (see below)

After each step is confirmed (the store call has returned), it prints ``confirmed N`` (or
``created ID``) and flushes, so the test knows what must survive the kill. It runs until killed
(or a large step count, so that a broken test cannot hang for ever).
"""

from __future__ import annotations

import sys
from pathlib import Path

MAX_STEPS = 100_000


def store_op(n: int) -> tuple:
    """Step ``n`` (1-based) of the store-level game: ("do", action) | ("undo",) | ("redo",).
    Every 10 steps: undo at 4, redo at 5, undo at 8 and a new action at 9 that drops that redo."""
    r = n % 10
    if r in (4, 8):
        return ("undo",)
    if r == 5:
        return ("redo",)
    return ("do", {"type": "step", "n": n, "payload": {"die": n % 6 + 1, "note": f"action {n}"}})


def fold_ops(initial: list[dict], count: int) -> list[dict]:
    """The current action list after the first ``count`` steps (what a reopen must show)."""
    active = list(initial)
    redo: list[dict] = []
    for n in range(1, count + 1):
        op = store_op(n)
        if op[0] == "do":
            active.append(op[1])
            redo.clear()
        elif op[0] == "undo":
            redo.append(active.pop())
        else:
            active.append(redo.pop())
    return active


def _run_store(data_dir: str, game_id: str) -> None:
    from companion.store import GameStore

    log = GameStore(data_dir).open(game_id)
    print("ready", flush=True)
    for n in range(1, MAX_STEPS + 1):
        op = store_op(n)
        if op[0] == "do":
            log.append(op[1], meta={"round": n})
        elif op[0] == "undo":
            log.undo(meta={"round": n})
        else:
            log.redo(meta={"round": n})
        print(f"confirmed {n}", flush=True)


def _run_create(data_dir: str) -> None:
    from companion.store import GameStore

    store = GameStore(data_dir)
    print("ready", flush=True)
    for n in range(1, MAX_STEPS + 1):
        log = store.create({"title": f"game {n}"}, [{"type": "setup", "n": n}])
        log.close()
        print(f"created {log.game_id}", flush=True)


def _run_session(data_dir: str, game_id: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from session_game import session_steps  # real engine actions (tests/store/session_game.py)

    from companion.session import GameSession
    from companion.store import GameStore

    session = GameSession.open(GameStore(data_dir), game_id)
    print("ready", flush=True)
    for n, action in enumerate(session_steps(session), start=1):
        session.confirm(action)
        print(f"confirmed {n}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "store":
        _run_store(sys.argv[2], sys.argv[3])
    elif mode == "create":
        _run_create(sys.argv[2])
    elif mode == "session":
        _run_session(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(f"unknown mode {mode!r}")
