"""The engine's messages (refusals and log lines) in the player's language.

The engine raises ``RuleError``s and describes actions as :class:`companion.messages.Msg`
(a key and its arguments, docs/i18n.md). English is the engine's own table
(``companion/data/messages-en.json``): ``str(msg)``. French and Italian are the app's tables
``companion/app/assets/i18n/engine/<lang>.json`` (the same keys, the same placeholders).
Game words among the arguments (continents, colours, categories, locations) are worded with
the game screens' own vocabulary (``g.continent.*``, ``g.colour.*``, ``g.cat.*``, ``g.loc.*``),
so a refusal says "Afrique" exactly where the screen says "Afrique"; the words the screens do
not have (a colour said of several dice, the round tokens' names) are ``term.*`` entries of the
engine tables.

The Automa's instructions (``automa.words.AutomaMsg``, keys ``ai.*``) are rendered the same
way with the Automa's tables: its English ``automa/messages-en.json``, French and Italian
``companion/app/assets/i18n/automa/<lang>.json``; they nest the engine's words (a die is the
engine's ``log.die``), so each language renders them with its engine table and the Automa's
together.
"""

from __future__ import annotations

import json
from collections import ChainMap
from functools import lru_cache
from importlib import resources

from companion.messages import Msg, english_table, render

#: languages with an engine table of their own (English is the engine's)
ENGINE_LANGUAGES = ("en", "fr", "it")

#: a kind of game word -> the prefix of the game screens' key that words it
APP_TERMS: dict[str, str] = {
    "continent": "g.continent.",
    "continent_id": "g.continent.",
    "colour": "g.colour.",
    "category": "g.cat.",
    "location": "g.loc.",
    "row": "g.loc.",
}


def _check_language(lang: str) -> None:
    if lang not in ENGINE_LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; the app speaks {', '.join(ENGINE_LANGUAGES)}")


def _app_table(folder: str, lang: str) -> dict[str, str]:
    """A flat table of strings from ``assets/i18n/<folder>/<lang>.json`` (checked)."""
    path = resources.files("companion.app").joinpath("assets", "i18n", folder, f"{lang}.json")
    table = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise ValueError(f"{folder} i18n table {lang}.json must be a flat object of strings")
    return table


@lru_cache(maxsize=None)
def load_engine_table(lang: str) -> dict[str, str]:
    """The engine's messages in ``lang``: the engine's table for English, the app's otherwise."""
    _check_language(lang)
    if lang == "en":
        return english_table()
    return _app_table("engine", lang)


@lru_cache(maxsize=None)
def load_automa_table(lang: str) -> dict[str, str]:
    """The Automa's instructions in ``lang`` (keys ``ai.*``)."""
    _check_language(lang)
    if lang == "en":
        from automa.words import automa_table_en

        return automa_table_en()
    return _app_table("automa", lang)


def _full_table(lang: str) -> ChainMap:
    """The engine's table and the Automa's, read through (a view: nothing copied)."""
    return ChainMap(load_automa_table(lang), load_engine_table(lang))


def _term_lookup(lang: str):
    from companion.app.common.i18n import load_game_strings

    words = load_game_strings(lang)

    def term(kind: str, value: str) -> str | None:
        prefix = APP_TERMS.get(kind)
        return words.get(prefix + value) if prefix else None

    return term


def engine_text(message, lang: str) -> str:
    """``message`` (a ``Msg``, or an exception carrying one as ``.msg``, e.g. a ``RuleError``)
    in ``lang``. English is the engine's own sentence; a key missing from the French or Italian
    table (a translation being written) falls back to English; anything else is ``str()``."""
    msg = message if isinstance(message, Msg) else getattr(message, "msg", None)
    if not isinstance(msg, Msg):
        return str(message)
    if lang == "en" or lang not in ENGINE_LANGUAGES:
        return str(msg)
    try:
        return render(msg, _full_table(lang), lang, _term_lookup(lang))
    except KeyError:
        return str(msg)


__all__ = ["APP_TERMS", "ENGINE_LANGUAGES", "engine_text", "load_automa_table", "load_engine_table"]
