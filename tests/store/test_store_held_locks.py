"""Listing the saved games while a game is open in this process must not drop this process's
SQLite locks on it (closing any descriptor of a file drops every POSIX lock the process holds
on it): otherwise another process that opens and closes the game thinks it is the last one,
deletes the WAL, and what this process confirms next is written into a deleted file."""

from __future__ import annotations

import subprocess
import sys

from companion.store import GameStore


def test_listing_while_open_keeps_the_game_visible_to_other_processes(tmp_path):
    store = GameStore(tmp_path)
    log = store.create({"title": "held"}, [{"type": "x", "n": 0}])
    try:
        assert [g.game_id for g in store.list_games().games] == [log.game_id]  # reads the header
        other = ("import sys; from companion.store import GameStore; "
                 "l = GameStore(sys.argv[1]).open(sys.argv[2]); print(len(l.actions())); l.close()")
        run = [sys.executable, "-c", other, str(tmp_path), log.game_id]
        assert subprocess.run(run, capture_output=True, text=True, check=True).stdout.strip() == "1"
        log.append({"type": "x", "n": 1})
        assert subprocess.run(run, capture_output=True, text=True, check=True).stdout.strip() == "2"
    finally:
        log.close()
