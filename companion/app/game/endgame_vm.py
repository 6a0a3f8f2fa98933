"""The end of a tracked game at a glance (plain Python, no Flet): each seat's points by source,
the score track over the rounds, and the cards each seat scored, by name.

- **Points by source** regroup the items of ``companion.scoring``'s ``ScoreBreakdown`` (nothing
  is scored again here): the score track, collections (categories and continents; an automa's
  continent term), experts (end-game experts; an automa's expert groups), seals, coins and
  tokens. The six parts of a seat add up to its total (an item the scoring module adds in a
  later version lands in "other", shown only when it is not zero).
- **The score track over the rounds** is read by replaying the game's action log
  (``companion.engine.apply_unchecked``, a few milliseconds for a whole game): the VP on each
  seat's track when the game moves on to the next round, and at the end. Nothing is stored
  twice: the log is the only record.
- **Cards by name**: the animals that count for a seat's continent collections (a human's
  published cards, an automa's cards in front of it), each shown by its name when the table
  named it, as everywhere else on the screens.

Decisions are in docs/app-game.md ("The end of the game at a glance"). ``GameOverStep`` is the
game's last question (the final scores and these charts); ``endgame_view`` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from companion.engine import queries
from companion.actions import Action
from companion.app.game.board_vm import SEAT_COLOURS
from companion.app.game.steps import Step
from companion.content.board import Board
from companion.engine import State, apply_unchecked
from companion.scoring import ScoreBreakdown

#: where points come from, in the order the chart stacks them
SOURCES = ("track", "collections", "experts", "seals", "coins", "tokens")
OTHER = "other"


def source_of(category_key: str) -> str:
    """The source of a ``ScoreItem`` by its ``category_key``."""
    if category_key in ("track", "seals", "coins", "tokens"):
        return category_key
    kind = category_key.partition(":")[0]
    if kind in ("category", "continent"):
        return "collections"
    if kind in ("expert", "expert_group"):
        return "experts"
    return OTHER


@dataclass(frozen=True)
class SeatPoints:
    """One seat's final score split by source (``parts``: (source, VP) in ``SOURCES`` order,
    every source listed, ``"other"`` last and only when not zero)."""

    name: str
    kind: str
    total: int
    parts: tuple[tuple[str, int], ...]
    fraction: float  # total / the best total (0..1): the bar's length
    winner: bool

    def vp(self, source: str) -> int:
        return sum(v for s, v in self.parts if s == source)


def points_by_source(breakdowns: Sequence[ScoreBreakdown], winners: Iterable[str] = ()) -> tuple[SeatPoints, ...]:
    winners = set(winners)
    best = max((b.total for b in breakdowns), default=0)
    out = []
    for b in breakdowns:
        sums = {s: 0 for s in SOURCES}
        other = 0
        for item in b.items:
            src = source_of(item.category_key)
            if src == OTHER:
                other += item.vp
            else:
                sums[src] += item.vp
        parts = tuple(sums.items()) + (((OTHER, other),) if other else ())
        out.append(SeatPoints(b.name, b.kind, b.total, parts, (b.total / best) if best > 0 else 0.0,
                              b.name in winners))
    return tuple(out)


def seat_colour(seat: int) -> str:
    """Seat ``seat``'s marker colour, the same as on the drawn board (issue 41, item 3)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


@dataclass(frozen=True)
class TrackSeries:
    """VP on each seat's score track at the end of each round, from the action log.

    ``rounds`` are the rounds reached (1..6 for a finished game); ``vp[seat][k]`` is the seat's
    track at the end of ``rounds[k]`` (for a game still under way, the last one is "now")."""

    names: tuple[str, ...]
    rounds: tuple[int, ...]
    vp: tuple[tuple[int, ...], ...]
    finished: bool

    def colour(self, seat: int) -> str:
        """The seat's colour on the board (``board_vm.SEAT_COLOURS``): one colour per seat everywhere."""
        return seat_colour(seat)

    @property
    def best(self) -> int:
        return max((v for row in self.vp for v in row), default=0)

    def fraction(self, seat: int, k: int) -> float:
        best = self.best
        return self.vp[seat][k] / best if best > 0 else 0.0

    def gained(self, seat: int) -> tuple[int, ...]:
        """VP gained on the track during each round."""
        row = self.vp[seat]
        return tuple(v - (row[k - 1] if k else 0) for k, v in enumerate(row))


def track_by_round(actions: Iterable[Action], board: Board | None = None) -> TrackSeries:
    """Replay ``actions`` and read every seat's track VP each time the round counter moves on
    (the VP then are those at the end of the round before: a new round starts with reveals,
    which score nothing) and after the last action."""
    st = State(board)
    at_end: dict[int, tuple[int, ...]] = {}
    for a in actions:
        before = st.round
        apply_unchecked(st, a)
        if st.round != before and before >= 1:
            at_end[before] = tuple(s.vp for s in st.seats)
    if st.round >= 1:
        at_end[st.round] = tuple(s.vp for s in st.seats)
    rounds = tuple(sorted(at_end))
    vp = tuple(tuple(at_end[r][i] for r in rounds) for i in range(len(st.seats)))
    return TrackSeries(tuple(s.name for s in st.seats), rounds, vp, st.pending.kind == "game_over")


@dataclass(frozen=True)
class SeatCards:
    """The animal cards that count for a seat's continent collections, as shown on screen."""

    name: str
    kind: str
    cards: tuple[str, ...]


def seat_cards(st: State, label: Callable[[int], str]) -> tuple[SeatCards, ...]:
    """Per seat, its scoring animals (human: published; automa: those in front of it), in
    continent order then in the order taken, each worded by ``label`` (the screens'
    ``GameVM.card_label``: the card's name when it has one)."""
    order = {c: i for i, c in enumerate(st.board.continents)}
    out = []
    for s in st.seats:
        ids = sorted(s.published if s.kind == "human" else s.animals,  # stable: order taken kept
                     key=lambda cid: order.get(st.cards[cid].continent, len(order)))
        out.append(SeatCards(s.name, s.kind, tuple(label(cid) for cid in ids)))
    return tuple(out)


@dataclass(frozen=True)
class EndGame:
    """Everything the end-of-game charts draw."""

    points: tuple[SeatPoints, ...]
    track: TrackSeries
    cards: tuple[SeatCards, ...]


def build_endgame(vm, breakdowns: Sequence[ScoreBreakdown], ranking) -> EndGame:
    """The charts' data for the game open in ``vm`` (a ``GameVM``)."""
    st = vm.state
    return EndGame(
        points=points_by_source(breakdowns, ranking.winners),
        track=track_by_round(vm.session.actions, st.board),
        cards=seat_cards(st, vm.card_label),
    )


class GameOverStep(Step):
    kind = "game_over"

    def scores(self):
        return queries.final_scores(self.state)

    def at_a_glance(self, scores=None):
        """The end-of-game charts' data (``EndGame``): points by source, the score
        track over the rounds replayed from the log, the scoring cards by name."""
        return build_endgame(self.vm, *(scores or self.scores()))


__all__ = ["SOURCES", "OTHER", "source_of", "SeatPoints", "points_by_source", "TrackSeries", "track_by_round",
           "SeatCards", "seat_cards", "EndGame", "build_endgame", "GameOverStep"]
