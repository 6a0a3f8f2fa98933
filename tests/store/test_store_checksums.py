"""Every log row is sealed by a hash chain (schema 2, issue 40): a single flipped bit in any
row, undone history rows included, is reported as damage like any other and never replayed;
schema-1 saves still open and get their chain with their next write."""

from __future__ import annotations

import random
import shutil
import sqlite3

import pytest

from companion.store import SCHEMA_VERSION, CorruptSaveError, GameStore, StoreError
from store_testutil import REPO, digest

SAMPLES = REPO / "samples" / "saves"


def game_with_undone_rows(store: GameStore) -> tuple[str, bytes]:
    """A game whose log holds undone rows with names in them; the file's bytes, closed."""
    log = store.create({"title": "flips"}, [{"type": "setup", "seats": ["Ana", "Ben"]}])
    for i in range(6):
        log.append({"type": "reveal_expert", "name": f"Expert number {i}", "slot": i})
    for _ in range(3):
        log.undo()
    log.append({"type": "take_card", "name": "Aix galericulata", "continent": "europe"})
    gid = log.game_id
    log.close()
    path = store.path_of(gid)
    assert not path.with_name(path.name + "-wal").exists()  # checkpointed: all rows in the file
    return gid, path.read_bytes()


def undone_texts(store: GameStore, gid: str) -> list[bytes]:
    with store.open(gid) as log:
        active = {e.seq for e in log.entries if e.kind == "do"} - set()
        kept = [e for e in log.entries if e.kind == "do"]
        current = log.actions()
    undone = [e for e in kept if e.action not in current]
    assert len(undone) == 3
    import json

    return [json.dumps(e.action, sort_keys=True, separators=(",", ":")).encode() for e in undone]


def test_a_new_save_is_schema_2_with_a_checksum_per_row(tmp_path):
    store = GameStore(tmp_path)
    gid, data = game_with_undone_rows(store)
    assert SCHEMA_VERSION == 2 and int.from_bytes(data[60:64], "big") == 2
    conn = sqlite3.connect(store.path_of(gid))
    (rows,) = conn.execute("SELECT count(*) FROM log").fetchone()
    (sums,) = conn.execute("SELECT count(*) FROM sums").fetchone()
    conn.close()
    assert rows == sums == 11


def test_name_turned_into_nale_in_an_undone_row_is_detected(tmp_path):
    store = GameStore(tmp_path)
    gid, data = game_with_undone_rows(store)
    text = undone_texts(store, gid)[0]
    at = data.index(text) + text.index(b'"name"') + 3  # the "m"
    assert data[at:at + 1] == b"m"
    flipped = bytearray(data)
    flipped[at] ^= 0x01  # "m" -> "l": "name" -> "nale", still valid JSON and a valid action
    assert bytes(flipped[at - 3:at + 2]) == b'"nale'
    store.path_of(gid).write_bytes(bytes(flipped))
    with pytest.raises(CorruptSaveError, match="does not match its checksum") as info:
        store.open(gid)
    assert "untouched" in str(info.value)
    assert store.path_of(gid).read_bytes() == bytes(flipped)  # reported, left as it is
    listing = store.list_games()  # listed as damaged, like any other damage
    assert [b.game_id for b in listing.problems] == [gid] and not listing.games


def test_every_single_bit_flip_in_the_rows_is_detected(tmp_path):
    """Each of 120 flips (a random bit of a random byte of a random row's action text, undone
    rows included) is refused when the save is opened: none opens as a healthy save."""
    store = GameStore(tmp_path)
    gid, data = game_with_undone_rows(store)
    texts = undone_texts(store, gid)
    with store.open(gid) as log:
        import json

        texts += [json.dumps(a, sort_keys=True, separators=(",", ":")).encode() for a in log.actions()]
    spans = [(data.index(t), len(t)) for t in texts]
    rng = random.Random(40)
    path = store.path_of(gid)
    opened_healthy = []
    for n in range(120):
        start, length = rng.choice(spans)
        at = start + rng.randrange(length)
        flipped = bytearray(data)
        flipped[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(flipped))
        try:
            store.open(gid).close()
            opened_healthy.append((at, data[at:at + 1], flipped[at:at + 1]))
        except StoreError:
            pass
    path.write_bytes(data)
    assert not opened_healthy
    store.open(gid).close()  # the undamaged file opens


def test_a_flipped_checksum_is_detected_too(tmp_path):
    store = GameStore(tmp_path)
    gid, data = game_with_undone_rows(store)
    conn = sqlite3.connect(store.path_of(gid))
    (last,) = conn.execute("SELECT sum FROM sums WHERE seq = 5").fetchone()
    conn.close()
    at = data.index(last.encode())
    flipped = bytearray(data)
    flipped[at] ^= 0x02
    store.path_of(gid).write_bytes(bytes(flipped))
    with pytest.raises(CorruptSaveError, match="entry 5 does not match"):
        store.open(gid)


def test_a_row_removed_with_its_checksum_kept_is_detected(tmp_path):
    store = GameStore(tmp_path)
    gid, _ = game_with_undone_rows(store)
    conn = sqlite3.connect(store.path_of(gid))
    conn.executescript("DROP TRIGGER log_no_delete; DELETE FROM log WHERE seq = 11;")
    conn.close()
    with pytest.raises(CorruptSaveError, match="missing"):
        store.open(gid)


def test_a_schema1_save_opens_untouched_and_gets_its_chain_on_its_next_write(tmp_path):
    sample = SAMPLES / "schema1-midgame-undo.sqlite"
    store = GameStore(tmp_path)
    store.games_dir.mkdir(parents=True)
    path = store.path_of("old")
    shutil.copyfile(sample, path)
    before = digest(path)
    with store.open("old") as log:  # read only: nothing written
        n, entries = len(log), log.entries
    assert digest(path) == before
    assert int.from_bytes(path.read_bytes()[60:64], "big") == 1
    with store.open("old") as log:
        log.undo()  # the first write seals every old row, then the new one
    with store.open("old") as log:
        assert len(log) == n - 1 and log.entries[:len(entries)] == entries
    data = path.read_bytes()
    assert int.from_bytes(data[60:64], "big") == 2
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM sums").fetchone()[0] == len(entries) + 1
    conn.close()
    # and an old row is now sealed: a flip in it is detected
    text = b'"type":"'
    at = data.index(text) + len(text)
    flipped = bytearray(data)
    flipped[at] ^= 0x01
    path.write_bytes(bytes(flipped))
    with pytest.raises(StoreError):
        store.open("old")
