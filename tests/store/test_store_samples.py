"""The sample saves in samples/saves/ stay readable and replay to the result they recorded.

If an engine change makes these fail, saved games of players would replay differently too:
either fix the change, or (for a deliberate rule change) regenerate the samples with
``python tests/store/make_sample_saves.py`` and say so in the commit message."""

from __future__ import annotations

import json
import shutil

import pytest

from companion import engine
from companion.session import GameSession, summary_meta
from companion.store import GameStore, read_export
from store_testutil import REPO, digest

SAMPLES = REPO / "samples" / "saves"


def js(state) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def test_the_exported_finished_game_imports_and_replays_to_its_recorded_result(tmp_path):
    path = SAMPLES / "finished-4-seats-automa.json"
    doc = read_export(path)
    s = GameSession.import_file(GameStore(tmp_path), path)
    assert len(s.actions) == len(doc["actions"]) == 452
    assert s.state.finished
    recorded = doc["meta"]
    now = summary_meta(s.state)
    assert now["seats"] == recorded["seats"], "the same game now ends with other VP"
    assert (now["round"], now["finished"], now["actions"]) == (recorded["round"], True, 452)
    assert [seat.kind for seat in s.state.seats].count("automa") == 1
    s.close()


def test_the_schema1_game_file_opens_with_its_undo_history(tmp_path):
    sample = SAMPLES / "schema1-midgame-undo.sqlite"
    before = digest(sample)
    store = GameStore(tmp_path)
    store.games_dir.mkdir(parents=True)
    shutil.copyfile(sample, store.path_of("sample-midgame-undo"))  # never open the sample itself
    s = GameSession.open(store, "sample-midgame-undo")
    assert s.title == "Mid-game with undo history"
    assert len(s.actions) == 69 and s.can_redo  # 71, undo, undo, redo, undo, new, undo
    kinds = [e.kind for e in s._log.entries]
    assert kinds.count("undo") == 4 and kinds.count("redo") == 1 and kinds.count("do") == 72
    assert js(s.state) == js(engine.replay(list(s.actions)))
    assert s.meta["round"] == s.state.round and s.meta["actions"] == 69
    redone = s.redo()
    assert s.actions[-1] == redone and not s.can_redo
    s.close()
    assert digest(sample) == before


@pytest.mark.parametrize("name", ["finished-4-seats-automa.json", "schema1-midgame-undo.sqlite"])
def test_samples_exist(name):
    assert (SAMPLES / name).is_file()
