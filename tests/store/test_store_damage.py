"""Damaged, foreign and newer files are reported with a specific error and left byte-identical;
the game list skips them and reports them."""

from __future__ import annotations

import os
import random
import sqlite3

import pytest

from companion.store import (
    SCHEMA_VERSION,
    CorruptSaveError,
    ForeignFileError,
    GameStore,
    NewerSchemaError,
    StoreError,
)
from store_testutil import snapshot


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "data")


def make_game(store: GameStore, title: str, n_actions: int = 3, game_id: str | None = None) -> str:
    # one transaction (fast); the last step is appended so that the meta is the session's kind
    steps = [{"type": "step", "n": n, "pad": "p" * 300} for n in range(1, n_actions)]
    log = store.create({"title": title, "round": 1}, [{"type": "setup", "title": title}] + steps[:-1],
                       game_id=game_id)
    if steps:
        log.append(steps[-1], meta={"round": n_actions - 1})
    log.close()
    return log.game_id


def plant(store: GameStore, game_id: str, data: bytes) -> None:
    store.games_dir.mkdir(parents=True, exist_ok=True)
    (store.games_dir / f"{game_id}.sqlite").write_bytes(data)


def random_bytes(n: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(n)


def truncated_save(store: GameStore) -> bytes:
    gid = make_game(store, "to be cut", n_actions=120)
    data = store.path_of(gid).read_bytes()
    store.path_of(gid).unlink()
    assert len(data) > 8 * 4096
    return data[: len(data) // 2]


def foreign_db(tmp_path, application_id: int | None = None) -> bytes:
    path = tmp_path / "foreign.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Ada', '123')")
    if application_id is not None:
        conn.execute(f"PRAGMA application_id = {application_id}")
    conn.commit()
    conn.close()
    return path.read_bytes()


def newer_save(store: GameStore) -> bytes:
    gid = make_game(store, "from the future")
    path = store.path_of(gid)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()  # checkpoints: the header in the main file now says 2
    data = path.read_bytes()
    path.unlink()
    return data


def save_with_sql(store: GameStore, sql: str) -> bytes:
    """A save whose content was altered behind the store's back (structurally valid SQLite)."""
    gid = make_game(store, "tampered")
    path = store.path_of(gid)
    conn = sqlite3.connect(path)
    conn.executescript("DROP TRIGGER log_no_update; DROP TRIGGER log_no_delete;" + sql)
    conn.commit()
    conn.close()
    data = path.read_bytes()
    path.unlink()
    return data


CASES = {
    "random bytes": (lambda store, tmp: random_bytes(20_000), CorruptSaveError, "not a SQLite database"),
    "empty file": (lambda store, tmp: b"", CorruptSaveError, "empty"),
    "cut inside the header": (lambda store, tmp: b"SQLite format 3\x00\x10\x00", CorruptSaveError, "cut short"),
    "truncated save": (lambda store, tmp: truncated_save(store), CorruptSaveError, "damaged"),
    "foreign sqlite": (lambda store, tmp: foreign_db(tmp), ForeignFileError, "another program"),
    "foreign sqlite with its own id": (lambda store, tmp: foreign_db(tmp, 0x0F055112), ForeignFileError,
                                       "0x0f055112"),
    "newer schema": (lambda store, tmp: newer_save(store), NewerSchemaError, "newer version"),
    "undo of a non-last action": (lambda store, tmp: save_with_sql(
        store, "INSERT INTO log (seq, kind, ref, at) VALUES (4, 'undo', 1, 'x');"), CorruptSaveError,
        "entry 4 .undo. undoes entry 1"),
    "gap in the log": (lambda store, tmp: save_with_sql(store, "DELETE FROM log WHERE seq = 2;"),
                       CorruptSaveError, "entry 3"),
    "unreadable action": (lambda store, tmp: save_with_sql(
        store, "UPDATE log SET action = '{not json' WHERE seq = 2;"), CorruptSaveError, "entry 2"),
    "action without type": (lambda store, tmp: save_with_sql(
        store, "UPDATE log SET action = '{\"n\": 1}' WHERE seq = 2;"), CorruptSaveError, "entry 2"),
    "meta format wrong": (lambda store, tmp: save_with_sql(
        store, "UPDATE meta SET value = '\"other\"' WHERE key = 'format';"), CorruptSaveError, "format"),
    "log table missing": (lambda store, tmp: save_with_sql(store, "DROP TABLE log;"), CorruptSaveError,
                          "tables missing: log"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_file_is_reported_and_left_byte_identical(store, tmp_path, case):
    make_bad, error, message = CASES[case]
    data = make_bad(store, tmp_path)
    plant(store, "bad-one", data)
    before = snapshot(store.games_dir)
    with pytest.raises(error, match=message) as info:
        store.open("bad-one")
    assert info.value.game_id == "bad-one" and info.value.path == store.path_of("bad-one")
    assert "untouched" in str(info.value) or case == "newer schema"
    # the file has the same bytes, and nothing was added beside it (no -wal/-shm litter)
    assert snapshot(store.games_dir) == before
    assert store.path_of("bad-one").read_bytes() == data
    # creating a game with that id does not overwrite it either
    with pytest.raises(StoreError):
        store.create({}, [], game_id="bad-one")
    assert snapshot(store.games_dir) == before


def test_listing_reports_bad_files_among_good_ones(store, tmp_path):
    good = [make_game(store, f"game {i}", n_actions=i + 1) for i in range(3)]
    bad = {
        "aaa-random": (random_bytes(5000), CorruptSaveError),
        "bbb-foreign": (foreign_db(tmp_path), ForeignFileError),
        "ccc-newer": (newer_save(store), NewerSchemaError),
        "ddd-truncated": (truncated_save(store), CorruptSaveError),
    }
    for gid, (data, _) in bad.items():
        plant(store, gid, data)
    (store.games_dir / "notes.txt").write_text("not a game, not our suffix: ignored")
    (store.games_dir / ".tmp-0123.sqlite").write_bytes(b"half-built game: ignored")
    before = snapshot(store.games_dir)

    listing = store.list_games()
    assert sorted(g.game_id for g in listing.games) == sorted(good)
    assert {p.game_id: type(p.error) for p in listing.problems} == {gid: err for gid, (_, err) in bad.items()}
    for problem in listing.problems:
        assert problem.reason and problem.path.name == f"{problem.game_id}.sqlite"
    by_id = {g.game_id: g for g in listing.games}
    for i, gid in enumerate(good):
        info = by_id[gid]
        assert info.title == f"game {i}" and info.action_count == i + 1
        assert info.round == (i if i else 1) and info.created and info.updated
    # newest first
    assert [g.updated for g in listing.games] == sorted((g.updated for g in listing.games), reverse=True)
    assert snapshot(store.games_dir) == before


def test_listing_an_empty_or_missing_folder(store):
    assert store.list_games().games == () and store.list_games().problems == ()
    store.games_dir.mkdir(parents=True)
    assert store.list_games().games == ()


def test_a_game_open_in_another_connection_is_listed_with_its_latest_meta(store):
    gid = make_game(store, "busy")
    log = store.open(gid)
    log.append({"type": "step", "n": 99}, meta={"round": 4})
    assert os.path.getsize(str(log.path) + "-wal") > 0  # the change is still only in the WAL
    listing = store.list_games()
    assert listing.problems == ()
    (info,) = listing.games
    assert info.round == 4 and info.action_count == 4
    log.append({"type": "step", "n": 100})  # the listing did not disturb the open game
    log.close()
    with store.open(gid) as again:
        assert len(again) == 5


def test_trash_moves_a_game_or_a_bad_file_out_of_the_list_without_deleting_it(store, tmp_path):
    good = make_game(store, "keep me out of the list")
    plant(store, "junk", random_bytes(3000))
    junk_bytes = store.path_of("junk").read_bytes()
    good_bytes = store.path_of(good).read_bytes()
    moved_junk = store.trash_game("junk")
    moved_good = store.trash_game(good)
    assert moved_junk.read_bytes() == junk_bytes and moved_good.read_bytes() == good_bytes
    assert moved_junk.parent == store.games_dir / "trash"
    listing = store.list_games()
    assert listing.games == () and listing.problems == ()
    # a second file with the same id goes to the trash under another name
    plant(store, "junk", b"other junk")
    again = store.trash_game("junk")
    assert again != moved_junk and again.read_bytes() == b"other junk"
    assert moved_junk.read_bytes() == junk_bytes
    with pytest.raises(StoreError, match="no saved game"):
        store.trash_game("junk")


def test_a_damaged_crash_image_with_its_wal_is_reported_and_neither_file_touched(store):
    gid = make_game(store, "crashed", n_actions=150)
    log = store.open(gid)
    for n in range(20):
        log.append({"type": "late", "n": n, "pad": "q" * 500})
    # a crash image: the main file and its WAL as they are while the game is open
    main = store.path_of(gid).read_bytes()
    wal = store.path_of(gid).with_name(f"{gid}.sqlite-wal").read_bytes()
    log.close()
    assert len(wal) > 0
    plant(store, "crashed-copy", main[: len(main) // 2])  # and the main file lost its tail
    (store.games_dir / "crashed-copy.sqlite-wal").write_bytes(wal)
    before = snapshot(store.games_dir)
    with pytest.raises(CorruptSaveError, match="damaged"):
        store.open("crashed-copy")
    after = snapshot(store.games_dir)
    after.pop("crashed-copy.sqlite-shm", None)  # SQLite's index of the WAL (derived, rebuilt)
    assert after == before
    listing = store.list_games()
    assert [p.game_id for p in listing.problems] == ["crashed-copy"]
    # the intact crash image (main + WAL) recovers every appended step
    plant(store, "intact-copy", main)
    (store.games_dir / "intact-copy.sqlite-wal").write_bytes(wal)
    with store.open("intact-copy") as again:
        assert len(again) == 170 and again.actions()[-1]["n"] == 19
