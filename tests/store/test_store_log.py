"""The event log at store level: append, reopen, undo/redo, meta, write failures, export/import."""

from __future__ import annotations

import json
import sqlite3

import pytest

from companion.store import (
    APPLICATION_ID,
    EXPORT_FORMAT,
    SCHEMA_VERSION,
    ConcurrentWriteError,
    GameExistsError,
    GameNotFoundError,
    GameStore,
    ImportFormatError,
    InvalidActionDataError,
    NewerSchemaError,
    NothingToRedoError,
    NothingToUndoError,
    SaveWriteError,
    StoreError,
    read_export,
    write_export,
)
from store_testutil import digest, snapshot


def act(n: int, **extra) -> dict:
    return {"type": "step", "n": n, **extra}


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "data")


# --- create / append / reopen -------------------------------------------------------------------


def test_append_then_reopen_gives_the_same_actions_and_meta(store):
    log = store.create({"title": "Tuesday game", "seats": [{"name": "Ana", "kind": "human"}]},
                       [act(0, seed=7)])
    gid = log.game_id
    for n in range(1, 6):
        seq = log.append(act(n, spend={"tokens": n % 2, "seals": 0}, cards=["a", "b"]), meta={"round": n})
        assert seq == n + 1
    expected = [act(0, seed=7)] + [act(n, spend={"tokens": n % 2, "seals": 0}, cards=["a", "b"]) for n in range(1, 6)]
    assert log.actions() == expected
    log.close()

    with store.open(gid) as again:
        assert again.actions() == expected
        meta = again.meta
        assert meta["title"] == "Tuesday game"
        assert meta["round"] == 5
        assert meta["seats"] == [{"name": "Ana", "kind": "human"}]
        assert meta["format"] == EXPORT_FORMAT and meta["schema"] == SCHEMA_VERSION
        assert meta["created"] <= meta["updated"]
        assert [e.kind for e in again.entries] == ["do"] * 6


def test_file_is_recognisable_and_in_wal_mode(store):
    log = store.create({"title": "x"})
    path = log.path
    log.close()
    assert path.parent == store.games_dir and path.name == f"{log.game_id}.sqlite"
    header = path.read_bytes()[:100]
    assert header.startswith(b"SQLite format 3\x00")
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    assert int.from_bytes(header[60:64], "big") == SCHEMA_VERSION
    assert header[18] == 2 and header[19] == 2  # WAL
    # no temporary file is left behind by creation
    assert [p.name for p in store.games_dir.iterdir()] == [path.name]


def test_an_append_is_visible_to_a_second_connection_as_soon_as_it_returns(store):
    log = store.create({}, [act(0)])
    log.append(act(1))
    other = store.open(log.game_id)  # separate sqlite connection
    assert other.actions() == [act(0), act(1)]
    other.close()
    log.close()


def test_the_log_table_refuses_update_and_delete(store):
    log = store.create({}, [act(0), act(1)])
    path = log.path
    log.close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE log SET action = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM log")
    conn.close()
    with store.open(log.game_id) as again:
        assert again.actions() == [act(0), act(1)]


@pytest.mark.parametrize("bad, message", [
    ([1, 2], "must be a JSON object"),
    ({"n": 1}, '"type"'),
    ({"type": ""}, '"type"'),
    ({"type": 3}, '"type"'),
    ({"type": "x", "dice": (1, 2)}, "tuple"),
    ({"type": "x", "v": float("nan")}, "nan"),
    ({"type": "x", "v": {1: 2}}, "not a string"),
    ({"type": "x", "v": object()}, "object"),
])
def test_a_bad_action_is_refused_and_nothing_is_recorded(store, bad, message):
    log = store.create({}, [act(0)])
    before = digest(log.path)
    with pytest.raises(InvalidActionDataError, match=message):
        log.append(bad)
    assert log.actions() == [act(0)] and log.head == 1
    log.close()
    assert digest(log.path) == before


def test_create_refuses_bad_initial_actions_and_writes_nothing(store):
    with pytest.raises(InvalidActionDataError, match="action 2"):
        store.create({}, [act(0), {"no": "type"}])
    assert not store.games_dir.exists() or list(store.games_dir.iterdir()) == []


def test_unknown_and_invalid_game_ids(store):
    with pytest.raises(GameNotFoundError, match="no saved game 'nope'"):
        store.open("nope")
    for bad in ("../escape", "a/b", "", ".hidden", "x" * 65):
        with pytest.raises(StoreError, match="not a valid game id"):
            store.open(bad)


def test_create_with_an_existing_id_never_overwrites(store):
    log = store.create({"title": "first"}, [act(0)], game_id="club-night")
    log.append(act(1))
    log.close()
    before = snapshot(store.games_dir)
    with pytest.raises(GameExistsError, match="club-night"):
        store.create({"title": "second"}, [], game_id="club-night")
    assert snapshot(store.games_dir) == before
    with store.open("club-night") as again:
        assert again.title == "first" and again.actions() == [act(0), act(1)]


# --- undo / redo -----------------------------------------------------------------------------


def test_undo_redo_and_a_new_action_after_undo(store):
    log = store.create({}, [act(0)])
    for n in (1, 2, 3):
        log.append(act(n))
    assert not log.can_redo
    assert log.undo() == act(3)
    assert log.undo() == act(2)
    assert log.actions() == [act(0), act(1)]
    assert log.can_redo and log.next_redo() == act(2)
    assert log.redo() == act(2)
    assert log.actions() == [act(0), act(1), act(2)]
    assert log.next_redo() == act(3)
    # a new action drops the redo branch from the current list...
    log.append(act(9))
    assert log.actions() == [act(0), act(1), act(2), act(9)]
    assert not log.can_redo
    with pytest.raises(NothingToRedoError):
        log.redo()
    # ...but every row is still in the file
    kinds = [(e.kind, e.ref) for e in log.entries]
    assert kinds == [("do", None)] * 4 + [("undo", 4), ("undo", 3), ("redo", 3), ("do", None)]
    assert [e.action for e in log.entries if e.kind == "do"] == [act(0), act(1), act(2), act(3), act(9)]
    log.close()
    with store.open(log.game_id) as again:
        assert again.actions() == [act(0), act(1), act(2), act(9)]
        assert not again.can_redo and len(again.entries) == 8


def test_undo_everything_then_redo_everything_and_state_survives_reopen(store):
    log = store.create({}, [act(0), act(1)])
    log.append(act(2))
    assert [log.undo() for _ in range(3)] == [act(2), act(1), act(0)]
    assert log.actions() == [] and not log.can_undo
    with pytest.raises(NothingToUndoError, match="nothing to undo"):
        log.undo()
    assert log.redo() == act(0)
    log.close()
    with store.open(log.game_id) as again:  # the redo stack is part of the saved state
        assert again.actions() == [act(0)]
        assert again.can_redo and again.next_redo() == act(1)
        again.redo()
        again.redo()
        assert again.actions() == [act(0), act(1), act(2)] and not again.can_redo


def test_meta_updates_travel_with_the_entry_and_alone(store):
    log = store.create({"title": "t"}, [act(0)])
    log.append(act(1), meta={"round": 2, "seats": ["a"]})
    log.undo(meta={"round": 1})
    log.update_meta({"title": "renamed", "format": "ignored: managed by the store"})
    log.close()
    with store.open(log.game_id) as again:
        assert again.meta["round"] == 1 and again.meta["seats"] == ["a"]
        assert again.title == "renamed" and again.meta["format"] == EXPORT_FORMAT
    with pytest.raises(InvalidActionDataError, match="title"):
        store.create({"title": 5})


# --- failures while writing -----------------------------------------------------------------


def test_a_failed_write_records_nothing_and_the_log_keeps_working(store):
    log = store.create({}, [act(0)])
    conn = log._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is "full" for this connection
    with pytest.raises(SaveWriteError, match="full"):
        log.append(act(1, blob="x" * 50_000))
    assert log.actions() == [act(0)] and log.head == 1
    assert not log.can_redo
    conn.execute("PRAGMA max_page_count = 1000000")  # space again
    log.append(act(2))
    log.close()
    with store.open(log.game_id) as again:
        assert again.actions() == [act(0), act(2)]


def test_a_second_writer_is_detected_not_interleaved(store):
    first = store.create({}, [act(0)])
    second = store.open(first.game_id)
    first.append(act(1))
    with pytest.raises(ConcurrentWriteError, match="another window"):
        second.append(act(99))
    with pytest.raises(ConcurrentWriteError):
        second.undo()
    assert second.actions() == [act(0)]
    first.close()
    second.close()
    with store.open(first.game_id) as again:
        assert again.actions() == [act(0), act(1)]


def test_writing_after_close_is_an_error(store):
    log = store.create({}, [])
    log.close()
    with pytest.raises(StoreError, match="closed"):
        log.append(act(1))


# --- export / import -------------------------------------------------------------------------


def test_export_then_import_gives_identical_actions_and_meta(store, tmp_path):
    log = store.create({"title": "Export me", "seats": [{"name": "Zoé", "kind": "human"}]}, [act(0)])
    for n in range(1, 4):
        log.append(act(n))
    log.undo()  # the export is the current list: undone actions are not part of the game
    doc = log.export()
    log.close()
    assert doc["format"] == EXPORT_FORMAT and doc["schema"] == 1
    assert doc["actions"] == [act(0), act(1), act(2)]
    assert doc["game_id"] == log.game_id

    path = write_export(doc, tmp_path / "export.json")
    assert json.loads(path.read_text(encoding="utf-8")) == doc

    other = GameStore(tmp_path / "elsewhere")
    imported = other.import_file(path)
    assert imported.game_id == log.game_id  # free in that folder: kept
    assert imported.actions() == doc["actions"]
    assert imported.meta["title"] == "Export me" and imported.meta["seats"] == doc["meta"]["seats"]
    assert imported.meta["created"] == doc["meta"]["created"]  # the game keeps its age
    assert imported.meta["imported"] >= doc["exported"]
    assert not imported.can_redo
    imported.close()


def test_import_never_overwrites_an_existing_game(store):
    log = store.create({"title": "original"}, [act(0)])
    log.append(act(1))
    log.close()
    before = digest(log.path)
    doc = store.export_game(log.game_id)
    doc["actions"].append(act(2))
    copy = store.import_game(doc)
    assert copy.game_id != log.game_id
    assert copy.actions() == [act(0), act(1), act(2)]
    copy.close()
    assert digest(log.path) == before
    with store.open(log.game_id) as again:
        assert again.actions() == [act(0), act(1)]


@pytest.mark.parametrize("doc, error, message", [
    ([], ImportFormatError, "JSON object"),
    ({"format": "something-else", "schema": 1, "actions": []}, ImportFormatError, "not an exported"),
    ({"format": EXPORT_FORMAT, "actions": []}, ImportFormatError, '"schema"'),
    ({"format": EXPORT_FORMAT, "schema": "1", "actions": []}, ImportFormatError, '"schema"'),
    ({"format": EXPORT_FORMAT, "schema": True, "actions": []}, ImportFormatError, '"schema"'),
    ({"format": EXPORT_FORMAT, "schema": 2, "actions": []}, NewerSchemaError, "newer version"),
    ({"format": EXPORT_FORMAT, "schema": 1}, ImportFormatError, '"actions"'),
    ({"format": EXPORT_FORMAT, "schema": 1, "actions": {}}, ImportFormatError, '"actions"'),
    ({"format": EXPORT_FORMAT, "schema": 1, "actions": [{"type": "a"}, {"n": 2}]}, ImportFormatError, "action 2"),
    ({"format": EXPORT_FORMAT, "schema": 1, "meta": [], "actions": []}, ImportFormatError, '"meta"'),
    ({"format": EXPORT_FORMAT, "schema": 1, "meta": {"title": 3}, "actions": []}, ImportFormatError, "title"),
])
def test_a_bad_export_document_is_refused_with_a_clear_error(store, doc, error, message):
    with pytest.raises(error, match=message):
        store.import_game(doc)
    assert not store.games_dir.exists() or list(store.games_dir.iterdir()) == []


def test_bad_export_files_are_refused(store, tmp_path):
    not_json = tmp_path / "a.json"
    not_json.write_text('{"format": "encyclopedia-companion-game",\n "schema": 1,,}', encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"not valid JSON: .* line 2"):
        store.import_file(not_json)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ImportFormatError, match="not UTF-8"):
        read_export(binary)
    with pytest.raises(ImportFormatError, match="no file"):
        store.import_file(tmp_path / "missing.json")
    assert not store.games_dir.exists()


def test_import_check_can_refuse_and_then_nothing_is_created(store):
    doc = {"format": EXPORT_FORMAT, "schema": 1, "meta": {"title": "t"}, "actions": [act(0)]}

    def refuse(actions):
        assert actions == [act(0)]
        raise ValueError("action 1 breaks a rule")

    with pytest.raises(ValueError, match="breaks a rule"):
        store.import_game(doc, check=refuse)
    assert not store.games_dir.exists() or list(store.games_dir.iterdir()) == []


def test_a_strange_id_in_an_export_is_replaced_not_used_as_a_path(store):
    doc = {"format": EXPORT_FORMAT, "schema": 1, "game_id": "../../etc/x", "actions": [act(0)]}
    log = store.import_game(doc)
    assert log.path.parent == store.games_dir and "/" not in log.game_id
    log.close()


def test_a_data_folder_with_spaces_hash_and_accents(tmp_path):
    store = GameStore(tmp_path / "Mes parties #1 (été) 100%")
    log = store.create({"title": "ok"}, [act(0)])
    log.append(act(1))
    log.close()
    assert [g.title for g in store.list_games().games] == ["ok"]
    with store.open(log.game_id) as again:
        assert again.actions() == [act(0), act(1)]


def test_default_folder_comes_from_the_user_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path / "from-env"))
    store = GameStore()
    assert store.games_dir == tmp_path / "from-env" / "games"
    store.create({}, [act(0)]).close()
    assert len(store.list_games().games) == 1


# --- property: any sequence of do/undo/redo matches a plain model, also after reopening -------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.sampled_from(["do", "do", "undo", "redo"]), max_size=18))
def test_any_do_undo_redo_sequence_matches_the_model(tmp_path_factory, ops):
    store = GameStore(tmp_path_factory.mktemp("prop"))
    log = store.create({}, [])
    model: list[dict] = []
    redo: list[dict] = []
    for i, op in enumerate(ops):
        if op == "do":
            log.append(act(i))
            model.append(act(i))
            redo.clear()
        elif op == "undo":
            if model:
                assert log.undo() == model[-1]
                redo.append(model.pop())
            else:
                with pytest.raises(NothingToUndoError):
                    log.undo()
        else:
            if redo:
                assert log.redo() == redo[-1]
                model.append(redo.pop())
            else:
                with pytest.raises(NothingToRedoError):
                    log.redo()
        assert log.actions() == model and log.can_redo == bool(redo)
    log.close()
    with store.open(log.game_id) as again:
        assert again.actions() == model
        assert again.can_redo == bool(redo) and again.next_redo() == (redo[-1] if redo else None)
        assert sum(e.kind == "do" for e in again.entries) == ops.count("do")  # nothing ever deleted
