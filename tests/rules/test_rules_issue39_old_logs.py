"""Issue 39: a change in what is legal must not break the replay of a game saved before it.

The session records which rules checked a game (``meta["rules"]``, ``engine.RULES_VERSION``);
a game without it was checked by version 1 and replays an action the rules now refuse
unchecked, as it was played. A game of the current rules is still checked in full.
"""

import pytest

import rulekit
from companion.actions import Publish
from companion.engine import RULES_VERSION, apply
from companion.session import GameSession, SavedGameReplayError
from companion.store import GameStore


def _recorded_eric_game(monkeypatch):
    """Eric's table, with every action applied recorded (as the session would store it)."""
    done = []

    def do(self, *actions):
        for a in actions:
            apply(self.st, a)
            done.append(a)
        return self

    monkeypatch.setattr(rulekit.Table, "do", do)
    t, c = rulekit.eric_game()
    return t, c, done


def test_a_game_saved_before_issue_39_still_opens(tmp_path, monkeypatch):
    t, c, done = _recorded_eric_game(monkeypatch)
    old_move = Publish(0, c["aix"], up_to=1)  # accepted by rules 1, refused now (item 3)
    dicts = [a.to_json() for a in done + [old_move]]
    store = GameStore(tmp_path)
    log = store.create({"title": "old"}, dicts)  # no "rules" in the meta: rules 1
    gid = log.game_id
    log.close()
    s = GameSession.open(store, gid)
    assert s.state.seats[0].pub_cubes == {"bird": 1} and s.meta.get("rules") is None
    assert RULES_VERSION >= 2
    s.close()
    # the same record written by the current rules is checked in full: refused, named
    log = store.create({"title": "new", "rules": RULES_VERSION}, dicts)
    gid2 = log.game_id
    log.close()
    with pytest.raises(SavedGameReplayError) as ei:
        GameSession.open(store, gid2)
    assert ei.value.index == len(dicts)
    # an export of the old game imports the same way, and keeps its rules version
    imported = GameSession.import_game(store, {"format": "encyclopedia-companion-game", "schema": 1,
                                               "meta": {"title": "old"}, "actions": dicts})
    assert imported.state.seats[0].pub_cubes == {"bird": 1} and imported.meta.get("rules") == 1
    imported.close()


def test_a_new_game_records_the_rules_that_check_it(tmp_path, monkeypatch):
    from companion.actions import SeatConfig, StartGame
    store = GameStore(tmp_path)
    s = GameSession.create(store, [StartGame((SeatConfig("A"), SeatConfig("B")))])
    assert s.meta["rules"] == RULES_VERSION
    s.close()
