import copy
import json
import pickle

import pytest

from companion.content.board import (
    Board,
    BoardConfigError,
    default_board,
    load_board,
    shipped_board,
)


def test_contract_values():
    b = shipped_board()
    assert b.rounds == 6
    assert b.colours == ("red", "yellow", "purple", "blue", "green")
    assert b.continent_of_colour["purple"] == "asia" and b.colour_of_continent["oceania"] == "green"
    assert b.dice_per_colour == 4 and b.dice_per_seat == 4 and b.extra_die == 1
    assert [dict(s) for s in b.slot_effects] == [{}, {"coins": 2}, {"reputation": 2}, {"vp": 3}]
    assert b.starting_coins == (1, 2, 3, 4) and b.starting_tokens == 1 and b.starting_animals == 2
    assert b.expert_display_size == 6 and dict(b.animal_display_size) == {2: 6, 3: 7, 4: 8}
    assert b.bank_coins == 5 and b.coin_value == 1 and b.token_expedition_bonus == 2
    assert b.seal_coins == 5 and b.seal_value == 5
    assert dict(b.research_cost) == {1: 2, 2: 4, 3: 7, 4: 10}
    assert dict(b.research_vp) == {1: 0, 2: 1, 3: 3, 4: 5}
    assert dict(b.publication_vp) == {0: 1, 1: 2, 2: 3, 3: 5, 4: 8}
    assert b.expedition_spaces == ((3, 0), (2, 1), (1, 2), (0, 3))
    assert b.reputation_track_length == 16
    assert {k: dict(v) for k, v in b.reputation_bonuses.items()} == {
        2: {"tokens": 1}, 4: {"coins": 3}, 6: {"expert": 1}, 8: {"animal": 1},
        10: {"tokens": 1}, 12: {"coins": 3}, 14: {"seals": 1}}
    assert b.end_vp_per_seal == 4 and b.end_coins_per_vp == 2 and b.end_vp_per_token == 1
    assert b.round_token_effects == ("token", "coins", "expert", "animal", "extra_die", "nothing")
    assert sorted(b.round_token_pool()) == sorted(b.round_token_effects * 2)
    assert b.round_token_coins == 3 and b.round_token_tokens == 1
    assert b.animals_per_continent == 15 and b.sepultus_cards == 6
    assert b.categories[:3] == ("mammal", "bird", "reptile") and b.type_of_category["cold"] == 4


@pytest.mark.parametrize("value,tokens", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (11, 3)])
def test_embassy_and_academy(value, tokens):
    b = shipped_board()
    assert b.embassy_tokens(value) == tokens
    assert b.academy_reputation(value) == tokens


@pytest.mark.parametrize("value,t", [(1, None), (2, 0), (3, 1), (4, 2), (5, 3), (6, 4), (9, 4)])
def test_publish_max_type(value, t):
    assert shipped_board().publish_max_type(value) == t


@pytest.mark.parametrize("n,vp", [(0, 0), (3, 0), (4, 3), (5, 5), (6, 8), (7, 12), (8, 17), (9, 22),
                                  (10, 28), (11, 35), (12, 40), (13, 45), (14, 50), (20, 80)])
def test_collection_table(n, vp):
    assert shipped_board().collection_vp(n) == vp


def test_unverified_flags():
    b = shipped_board()
    for key in ("starting_coins", "expedition_spaces", "research_vp", "reputation_bonuses",
                "reputation_track_length", "slot_effects", "round_token_counts"):
        assert b.is_unverified(key)
    assert not b.is_unverified("rounds") and not b.is_unverified("research_cost")
    assert b.overridden == frozenset()


def test_board_is_frozen_and_copies_and_pickles():
    b = shipped_board()
    with pytest.raises(Exception):
        b.rounds = 7
    with pytest.raises(TypeError):
        b.research_cost[1] = 3
    assert copy.deepcopy(b) is b
    assert pickle.loads(pickle.dumps(b)) == b


def test_default_board_is_cached_and_uses_user_file(isolated_data_dir):
    assert default_board() is default_board()
    assert default_board() == shipped_board()
    isolated_data_dir.mkdir()
    (isolated_data_dir / "board.json").write_text(json.dumps({"starting_coins": [0, 1, 2, 3]}))
    default_board.cache_clear()
    b = default_board()
    assert b.starting_coins == (0, 1, 2, 3) and b.overridden == {"starting_coins"}
    assert shipped_board().starting_coins == (1, 2, 3, 4)


def _override(tmp_path, data, raw=None):
    p = tmp_path / "over.json"
    p.write_text(raw if raw is not None else json.dumps(data), encoding="utf-8")
    return p


def test_partial_override_applies(tmp_path):
    p = _override(tmp_path, {"_note": "from my box", "research_vp": {"1": 0, "2": 1, "3": 3, "4": 6},
                             "expedition_spaces": [[3, 0], [2, 1], [1, 2]]})
    b = load_board(p)
    assert dict(b.research_vp) == {1: 0, 2: 1, 3: 3, 4: 6}
    assert b.expedition_spaces == ((3, 0), (2, 1), (1, 2))
    assert b.rounds == 6 and b.overridden == {"research_vp", "expedition_spaces"}


@pytest.mark.parametrize("data,needle", [
    ({"starting_coin": [1, 2, 3, 4]}, "starting_coin: unknown board constant (did you mean 'starting_coins'"),
    ({"rounds": 7}, "rounds: this value is printed in the rulebook"),
    ({"starting_coins": [1, 2]}, "starting_coins: expected one entry per seat (4), got 2"),
    ({"starting_coins": [1, 2, -3, 4]}, "starting_coins[2]: expected an integer"),
    ({"research_vp": {"1": 0, "2": 1, "3": 3}}, "research_vp: missing key(s) 4"),
    ({"research_vp": {"1": 0, "2": "one", "3": 3, "4": 5}}, "research_vp.2: expected an integer"),
    ({"reputation_bonuses": {"20": {"coins": 3}}}, "reputation_bonuses: space 20 is beyond the track"),
    ({"reputation_bonuses": {"2": {"gold": 3}}}, "unknown gain 'gold'"),
    ({"slot_effects": [{}, {"coins": 2}]}, "slot_effects: expected 4 entries"),
    ({"round_token_counts": {"token": 1}}, "round_token_counts: missing effect(s)"),
    ({"reputation_track_length": 10}, "reputation_bonuses: space 10 is beyond the track"),
    ([1, 2], "expected a JSON object"),
])
def test_bad_override_names_the_key(tmp_path, data, needle):
    p = _override(tmp_path, data)
    with pytest.raises(BoardConfigError) as ei:
        load_board(p)
    assert needle in str(ei.value)
    assert str(p) in str(ei.value)


def test_override_not_json_or_missing(tmp_path):
    with pytest.raises(BoardConfigError, match="not valid JSON"):
        load_board(_override(tmp_path, None, raw="{starting_coins: 1"))
    with pytest.raises(BoardConfigError, match="not found"):
        load_board(tmp_path / "nope.json")


def test_bad_user_file_is_reported_not_ignored(isolated_data_dir):
    isolated_data_dir.mkdir()
    (isolated_data_dir / "board.json").write_text('{"rounds": 5}')
    with pytest.raises(BoardConfigError, match="rounds"):
        load_board()
    assert load_board(use_user_file=False).rounds == 6


def test_to_json_matches_shipped_file():
    from importlib import resources
    shipped = json.loads(resources.files("companion").joinpath("data/board.json").read_text(encoding="utf-8"))
    assert shipped_board().to_json() == shipped["constants"]
    assert isinstance(shipped_board(), Board)
