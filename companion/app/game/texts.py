"""The game screens' strings (EN / FR / IT) and small wording helpers.

The tables are ``companion/app/game/i18n/<lang>.json`` (flat ``{"key": "text"}``), the same
format as the app-shell's tables; a key missing in French or Italian falls back to English
(a test checks the three tables hold the same keys). Until the shell's loader merges these
tables (requested at 1567b46: docs/requests/app-game-to-app-shell.md), the game screens read them through
``GameText``, which follows the language of the shell's ``Translator``.

Messages coming from the engine (a refused action, a line of the action log) are the engine's
message keys with their arguments: ``gt.engine(refusal_or_msg)`` words them in the current
language (``companion.app.common.engine_text``, docs/i18n.md).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

#: the publication types as the board prints them (type 0 is the continent: ``GameText.pub_type``)
TYPE_ROMAN = ("", "I", "II", "III", "IV")

LANGUAGES = ("en", "fr", "it")


@lru_cache(maxsize=None)
def load_game_table(lang: str) -> dict[str, str]:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; the app speaks {', '.join(LANGUAGES)}")
    path = resources.files("companion.app.game").joinpath("i18n", f"{lang}.json")
    table = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise ValueError(f"game i18n table {lang}.json must be a flat object of strings")
    return table


class GameText:
    """``gt(key, **kw)``: a game string in the current language (English fallback).

    ``lang`` may be a language code or a callable returning one (the shell's translator's
    ``lang`` attribute changes when the user switches language)."""

    def __init__(self, lang="en"):
        self._lang = lang

    @property
    def lang(self) -> str:
        lang = self._lang() if callable(self._lang) else self._lang
        return lang if lang in LANGUAGES else "en"

    def has(self, key: str) -> bool:
        return key in load_game_table("en")

    def __call__(self, key: str, **kw) -> str:
        text = load_game_table(self.lang).get(key)
        if text is None:
            text = load_game_table("en")[key]  # KeyError: a key missing from English is a bug
        from companion.app.common.i18n import format_text

        return format_text(text, self.lang, kw)

    def engine(self, message) -> str:
        """An engine message (a ``RuleError`` or a ``companion.messages.Msg``) in the current
        language."""
        from companion.app.common.engine_text import engine_text

        return engine_text(message, self.lang)

    # -- vocabulary -------------------------------------------------------------------
    def continent(self, c: str | None) -> str:
        return self(f"g.continent.{c}") if c else self("g.sepultus")

    def colour(self, c: str) -> str:
        return self(f"g.colour.{c}")

    def dice_colour(self, c: str, n: int) -> str:
        """A colour said of ``n`` dice: it agrees with them in French and Italian ("2 dés
        rouges", "2 dadi rossi"; the engine tables' ``term.dice_colour.*``), by the language's
        plural rule ("0 dé rouge" in French)."""
        from companion.app.common.engine_text import load_engine_table
        from companion.messages import PLURAL_RULES

        if PLURAL_RULES[self.lang](n) == "one":
            return self.colour(c)
        return load_engine_table(self.lang).get(f"term.dice_colour.{c}") or self.colour(c)

    def category(self, c: str) -> str:
        return self(f"g.cat.{c}")

    def pub_type(self, t: int) -> str:
        """A publication type as the board prints it: "Continent", "Type I" ... "Type IV"."""
        if t == 0:
            return self("g.type.continent")
        return self("g.draft.type", t=TYPE_ROMAN[t] if 0 < t < len(TYPE_ROMAN) else t)

    def pub_type_short(self, t: int) -> str:
        """The same, short (a board row's label): "Continent", "I" ... "IV"."""
        return self("g.type.continent") if t == 0 else (TYPE_ROMAN[t] if 0 < t < len(TYPE_ROMAN) else str(t))

    def token(self, effect: str) -> str:
        return self(f"g.token.{effect}")

    def die(self, die) -> str:
        return self("g.die", colour=self.colour(die[0]), value=die[1])

    def gift(self, effect: dict) -> str:
        """What a slot gives its owner when another seat takes the die there."""
        if not effect:
            return self("g.gift.nothing")
        bits = []
        for k, v in effect.items():
            bits.append(self(f"g.gain.{k}", n=v))
        return ", ".join(bits)
