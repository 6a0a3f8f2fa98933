"""The game's fixed vocabulary (continents, colours, categories) and small shared helpers.

These words are the identifiers every data file, the engine, the score sheet and the UI use.
They are confirmed by the rulebooks (DIGEST §1), so they live here as code, not as
overridable board constants.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

CONTINENTS: tuple[str, ...] = ("america", "africa", "asia", "europe", "oceania")
COLOURS: tuple[str, ...] = ("red", "yellow", "purple", "blue", "green")
CONTINENT_OF_COLOUR: dict[str, str] = dict(zip(COLOURS, CONTINENTS))
COLOUR_OF_CONTINENT: dict[str, str] = dict(zip(CONTINENTS, COLOURS))

#: categories by type: I class, II diet, III habitat, IV climate (Type 0 is the continent)
CATEGORIES_BY_TYPE: dict[int, tuple[str, ...]] = {
    1: ("mammal", "bird", "reptile"),
    2: ("omnivore", "carnivore", "herbivore"),
    3: ("terrestrial", "arboreal", "aquatic"),
    4: ("hot", "cold", "temperate"),
}
CATEGORIES: tuple[str, ...] = tuple(c for t in (1, 2, 3, 4) for c in CATEGORIES_BY_TYPE[t])
TYPE_OF_CATEGORY: dict[str, int] = {c: t for t, cs in CATEGORIES_BY_TYPE.items() for c in cs}

LOCATIONS: tuple[str, ...] = ("university", "embassy", "bank", "academy", "publication", "expedition")


class ContentError(ValueError):
    """A content data file (experts, board constants, animal catalogue) is invalid.

    The message names the file or the key and says what is wrong.
    """


def name_key(name: str) -> str:
    """Key used to compare names while forgiving accents, case, spacing and punctuation.

    ``"  thao tri HUNG "``, ``"Thao Trí Hùng"`` and ``"thao-tri-hung"`` all give ``"thaotrihung"``.
    """
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"[^0-9a-z]+", "", stripped.casefold())


def close_matches(word: str, choices, n: int = 3) -> list[str]:
    """The (at most ``n``) choices closest to ``word``, forgiving accents and case."""
    by_key = {name_key(c): c for c in choices}
    return [by_key[k] for k in difflib.get_close_matches(name_key(word), list(by_key), n=n, cutoff=0.6)]


def did_you_mean(word: str, choices, n: int = 3) -> str:
    """`` (did you mean 'x'?)`` or ``""``: a suffix for error messages."""
    names = close_matches(word, choices, n)
    if not names:
        return ""
    if len(names) == 1:
        return f" (did you mean {names[0]!r}?)"
    return " (did you mean " + ", ".join(repr(x) for x in names[:-1]) + f" or {names[-1]!r}?)"
