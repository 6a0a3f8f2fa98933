"""Final scoring (DIGEST §1 "final scoring", §5 experts, §6 automa scoring cards, §7 Sepultus).

Inputs are plain counts, so the same code serves the engine (which converts a finished state),
the score pad CLI and the tests:

- ``HumanScoreInput``: VP already on the score track, published cubes per category, published
  animal cards per continent, published Sepultus Creatura cards (wildcards), every expert owned
  with whether it is active (face up and not covered), seals, coins, expedition tokens, and the
  reputation counter's position.
- ``AutomaScoreInput``: VP on the track, the scoring card, animal cards per continent, experts,
  coins, tokens, seals.

``score_human`` / ``score_automa`` return a ``ScoreBreakdown`` whose ``items`` say where every
point comes from (``category_key`` is ``"track"``, ``"category:<cat>"``, ``"continent:<c>"``,
``"expert:<name>"``, ``"expert_group:<n>"``, ``"seals"``, ``"coins"`` or ``"tokens"``).
``final_ranking`` orders seats with the rulebook tie-break.

Decisions (see docs/score-sheet.md):
- A human's tie-break count is published animal cards + published Sepultus cards (a published
  Sepultus card is kept like an animal of the reference's continent). An automa never publishes:
  its count is the animal cards in front of it (the only animal count it has).
- Sepultus wildcards are spread over continents to maximise the total; among equally good
  spreads, the one putting wildcards on the earliest continents in the order
  america, africa, asia, europe, oceania is shown (the total is the same either way).
- A collection below 4 elements scores 0 but still appears in the breakdown (detail says why),
  so a player sees that 3 reptiles were counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, Sequence

from companion.content.board import Board, default_board
from companion.content.experts import Expert, expert_by_name
from companion.content.vocab import CATEGORIES, CONTINENTS, did_you_mean

AUTOMA_SCORING_CARDS = ("la-boudeuse", "hms-resolution", "l-astrolabe")


class ScoreInputError(ValueError):
    """A score input is impossible (negative count, unknown category, same expert twice...)."""


# ------------------------------------------------------------------------------- inputs


def _count(where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ScoreInputError(f"{where}: expected a whole number, got {v!r}")
    if v < 0:
        raise ScoreInputError(f"{where}: cannot be negative ({v})")
    return v


def _counts(where: str, d: Mapping[str, int] | None, keys: Sequence[str], what: str) -> dict[str, int]:
    d = dict(d or {})
    out = {k: 0 for k in keys}
    for k, v in d.items():
        if k not in keys:
            raise ScoreInputError(f"{where}.{k}: unknown {what} {k!r}{did_you_mean(str(k), keys)}")
        out[k] = _count(f"{where}.{k}", v)
    return out


def _expert(where: str, e: Expert | str) -> Expert:
    if isinstance(e, Expert):
        return e
    try:
        return expert_by_name(e)
    except KeyError as exc:
        raise ScoreInputError(f"{where}: {exc.args[0]}") from None


def _no_duplicates(where: str, experts: Iterable[Expert]) -> None:
    seen: set[str] = set()
    for e in experts:
        if e.name in seen:
            raise ScoreInputError(f"{where}: {e.name} is listed twice (there is one card of each expert)")
        seen.add(e.name)


@dataclass(frozen=True)
class HumanScoreInput:
    name: str
    vp: int = 0
    cubes: Mapping[str, int] = field(default_factory=dict)
    published: Mapping[str, int] = field(default_factory=dict)
    sepultus: int = 0
    experts: Sequence[tuple[Expert, bool]] = ()
    seals: int = 0
    coins: int = 0
    tokens: int = 0
    reputation: int = 0

    def __post_init__(self) -> None:
        w = self.name
        # vp on the track may legitimately be any non-negative count; reputation is a position
        for k in ("vp", "sepultus", "seals", "coins", "tokens", "reputation"):
            _count(f"{w}.{k}", getattr(self, k))
        object.__setattr__(self, "cubes", _counts(f"{w}.cubes", self.cubes, CATEGORIES, "category"))
        object.__setattr__(self, "published", _counts(f"{w}.published", self.published, CONTINENTS, "continent"))
        experts = []
        for i, item in enumerate(self.experts):
            if isinstance(item, (Expert, str)):
                raise ScoreInputError(f"{w}.experts[{i}]: expected (expert, active) pairs")
            e, active = item
            if not isinstance(active, bool):
                raise ScoreInputError(f"{w}.experts[{i}].active: expected true or false, got {active!r}")
            experts.append((_expert(f"{w}.experts[{i}]", e), active))
        _no_duplicates(f"{w}.experts", (e for e, _ in experts))
        object.__setattr__(self, "experts", tuple(experts))

    @property
    def published_animals(self) -> int:
        """The tie-break count: published animal cards + published Sepultus cards."""
        return sum(self.published.values()) + self.sepultus


@dataclass(frozen=True)
class AutomaScoreInput:
    name: str
    scoring: str = "la-boudeuse"
    vp: int = 0
    animals: Mapping[str, int] = field(default_factory=dict)
    experts: Sequence[Expert] = ()
    coins: int = 0
    tokens: int = 0
    seals: int = 0

    def __post_init__(self) -> None:
        w = self.name
        if self.scoring not in AUTOMA_SCORING_CARDS:
            raise ScoreInputError(
                f"{w}.scoring: unknown scoring card {self.scoring!r}{did_you_mean(str(self.scoring), AUTOMA_SCORING_CARDS)}; "
                f"expected one of {', '.join(AUTOMA_SCORING_CARDS)}"
            )
        for k in ("vp", "coins", "tokens", "seals"):
            _count(f"{w}.{k}", getattr(self, k))
        object.__setattr__(self, "animals", _counts(f"{w}.animals", self.animals, CONTINENTS, "continent"))
        experts = tuple(_expert(f"{w}.experts[{i}]", e) for i, e in enumerate(self.experts))
        _no_duplicates(f"{w}.experts", experts)
        object.__setattr__(self, "experts", experts)

    @property
    def published_animals(self) -> int:
        """The automa never publishes; its tie-break count is the animal cards it holds."""
        return sum(self.animals.values())


# ------------------------------------------------------------------------------- outputs


@dataclass(frozen=True)
class ScoreItem:
    category_key: str
    label: str
    vp: int
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.category_key, "label": self.label, "vp": self.vp, "detail": self.detail}


@dataclass(frozen=True)
class ScoreBreakdown:
    name: str
    kind: Literal["human", "automa"]
    total: int
    items: tuple[ScoreItem, ...]
    #: published animals (human) / animals held (automa): the tie-break count
    published_animals: int = 0
    #: where the Sepultus wildcards were counted (human)
    wildcards: Mapping[str, int] = field(default_factory=dict)
    #: automa scoring card id
    scoring_card: str | None = None

    def vp_of(self, key: str) -> int:
        """VP of one item (0 when absent)."""
        return sum(i.vp for i in self.items if i.category_key == key)

    def by_key(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in self.items:
            out[i.category_key] = out.get(i.category_key, 0) + i.vp
        return out

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "total": self.total,
            "published_animals": self.published_animals,
            "items": [i.to_json() for i in self.items],
        }
        if self.kind == "human":
            d["wildcards"] = dict(self.wildcards)
        if self.scoring_card is not None:
            d["scoring_card"] = self.scoring_card
        return d


@dataclass(frozen=True)
class Ranking:
    order: tuple[ScoreBreakdown, ...]  # best first
    winners: tuple[str, ...]
    tie_break_note: str | None
    places: tuple[int, ...] = ()  # 1-based place of each entry of ``order`` (equal = shared)


# ------------------------------------------------------------------------------- scoring


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _collection_detail(n: int, noun: str, parts: list[str], board: Board) -> str:
    """``"12 cards (6 animals + 6 experts)"``, ``"3 cubes: fewer than 4, no points"``."""
    detail = _plural(n, noun)
    if len(parts) > 1:
        detail += " (" + " + ".join(parts) + ")"
    if n < board.collection_min:
        detail += f": fewer than {board.collection_min}, no points"
    return detail


def best_wildcard_spread(base: Mapping[str, int], wildcards: int, board: Board) -> dict[str, int]:
    """Wildcards per continent maximising the sum of continent collection VP (exact search).

    Dynamic programming over continents; ties keep the spread that puts wildcards on earlier
    continents (order of ``board.continents``).
    """
    conts = list(board.continents)
    # best[i][s] = best VP of continents i.. using exactly s wildcards there
    best = [[0] * (wildcards + 1) for _ in range(len(conts) + 1)]
    choice = [[0] * (wildcards + 1) for _ in range(len(conts))]
    for i in range(len(conts) - 1, -1, -1):
        n = base.get(conts[i], 0)
        for s in range(wildcards + 1):
            top, pick = -1, 0
            for w in range(s, -1, -1):  # more wildcards here first: earlier continents win ties
                vp = board.collection_vp(n + w) + best[i + 1][s - w]
                if vp > top:
                    top, pick = vp, w
            best[i][s], choice[i][s] = top, pick
    spread, s = {}, wildcards
    for i, c in enumerate(conts):
        w = choice[i][s]
        if w:
            spread[c] = w
        s -= w
    return spread


def score_human(inp: HumanScoreInput, board: Board | None = None) -> ScoreBreakdown:
    """A human's final score: track VP + collections + active end-game experts + seals/coins/tokens."""
    board = board or default_board()
    items: list[ScoreItem] = [ScoreItem("track", "Score track", inp.vp, "VP gained during the game")]

    active_endgame = [e for e, active in inp.experts if active and e.duration == "endgame"]
    bonus_cubes: dict[str, list[Expert]] = {}
    for e in active_endgame:
        if e.gain.cubes is not None:
            bonus_cubes.setdefault(e.gain.cubes.category, []).append(e)

    # category collections: published cubes + end-game expert cubes
    for cat in board.categories:
        published = inp.cubes.get(cat, 0)
        extra = [(e, e.gain.cubes.count) for e in bonus_cubes.get(cat, [])]
        n = published + sum(c for _, c in extra)
        if n == 0:
            continue
        parts = ([f"{published} published"] if published else []) + [f"{c} from {e.name}" for e, c in extra]
        detail = _collection_detail(n, "cube", parts, board)
        items.append(ScoreItem(f"category:{cat}", cat.capitalize(), board.collection_vp(n), detail))

    # continent collections: published animals + every owned expert + Sepultus wildcards
    experts_by_cont = {c: sum(1 for e, _ in inp.experts if e.continent == c) for c in board.continents}
    base = {c: inp.published.get(c, 0) + experts_by_cont[c] for c in board.continents}
    spread = best_wildcard_spread(base, inp.sepultus, board)
    for c in board.continents:
        a, x, w = inp.published.get(c, 0), experts_by_cont[c], spread.get(c, 0)
        n = a + x + w
        if n == 0:
            continue
        parts = []
        if a:
            parts.append(_plural(a, "animal"))
        if x:
            parts.append(_plural(x, "expert"))
        if w:
            parts.append(f"{w} Sepultus")
        items.append(ScoreItem(f"continent:{c}", c.capitalize(), board.collection_vp(n), _collection_detail(n, "card", parts, board)))

    # end-game experts that give VP (active only)
    owned = len(inp.experts)
    for e in active_endgame:
        per = e.gain.vp_per
        if per is None:
            continue
        if per == "token":
            units, what = inp.tokens, _plural(inp.tokens, "expedition token")
        elif per == "seal":
            units, what = inp.seals, _plural(inp.seals, "Royal Seal")
        elif per == "coin_pair":
            units, what = inp.coins // 2, f"{_plural(inp.coins // 2, 'pair')} of coins ({inp.coins} coins)"
        elif per == "expert":
            units, what = owned, _plural(owned, "expert") + " owned"
        else:  # reputation_space
            units, what = inp.reputation, f"reputation space {inp.reputation}"
        items.append(ScoreItem(f"expert:{e.name}", e.name, units * e.gain.vp, f"{e.gain.vp} VP × {what}"))

    items.append(ScoreItem("seals", "Royal Seals", inp.seals * board.end_vp_per_seal,
                           f"{_plural(inp.seals, 'seal')} × {board.end_vp_per_seal}"))
    items.append(ScoreItem("coins", "Coins", inp.coins // board.end_coins_per_vp,
                           f"{_plural(inp.coins, 'coin')} ÷ {board.end_coins_per_vp}"))
    items.append(ScoreItem("tokens", "Expedition tokens", inp.tokens * board.end_vp_per_token,
                           f"{_plural(inp.tokens, 'token')} × {board.end_vp_per_token}"))
    return ScoreBreakdown(
        name=inp.name,
        kind="human",
        total=sum(i.vp for i in items),
        items=tuple(items),
        published_animals=inp.published_animals,
        wildcards=spread,
    )


def score_automa(inp: AutomaScoreInput, board: Board | None = None) -> ScoreBreakdown:
    """An automa's final score from its scoring card (DIGEST §6); in-game VP are kept."""
    board = board or default_board()
    card = board.automa_scoring_cards[inp.scoring]
    items: list[ScoreItem] = [ScoreItem("track", "Score track", inp.vp, "VP gained during the game")]
    experts_by_cont = {c: sum(1 for e in inp.experts if e.continent == c) for c in board.continents}
    for c in board.continents:
        a, x = inp.animals.get(c, 0), experts_by_cont[c]
        if a + x == 0:
            continue
        items.append(ScoreItem(
            f"continent:{c}", c.capitalize(), (a + x) * a,
            f"({_plural(a, 'animal')} + {_plural(x, 'expert')}) × {_plural(a, 'animal')}",
        ))
    groups = sorted(((n, c) for c, n in experts_by_cont.items() if n > 0), key=lambda t: -t[0])
    for rank, ((n, c), per) in enumerate(zip(groups, card.expert_groups_vp), start=1):
        items.append(ScoreItem(
            f"expert_group:{rank}", f"Experts, group {rank}", n * per,
            f"{_plural(n, 'expert')} of {c.capitalize()} × {per}",
        ))
    coin_rule = "1 VP per coin" if card.coins_per_vp == 1 else f"1 VP per {card.coins_per_vp} coins"
    items.append(ScoreItem("coins", "Coins", inp.coins // card.coins_per_vp, f"{_plural(inp.coins, 'coin')}, {coin_rule}"))
    items.append(ScoreItem("tokens", "Expedition tokens", inp.tokens * card.vp_per_token,
                           f"{_plural(inp.tokens, 'token')} × {card.vp_per_token}"))
    items.append(ScoreItem("seals", "Royal Seals", inp.seals * card.vp_per_seal,
                           f"{_plural(inp.seals, 'seal')} × {card.vp_per_seal}"))
    return ScoreBreakdown(
        name=inp.name,
        kind="automa",
        total=sum(i.vp for i in items),
        items=tuple(items),
        published_animals=inp.published_animals,
        scoring_card=inp.scoring,
    )


def score(inp: HumanScoreInput | AutomaScoreInput, board: Board | None = None) -> ScoreBreakdown:
    """``score_human`` or ``score_automa`` depending on the input type."""
    if isinstance(inp, AutomaScoreInput):
        return score_automa(inp, board)
    if isinstance(inp, HumanScoreInput):
        return score_human(inp, board)
    raise TypeError(f"expected a HumanScoreInput or AutomaScoreInput, got {type(inp).__name__}")


def final_ranking(entries: Iterable[tuple[ScoreBreakdown, int] | ScoreBreakdown]) -> Ranking:
    """Order by total, then published animals (rulebook tie-break); still equal = shared place.

    ``entries`` are ``(breakdown, published_animals_count)`` pairs, or breakdowns alone (their
    ``published_animals`` is used). Input order is kept among fully tied seats.
    """
    pairs: list[tuple[ScoreBreakdown, int]] = []
    for e in entries:
        if isinstance(e, ScoreBreakdown):
            pairs.append((e, e.published_animals))
        else:
            b, n = e
            pairs.append((b, _count(f"{b.name}: published animals", n)))
    if not pairs:
        raise ScoreInputError("no seats to rank")
    ordered = sorted(pairs, key=lambda p: (-p[0].total, -p[1]))
    places: list[int] = []
    for i, (b, n) in enumerate(ordered):
        if i and (b.total, n) == (ordered[i - 1][0].total, ordered[i - 1][1]):
            places.append(places[-1])
        else:
            places.append(i + 1)
    top_total = ordered[0][0].total
    tied = [(b, n) for b, n in ordered if b.total == top_total]
    winners = tuple(b.name for b, n in tied if n == tied[0][1])
    note = None
    if len(tied) > 1:
        names = _join([b.name for b, _ in tied])
        if len(winners) == 1:
            rest = ", ".join(f"{b.name} {n}" for b, n in tied[1:])
            note = (f"{names} tied on {top_total} VP; {winners[0]} published the most animals "
                    f"({tied[0][1]}, against {rest}) and wins")
        else:
            note = (f"{names} tied on {top_total} VP; {_join(list(winners))} published the same number "
                    f"of animals ({tied[0][1]}): the win is shared")
    return Ranking(order=tuple(b for b, _ in ordered), winners=winners, tie_break_note=note, places=tuple(places))


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
