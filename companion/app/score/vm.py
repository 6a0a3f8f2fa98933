"""The final-score view (plain Python): breakdown table, chart bars, winner line, in the
user's language. Shared by the stand-alone score pad and the end of a tracked game; the numbers
all come from ``companion.scoring`` (nothing is recomputed here).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.app.common.i18n import Translator
from companion.content.board import Board, default_board
from companion.scoring import Ranking, ScoreBreakdown

#: fixed row order of the table (rows nobody scored are left out)
_TAIL = ("seals", "coins", "tokens")


@dataclass(frozen=True)
class ScoreRow:
    key: str
    label: str
    vps: tuple[int | None, ...]   # per seat, in seat order (None: this seat has no such line)
    details: tuple[str, ...]      # per seat, the scoring module's explanation ("" when none)


@dataclass(frozen=True)
class Bar:
    name: str
    total: int
    fraction: float  # total / best total (0..1), for the chart's bar length
    winner: bool


@dataclass(frozen=True)
class ScoreView:
    names: tuple[str, ...]
    rows: tuple[ScoreRow, ...]
    totals: tuple[int, ...]
    places: tuple[int, ...]
    bars: tuple[Bar, ...]
    winners: tuple[str, ...]
    verdict: str        # "Ann wins with 188 VP" / the tie-break explained


def row_label(key: str, tr: Translator, fallback: str = "") -> str:
    kind, _, arg = key.partition(":")
    if key == "track":
        return tr("score.track")
    if key in _TAIL:
        return tr(f"score.{key}")
    if kind == "category" and tr.has(f"cat.{arg}"):
        return tr(f"cat.{arg}")
    if kind == "continent" and tr.has(f"continent.{arg}"):
        return tr(f"continent.{arg}")
    if kind == "expert":
        return tr("score.expert", name=arg)
    if kind == "expert_group":
        return tr("score.expert_group", n=arg)
    return fallback or key


def _join(names: list[str], tr: Translator) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + tr("score.and") + names[-1]


def verdict(ranking: Ranking, tr: Translator) -> str:
    order = ranking.order
    top = order[0].total
    tied = [b for b in order if b.total == top]
    if len(tied) == 1:
        return tr("score.winner", name=tied[0].name, total=top)
    names = _join([b.name for b in tied], tr)
    if len(ranking.winners) == 1:
        w = tied[0]
        others = ", ".join(tr("score.tie_other", name=b.name, n=b.published_animals) for b in tied[1:])
        return tr("score.tie_won", names=names, total=top, winner=w.name, n=w.published_animals, others=others)
    return tr("score.tie_shared", names=names, total=top, winners=_join(list(ranking.winners), tr),
              n=tied[0].published_animals)


def build_view(breakdowns: list[ScoreBreakdown], ranking: Ranking, tr: Translator,
               board: Board | None = None) -> ScoreView:
    board = board or default_board()
    present: dict[str, str] = {}
    for b in breakdowns:
        for item in b.items:
            present.setdefault(item.category_key, item.label)
    order = (["track"] + [f"category:{c}" for c in board.categories]
             + [f"continent:{c}" for c in board.continents])
    keys = [k for k in order if k in present]
    keys += sorted((k for k in present if k.startswith("expert:")), key=lambda k: k.lower())
    keys += [k for k in ("expert_group:1", "expert_group:2", "expert_group:3") if k in present]
    keys += [k for k in _TAIL if k in present]
    keys += [k for k in present if k not in keys]  # anything new the scoring module adds
    rows = []
    for k in keys:
        vps, details = [], []
        for b in breakdowns:
            items = [i for i in b.items if i.category_key == k]
            vps.append(sum(i.vp for i in items) if items else None)
            details.append("; ".join(i.detail for i in items if i.detail))
        rows.append(ScoreRow(k, row_label(k, tr, present[k]), tuple(vps), tuple(details)))
    place = {b.name: p for b, p in zip(ranking.order, ranking.places)}
    best = max((b.total for b in breakdowns), default=0)
    bars = tuple(Bar(b.name, b.total, (b.total / best) if best > 0 else 0.0, b.name in ranking.winners)
                 for b in breakdowns)
    return ScoreView(
        names=tuple(b.name for b in breakdowns),
        rows=tuple(rows),
        totals=tuple(b.total for b in breakdowns),
        places=tuple(place[b.name] for b in breakdowns),
        bars=bars,
        winners=ranking.winners,
        verdict=verdict(ranking, tr),
    )
