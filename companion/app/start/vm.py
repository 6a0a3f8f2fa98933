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
    imported: bool = False  # came from a game file (the store's ``meta["imported"]``)


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
            imported=bool(g.meta.get("imported")),
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


#: the longest name a game may be given (it is a list's title line)
MAX_TITLE = 80


def check_title(title, tr) -> str:
    """The name as it will be kept (spaces trimmed), or ``GameFileError`` saying what is wrong."""
    if not isinstance(title, str):
        raise GameFileError(tr("resume.rename_bad"))
    title = title.strip()
    if not title:
        raise GameFileError(tr("resume.rename_empty"))
    if len(title) > MAX_TITLE:
        raise GameFileError(tr("resume.rename_long", n=MAX_TITLE))
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in title):
        raise GameFileError(tr("resume.rename_bad"))
    return title


class SavedGamesVM:
    """Renaming and deleting saved games from the list (the table's screen only).

    ``live`` is the server's registry of open games (``companion.shared_session.LiveGames``):
    a game open on a page is renamed through its live session (the pages show the new name at
    their next redraw) and is never deleted (the page would write into a file gone to the
    trash): the delete is refused, naming why. A delete always asks first (``ask_delete``, then
    ``confirm_delete``); the file goes to the store's trash folder (``GameStore.trash_game``),
    where it can be taken back by hand. ``error`` / ``done``: the last refusal / the last success,
    in the page's language."""

    def __init__(self, tr, store: GameStore | None = None, live=None):
        self.tr = tr
        self._store = store
        self.live = live
        self.renaming: str | None = None
        self.deleting: str | None = None
        self.error: str | None = None
        self.done: str | None = None

    @property
    def store(self) -> GameStore:
        if self._store is None:
            self._store = GameStore()
        return self._store

    def _title_of(self, game_id: str) -> str:
        rows, _broken, _ = saved_games(self.store)
        for g in rows:
            if g.game_id == game_id:
                return g.title or g.seats or g.game_id
        return game_id

    def cancel(self) -> None:
        self.renaming = self.deleting = None
        self.error = None

    # -- rename ------------------------------------------------------------------------------
    def ask_rename(self, game_id: str) -> None:
        self.deleting, self.renaming, self.error, self.done = None, game_id, None, None

    def rename(self, game_id: str, title) -> bool:
        """Give ``game_id`` the name ``title``; refused (nothing written) with the reason."""
        self.done = None
        try:
            title = check_title(title, self.tr)
        except GameFileError as exc:
            self.error = str(exc)
            return False

        def on_disk():
            with self.store.open(game_id) as log:
                log.update_meta({"title": title})

        try:
            if self.live is None:
                on_disk()
            else:
                closed, shared = self.live.unless_open(game_id, on_disk, self.store)
                if not closed:
                    shared.rename(title)
        except StoreError as exc:
            self.error = self.tr("resume.rename_failed", error=str(exc))
            return False
        self.renaming, self.error = None, None
        self.done = self.tr("resume.renamed", title=title)
        return True

    # -- delete ------------------------------------------------------------------------------
    def ask_delete(self, game_id: str) -> str:
        """The question to ask before deleting ``game_id`` (nothing is deleted yet)."""
        self.renaming, self.deleting, self.error, self.done = None, game_id, None, None
        return self.delete_question()

    def delete_question(self) -> str:
        return self.tr("resume.delete_ask", title=self._title_of(self.deleting)) if self.deleting else ""

    def confirm_delete(self) -> bool:
        """Delete the game asked about (``ask_delete``): refused while a page has it open."""
        game_id, self.done = self.deleting, None
        if game_id is None:
            self.error = self.tr("resume.delete_unasked")
            return False
        title = self._title_of(game_id)
        try:
            if self.live is None:
                self.store.trash_game(game_id)
            else:
                closed, _shared = self.live.unless_open(game_id, lambda: self.store.trash_game(game_id), self.store)
                if not closed:
                    self.deleting = None
                    self.error = self.tr("resume.delete_open", title=title)
                    return False
        except StoreError as exc:
            self.deleting = None
            self.error = self.tr("resume.delete_failed", error=str(exc))
            return False
        self.deleting, self.error = None, None
        self.done = self.tr("resume.deleted", title=title)
        return True
