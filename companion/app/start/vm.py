"""The start screen's list of saved games (plain Python over ``companion.store``), and moving a
game between devices: export one as a JSON file (the store's export format, docs/saves.md) and
import one (every action replayed by the engine before anything is written; an existing game is
never overwritten)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime

from companion.store import GameStore, StoreError


class GameFileError(ValueError):
    """A game file that cannot be imported or a game that cannot be exported (nothing changed)."""


@dataclass(frozen=True)
class SavedGameRow:
    game_id: str
    title: str
    when: str          # local date and time of the last change, "2024-05-01 21:14"
    seats: str         # "Alice, Bob, Automa (Carl von Linné)" or "" when unknown
    round: int | None  # current round, when the session recorded it
    actions: int
    finished: bool = False
    automas: tuple[str, ...] = ()  # names of the automa seats


@dataclass(frozen=True)
class BrokenSaveRow:
    file_name: str
    reason: str


def _local_time(iso: str) -> str:
    if not iso:
        return ""
    try:
        dt = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return dt.astimezone().strftime("%Y-%m-%d %H:%M")


def _seats_text(seats) -> str:
    """``meta["seats"]`` as the session writes it: a list of names or of ``{"name": ...}``."""
    if not seats:
        return ""
    if isinstance(seats, (list, tuple)):
        names = []
        for s in seats:
            if isinstance(s, dict):
                names.append(str(s.get("name") or s.get("kind") or "?"))
            else:
                names.append(str(s))
        return ", ".join(names)
    return str(seats)


def saved_games(store: GameStore | None = None) -> tuple[list[SavedGameRow], list[BrokenSaveRow], str | None]:
    """``(games newest first, unreadable files, problem)``; ``problem`` when the folder cannot be read."""
    store = store or GameStore()
    try:
        listing = store.list_games()
    except StoreError as exc:
        return [], [], str(exc)
    rows = []
    for g in listing.games:
        rnd = g.round
        seats = g.seats if isinstance(g.seats, (list, tuple)) else []
        automas = tuple(str(s.get("name", "")) for s in seats
                        if isinstance(s, dict) and s.get("kind") == "automa")
        rows.append(SavedGameRow(
            game_id=g.game_id,
            title=g.title,
            when=_local_time(g.updated or g.created),
            seats=_seats_text(g.seats),
            round=rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None,
            actions=g.action_count,
            finished=g.meta.get("finished") is True,
            automas=automas,
        ))
    broken = [BrokenSaveRow(b.path.name, b.reason) for b in listing.problems]
    return rows, broken, None


def export_game(game_id: str, store: GameStore | None = None) -> tuple[str, bytes]:
    """``(file name, bytes)`` of a saved game in the store's export format."""
    store = store or GameStore()
    try:
        doc = store.export_game(game_id)
    except StoreError as exc:
        raise GameFileError(str(exc)) from None
    title = str(doc.get("meta", {}).get("title") or game_id)
    slug = re.sub(r"[^0-9A-Za-z]+", "-", title).strip("-").lower()[:40] or "game"
    data = (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    return f"encyclopedia-{slug}.json", data


def import_game(data: bytes, source: str, store: GameStore | None = None) -> str:
    """Import an exported game file (its bytes); returns the new game's id."""
    from companion.session import GameSession  # the engine is loaded only when importing

    store = store or GameStore()
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise GameFileError(f"{source}: not a UTF-8 text file") from None
    except json.JSONDecodeError as exc:
        raise GameFileError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        session = GameSession.import_game(store, doc)
    except (StoreError, ValueError) as exc:
        raise GameFileError(f"{source}: {exc}") from None
    game_id = session.game_id
    session.close()
    return game_id
