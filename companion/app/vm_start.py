"""The start screen's list of saved games (plain Python over ``companion.store``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from companion.store import GameStore, StoreError


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
