"""The board constants a game was set up with are part of its record (StartGame.board): a saved
game replays identically after the user changes their "check your box" values; old records
without them still load; a bad record is refused with the state untouched."""

import json

import pytest

from companion.actions import SeatConfig, StartGame, action_from_json, actions_from_json, actions_to_json
from companion.content.board import default_board, shipped_board
from companion.engine import State, apply, describe_action, new_game, replay
from companion.board_values import board_from_values, board_values, current_board_values
from companion.errors import BadActionError, RuleError, SetupError
from companion.session import GameSession
from companion.simulate import play_game
from companion.store import GameStore

SEATS = (SeatConfig("Ann"), SeatConfig("Bob"), SeatConfig("Cy"))
OWN = {"starting_coins": [0, 2, 4, 6], "research_vp": {"1": 1, "2": 2, "3": 4, "4": 7},
       "expedition_spaces": [[2, 1], [1, 2], [0, 4]]}


def set_user_board(tmp_path, override):
    """Write the user's "check your box" file (the engine conftest points the data dir at tmp_path)."""
    path = tmp_path / "board.json"
    if override is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(json.dumps(override), encoding="utf-8")
    default_board.cache_clear()


def state_text(st):
    return json.dumps(st.to_json(), sort_keys=True)


def test_a_new_start_game_records_every_overridable_constant_of_the_users_board(tmp_path):
    set_user_board(tmp_path, OWN)
    a = StartGame(SEATS)
    assert set(a.board) == set(shipped_board().unverified)
    assert a.board["starting_coins"] == [0, 2, 4, 6]
    assert a.board["research_vp"] == OWN["research_vp"]
    assert a.to_json()["board"] == a.board  # always written, never left out as "default"
    st = apply(new_game(), a)
    assert [s.coins for s in st.seats] == [0, 2, 4]
    assert st.board.research_vp == {1: 1, 2: 2, 3: 4, 4: 7}
    assert st.board.overridden == {"starting_coins", "research_vp", "expedition_spaces"}


def test_a_saved_game_replays_identically_after_the_user_changes_their_board(tmp_path):
    set_user_board(tmp_path, OWN)
    rec = play_game(3, seats=3, automas=1)  # its StartGame is built now, with OWN
    text = json.dumps(actions_to_json(rec.actions))
    before = state_text(rec.state)
    assert rec.state.board.expedition_spaces == ((2, 1), (1, 2), (0, 4))
    for later in (None, {"starting_coins": [4, 3, 2, 1], "expedition_spaces": [[3, 0], [0, 9]]}):
        set_user_board(tmp_path, later)
        assert default_board().expedition_spaces != rec.state.board.expedition_spaces
        for checked in (False, True):
            again = replay(actions_from_json(json.loads(text)), checked=checked)
            assert state_text(again) == before
            assert again.board.expedition_spaces == ((2, 1), (1, 2), (0, 4))


def test_the_saved_game_file_keeps_its_board_through_a_session_reopen(tmp_path):
    set_user_board(tmp_path, OWN)
    store = GameStore(tmp_path / "saves")
    rec = play_game(8, seats=2, automas=0)
    s = GameSession.create(store, rec.actions[:1])
    for a in rec.actions[1:60]:
        s.confirm(a)
    mid = state_text(s.state)
    gid = s.game_id
    s.close()
    set_user_board(tmp_path, {"starting_coins": [5, 5, 5, 5], "research_vp": {"1": 0, "2": 0, "3": 0, "4": 0}})
    with GameSession.open(store, gid) as again:
        assert state_text(again.state) == mid
        assert again.state.board.starting_coins == (0, 2, 4, 6)
        assert again.state.board.research_vp[4] == 7


def test_a_start_game_without_board_old_json_is_read_with_the_current_board(tmp_path):
    old = {"type": "start_game", "seats": [{"name": "Ann"}, {"name": "Bob"}], "first_player": 1}
    a = action_from_json(old)
    assert a.board == board_values(default_board()) == board_values(shipped_board())
    st = apply(new_game(), a)
    assert [s.coins for s in st.seats] == [2, 1]
    set_user_board(tmp_path, OWN)  # an old record is read with the board in force when it is read
    st = apply(new_game(), action_from_json(old))
    assert [s.coins for s in st.seats] == [2, 0]
    # the sample saved before the field existed still replays
    from pathlib import Path

    doc = json.loads((Path(__file__).resolve().parents[2] / "samples/games/random-4-seats.json").read_text())
    assert "board" not in doc["actions"][0]
    set_user_board(tmp_path, None)
    assert replay(actions_from_json(doc["actions"]), checked=True).finished


def test_an_empty_board_record_means_the_shipped_values_whatever_the_user_file(tmp_path):
    set_user_board(tmp_path, OWN)
    st = apply(new_game(), StartGame(SEATS, board={}))
    assert st.board.to_json() == shipped_board().to_json()
    assert st.board.overridden == frozenset()
    assert [s.coins for s in st.seats] == [1, 2, 3]


def test_board_none_keeps_the_board_the_state_was_made_with(tmp_path):
    set_user_board(tmp_path, OWN)
    own = default_board()
    set_user_board(tmp_path, None)
    st = apply(new_game(own), StartGame(SEATS, board=None))
    assert st.board is own
    assert [s.coins for s in st.seats] == [0, 2, 4]
    assert action_from_json(StartGame(SEATS, board=None).to_json()).board is None


@pytest.mark.parametrize("bad, error, words", [
    ({"rounds": 5}, SetupError, "cannot be overridden"),
    ({"research_vpp": {"1": 0}}, SetupError, "unknown board constant"),
    ({"starting_coins": [1, 2]}, SetupError, "starting_coins"),
    ({"research_vp": {"1": 0, "2": 1}}, SetupError, "missing key"),
    ({"dice_per_colour": "four"}, SetupError, "dice_per_colour"),
    ({"dice_per_colour": 1}, SetupError, "too few dice"),
    ([["starting_coins", [1, 2, 3, 4]]], BadActionError, "expected an object"),
    ("shipped", BadActionError, "expected an object"),
])
def test_a_bad_board_record_is_refused_with_a_clear_error_and_changes_nothing(bad, error, words):
    st = new_game()
    before = state_text(st)
    with pytest.raises(error, match=words):
        apply(st, StartGame(SEATS, board=bad))
    assert state_text(st) == before
    d = StartGame(SEATS).to_json()
    d["board"] = bad
    with pytest.raises(RuleError, match=words):  # read from a file: the same refusal, at parse or apply
        apply(st, action_from_json(d))
    assert state_text(st) == before


def test_the_state_json_carries_the_board_and_from_json_rebuilds_it(tmp_path):
    set_user_board(tmp_path, OWN)
    rec = play_game(4, seats=2, automas=1)
    set_user_board(tmp_path, None)
    d = json.loads(json.dumps(rec.state.to_json()))
    assert d["board"]["starting_coins"] == [0, 2, 4, 6]
    back = State.from_json(d)
    assert back.board.expedition_spaces == ((2, 1), (1, 2), (0, 4))
    assert back.to_json() == rec.state.to_json()
    # two games at the same point with different boards are different states
    assert apply(new_game(), StartGame(SEATS, board={})) != apply(new_game(), StartGame(SEATS, board=OWN))


def test_start_game_stays_hashable_and_compares_its_board():
    a, b = StartGame(SEATS, board={}), StartGame(SEATS, board={})
    assert a == b and hash(a) == hash(b)
    assert StartGame(SEATS, board=OWN) != a
    assert board_from_values({}) is board_from_values({})  # built once, then cached
    assert current_board_values() == board_values(default_board())


def test_the_log_line_names_the_values_from_the_box():
    line = describe_action(new_game(), StartGame(SEATS, board=OWN))
    assert "board values from the box: expedition_spaces, research_vp, starting_coins" in line
    assert "box" not in describe_action(new_game(), StartGame(SEATS, board={}))
    assert describe_action(new_game(), StartGame(SEATS, board={"rounds": 1})).startswith("new game")
