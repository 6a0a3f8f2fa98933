"""A game session: the engine's state plus its event log on disk.

``GameSession`` is what the UI holds while a game is open::

    store = GameStore()                                  # <user data dir>/games
    session = GameSession.create(store, [StartGame(seats=...)], title="Friday")
    session.confirm(TakeDie(seat=0, owner=1, slot=2))    # checked, then saved, then returns
    session.undo(); session.redo()
    session.close()
    session = GameSession.open(store, game_id)           # after a crash too: nothing confirmed is lost

Guarantees (see ``docs/saves.md``):

* :meth:`GameSession.confirm` applies the action through the engine's checked ``apply`` on a
  copy of the state, writes it to the log (flushed to disk), and only then makes the new state
  current. A rule error or a failed write leaves the session exactly as it was and raises.
* What is applied is exactly what is stored: the action is converted to JSON and back before it
  is applied, so reopening the game replays the very same actions.
* Opening a game replays the stored actions through the *checked* ``apply``; an action that no
  longer applies (or cannot be read any more) raises :class:`SavedGameReplayError` naming it, and
  the file is left as it is (:meth:`GameSession.copy_playable_part` makes a new game from the
  actions before it, on request).
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from companion import engine
from companion.actions import Action, action_from_json
from companion.engine import State, describe
from companion.errors import RuleError
from companion.messages import Msg
from companion.store import (
    EXPORT_FORMAT,
    EXPORT_SCHEMA,
    GameLog,
    GameStore,
    NothingToRedoError,
    NothingToUndoError,
    StoreError,
    parse_export,
    read_export,
    write_export,
)

__all__ = ["GameSession", "SavedGameReplayError", "summary_meta"]

#: how many states before the latest actions a session keeps, so that an Undo does not replay
#: the whole game (older undos replay it, as before)
KEPT_STATES = 64


class SavedGameReplayError(StoreError):
    """A stored action cannot be read or is refused by the engine when the game is rebuilt.

    ``index`` is the 1-based position of the action in the game, ``action`` its stored JSON,
    ``reason`` the underlying error, ``playable`` how many actions before it replay fine."""

    def __init__(self, message: str, *, index: int, action: Any, reason: Exception,
                 path: Path | None = None, game_id: str | None = None):
        super().__init__(message, path=path, game_id=game_id)
        self.index = index
        self.action = action
        self.reason = reason
        self.playable = index - 1


def summary_meta(state: State) -> dict[str, Any]:
    """What the game list shows without replaying: seats, round, whether it is over."""
    return {
        "seats": [{"name": s.name, "kind": s.kind, "vp": s.vp} for s in state.seats],
        "round": state.round,
        "rounds": state.board.rounds,
        "finished": bool(state.seats) and state.finished,
        "actions": state.n_actions,
    }


def _describe_stored(d: Any) -> str:
    kind = d.get("type") if isinstance(d, dict) else None
    return f"({kind})" if isinstance(kind, str) else ""


def rules_of(meta: Any) -> int:
    """The rules version that checked a stored game (``meta["rules"]``); a game written before
    the field existed was checked by version 1."""
    v = meta.get("rules") if isinstance(meta, Mapping) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 1 else 1


def _rebuild(dicts: Sequence[Any], *, where: str, path: Path | None = None, game_id: str | None = None,
             rules: int = engine.RULES_VERSION) -> tuple[State, list[Action]]:
    """Parse and apply (checked) every stored action; :class:`SavedGameReplayError` on the first
    one that cannot be read or is refused. A game checked by older rules (``rules`` below
    ``engine.RULES_VERSION``) may hold a move a later version refuses (its refusal key is in
    ``engine.RULES_CHANGES``): that action replays unchecked, as it was played (it was checked
    when it was written). Any other refusal is reported as before."""
    older = rules < engine.RULES_VERSION
    state = State()
    actions: list[Action] = []
    for i, d in enumerate(dicts, start=1):
        try:
            action = action_from_json(d)
        except (RuleError, ValueError, TypeError) as e:
            raise SavedGameReplayError(
                f"{where}: action {i} {_describe_stored(d)} cannot be read by this version: {e}",
                index=i, action=d, reason=e, path=path, game_id=game_id) from e
        try:
            try:
                engine.apply(state, action)
            except RuleError as refusal:
                if not (older and engine.refused_only_by_newer_rules(refusal, rules)):
                    raise
                engine.apply_unchecked(state, action)  # the rules of its time accepted it
        except RuleError as e:
            raise SavedGameReplayError(
                f"{where}: action {i} {_describe_stored(d)} is refused by the rules: {e}",
                index=i, action=d, reason=e, path=path, game_id=game_id) from e
        except Exception as e:  # an engine bug: still say which action, keep the cause chained
            raise SavedGameReplayError(
                f"{where}: action {i} {_describe_stored(d)} could not be replayed (internal error "
                f"{type(e).__name__}: {e}); please report it with the exported game",
                index=i, action=d, reason=e, path=path, game_id=game_id) from e
        actions.append(action)
    return state, actions


def _canonical(action: Action) -> tuple[Action, dict]:
    """The action as it will be replayed from disk, and its JSON."""
    if not isinstance(action, Action):
        raise TypeError(f"confirm() takes an engine action, not {type(action).__name__}")
    d = action.to_json()
    return action_from_json(d), d


class GameSession:
    """One open game: the current ``state``, its ``actions`` and the log on disk."""

    def __init__(self, store: GameStore, log: GameLog, state: State, actions: list[Action]):
        # Use create / open / import_game rather than this constructor.
        self.store = store
        self._log = log
        self._state = state
        self._actions = actions
        # derived, never saved: the states before the latest actions (an undo takes the last one
        # instead of replaying the game) and the log lines (built once, then kept in step)
        self._before: deque[State] = deque(maxlen=KEPT_STATES)
        self._messages: list[Msg] | None = None
        self._compacted_at: int | None = None  # the log's head at the last ``compact``

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def create(cls, store: GameStore, first_actions: Iterable[Action], title: str | None = None,
               game_id: str | None = None) -> "GameSession":
        """Start a new game from its first actions (normally ``[StartGame(...)]``). They are
        checked by the engine and written together with the new file: a game that cannot be
        set up is never saved."""
        pairs = [_canonical(a) for a in first_actions]
        state = State()
        for action, _ in pairs:
            engine.apply(state, action)  # RuleError: nothing was written
        meta = summary_meta(state)
        meta["title"] = title if title is not None else _default_title(state)
        meta["rules"] = engine.RULES_VERSION  # the rules that check it (never updated later)
        log = store.create(meta, [d for _, d in pairs], game_id=game_id)
        return cls(store, log, state, [a for a, _ in pairs])

    @classmethod
    def open(cls, store: GameStore, game_id: str) -> "GameSession":
        """Open a saved game and rebuild its state by replaying its actions through the checked
        ``apply``. Store errors (damaged, foreign, newer file) and
        :class:`SavedGameReplayError` leave the file untouched."""
        log = store.open(game_id)
        try:
            state, actions = _rebuild(log.actions(), where=f"the saved game {log.title or game_id!r}",
                                      path=log.path, game_id=game_id, rules=rules_of(log.meta))
        except BaseException:
            log.close()
            raise
        return cls(store, log, state, actions)

    @classmethod
    def import_game(cls, store: GameStore, document: Any) -> "GameSession":
        """Import an exported game (a dict) as a new game. Every action is checked by the
        engine before anything is written; an existing game is never overwritten."""

        doc_id, meta, dicts = parse_export(document)
        rules = rules_of(meta)
        state, actions = _rebuild(dicts, where="the imported game", rules=rules)  # before anything is written
        meta.update(summary_meta(state))
        meta["rules"] = rules
        original = document.get("meta") if isinstance(document, dict) else None
        if isinstance(original, dict) and "created" in original:
            meta["created"] = original["created"]  # the store keeps the game's creation time
        checked = {"format": EXPORT_FORMAT, "schema": EXPORT_SCHEMA, "game_id": doc_id, "meta": meta,
                   "actions": dicts}
        log = store.import_game(checked)
        return cls(store, log, state, actions)

    @classmethod
    def import_file(cls, store: GameStore, path: str | os.PathLike[str]) -> "GameSession":
        return cls.import_game(store, read_export(path))

    @classmethod
    def copy_playable_part(cls, store: GameStore, game_id: str, title: str | None = None) -> "GameSession":
        """For a game that :meth:`open` refuses with :class:`SavedGameReplayError`: a NEW game
        holding the actions before the refused one. The original file is not changed."""
        with store.open(game_id) as log:
            dicts = log.actions()
            meta = log.meta
        rules = rules_of(meta)
        try:
            state, actions = _rebuild(dicts, where="the saved game", rules=rules)
            playable = len(dicts)
        except SavedGameReplayError as e:
            playable = e.playable
            state, actions = _rebuild(dicts[:playable], where="the saved game", rules=rules)
        kept = dicts[:playable]
        new_meta = {k: v for k, v in meta.items() if k not in ("title",)}
        new_meta.update(summary_meta(state))
        new_meta["title"] = title if title is not None else f"{meta.get('title') or game_id} (first {playable} actions)"
        new_meta["copied_from"] = game_id
        new_log = store.create(new_meta, kept)
        return cls(store, new_log, state, actions)

    # -- reading ------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current state. Read it, never change it (use :meth:`confirm`)."""
        return self._state

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._actions)

    @property
    def game_id(self) -> str:
        return self._log.game_id

    @property
    def path(self) -> Path:
        return self._log.path

    @property
    def title(self) -> str:
        return self._log.title

    @property
    def meta(self) -> dict:
        return self._log.meta

    @property
    def can_undo(self) -> bool:
        """True when there is an action after the game's first one (the set-up) to take back."""
        return len(self._actions) > 1

    @property
    def can_redo(self) -> bool:
        return self._log.can_redo

    def next_redo(self) -> Action | None:
        d = self._log.next_redo()
        return action_from_json(d) if d is not None else None

    @property
    def closed(self) -> bool:
        return self._log.closed

    def log_lines(self) -> list[str]:
        """One readable line per action, in order (for the UI's action log): the engine's
        ``describe_action`` of each action in the state just before it."""
        return [str(m) for m in self.log_messages()]

    def log_messages(self) -> list[Msg]:
        """The same lines as messages (key + arguments), for the app to word in the player's
        language: the engine's ``describe`` of each action in the state just before it. Built
        by one replay when first asked, then kept in step by confirm, undo and redo."""
        if self._messages is None or len(self._messages) != len(self._actions):
            st = State(self._state.board)
            lines: list[Msg] = []
            for action in self._actions:
                lines.append(describe(st, action))
                engine.apply_unchecked(st, action)
            self._messages = lines
        return list(self._messages)

    def compact(self) -> bool:
        """The same game in new objects: the states kept for Undo, the log's lines and its rows
        in memory are built again (equal values; the current state and the actions, which pages
        hold and compare, stay). The server calls it when it is quiet (``LiveGames.compact``,
        docs/app.md): objects made while phones came and went lie scattered among the memory
        their pages freed, each keeping its page of the heap resident; new ones are packed
        together. Nothing to do (``False``) when the log has not grown since the last time."""
        head = self._log.head
        if head == self._compacted_at:
            return False
        self._before = deque((s.copy() for s in self._before), maxlen=KEPT_STATES)
        self._messages = None
        self.log_messages()
        self._log.compact()
        self._compacted_at = head
        return True

    def _moved_on(self, before: State, action: Action, after: State) -> None:
        """``action`` took the game from ``before`` to ``after`` (already saved)."""
        if self._messages is not None and len(self._messages) == len(self._actions):
            self._messages.append(describe(before, action))
        else:
            self._messages = None
        self._before.append(before)
        self._state = after
        self._actions.append(action)

    # -- changing -----------------------------------------------------------------------------

    def confirm(self, action: Action) -> State:
        """Apply ``action`` (checked), save it durably, then make the result current and return
        it. ``RuleError``: refused, nothing changed, nothing saved. ``SaveWriteError``: the
        disk write failed, nothing changed (the action can be confirmed again)."""
        canonical, d = _canonical(action)
        new_state = self._state.copy()
        engine.apply(new_state, canonical)
        self._log.append(d, meta=summary_meta(new_state))  # raises before anything changes here
        self._moved_on(self._state, canonical, new_state)
        return new_state

    def undo(self) -> Action:
        """Take back the last action (never the set-up); returns it. Recorded in the log."""
        if not self.can_undo:
            raise NothingToUndoError("there is nothing to undo", path=self.path, game_id=self.game_id)
        previous = self._before[-1] if self._before else engine.replay(self._actions[:-1])
        undone = action_from_json(self._log.undo(meta=summary_meta(previous)))
        if self._before:
            self._before.pop()
        self._state = previous
        self._actions.pop()
        if self._messages is not None and len(self._messages) == len(self._actions) + 1:
            self._messages.pop()
        else:
            self._messages = None
        return undone

    def redo(self) -> Action:
        """Bring back the last undone action (checked again); returns it. Recorded in the log."""
        d = self._log.next_redo()
        if d is None:
            raise NothingToRedoError("there is nothing to redo", path=self.path, game_id=self.game_id)
        action = action_from_json(d)
        new_state = self._state.copy()
        engine.apply(new_state, action)
        self._log.redo(meta=summary_meta(new_state))
        self._moved_on(self._state, action, new_state)
        return action

    def rename(self, title: str) -> None:
        if not isinstance(title, str):
            raise TypeError("a title is a string")
        self._log.update_meta({"title": title.strip()})

    # -- export / close -----------------------------------------------------------------------

    def export(self) -> dict:
        return self._log.export()

    def export_file(self, path: str | os.PathLike[str]) -> Path:
        return write_export(self.export(), path)

    def close(self) -> None:
        self._log.close()

    def __enter__(self) -> "GameSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _default_title(state: State) -> str:
    names = [s.name for s in state.seats]
    return ", ".join(names) if names else "new game"


def replay_export(document: Mapping[str, Any]) -> State:
    """The state an export document describes (checked replay), without saving anything."""
    _, _, dicts = parse_export(dict(document))
    state, _ = _rebuild(dicts, where="the exported game")
    return state
