"""GameSession: the real engine over the event log."""

from __future__ import annotations

import json

import pytest

from companion import engine
from companion.actions import Bank, StartGame, SeatConfig, TakeDie, action_from_json
from companion.errors import GameOverError, RuleError, SetupError
from companion.engine import State, apply_unchecked
from companion.session import GameSession, SavedGameReplayError, replay_export
from companion.store import (
    EXPORT_FORMAT,
    GameStore,
    NothingToRedoError,
    NothingToUndoError,
    SaveWriteError,
    read_export,
)
from session_game import next_action, play, start_action
from store_testutil import digest, snapshot

SEED = 5


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "data")


@pytest.fixture(scope="module")
def game():
    """A whole legal 2-seat game from the driver: (actions, final state)."""
    actions, final = play(SEED)
    assert final.pending.kind == "game_over" and len(actions) > 150
    return actions, final


def js(state) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def new_session(store, title="Test game") -> GameSession:
    return GameSession.create(store, [start_action()], title=title)


def confirm_driver(session: GameSession, count: int, seed: int = SEED) -> None:
    for _ in range(count):
        session.confirm(next_action(session.state, seed))


# --- create / confirm / reopen ---------------------------------------------------------------


def test_a_whole_game_confirmed_then_reopened_has_the_same_actions_and_state(store, game):
    actions, final = game
    s = new_session(store)
    for a in actions[1:]:
        s.confirm(a)
    assert list(s.actions) == actions
    assert js(s.state) == js(final)
    meta = s.meta
    assert meta["finished"] is True and meta["round"] == 6 and meta["actions"] == len(actions)
    assert [x["name"] for x in meta["seats"]] == ["Ana", "Ben"]
    assert [x["vp"] for x in meta["seats"]] == [seat.vp for seat in final.seats]
    gid = s.game_id
    s.close()
    with GameSession.open(store, gid) as again:
        assert list(again.actions) == actions
        assert js(again.state) == js(final) == js(engine.replay(actions))
        # the game is over: nothing more is accepted, nothing is written
        before = digest(again.path)
        with pytest.raises(GameOverError):
            again.confirm(Bank(seat=0))
        assert len(again.actions) == len(actions)
    assert digest(store.path_of(gid)) == before


def test_a_refused_action_changes_nothing_in_memory_or_on_disk(store):
    s = new_session(store)
    confirm_driver(s, 40)
    state_before, actions_before, head = js(s.state), s.actions, s._log.head
    with pytest.raises(RuleError):
        s.confirm(TakeDie(seat=1 - (s.state.pending.seat or 0), owner=0, slot=9))
    with pytest.raises(TypeError, match="engine action"):
        s.confirm({"type": "bank", "seat": 0})
    assert js(s.state) == state_before and s.actions == actions_before and s._log.head == head
    s.close()
    with GameSession.open(store, s.game_id) as again:
        assert again.actions == actions_before


def test_create_refuses_a_bad_set_up_and_writes_nothing(store):
    with pytest.raises(SetupError):
        GameSession.create(store, [StartGame(seats=(SeatConfig("Solo"),))])
    with pytest.raises(SetupError):
        GameSession.create(store, [StartGame(seats=(SeatConfig("A"), SeatConfig("A")))])
    assert store.list_games() == type(store.list_games())((), ())
    assert not store.games_dir.exists() or list(store.games_dir.iterdir()) == []


def test_what_is_applied_is_what_is_stored(store):
    s = new_session(store)
    confirm_driver(s, 30)
    for stored, applied in zip(s._log.actions(), s.actions):
        assert action_from_json(stored) == applied
        assert stored == applied.to_json()
    s.close()


def test_a_failed_disk_write_leaves_the_session_as_it_was(store):
    s = new_session(store)
    confirm_driver(s, 10)
    conn = s._log._conn
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    failed = None
    for _ in range(400):  # keep playing until the file would have to grow: "disk full"
        before_state, before_actions = js(s.state), s.actions
        action = next_action(s.state, SEED)
        try:
            s.confirm(action)
        except SaveWriteError as e:
            failed = (action, e)
            break
    assert failed is not None, "the file never needed to grow"
    action, error = failed
    assert "full" in str(error)
    assert js(s.state) == before_state and s.actions == before_actions
    conn.execute("PRAGMA max_page_count = 1000000")
    s.confirm(action)  # the same step goes through once there is room
    expected = list(s.actions)
    s.close()
    with GameSession.open(store, s.game_id) as again:
        assert list(again.actions) == expected
        assert js(again.state) == js(engine.replay(expected))


# --- undo / redo -----------------------------------------------------------------------------


def test_undo_redo_and_a_new_action_after_undo(store):
    s = new_session(store)
    confirm_driver(s, 25)
    states = []
    full = list(s.actions)
    for k in range(3):
        states.append(js(s.state))
        assert s.undo() == full[-1 - k]
        assert js(s.state) == js(engine.replay(full[: -1 - k]))
    assert s.can_redo and s.next_redo() == full[-3]
    assert s.redo() == full[-3]
    assert js(s.state) == states[2]
    # a new (different) action after undo drops what was left to redo
    s.undo()
    alternatives = [a for a in _legal_alternatives(s.state) if a != full[-3]]
    if alternatives:
        s.confirm(alternatives[0])
        assert not s.can_redo
        with pytest.raises(NothingToRedoError):
            s.redo()
        expected = full[:-3] + [alternatives[0]]
    else:  # pragma: no cover - the driver always leaves a choice here
        expected = full[:-3]
    assert list(s.actions) == expected
    s.close()
    with GameSession.open(store, s.game_id) as again:
        assert list(again.actions) == expected
        assert js(again.state) == js(engine.replay(expected))



def test_kept_states_and_log_lines_follow_every_undo_and_redo(store):
    """An undo takes the kept state before the last action instead of replaying, and the log
    lines are kept in step; both equal a fresh replay, beyond the kept window too."""
    from companion import session as session_mod

    def fresh_log(actions):
        st, out = State(s.state.board), []
        for a in actions:
            out.append(str(engine_describe.describe(st, a)))
            apply_unchecked(st, a)
        return out

    from companion.engine import log_lines as engine_describe

    s = new_session(store)
    confirm_driver(s, session_mod.KEPT_STATES + 10)
    assert len(s.log_messages()) == len(s.actions)
    for k in range(session_mod.KEPT_STATES + 5):  # past the kept states: replays, as before
        s.undo()
        if k % 7 == 0 or k >= session_mod.KEPT_STATES - 1:
            assert js(s.state) == js(engine.replay(list(s.actions)))
            assert [str(m) for m in s.log_messages()] == fresh_log(list(s.actions))
    for _ in range(8):
        s.redo()
    s.undo()
    s.undo()
    confirm_driver(s, 3)
    assert js(s.state) == js(engine.replay(list(s.actions)))
    assert [str(m) for m in s.log_messages()] == fresh_log(list(s.actions))
    s.close()


def _legal_alternatives(state):
    out = []
    for seed in range(50):
        a = next_action(state, seed)
        if a is not None and a not in out:
            out.append(a)
    return out


def test_undo_stops_at_the_set_up_and_redo_survives_reopening(store):
    s = new_session(store)
    confirm_driver(s, 3)
    for _ in range(3):
        s.undo()
    assert not s.can_undo and len(s.actions) == 1
    with pytest.raises(NothingToUndoError):
        s.undo()
    s.redo()
    gid = s.game_id
    s.close()
    with GameSession.open(store, gid) as again:
        assert len(again.actions) == 2 and again.can_redo
        again.redo()
        again.redo()
        assert not again.can_redo and len(again.actions) == 4
        assert js(again.state) == js(engine.replay(list(again.actions)))


# --- export / import -------------------------------------------------------------------------


def test_export_import_gives_identical_actions_and_state(store, tmp_path, game):
    actions, final = game
    s = new_session(store, title="Exported")
    for a in actions[1:120]:
        s.confirm(a)
    path = s.export_file(tmp_path / "game.json")
    doc = read_export(path)
    assert doc["format"] == EXPORT_FORMAT and doc["schema"] == 1
    assert doc["actions"] == [a.to_json() for a in actions[:120]]
    assert js(replay_export(doc)) == js(s.state)

    elsewhere = GameStore(tmp_path / "other-device")
    imported = GameSession.import_file(elsewhere, path)
    assert imported.game_id == s.game_id and imported.title == "Exported"
    assert imported.meta["created"] == doc["meta"]["created"]
    assert imported.actions == s.actions and js(imported.state) == js(s.state)
    # the imported game plays on
    imported.confirm(actions[120])
    imported.close()
    # importing into the same folder makes a copy and leaves the original alone
    s.close()
    before = digest(s.path)
    copy = GameSession.import_game(store, doc)
    assert copy.game_id != s.game_id and js(copy.state) == js(engine.replay(actions[:120]))
    copy.close()
    assert digest(store.path_of(s.game_id)) == before


def test_import_of_an_illegal_game_names_the_action_and_writes_nothing(store, game):
    actions, _ = game
    dicts = [a.to_json() for a in actions[:30]]
    bad = dict(dicts[12], seat=7) if "seat" in dicts[12] else {"type": "pass", "seat": 7}
    doc = {"format": EXPORT_FORMAT, "schema": 1, "meta": {"title": "x"}, "actions": dicts[:12] + [bad] + dicts[13:]}
    with pytest.raises(SavedGameReplayError, match="action 13") as info:
        GameSession.import_game(store, doc)
    assert info.value.index == 13 and info.value.playable == 12
    doc["actions"] = dicts[:3] + [{"type": "teleport"}]
    with pytest.raises(SavedGameReplayError, match="action 4 .teleport. cannot be read"):
        GameSession.import_game(store, doc)
    assert not store.games_dir.exists() or list(store.games_dir.iterdir()) == []


# --- a saved action the engine refuses ----------------------------------------------------


def test_a_stored_action_that_no_longer_applies_is_reported_and_the_file_kept(store, game):
    actions, _ = game
    dicts = [a.to_json() for a in actions[:40]]
    dicts[25] = {"type": "bank", "seat": 1 - dicts[25].get("seat", 0)} if "seat" in dicts[25] else {"type": "pass", "seat": 0}
    log = store.create({"title": "Old game"}, dicts)  # as if written by a version with other rules
    gid = log.game_id
    log.close()
    before = snapshot(store.games_dir)
    with pytest.raises(SavedGameReplayError, match=r"'Old game': action 26 \(.*\) is refused by the rules") as info:
        GameSession.open(store, gid)
    assert info.value.index == 26 and info.value.playable == 25 and info.value.game_id == gid
    assert isinstance(info.value.reason, RuleError)
    assert snapshot(store.games_dir) == before
    # on request: a new game with the 25 playable actions; the original stays as it was
    copy = GameSession.copy_playable_part(store, gid)
    assert copy.game_id != gid and len(copy.actions) == 25
    assert copy.title == "Old game (first 25 actions)" and copy.meta["copied_from"] == gid
    assert js(copy.state) == js(engine.replay(actions[:25]))
    copy.close()
    assert {k: v for k, v in snapshot(store.games_dir).items() if k in before} == before


def test_listing_shows_what_the_session_recorded(store):
    s = new_session(store, title="Listed")
    confirm_driver(s, 60)
    round_now = s.state.round
    s.close()
    (info,) = store.list_games().games
    assert info.title == "Listed" and info.round == round_now and round_now >= 1
    assert [x["name"] for x in info.seats] == ["Ana", "Ben"]
    assert info.action_count == 61


def test_log_lines_one_readable_line_per_action(store):
    from companion.engine import describe_action

    s = new_session(store)
    confirm_driver(s, 30)
    lines = s.log_lines()
    assert len(lines) == len(s.actions) == 31
    assert "Ana" in lines[0] and "Ben" in lines[0]
    # each line is the engine's description of that action in the state before it
    replayed = State()
    for line, action in zip(lines, s.actions):
        assert line == describe_action(replayed, action) and line.strip()
        apply_unchecked(replayed, action)
        if getattr(action, "seat", None) is not None and action.TYPE != "start_game":
            assert replayed.seats[action.seat].name in line
    s.close()


@pytest.mark.parametrize("seed, seats, automas, confirm_all", [(21, 4, 2, True), (22, 3, 1, False), (23, 4, 0, False)])
def test_simulated_games_with_automas_survive_save_reopen_export_import(store, tmp_path, seed, seats, automas,
                                                                         confirm_all):
    from companion.simulate import play_game

    rec = play_game(seed, seats=seats, automas=automas)
    assert rec.state.finished
    if confirm_all:  # the real path: every action confirmed through the session
        s = GameSession.create(store, rec.actions[:1])
        for a in rec.actions[1:]:
            s.confirm(a)
    else:  # the import path: checked before writing, written in one step
        doc = {"format": EXPORT_FORMAT, "schema": 1, "meta": {"title": f"sim {seed}"},
               "actions": [a.to_json() for a in rec.actions]}
        s = GameSession.import_game(store, doc)
    assert js(s.state) == js(rec.state)
    # undo five, redo five: the same final state
    for _ in range(5):
        s.undo()
    assert js(s.state) == js(engine.replay(rec.actions[:-5]))
    for _ in range(5):
        s.redo()
    assert js(s.state) == js(rec.state)
    doc = s.export()
    s.close()
    with GameSession.open(store, s.game_id) as again:
        assert list(again.actions) == rec.actions and js(again.state) == js(rec.state)
    other = GameSession.import_game(GameStore(tmp_path / "other"), json.loads(json.dumps(doc)))
    assert list(other.actions) == rec.actions and js(other.state) == js(rec.state)
    assert other.meta["finished"] is True and len(other.meta["seats"]) == seats
    other.close()


def test_a_failed_write_during_undo_or_redo_changes_nothing(store, monkeypatch):
    s = new_session(store)
    confirm_driver(s, 12)
    s.undo()
    state_before, actions_before = js(s.state), s.actions

    def broken(*args, **kwargs):
        raise SaveWriteError("could not save: disk I/O error")

    monkeypatch.setattr(s._log, "_write", broken)
    with pytest.raises(SaveWriteError):
        s.undo()
    assert js(s.state) == state_before and s.actions == actions_before
    with pytest.raises(SaveWriteError):
        s.redo()
    assert js(s.state) == state_before and s.actions == actions_before and s.can_redo
    monkeypatch.undo()
    s.redo()
    assert len(s.actions) == len(actions_before) + 1
    s.close()


def test_two_windows_on_one_game_cannot_interleave_histories(store):
    first = new_session(store)
    confirm_driver(first, 5)
    second = GameSession.open(store, first.game_id)
    first.confirm(next_action(first.state, SEED))
    state_before = js(second.state)
    from companion.store import ConcurrentWriteError

    with pytest.raises(ConcurrentWriteError, match="another window"):
        second.confirm(next_action(second.state, SEED + 1))
    assert js(second.state) == state_before
    expected = list(first.actions)
    first.close()
    second.close()
    with GameSession.open(store, first.game_id) as again:
        assert list(again.actions) == expected


def test_an_engine_failure_while_replaying_names_the_action(store, game, monkeypatch):
    actions, _ = game
    s = new_session(store)
    for a in actions[1:20]:
        s.confirm(a)
    gid = s.game_id
    s.close()
    real_apply = engine.apply
    calls = {"n": 0}

    def flaky(state, action):
        calls["n"] += 1
        if calls["n"] == 8:
            raise KeyError("boom")
        return real_apply(state, action)

    monkeypatch.setattr(engine, "apply", flaky)
    with pytest.raises(SavedGameReplayError, match=r"action 8 \(\w+\) could not be replayed \(internal error KeyError") as info:
        GameSession.open(store, gid)
    assert isinstance(info.value.__cause__, KeyError) and info.value.playable == 7


# --- compact (the server's quiet moments) -----------------------------------------------------


def test_compact_keeps_the_same_game_in_new_objects(store):
    """``compact`` builds the states kept for Undo, the log's lines and its rows again: equal
    values, new objects (the current state and the actions, which pages hold and compare by
    identity, stay); nothing again until the log grows; undo, redo and confirm go on exactly as
    in a session never compacted (the same steps on a twin game give the same states)."""
    s = new_session(store, "compacted")
    twin = new_session(store, "twin")
    for session in (s, twin):
        confirm_driver(session, 40)
        session.undo()
        session.undo()
        session.redo()
    before = (js(s.state), s.actions, s.log_lines(), s._log.entries, s._log.meta, list(map(js, s._before)))
    old_before, old_actions, old_entries = list(s._before), list(s._actions), s._log.entries
    current = s.state
    assert s.compact() is True
    assert (js(s.state), s.actions, s.log_lines(), s._log.entries, s._log.meta,
            list(map(js, s._before))) == before
    assert s.state is current  # pages hold the current state: it stays
    assert all(a is not b for a, b in zip(old_before, s._before)) and len(s._before) == len(old_before) > 0
    assert all(a is b for a, b in zip(old_actions, s._actions))  # board_vm.PlacementCache compares them
    kept = list(s._before)
    assert s.compact() is False and all(a is b for a, b in zip(kept, s._before))  # nothing new
    assert all(a is not b and a.action is not b.action for a, b in zip(old_entries, s._log.entries)
               if a.action is not None)
    # the game goes on as its twin does
    for session in (s, twin):
        for _ in range(5):
            session.undo()
        session.redo()
        confirm_driver(session, 10)
    assert s.compact() is True  # the log grew
    assert js(s.state) == js(twin.state) and s.log_lines() == twin.log_lines()
    assert [(e.kind, e.action, e.ref) for e in s._log.entries] == [(e.kind, e.action, e.ref) for e in twin._log.entries]
    s.close()
    twin.close()
    with GameSession.open(store, s.game_id) as again:  # and on disk it is the same game
        assert js(again.state) == js(twin.state)


def test_a_busy_shared_game_is_not_compacted_and_a_free_one_is(store):
    import threading

    from companion.shared_session import LiveGames

    games = LiveGames(store)
    shared = games.adopt(new_session(store))
    shared.confirm(next_action(shared.state, SEED))
    kept = list(shared._session._before)
    held, release = threading.Event(), threading.Event()

    def hold():
        with shared.transaction():
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(10)
    try:
        assert games.compact() == 0  # a page is changing it: never waits, never touches it
        assert all(a is b for a, b in zip(kept, shared._session._before))
    finally:
        release.set()
        t.join(10)
    assert games.compact() == 1
    assert all(a is not b for a, b in zip(kept, shared._session._before))
    games.close_all()
    assert games.compact() == 0
