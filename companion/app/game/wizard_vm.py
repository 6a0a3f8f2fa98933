"""New game wizard (plain Python): seats, automa cards and priorities, first player, Sepultus.

``NewGameVM`` holds the table being set up; ``problems()`` are the engine's own set-up checks
(the ``StartGame`` is tried on a fresh state with the checked ``apply``), so the wizard never
disagrees with the rules; ``create(store)`` makes the saved game. ``setup_steps(state)`` lists
the rulebook's set-up in order with what each seat receives, for the first screen of the game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from automa.content import BEHAVIORS, SCORING_CARDS, Priority, distinct_priorities
from companion.actions import SeatConfig, StartGame, action_from_json
from companion.content.board import default_board
from companion.content.vocab import CONTINENTS
from companion.engine import apply, new_game
from companion.errors import RuleError
from companion.session import GameSession

HUMAN, AUTOMA = "human", "automa"


@dataclass
class SeatDraft:
    kind: str = HUMAN
    name: str = ""
    behaviour: str = "carl-von-linne"
    scoring: str = "la-boudeuse"
    priority: list[str] = field(default_factory=lambda: list(CONTINENTS))
    priority_entered: bool = False  # True: typed in to match the table; False: shuffled by the app

    def config(self) -> SeatConfig:
        if self.kind == AUTOMA:
            return SeatConfig(self.name.strip(), AUTOMA, self.behaviour, self.scoring, tuple(self.priority))
        return SeatConfig(self.name.strip(), HUMAN)


def behaviour_label(key: str) -> str:
    b = BEHAVIORS[key]
    return f"{b.name} · {b.stars}/3"


def scoring_label(key: str) -> str:
    s = SCORING_CARDS[key]
    return f"{s.name} · {s.stars}/3"


def behaviour_keys() -> list[str]:
    return [b.key for b in sorted(BEHAVIORS.values(), key=lambda b: b.stars)]


def scoring_keys() -> list[str]:
    return [s.key for s in sorted(SCORING_CARDS.values(), key=lambda s: s.stars)]


class NewGameVM:
    MIN, MAX = 2, 4

    def __init__(self, text, rng: random.Random | None = None):
        self.t = text
        self.rng = rng or random.Random()
        self.seats: list[SeatDraft] = [SeatDraft(HUMAN, text("g.wiz.default_player", n=1)), SeatDraft(AUTOMA, "Automa")]
        self.first_player = 0
        self.sepultus = False
        self.title = ""
        self.error: str | None = None
        self.shuffle_all()

    # -- seats --------------------------------------------------------------------------
    def add_seat(self, kind: str = HUMAN) -> bool:
        if len(self.seats) >= self.MAX:
            self.error = self.t("g.wiz.max_seats", n=self.MAX)
            return False
        if kind == AUTOMA and self.automa_count() >= default_board().max_automas:
            self.error = self.t("g.wiz.max_automas", n=default_board().max_automas)
            return False
        self.seats.append(SeatDraft(kind, self._default_name(kind)))
        if kind == AUTOMA:
            self.shuffle(len(self.seats) - 1)
        self.error = None
        return True

    def remove_seat(self, i: int) -> bool:
        if len(self.seats) <= self.MIN:
            self.error = self.t("g.wiz.min_seats", n=self.MIN)
            return False
        del self.seats[i]
        if self.first_player >= len(self.seats):
            self.first_player = 0
        self.error = None
        return True

    def move_seat(self, i: int, delta: int) -> bool:
        """Move seat ``i`` one place earlier (-1) or later (+1) in the turn order. The first
        player stays the same seat (it moves with it). Past either end: refused, nothing moves."""
        if not 0 <= i < len(self.seats) or delta not in (-1, 1):
            raise ValueError(f"no seat move ({i}, {delta}) among {len(self.seats)} seats")
        j = i + delta
        if not 0 <= j < len(self.seats):
            self.error = self.t("g.wiz.move_first" if delta < 0 else "g.wiz.move_last", n=i + 1)
            return False
        self.seats[i], self.seats[j] = self.seats[j], self.seats[i]
        if self.first_player == i:
            self.first_player = j
        elif self.first_player == j:
            self.first_player = i
        self.error = None
        return True

    def seat_title(self, i: int) -> str:
        """The heading of seat ``i``'s card: its place in the turn order and what sits there
        ("Seat 2 · Automa"), never a player's word for an automa."""
        kind = self.t("g.wiz.automa" if self.seats[i].kind == AUTOMA else "g.wiz.human")
        return self.t("g.wiz.seat_title", n=i + 1, kind=kind)

    def set_kind(self, i: int, kind: str) -> bool:
        s = self.seats[i]
        if kind == s.kind:
            return True
        if kind == AUTOMA and self.automa_count() >= default_board().max_automas:
            self.error = self.t("g.wiz.max_automas", n=default_board().max_automas)
            return False
        s.kind = kind
        s.name = self._default_name(kind)
        if kind == AUTOMA:
            self.shuffle(i)
        self.error = None
        return True

    def set_name(self, i: int, name: str) -> None:
        self.seats[i].name = name

    def set_behaviour(self, i: int, key: str) -> None:
        if key not in BEHAVIORS:
            raise ValueError(f"unknown Behavior card {key!r}")
        self.seats[i].behaviour = key

    def set_scoring(self, i: int, key: str) -> None:
        if key not in SCORING_CARDS:
            raise ValueError(f"unknown Scoring card {key!r}")
        self.seats[i].scoring = key

    def automa_count(self) -> int:
        return sum(1 for s in self.seats if s.kind == AUTOMA)

    def _default_name(self, kind: str) -> str:
        taken = {s.name for s in self.seats}
        n = 1
        while True:
            name = (self.t("g.wiz.default_player", n=n) if kind == HUMAN
                    else ("Automa" if n == 1 else f"Automa {n}"))
            if name not in taken:
                return name
            n += 1

    # -- "same as last game" (issue 41, item 16) -------------------------------------------
    def last_game_start(self, store) -> StartGame | None:
        """The set-up of the game created last in ``store`` (its first action), or None."""
        try:
            games = sorted(store.list_games().games, key=lambda g: (g.created, g.game_id), reverse=True)
        except Exception:  # StoreError: an unreadable folder offers nothing to copy
            return None
        for g in games:
            try:
                log = store.open(g.game_id)
                try:
                    first = log.actions()[:1]
                finally:
                    log.close()
                a = action_from_json(first[0]) if first else None
            except Exception:  # a damaged or locked save: try the one before
                continue
            if isinstance(a, StartGame):
                return a
        return None

    def same_as_last(self, store) -> bool:
        """One tap: the seats (kind, name, Behavior and Scoring cards, order), the first player
        and Sepultus of the last game. The automas' Continent cards are shuffled again (each
        game lays them out anew). Refused with the reason when there is no earlier game."""
        start = self.last_game_start(store)
        if start is None:
            self.error = self.t("g.wiz.same_as_last_none")
            return False
        self.seats = [SeatDraft(s.kind, s.name, s.behaviour or "carl-von-linne", s.scoring or "la-boudeuse")
                      for s in start.seats]
        self.first_player = start.first_player if 0 <= start.first_player < len(self.seats) else 0
        self.sepultus = bool(start.sepultus)
        self.shuffle_all()
        self.error = None
        return True

    # -- priorities ---------------------------------------------------------------------
    def shuffle(self, i: int) -> None:
        """Shuffle seat ``i``'s five Continent cards, different from the other automas' orders."""
        others = [tuple(s.priority) for j, s in enumerate(self.seats) if j != i and s.kind == AUTOMA]
        while True:
            p = Priority.shuffled(self.rng).order
            if p not in others:
                break
        self.seats[i].priority = list(p)
        self.seats[i].priority_entered = False

    def shuffle_all(self) -> None:
        idx = [i for i, s in enumerate(self.seats) if s.kind == AUTOMA]
        for i, p in zip(idx, distinct_priorities(len(idx), self.rng)):
            self.seats[i].priority = list(p.order)
            self.seats[i].priority_entered = False

    def move_priority(self, i: int, continent: str, delta: int) -> None:
        """Move a continent up (-1, higher priority) or down (+1): to match the cards on the table."""
        pr = self.seats[i].priority
        k = pr.index(continent)
        j = max(0, min(len(pr) - 1, k + delta))
        pr.insert(j, pr.pop(k))
        self.seats[i].priority_entered = True

    def set_priority_text(self, i: int, text: str) -> bool:
        """The order typed in ("europe asia ..." or colours); refused with the reason."""
        try:
            p = Priority.parse(text)
        except ValueError as exc:
            self.error = str(exc)
            return False
        self.seats[i].priority = list(p.order)
        self.seats[i].priority_entered = True
        self.error = None
        return True

    # -- result -------------------------------------------------------------------------
    def start_action(self) -> StartGame:
        return StartGame(tuple(s.config() for s in self.seats), self.first_player, self.sepultus)

    def problems(self) -> list[str]:
        try:
            apply(new_game(), self.start_action())
        except RuleError as exc:
            return [self.t.engine(exc)]
        return []

    def create(self, store) -> GameSession | None:
        """The saved game (its first action written to disk), or None with ``error`` set."""
        probs = self.problems()
        if probs:
            self.error = probs[0]
            return None
        try:
            return GameSession.create(store, [self.start_action()], title=self.title.strip() or None)
        except Exception as exc:  # StoreError (disk full, read-only folder): say it, keep the wizard
            self.error = str(exc)
            return None


def setup_steps(state, text) -> list[str]:
    """The rulebook's set-up in order, with what each seat receives (numbers from the state)."""
    b = state.board
    n = len(state.seats)
    fp = state.first_player
    t = text
    steps = [
        t("g.setup.boards"),
        t("g.setup.experts", n=b.expert_display_size),
        t("g.setup.animals", n=b.animal_display_size[n]),
    ]
    order = [state.seats[(fp + k) % n].name for k in range(n - 1, -1, -1)]
    steps.append(t("g.setup.starting_animals", n=b.starting_animals, order=", ".join(order)))
    for k in range(n):
        si = (fp + k) % n
        s = state.seats[si]
        steps.append(t("g.setup.seat_gets", name=s.name, coins=b.starting_coins[k], tokens=b.starting_tokens))
    steps.append(t("g.setup.first_player", name=state.seats[fp].name))
    for s in state.seats:
        if s.kind == AUTOMA:
            steps.append(t("g.setup.automa", name=s.name, behaviour=behaviour_label(s.behaviour),
                           scoring=scoring_label(s.scoring), priority=" > ".join(t.continent(c) for c in s.priority)))
    return steps
