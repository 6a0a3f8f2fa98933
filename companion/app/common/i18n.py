"""User-visible strings of the app, in English, French and Italian.

Every string the app shows goes through :func:`Translator.t`. The tables are data files,
``companion/app/assets/i18n/<lang>.json`` (flat ``{"key": "text"}``, keys dotted by screen),
so a translator edits JSON, not code. They live under ``assets/`` because that folder is the
one the package data declaration ships (``app/assets/**/*`` in pyproject.toml).

The game screens (``companion.app.game``, another engineer's sub-package) keep their strings in
``companion/app/game/i18n/<lang>.json`` with keys starting ``g.``; :func:`load_table` merges
them in (a key defined in both places is an error), so one ``Translator`` serves every screen.

Placeholders use ``str.format`` names: ``"total": "Total: {vp} VP"`` → ``t("total", vp=12)``.
A count chooses its word with ``{n:one|other}`` (the engine messages' plural form and rule,
``companion.messages.PLURAL_RULES``: French uses "one" for 0 and 1): ``"{n} {n:die|dice} read."``.
A key missing from the French or Italian table falls back to English (the tests check the three
tables hold the same keys, so that only happens while a translation is being written); a key
missing from English is a programming error and raises ``KeyError``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

LANGUAGES: tuple[str, ...] = ("en", "fr", "it")
DEFAULT_LANGUAGE = "en"
#: each language's name written in that language (the language picker shows these)
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "fr": "Français", "it": "Italiano"}


def _count(v):
    """The number a plural choice is made by: a signed count written as text ("+1", "-2", a
    gain or a loss on the turn's preview) is its size; anything else as it is."""
    if isinstance(v, str) and v.lstrip("+-").isdigit():
        return abs(int(v))
    return v


def format_text(text: str, lang: str, kwargs: dict) -> str:
    """``text.format(**kwargs)`` where a ``{n:one|other}`` field is a plural choice by the
    language's rule (``{n}`` itself still writes the number)."""
    if not kwargs:
        return text
    if "|" not in text:
        return text.format(**kwargs)
    from companion.messages import PLURAL_RULES, parse

    rule = PLURAL_RULES.get(lang, PLURAL_RULES["en"])
    out = []
    for literal, field, spec, conv in parse(text):
        out.append(literal)
        if field is None:
            continue
        v = kwargs[field]
        if spec and "|" in spec:
            forms = spec.split("|")
            out.append(forms[0] if rule(_count(v)) == "one" else forms[-1])
        else:
            v = repr(v) if conv == "r" else (str(v) if conv == "s" else v)
            out.append(format(v, spec or ""))
    return "".join(out)


def _read(path, what: str) -> dict[str, str]:
    table = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        raise ValueError(f"i18n table {what} must be a flat object of strings")
    return table


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; the app speaks {', '.join(LANGUAGES)}")


@lru_cache(maxsize=None)
def load_shell_table(lang: str) -> dict[str, str]:
    """The shell's own table of ``lang`` (``companion/app/assets/i18n``)."""
    _check_lang(lang)
    path = resources.files("companion.app").joinpath("assets", "i18n", f"{lang}.json")
    return _read(path, f"assets/i18n/{lang}.json")


@lru_cache(maxsize=None)
def load_game_strings(lang: str) -> dict[str, str]:
    """The game screens' table of ``lang`` (empty while that file does not exist)."""
    _check_lang(lang)
    try:
        path = resources.files("companion.app").joinpath("game", "i18n", f"{lang}.json")
        if not path.is_file():
            return {}
    except (ModuleNotFoundError, FileNotFoundError):
        return {}
    return _read(path, f"game/i18n/{lang}.json")


@lru_cache(maxsize=None)
def load_table(lang: str) -> dict[str, str]:
    """Every string of ``lang`` (cached): the shell's table merged with the game screens'.

    Raises ``ValueError`` for an unknown language or a key defined in both tables."""
    shell, game = load_shell_table(lang), load_game_strings(lang)
    both = sorted(set(shell) & set(game))
    if both:
        raise ValueError(f"i18n key(s) defined by both the shell and the game tables: {', '.join(both)}")
    return {**shell, **game}


class Translator:
    """Looks strings up in one language with English as the fallback."""

    def __init__(self, lang: str = DEFAULT_LANGUAGE):
        self.set_language(lang)

    def set_language(self, lang: str) -> None:
        self._table = load_table(lang)  # raises ValueError on an unknown language
        self._fallback = load_table(DEFAULT_LANGUAGE)
        self.lang = lang

    def has(self, key: str) -> bool:
        return key in self._fallback

    def t(self, key: str, **kwargs) -> str:
        """The text of ``key`` in the current language, with ``kwargs`` filled in."""
        text = self._table.get(key)
        if text is None:
            text = self._fallback[key]  # KeyError: the key is not in the English table
        return format_text(text, self.lang, kwargs)

    __call__ = t
