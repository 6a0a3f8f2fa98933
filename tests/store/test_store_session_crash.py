"""THE crash test: a real process confirms real engine actions one by one and is killed with
SIGKILL mid-game; reopening the game loses nothing that was reported confirmed, and the state
equals a replay of the stored actions."""

from __future__ import annotations

import json
import sys

import pytest

from companion import engine
from companion.session import GameSession
from companion.store import GameStore
from session_game import play, start_action
from store_testutil import run_child_and_kill

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL semantics are POSIX")

CHILD_SEED = 11  # session_game.session_steps' default seed, used by crash_child.py


def js(state) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


@pytest.fixture(scope="module")
def driver_game():
    actions, final = play(CHILD_SEED)
    assert final.pending.kind == "game_over"
    return actions


@pytest.mark.parametrize("kill_after", [7, 90])
def test_sigkill_mid_game_loses_nothing_confirmed(tmp_path, driver_game, kill_after):
    assert kill_after + 5 < len(driver_game)  # the child is still playing when it is killed
    store = GameStore(tmp_path / "data")
    session = GameSession.create(store, [start_action()], title="crash test")
    gid = session.game_id
    session.close()

    lines = run_child_and_kill(["session", str(store.data_dir), gid], kill_after)
    confirmed = [int(line.split()[1]) for line in lines]
    assert confirmed == list(range(1, len(confirmed) + 1))
    last = confirmed[-1]

    with GameSession.open(store, gid) as again:  # replays through the checked apply
        stored = list(again.actions)
        # the set-up + every reported action; at most one more committed but not yet reported
        assert 1 + last <= len(stored) <= 2 + last
        assert stored == driver_game[: len(stored)]
        assert js(again.state) == js(engine.replay(stored)) == js(engine.replay(driver_game[: len(stored)]))
        # the game simply goes on
        following = driver_game[len(stored)]
        again.confirm(following)
    with GameSession.open(store, gid) as final:
        assert list(final.actions) == driver_game[: len(stored) + 1]
