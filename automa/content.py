"""The Automa's cards as data: three Behavior cards, three Scoring cards, continent priorities.

The Behavior cards are kept as one plain table (``BEHAVIOR_TABLE``, the printed cards row by
row, DIGEST §6 / EN rulebook "THE BEHAVIOR CARDS") and turned into frozen dataclasses,
validated at import. The Scoring cards are only referenced by key: their arithmetic lives in
``companion.scoring.score_automa`` (one implementation for the whole project).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

CONTINENTS: tuple[str, ...] = ("america", "africa", "asia", "europe", "oceania")
COLOUR_OF_CONTINENT: dict[str, str] = {
    "america": "red", "africa": "yellow", "asia": "purple", "europe": "blue", "oceania": "green",
}
CONTINENT_OF_COLOUR: dict[str, str] = {c: k for k, c in COLOUR_OF_CONTINENT.items()}
CONTINENT_LABEL: dict[str, str] = {
    "america": "America", "africa": "Africa", "asia": "Asia", "europe": "Europe", "oceania": "Oceania",
}

LOCATIONS = ("academy", "university", "expedition", "embassy", "bank")

# The printed Behavior cards. One row per die value; keys of a row:
#   location      where the die goes
#   reputation    reputation points gained (Academy / University rows)
#   tokens        expedition tokens gained
#   seals         Royal Seals gained
#   coins         coins gained (Bank rows)
#   first_player  Bank rows: takes the first-player token if nobody went to the Bank this round
#   vp_per_token  Expedition rows: VP per expedition token discarded (all of them are)
#   card          Academy: 1 animal; University: 1 expert
BEHAVIOR_TABLE: dict[str, dict] = {
    "carl-von-linne": {
        "name": "Carl von Linné",
        "stars": 1,
        "rows": {
            6: {"location": "academy", "card": 1, "reputation": 3},
            5: {"location": "university", "card": 1, "tokens": 1},
            4: {"location": "expedition", "vp_per_token": 4},
            3: {"location": "embassy", "tokens": 2},
            2: {"location": "bank", "coins": 5, "first_player": True},
            1: {"location": "expedition", "vp_per_token": 3},
        },
    },
    "abraham-trembley": {
        "name": "Abraham Trembley",
        "stars": 2,
        "rows": {
            6: {"location": "expedition", "vp_per_token": 5},
            5: {"location": "academy", "card": 1, "reputation": 3},
            4: {"location": "university", "card": 1, "seals": 1},
            3: {"location": "bank", "coins": 5, "first_player": True, "tokens": 1},
            2: {"location": "embassy", "tokens": 2},
            1: {"location": "academy", "card": 1, "reputation": 1},
        },
    },
    "louis-jean-marie-daubenton": {
        "name": "Louis Jean-Marie Daubenton",
        "stars": 3,
        "rows": {
            6: {"location": "embassy", "tokens": 3},
            5: {"location": "expedition", "vp_per_token": 6},
            4: {"location": "academy", "card": 1, "reputation": 2},
            3: {"location": "university", "card": 1, "reputation": 2},
            2: {"location": "expedition", "vp_per_token": 5},
            1: {"location": "bank", "coins": 5, "first_player": True, "seals": 1},
        },
    },
}

# Scoring cards: key -> (printed name, stars). The numbers are in companion.scoring.
SCORING_TABLE: dict[str, tuple[str, int]] = {
    "la-boudeuse": ("La Boudeuse", 1),
    "hms-resolution": ("HMS Resolution", 2),
    "l-astrolabe": ("L'Astrolabe", 3),
}


@dataclass(frozen=True)
class BehaviorRow:
    value: int
    location: str
    card: int = 0
    reputation: int = 0
    tokens: int = 0
    seals: int = 0
    coins: int = 0
    first_player: bool = False
    vp_per_token: int = 0

    def summary(self) -> str:
        """The row as printed, in a few words ("University: 1 expert, +1 token")."""
        loc = self.location.capitalize()
        parts: list[str] = []
        if self.location == "academy":
            parts.append("1 animal")
        if self.location == "university":
            parts.append("1 expert")
        if self.location == "expedition":
            parts.append(f"{self.vp_per_token} VP per token discarded")
        if self.coins:
            parts.append(f"{self.coins} coins")
        if self.first_player:
            parts.append("first player")
        if self.reputation:
            parts.append(f"+{self.reputation} reputation")
        if self.tokens:
            parts.append(f"+{self.tokens} token" + ("s" if self.tokens > 1 else ""))
        if self.seals:
            parts.append(f"+{self.seals} seal" + ("s" if self.seals > 1 else ""))
        return f"{loc}: " + ", ".join(parts)


@dataclass(frozen=True)
class Behavior:
    key: str
    name: str
    stars: int
    rows: tuple[BehaviorRow, ...]  # index 0 = die value 1

    def row(self, value: int) -> BehaviorRow:
        """The row for a die value. Values above 6 (never produced by the Automa, which spends
        nothing) read the 6 row; below 1 is an error."""
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"die value must be a whole number 1..6, got {value!r}")
        return self.rows[min(value, 6) - 1]


@dataclass(frozen=True)
class ScoringCard:
    key: str
    name: str
    stars: int


_ROW_KEYS = {"location", "card", "reputation", "tokens", "seals", "coins", "first_player", "vp_per_token"}


def _build_behaviors(table: Mapping[str, dict]) -> dict[str, Behavior]:
    out: dict[str, Behavior] = {}
    for key, card in table.items():
        rows = card["rows"]
        if sorted(rows) != [1, 2, 3, 4, 5, 6]:
            raise ValueError(f"Behavior card {key}: rows must be die values 1..6, got {sorted(rows)}")
        built = []
        for v in range(1, 7):
            r = rows[v]
            unknown = set(r) - _ROW_KEYS
            if unknown:
                raise ValueError(f"Behavior card {key} row {v}: unknown keys {sorted(unknown)}")
            if r["location"] not in LOCATIONS:
                raise ValueError(f"Behavior card {key} row {v}: unknown location {r['location']!r}")
            if (r["location"] in ("academy", "university")) != bool(r.get("card")):
                raise ValueError(f"Behavior card {key} row {v}: only Academy/University rows take a card")
            if (r["location"] == "expedition") != bool(r.get("vp_per_token")):
                raise ValueError(f"Behavior card {key} row {v}: Expedition rows (only) score VP per token")
            built.append(BehaviorRow(value=v, **r))
        out[key] = Behavior(key=key, name=card["name"], stars=card["stars"], rows=tuple(built))
    return out


BEHAVIORS: dict[str, Behavior] = _build_behaviors(BEHAVIOR_TABLE)
SCORING_CARDS: dict[str, ScoringCard] = {
    k: ScoringCard(k, name, stars) for k, (name, stars) in SCORING_TABLE.items()
}


def _norm(text: str) -> str:
    import unicodedata

    t = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "".join(ch if ch.isalnum() else "-" for ch in t).strip("-").replace("--", "-")


def behavior(key_or_name: str | int) -> Behavior:
    """A Behavior card by key, printed name (accents/case forgiven) or star count 1..3."""
    if isinstance(key_or_name, int) and not isinstance(key_or_name, bool):
        for b in BEHAVIORS.values():
            if b.stars == key_or_name:
                return b
        raise ValueError(f"no Behavior card with {key_or_name} stars (1, 2 or 3)")
    n = _norm(str(key_or_name))
    for b in BEHAVIORS.values():
        if n in (b.key, _norm(b.name)) or (n and _norm(b.name).endswith(n)):
            return b
    raise ValueError(
        f"unknown Behavior card {key_or_name!r}; choose one of "
        + ", ".join(f"{b.name} ({b.key})" for b in BEHAVIORS.values())
    )


def scoring_card(key_or_name: str | int) -> ScoringCard:
    """A Scoring card by key, printed name or star count 1..3."""
    if isinstance(key_or_name, int) and not isinstance(key_or_name, bool):
        for s in SCORING_CARDS.values():
            if s.stars == key_or_name:
                return s
        raise ValueError(f"no Scoring card with {key_or_name} stars (1, 2 or 3)")
    n = _norm(str(key_or_name))
    for s in SCORING_CARDS.values():
        if n in (s.key, _norm(s.name)):
            return s
    raise ValueError(
        f"unknown Scoring card {key_or_name!r}; choose one of "
        + ", ".join(f"{s.name} ({s.key})" for s in SCORING_CARDS.values())
    )


# --------------------------------------------------------------------------- priorities


@dataclass(frozen=True)
class Priority:
    """The five Continent cards above an Automa's board, left (highest) to right (lowest)."""

    order: tuple[str, ...]

    def __post_init__(self) -> None:
        order = tuple(self.order)
        object.__setattr__(self, "order", order)
        if sorted(order) != sorted(CONTINENTS):
            missing = [c for c in CONTINENTS if c not in order]
            extra = [c for c in order if c not in CONTINENTS]
            dup = sorted({c for c in order if order.count(c) > 1})
            bits = []
            if missing:
                bits.append("missing " + ", ".join(missing))
            if dup:
                bits.append("repeated " + ", ".join(dup))
            if extra:
                bits.append("unknown " + ", ".join(map(repr, extra)))
            raise ValueError(
                "a priority order lists each of the 5 continents exactly once (" + "; ".join(bits) + ")"
            )

    @classmethod
    def parse(cls, text: str | Sequence[str]) -> "Priority":
        """From the cards as entered: "europe, asia, ..." or colours ("blue purple ...") or
        a list; case and accents forgiven; 'americas' accepted."""
        items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        order = []
        for it in items:
            n = _norm(str(it))
            if n in CONTINENT_OF_COLOUR:
                n = CONTINENT_OF_COLOUR[n]
            if n == "americas":
                n = "america"
            order.append(n)
        return cls(tuple(order))

    @classmethod
    def shuffled(cls, rng: random.Random) -> "Priority":
        order = list(CONTINENTS)
        rng.shuffle(order)
        return cls(tuple(order))

    def rank(self, continent: str) -> int:
        """0 = highest priority."""
        return self.order.index(continent)

    def colour_rank(self, colour: str) -> int:
        return self.order.index(CONTINENT_OF_COLOUR[colour])

    def to_json(self) -> list[str]:
        return list(self.order)

    def label(self) -> str:
        return " > ".join(CONTINENT_LABEL[c] for c in self.order)


def distinct_priorities(n: int, rng: random.Random) -> list[Priority]:
    """n shuffled priority orders (one Continent card set per Automa), pairwise different."""
    if not 0 <= n <= 3:
        raise ValueError(f"the box holds 3 sets of Continent cards: at most 3 automas, got {n}")
    out: list[Priority] = []
    while len(out) < n:
        p = Priority.shuffled(rng)
        if p not in out:
            out.append(p)
    return out


def all_combinations() -> Iterable[tuple[Behavior, ScoringCard]]:
    for b in sorted(BEHAVIORS.values(), key=lambda b: b.stars):
        for s in sorted(SCORING_CARDS.values(), key=lambda s: s.stars):
            yield b, s
