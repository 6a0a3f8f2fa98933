"""Killing the process (SIGKILL, a real subprocess) loses nothing that was confirmed.

Store level, with plain action dicts: the engine-level version is in test_store_session_crash.py.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from companion.store import GameStore
from store_testutil import CRASH_CHILD, run_child_and_kill

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL semantics are POSIX")

_spec = importlib.util.spec_from_file_location("crash_child_plan", CRASH_CHILD)
plan = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plan)

SETUP = {"type": "setup", "seed": 3}


@pytest.mark.parametrize("kill_after", [3, 47])
def test_sigkill_mid_game_loses_no_confirmed_step(tmp_path, kill_after):
    store = GameStore(tmp_path / "data")
    log = store.create({"title": "crash"}, [SETUP])
    gid = log.game_id
    log.close()

    lines = run_child_and_kill(["store", str(store.data_dir), gid], kill_after)
    confirmed = [int(line.split()[1]) for line in lines]
    assert confirmed == list(range(1, len(confirmed) + 1))  # printed in order, none skipped
    last = confirmed[-1]
    assert last >= kill_after

    # the child never closed the game: its last steps are only in the WAL, which the reopen
    # has to verify read-only and recover
    assert store.path_of(gid).with_name(f"{gid}.sqlite-wal").stat().st_size > 0
    with store.open(gid) as again:
        steps = len(again.entries) - 1  # minus the set-up entry
        # everything confirmed is there; at most one more step was committed but not yet
        # reported when the signal arrived
        assert last <= steps <= last + 1
        assert again.actions() == plan.fold_ops([SETUP], steps)
        assert again.meta["round"] == steps
        # the game goes on normally after the crash
        again.append({"type": "after-crash"})
    with store.open(gid) as final:
        assert final.actions()[-1] == {"type": "after-crash"}


def test_sigkill_while_creating_games_leaves_only_whole_games(tmp_path):
    store = GameStore(tmp_path / "data")
    lines = run_child_and_kill(["create", str(store.data_dir)], 5, prefix="created")
    created = [line.split()[1] for line in lines]
    listing = store.list_games()
    assert listing.problems == ()  # no half-built game under a game's name
    ids = {g.game_id for g in listing.games}
    assert set(created) <= ids and len(ids) - len(created) <= 1
    for info in listing.games:
        with store.open(info.game_id) as log:
            n = int(info.title.split()[1])
            assert log.actions() == [{"type": "setup", "n": n}]
