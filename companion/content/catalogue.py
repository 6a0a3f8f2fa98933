"""The animal catalogue: cards the table enters, remembered locally, shared as JSON.

The 75 animal cards and the 6 Sepultus Creatura cards are not in any text the project has
(DIGEST §8), so players enter them when they appear. Two frozen value types:

- ``AnimalCard(continent, categories, name=None)``: ``categories`` is the four categories, one
  per type I–IV, stored in type order (``("bird", "omnivore", "aquatic", "temperate")``), or
  ``None`` while only the continent is known (a card seen in the display, not yet taken).
- ``SepultusCard(die_value, expedition_value, categories, name=None)``: the Academy die value
  (1–6) that takes it, the expedition value a research cube costs, and the categories it lists
  (one or more, any types, each at most once).

Both convert to and from JSON (``to_json()`` / ``card_from_json(d)``; the ``"kind"`` key tells
them apart). A ``Catalogue`` holds named cards (look-up forgives accents, case and spacing),
loads/saves ``<user data dir>/catalogue.json`` (atomic write; a corrupt file is reported,
never overwritten) and imports/exports files in the same format, merging by name. The file
format is documented in docs/content.md.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Literal, Union

from companion.content.paths import user_file
from companion.content.vocab import (
    CATEGORIES,
    CONTINENTS,
    TYPE_OF_CATEGORY,
    ContentError,
    did_you_mean,
    name_key,
)

CATALOGUE_FILE_NAME = "catalogue.json"
FORMAT = "encyclopedia-catalogue"
VERSION = 1
MAX_NAME_LENGTH = 80

_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}


class CatalogueError(ContentError):
    """A card or a catalogue file is invalid; the message says where (``animals[2].continent``)."""


# ------------------------------------------------------------------------------ validation


def _name(where: str, v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str):
        raise CatalogueError(f"{where}: expected a string or null, got {type(v).__name__}")
    v = " ".join(v.split())
    if not v:
        return None
    if len(v) > MAX_NAME_LENGTH:
        raise CatalogueError(f"{where}: name longer than {MAX_NAME_LENGTH} characters")
    if not name_key(v):
        raise CatalogueError(f"{where}: a name needs at least one letter or digit, got {v!r}")
    return v


def _continent(where: str, v: Any) -> str:
    if isinstance(v, str) and v.strip().casefold() in CONTINENTS:
        return v.strip().casefold()
    raise CatalogueError(
        f"{where}: unknown continent {v!r}{did_you_mean(str(v), CONTINENTS)}; expected one of {', '.join(CONTINENTS)}"
    )


def _category(where: str, v: Any) -> str:
    if isinstance(v, str) and v.strip().casefold() in CATEGORIES:
        return v.strip().casefold()
    raise CatalogueError(f"{where}: unknown category {v!r}{did_you_mean(str(v), CATEGORIES)}")


def _int(where: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise CatalogueError(f"{where}: expected an integer {lo}..{hi}, got {v!r}")
    return v


def _four_categories(where: str, v: Any) -> tuple[str, str, str, str] | None:
    if v is None:
        return None
    if not isinstance(v, (list, tuple)) or len(v) != 4:
        raise CatalogueError(f"{where}: expected 4 categories, one per type I-IV (or null), got {v!r}")
    by_type: dict[int, str] = {}
    for i, c in enumerate(v):
        c = _category(f"{where}[{i}]", c)
        t = TYPE_OF_CATEGORY[c]
        if t in by_type:
            raise CatalogueError(
                f"{where}: two Type {_ROMAN[t]} categories {by_type[t]!r} and {c!r}; an animal has one category per type"
            )
        by_type[t] = c
    return tuple(by_type[t] for t in (1, 2, 3, 4))  # type: ignore[return-value]


def _object(where: str, d: Any, required: set[str], optional: set[str]) -> dict:
    if not isinstance(d, dict):
        raise CatalogueError(f"{where}: expected an object, got {type(d).__name__}")
    missing = required - d.keys()
    if missing:
        raise CatalogueError(f"{where}: missing {', '.join(sorted(missing))}")
    extra = d.keys() - required - optional
    if extra:
        raise CatalogueError(f"{where}: unexpected key(s) {', '.join(sorted(extra))}")
    return d


# ------------------------------------------------------------------------------ cards


@dataclass(frozen=True)
class AnimalCard:
    """An animal card. ``categories`` in type order I..IV, or None while unknown."""

    continent: str
    categories: tuple[str, str, str, str] | None = None
    name: str | None = None
    kind: Literal["animal"] = field(default="animal", init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "continent", _continent("continent", self.continent))
        object.__setattr__(self, "categories", _four_categories("categories", self.categories))
        object.__setattr__(self, "name", _name("name", self.name))

    @property
    def complete(self) -> bool:
        return self.categories is not None

    def category(self, type_: int) -> str | None:
        """The category of type 1..4 (None while unknown)."""
        if type_ not in (1, 2, 3, 4):
            raise ValueError(f"type must be 1..4, got {type_!r}")
        return None if self.categories is None else self.categories[type_ - 1]

    def has_category(self, category: str) -> bool:
        return self.categories is not None and category in self.categories

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "animal",
            "name": self.name,
            "continent": self.continent,
            "categories": None if self.categories is None else list(self.categories),
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "card") -> "AnimalCard":
        d = _object(where, d, {"continent"}, {"kind", "name", "categories"})
        if d.get("kind", "animal") != "animal":
            raise CatalogueError(f"{where}.kind: expected 'animal', got {d.get('kind')!r}")
        return cls(
            continent=_continent(f"{where}.continent", d["continent"]),
            categories=_four_categories(f"{where}.categories", d.get("categories")),
            name=_name(f"{where}.name", d.get("name")),
        )

    def label(self) -> str:
        return self.name or f"unnamed {self.continent} animal"


@dataclass(frozen=True)
class SepultusCard:
    """A Sepultus Creatura card: Academy die value, expedition value, listed categories."""

    die_value: int
    expedition_value: int
    categories: tuple[str, ...]
    name: str | None = None
    kind: Literal["sepultus"] = field(default="sepultus", init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "die_value", _int("die_value", self.die_value, 1, 6))
        object.__setattr__(self, "expedition_value", _int("expedition_value", self.expedition_value, 1, 60))
        cats = self.categories
        if isinstance(cats, str) or not isinstance(cats, (list, tuple)) or not cats:
            raise CatalogueError(f"categories: expected a non-empty list of categories, got {cats!r}")
        norm = tuple(_category(f"categories[{i}]", c) for i, c in enumerate(cats))
        if len(set(norm)) != len(norm):
            raise CatalogueError(f"categories: a category is listed twice in {list(norm)}")
        object.__setattr__(self, "categories", norm)
        object.__setattr__(self, "name", _name("name", self.name))

    @property
    def continent(self) -> None:
        """Sepultus cards belong to no continent (a wildcard at game end)."""
        return None

    def has_category(self, category: str) -> bool:
        return category in self.categories

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "sepultus",
            "name": self.name,
            "die_value": self.die_value,
            "expedition_value": self.expedition_value,
            "categories": list(self.categories),
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "card") -> "SepultusCard":
        d = _object(where, d, {"die_value", "expedition_value", "categories"}, {"kind", "name"})
        if d.get("kind", "sepultus") != "sepultus":
            raise CatalogueError(f"{where}.kind: expected 'sepultus', got {d.get('kind')!r}")
        cats = d["categories"]
        if isinstance(cats, str) or not isinstance(cats, list) or not cats:
            raise CatalogueError(f"{where}.categories: expected a non-empty list of categories, got {cats!r}")
        norm = [_category(f"{where}.categories[{i}]", c) for i, c in enumerate(cats)]
        if len(set(norm)) != len(norm):
            raise CatalogueError(f"{where}.categories: a category is listed twice in {norm}")
        return cls(
            die_value=_int(f"{where}.die_value", d["die_value"], 1, 6),
            expedition_value=_int(f"{where}.expedition_value", d["expedition_value"], 1, 60),
            categories=tuple(norm),
            name=_name(f"{where}.name", d.get("name")),
        )

    def label(self) -> str:
        return self.name or "unnamed Sepultus Creatura"


Card = Union[AnimalCard, SepultusCard]


def card_from_json(d: Any, where: str = "card") -> Card:
    """An ``AnimalCard`` or ``SepultusCard`` from its JSON (``"kind"`` decides; default animal)."""
    kind = d.get("kind", "animal") if isinstance(d, dict) else None
    if kind == "sepultus":
        return SepultusCard.from_json(d, where)
    if kind == "animal":
        return AnimalCard.from_json(d, where)
    if not isinstance(d, dict):
        raise CatalogueError(f"{where}: expected an object, got {type(d).__name__}")
    raise CatalogueError(f"{where}.kind: expected 'animal' or 'sepultus', got {kind!r}")


# ------------------------------------------------------------------------------ catalogue


@dataclass(frozen=True)
class MergeReport:
    added: tuple[str, ...] = ()
    completed: tuple[str, ...] = ()  # a partial local card got its categories
    replaced: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # conflicts resolved by keeping the local card
    unchanged: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.added or self.completed or self.replaced)

    def summary(self) -> str:
        parts = [f"{len(getattr(self, k))} {k}" for k in ("added", "completed", "replaced", "kept", "unchanged")
                 if getattr(self, k)]
        return ", ".join(parts) or "nothing to import"


OnConflict = Literal["error", "keep", "replace"]


def _compatible(local: Card, incoming: Card) -> Literal["same", "complete", "conflict"]:
    if local == incoming:
        return "same"
    if (
        isinstance(local, AnimalCard)
        and isinstance(incoming, AnimalCard)
        and local.continent == incoming.continent
        and incoming.categories is None
    ):
        return "same"  # incoming knows less: nothing to learn
    if (
        isinstance(local, AnimalCard)
        and isinstance(incoming, AnimalCard)
        and local.continent == incoming.continent
        and local.categories is None
    ):
        return "complete"
    return "conflict"


class Catalogue:
    """Named cards, looked up by name (accents, case, spacing and punctuation forgiven)."""

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self._cards: dict[str, Card] = {}
        for c in cards:
            self.add(c)

    # -- reading

    def __len__(self) -> int:
        return len(self._cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(sorted(self._cards.values(), key=lambda c: name_key(c.name or "")))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name_key(name) in self._cards

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalogue) and self._cards == other._cards

    @property
    def animals(self) -> tuple[AnimalCard, ...]:
        return tuple(c for c in self if isinstance(c, AnimalCard))

    @property
    def sepultus(self) -> tuple[SepultusCard, ...]:
        return tuple(c for c in self if isinstance(c, SepultusCard))

    def lookup(self, name: str) -> Card:
        """The card called ``name``; ``KeyError`` naming close matches otherwise."""
        card = self._cards.get(name_key(name)) if isinstance(name, str) else None
        if card is None:
            raise KeyError(f"no card called {name!r} in the catalogue{did_you_mean(str(name), [c.name for c in self])}")
        return card

    def get(self, name: str) -> Card | None:
        return self._cards.get(name_key(name)) if isinstance(name, str) else None

    def search(self, prefix: str) -> tuple[Card, ...]:
        """Cards whose name starts with ``prefix`` (as typed: accents/case forgiven), for autocompletion."""
        key = name_key(prefix)
        return tuple(c for c in self if name_key(c.name or "").startswith(key))

    # -- changing

    def add(self, card: Card, on_conflict: OnConflict = "error") -> str:
        """Add a named card. Returns 'added', 'completed', 'replaced', 'kept' or 'unchanged'."""
        if not isinstance(card, (AnimalCard, SepultusCard)):
            raise CatalogueError(f"expected an AnimalCard or SepultusCard, got {type(card).__name__}")
        if card.name is None:
            raise CatalogueError("only named cards go in the catalogue (look-up is by name)")
        key = name_key(card.name)
        local = self._cards.get(key)
        if local is None:
            self._cards[key] = card
            return "added"
        verdict = _compatible(local, card)
        if verdict == "same":
            return "unchanged"
        if verdict == "complete":
            self._cards[key] = card
            return "completed"
        if on_conflict == "replace":
            self._cards[key] = card
            return "replaced"
        if on_conflict == "keep":
            return "kept"
        raise CatalogueError(
            f"{card.name!r} is already in the catalogue with different data "
            f"(have {_describe(local)}, got {_describe(card)}); choose to keep or replace it"
        )

    def remove(self, name: str) -> Card:
        card = self.lookup(name)
        del self._cards[name_key(card.name or "")]
        return card

    def merge(self, other: "Catalogue | Iterable[Card]", on_conflict: OnConflict = "error") -> MergeReport:
        """Merge cards by name. With ``on_conflict="error"`` a conflict changes nothing."""
        incoming = list(other)
        trial = dict(self._cards)
        results: dict[str, list[str]] = {k: [] for k in ("added", "completed", "replaced", "kept", "unchanged")}
        try:
            for card in incoming:
                results[self.add(card, on_conflict)].append(card.name or "")
        except CatalogueError:
            self._cards = trial  # all or nothing
            raise
        return MergeReport(**{k: tuple(v) for k, v in results.items()})

    # -- JSON and files

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "animals": [c.to_json() for c in self.animals],
            "sepultus": [c.to_json() for c in self.sepultus],
        }

    @classmethod
    def from_json(cls, d: Any, source: str = "catalogue") -> "Catalogue":
        """Validate a whole catalogue document; the error names ``source`` and the entry."""
        if not isinstance(d, dict):
            raise CatalogueError(f"{source}: expected a catalogue object, got {type(d).__name__}")
        if d.get("format") != FORMAT:
            raise CatalogueError(f"{source}: not an Encyclopedia catalogue (format {d.get('format')!r}, expected {FORMAT!r})")
        version = d.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise CatalogueError(f"{source}: version: expected a positive integer, got {version!r}")
        if version > VERSION:
            raise CatalogueError(f"{source}: version {version} is newer than this app understands ({VERSION}); update the app")
        extra = d.keys() - {"format", "version", "animals", "sepultus"}
        if extra:
            raise CatalogueError(f"{source}: unexpected key(s) {', '.join(sorted(extra))}")
        cat = cls()
        for section, parse in (("animals", AnimalCard.from_json), ("sepultus", SepultusCard.from_json)):
            entries = d.get(section, [])
            if not isinstance(entries, list):
                raise CatalogueError(f"{source}: {section}: expected a list")
            for i, e in enumerate(entries):
                where = f"{source}: {section}[{i}]"
                card = parse(e, where)
                if card.name is None:
                    raise CatalogueError(f"{where}.name: a catalogue card needs a name")
                if card.name in cat:
                    raise CatalogueError(f"{where}.name: {card.name!r} appears twice")
                cat.add(card)
        return cat

    @classmethod
    def read(cls, path: Path | str) -> "Catalogue":
        """Read and validate a catalogue file (errors name the file)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CatalogueError(f"{path}: file not found") from None
        except UnicodeDecodeError:
            raise CatalogueError(f"{path}: not a UTF-8 text file") from None
        except OSError as exc:
            raise CatalogueError(f"{path}: cannot read ({exc.strerror or exc})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CatalogueError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
        return cls.from_json(data, str(path))

    def write(self, path: Path | str) -> None:
        """Write atomically (temp file + rename): a crash never leaves half a file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".catalogue-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise

    # the local catalogue in the user data dir

    @staticmethod
    def local_path() -> Path:
        return user_file(CATALOGUE_FILE_NAME)

    @classmethod
    def load(cls, path: Path | str | None = None) -> "Catalogue":
        """The local catalogue (empty when the file does not exist yet; a corrupt one raises)."""
        path = Path(path) if path is not None else cls.local_path()
        if not path.exists():
            return cls()
        return cls.read(path)

    def save(self, path: Path | str | None = None) -> Path:
        path = Path(path) if path is not None else self.local_path()
        self.write(path)
        return path

    def export(self, path: Path | str) -> Path:
        """Write this catalogue to a file to share (same format as the local one)."""
        self.write(path)
        return Path(path)

    def import_file(self, path: Path | str, on_conflict: OnConflict = "error") -> MergeReport:
        """Validate the whole file, then merge it in (all or nothing). Does not save."""
        return self.merge(Catalogue.read(path), on_conflict)


def _describe(card: Card) -> str:
    if isinstance(card, AnimalCard):
        cats = "/".join(card.categories) if card.categories else "categories unknown"
        return f"animal of {card.continent}, {cats}"
    return f"Sepultus die {card.die_value}, expedition {card.expedition_value}, {'/'.join(card.categories)}"


def import_into_local(path: Path | str, on_conflict: OnConflict = "error") -> MergeReport:
    """Import a shared catalogue file into the local one and save it (nothing saved on error)."""
    local = Catalogue.load()
    report = local.import_file(path, on_conflict)
    if report.changed:
        local.save()
    return report
