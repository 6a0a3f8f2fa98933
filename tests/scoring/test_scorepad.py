"""The score pad CLI: real subprocesses for the contract, in-process calls for the many details."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion import scorepad

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "score-sheets"


def run_cli(args, tmp_path, module="companion.scorepad"):
    env = dict(os.environ, ENCYCLOPEDIA_DATA_DIR=str(tmp_path / "userdata"), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          encoding="utf-8", env=env, cwd=tmp_path, timeout=60)


def write(tmp_path, data, name="sheet.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def call(args):
    out, err = io.StringIO(), io.StringIO()
    rc = scorepad.main(args, stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


# ----------------------------------------------------------------------------- subprocess


def test_cli_table_for_jeremie(tmp_path):
    r = run_cli([str(SAMPLES / "jeremie-188.json")], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert any(line.split() == ["TOTAL", "188"] for line in lines)
    assert any(line.split() == ["Oceania", "40"] for line in lines)
    assert lines[-1] == "Winner: Jeremie"


def test_cli_json_for_solo_vs_automa(tmp_path):
    r = run_cli([str(SAMPLES / "solo-vs-automa.json"), "--json"], tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [(p["name"], p["total"]) for p in out["players"]] == [("Camille", 137), ("Automa", 153)]
    assert out["winners"] == ["Automa"]
    camille, bot = out["players"]
    assert camille["breakdown"]["continent:africa"] == 8 and camille["wildcards"] == {"africa": 1}
    assert bot["breakdown"]["continent:america"] == 35 and bot["scoring"] == "hms-resolution"
    assert sum(camille["breakdown"].values()) == camille["total"]


def test_cli_tie_break_sample(tmp_path):
    r = run_cli([str(SAMPLES / "three-seats-tie.json"), "--json"], tmp_path)
    out = json.loads(r.stdout)
    assert out["winners"] == ["Bruno"]
    assert [p["total"] for p in out["players"]] == [113, 113, 88]
    assert [p["place"] for p in out["players"]] == [2, 1, 3]


BAD = [
    ({"players": [{"name": "A", "cubes": {"hot": 1}}, {"name": "B", "cubes": {"reptil": 3}}]},
     "players[1].cubes.reptil: unknown category 'reptil' (did you mean 'reptile'?)"),
    ({"players": [{"name": "A", "published": {"antartica": 3}}]},
     "players[0].published.antartica: unknown continent 'antartica'"),
    ({"players": [{"name": "A", "experts": [{"name": "Rogerio Lus", "active": True}]}]},
     "players[0].experts[0].name: unknown expert 'Rogerio Lus' (did you mean 'Rogério Luz'?)"),
    ({"players": [{"name": "Bot", "kind": "automa", "scoring": "la-boudeze"}]},
     "players[0].scoring: unknown scoring card \"la-boudeze\" (did you mean 'la-boudeuse'?)"),
    ({"players": [{"name": "A", "coins": -2}]}, "players[0].coins: cannot be negative (-2)"),
    ({"players": [{"name": "A", "seals": 2.5}]}, "players[0].seals: expected a whole number, got 2.5"),
    ({"players": [{"name": "A", "vp": "72"}]}, "players[0].vp: expected a whole number, got \"72\""),
    ({"players": []}, "players: no players"),
    ("{\"players\": [", "not valid JSON"),
]


@pytest.mark.parametrize("sheet,message", BAD, ids=[
    "category", "continent", "expert", "scoring-card", "negative", "fraction", "string", "no-players", "not-json"])
def test_cli_bad_sheet_one_line(tmp_path, sheet, message):
    p = write(tmp_path, sheet)
    r = run_cli([str(p)], tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(str(p) + ": ")
    assert message in lines[0]


def test_cli_missing_file(tmp_path):
    r = run_cli([str(tmp_path / "nope.json")], tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [f"{tmp_path / 'nope.json'}: file not found"]


def test_cli_no_argument_is_one_line(tmp_path):
    r = run_cli([], tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- in process


def test_main_accepts_leading_score_word(tmp_path):
    rc, out, _ = call(["score", str(SAMPLES / "jeremie-188.json"), "--json"])
    assert rc == 0 and json.loads(out)["players"][0]["total"] == 188


def test_missing_counts_are_zero_and_kind_defaults_to_human(tmp_path):
    rc, out, err = call([str(write(tmp_path, {"players": [{"name": "Solo"}]})), "--json"])
    assert rc == 0, err
    assert json.loads(out)["players"][0]["total"] == 0


def test_extra_fields_are_fine_and_near_misses_warn(tmp_path):
    sheet = {"date": "2024-05-01", "players": [{"name": "A", "vp": 10, "colour": "green", "cube": {"hot": 4}}]}
    rc, out, err = call([str(write(tmp_path, sheet)), "--json"])
    assert rc == 0
    assert json.loads(out)["players"][0]["total"] == 10
    assert "players[0].cube: ignored (did you mean 'cubes'?)" in err
    assert "colour" not in err


def test_names_default_and_must_differ(tmp_path):
    rc, out, _ = call([str(write(tmp_path, {"players": [{"vp": 1}, {"vp": 2}]})), "--json"])
    assert [p["name"] for p in json.loads(out)["players"]] == ["Player 1", "Player 2"]
    rc, _, err = call([str(write(tmp_path, {"players": [{"name": "Ana"}, {"name": "ana "}]}))])
    assert rc == 2 and "players[1].name" in err


@pytest.mark.parametrize("sheet,message", [
    ([1, 2], "expected a JSON object"),
    ({"player": []}, "players: missing"),
    ({"players": {"name": "A"}}, "players: expected a list"),
    ({"players": ["A"]}, "players[0]: expected an object"),
    ({"players": [{"kind": "robot"}]}, "players[0].kind: expected \"human\" or \"automa\""),
    ({"players": [{"kind": "automa"}]}, "players[0].scoring: missing"),
    ({"players": [{"experts": [{"name": "Safi Limbila"}]}, {"kind": "automa", "scoring": "l-astrolabe",
                                                          "experts": [{"name": "safi limbila"}]}]},
     "players[1].experts[0].name: Safi Limbila is already listed at players[0].experts[0]"),
    ({"players": [{"experts": [{"name": "Safi Limbila", "active": "yes"}]}]}, "players[0].experts[0].active"),
    ({"players": [{"experts": "Safi Limbila"}]}, "players[0].experts: expected a list"),
    ({"players": [{"sepultus": 7}]}, "players[0].sepultus: 7, but the box has 6"),
    ({"players": [{"reputation": 16}]}, "players[0].reputation: the reputation counter's space is 0..15"),
    ({"players": [{"cubes": [1, 2]}]}, "players[0].cubes: expected an object"),
    ({"players": [{"cubes": {"hot": True}}]}, "players[0].cubes.hot: expected a whole number, got true"),
    ({"players": [{"kind": "automa", "scoring": "l-astrolabe", "animals": {"mars": 1}}]},
     "players[0].animals.mars: unknown continent"),
])
def test_more_bad_sheets(tmp_path, sheet, message):
    rc, out, err = call([str(write(tmp_path, sheet))])
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


def test_integral_float_and_case_are_forgiven(tmp_path):
    sheet = {"players": [{"name": "A", "cubes": {"Hot": 4.0}, "experts": ["gangesh mukerji"]}]}
    rc, out, err = call([str(write(tmp_path, sheet)), "--json"])
    assert rc == 0, err
    assert json.loads(out)["players"][0]["breakdown"]["category:hot"] == 8


def test_shared_win_table(tmp_path):
    sheet = {"players": [{"name": "A", "vp": 50, "published": {"asia": 2}},
                         {"name": "B", "vp": 50, "published": {"europe": 2}}]}
    rc, out, _ = call([str(write(tmp_path, sheet))])
    assert rc == 0
    assert out.splitlines()[-1] == "Shared win: A, B"
    assert "the win is shared" in out


def test_stdin(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"players": [{"name": "A", "vp": 3}]})))
    rc, out, _ = call(["-", "--json"])
    assert rc == 0 and json.loads(out)["winners"] == ["A"]


def test_bad_board_override_is_one_line(tmp_path, monkeypatch):
    d = tmp_path / "userdata"
    d.mkdir()
    (d / "board.json").write_text('{"rounds": 5}')
    from companion.content.board import default_board
    default_board.cache_clear()
    try:
        rc, out, err = call([str(SAMPLES / "jeremie-188.json")])
    finally:
        default_board.cache_clear()
    assert rc == 2 and len(err.splitlines()) == 1 and "rounds" in err


# -- issue 40: depth, size and value limits with a clear message --------------------------------


def _sheet(**counts) -> dict:
    return {"players": [{"name": "Ana", "kind": "human", **counts}]}


def test_a_deeply_nested_sheet_is_refused_with_a_clear_message(tmp_path):
    from companion.scorepad import MAX_SHEET_DEPTH, SheetError, read_sheet

    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SheetError, match="nested too deeply"):
        read_sheet(str(p))
    # the boundary: MAX_SHEET_DEPTH levels are read (and then refused as a sheet for what they are)
    p.write_text("[" * MAX_SHEET_DEPTH + "]" * MAX_SHEET_DEPTH)
    with pytest.raises(SheetError, match="expected a JSON object"):
        read_sheet(str(p))
    p.write_text("[" * (MAX_SHEET_DEPTH + 1) + "]" * (MAX_SHEET_DEPTH + 1))
    with pytest.raises(SheetError, match="nested too deeply"):
        read_sheet(str(p))
    # brackets inside strings do not count
    p.write_text(json.dumps({"players": [{"name": "[" * 500, "kind": "human"}]}))
    read_sheet(str(p))


def test_the_command_line_says_so_instead_of_an_internal_error(tmp_path, capsys):
    from companion.scorepad import main

    p = tmp_path / "deep.json"
    p.write_text("{\"players\": " + "[" * 100_000 + "]" * 100_000 + "}")
    assert main([str(p)]) != 0
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "internal error" not in err and "RecursionError" not in err


def test_a_huge_sheet_is_refused_before_it_is_read(tmp_path):
    from companion.scorepad import MAX_SHEET_BYTES, SheetError, read_sheet

    p = tmp_path / "big.json"
    p.write_text(json.dumps(_sheet()) + " " * MAX_SHEET_BYTES)
    with pytest.raises(SheetError, match="too large for a score sheet"):
        read_sheet(str(p))
    p.write_text(json.dumps(_sheet()) + " " * (MAX_SHEET_BYTES - len(json.dumps(_sheet()))))
    read_sheet(str(p))  # exactly the limit: read


@pytest.mark.parametrize("counts,where", [
    ({"vp": 10**30}, "vp"),
    ({"vp": 1e30}, "vp"),
    ({"coins": 10_000}, "coins"),
    ({"cubes": {"mammal": 10**9}}, "cubes.mammal"),
])
def test_counts_beyond_any_game_are_refused(counts, where):
    from companion.scorepad import MAX_COUNT, SheetError, parse_sheet

    assert MAX_COUNT == 9_999
    with pytest.raises(SheetError, match="more than a game can reach") as info:
        parse_sheet(_sheet(**counts))
    assert info.value.where.endswith(where)


def test_the_largest_count_is_accepted():
    from companion.scorepad import MAX_COUNT, parse_sheet

    parse_sheet(_sheet(vp=MAX_COUNT, cubes={"mammal": MAX_COUNT}))
