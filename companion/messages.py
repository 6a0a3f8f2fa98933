"""What the engine says to the table, as message keys with arguments (no UI code here).

Every refusal (``companion.errors.RuleError``) and every line of the readable game log
(``companion.engine.describe``) is a :class:`Msg`: a stable key and its arguments. The engine
renders it in English with the table ``companion/data/messages-en.json``; ``str(msg)`` is that
English sentence, so the command line and ``str(refusal)`` read exactly as before. The app
renders the same ``Msg`` in the player's language with its own French and Italian tables
(``companion.app.common.engine_text``). Decisions: docs/i18n.md.

Templates are ``str.format`` text with five additions:

- an argument that is itself a ``Msg`` is rendered in the same language (a sentence built of
  parts: "the game waits for <what it waits for>");
- a list or tuple is rendered item by item and joined with ", ";
- an argument whose NAME is listed in :data:`TERM_ARGS` is a game word (a continent, a colour,
  a category, a location, a round token): its value is looked up as ``term.<kind>.<value>`` in
  the table, so each language uses its own game vocabulary (an unknown value, e.g. a colour a
  player mistyped, is shown as it was typed);
- ``{n:nth}`` / ``{n:nth_f}`` is an ordinal in the language ("3rd", "3e", "3°"; feminine "1re",
  "1ª") and ``{x:de}`` is "de x" with the French élision ("d'Afrique", "de Joëlle"; the other
  languages write x alone);
- ``{n:one|other}`` is a plural choice: the form of ``one`` or ``other`` that the language's
  rule (:data:`PLURAL_RULES`) picks for the number ``n``; the number itself is written where
  the template puts ``{n}``. English and Italian use "one" for 1 only, French for 0 and 1.

``{x!r}`` shows the raw value as Python writes it (used for what a player or a file gave,
"got 'pink'"), never translated.
"""

from __future__ import annotations

import json
import string
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Mapping

#: argument name -> the kind of game word its value is (looked up as ``term.<kind>.<value>``)
TERM_ARGS: dict[str, str] = {
    "continent": "continent",  # English: "Africa"
    "continent2": "continent",
    "continent_ids": "continent_id",  # English: "africa" (the word a record uses)
    "colour": "colour",
    "colours": "colour",
    "dice_colour": "dice_colour",  # said of several dice ("2 blue dice": plural in French and Italian)
    "category": "category",
    "categories": "category",
    "location": "location",  # English: "Academy"
    "row": "row",  # an automa Behavior row, English: "academy"
    "token": "token",  # a round token, English: "extra die"
    "token_id": "token_id",  # English: "extra_die" (the word a record uses)
    "token_ids": "token_id",
    "type": "pub_type",  # a publication type, 0-4: "Continent", "Type I" ... "Type IV" as the board prints them
    "top": "pub_type",
}

#: language -> the plural form a count takes ("one" or "other"), CLDR's cardinal rules for
#: whole numbers: French uses the singular for 0 and 1 ("0 écu"), English and Italian for 1.
PLURAL_RULES: dict[str, Callable[[int], str]] = {
    "en": lambda n: "one" if n == 1 else "other",
    "fr": lambda n: "one" if n in (0, 1) else "other",
    "it": lambda n: "one" if n == 1 else "other",
}


def ordinal(lang: str, n, feminine: bool = False) -> str:
    """``n`` as a position: "1st", "2nd", "11th"; French "1er" / "1re", "2e"; Italian "1°" / "1ª"."""
    n = int(n)
    if lang == "fr":
        return f"{n}{('re' if feminine else 'er') if n == 1 else 'e'}"
    if lang == "it":
        return f"{n}{'ª' if feminine else '°'}"
    suf = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suf}"


#: French words before which "de" becomes "d'" (vowels and mute h are not told apart: h is
#: left alone, "de Hugo")
_ELIDE_BEFORE = set("aeiouyàâäéèêëîïôöûüœæ")


def de(lang: str, word: str) -> str:
    """"of <word>": French elides before a vowel ("d'Afrique", "d'Anna", "de Joëlle"); the
    other languages write the word alone (their templates carry their own preposition)."""
    if lang == "fr":
        return ("d'" if word[:1].lower() in _ELIDE_BEFORE else "de ") + word
    return word


#: ``{x:spec}`` forms that are not plural choices: ``{n:nth}`` / ``{n:nth_f}`` an ordinal
#: (masculine / feminine noun), ``{x:de}`` "de x" with the French élision
SPECIAL_SPECS: dict[str, Callable[[str, str], str]] = {
    "nth": lambda lang, v: ordinal(lang, v),
    "nth_f": lambda lang, v: ordinal(lang, v, feminine=True),
    "de": de,
}


class Msg:
    """A message: ``key`` (in the string tables) and its arguments ``args`` (a dict)."""

    __slots__ = ("key", "args")

    def __init__(self, key: str, /, **args: Any):
        self.key = key
        self.args = args

    def __str__(self) -> str:
        return english(self)

    def __repr__(self) -> str:
        return f"Msg({self.key!r}, {self.args!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Msg) and other.key == self.key and other.args == self.args

    __hash__ = None  # type: ignore[assignment]  (args may hold lists)

    def keys(self) -> set[str]:
        """This key and the keys of every message nested in the arguments."""
        out = {self.key}
        stack = list(self.args.values())
        while stack:
            v = stack.pop()
            if isinstance(v, Msg):
                out |= v.keys()
            elif isinstance(v, (list, tuple)):
                stack.extend(v)
        return out


@lru_cache(maxsize=None)
def english_table() -> dict[str, str]:
    """The English table (``companion/data/messages-en.json``), a flat ``{key: template}``."""
    path = resources.files("companion").joinpath("data", "messages-en.json")
    table = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise ValueError("companion/data/messages-en.json must be a flat object of strings")
    return table


_PARSED: dict[str, list] = {}
_FORMATTER = string.Formatter()


def parse(template: str) -> list[tuple[str, str | None, str, str | None]]:
    """``(literal, field, spec, conversion)`` parts of a template (cached)."""
    parts = _PARSED.get(template)
    if parts is None:
        parts = _PARSED[template] = list(_FORMATTER.parse(template))
    return parts


def placeholders(template: str) -> set[str]:
    """The argument names a template uses (``{n}``, ``{n:one|other}``, ``{x!r}``)."""
    return {f for _, f, _, _ in parse(template) if f}


def plural_forms(template: str) -> list[tuple[str, str]]:
    """``(argument, spec)`` of every plural choice in a template (not the ordinals and
    élisions of :data:`SPECIAL_SPECS`)."""
    return [(f, spec) for _, f, spec, _ in parse(template) if f and spec and spec not in SPECIAL_SPECS]


def render(msg: Msg, table: Mapping[str, str], lang: str = "en",
           term: Callable[[str, str], str | None] | None = None) -> str:
    """``msg`` in ``lang`` with ``table`` (``KeyError`` when its key is missing).

    ``term(kind, value)`` may translate game words first (the app passes its own vocabulary);
    otherwise they are looked up as ``term.<kind>.<value>`` in ``table``."""
    template = table[msg.key]
    plural = PLURAL_RULES.get(lang, PLURAL_RULES["en"])
    out: list[str] = []
    args = msg.args
    for literal, field, spec, conv in parse(template):
        if literal:
            out.append(literal)
        if field is None:
            continue
        v = args[field]  # KeyError: the template names an argument the message lacks
        if spec in SPECIAL_SPECS:
            out.append(SPECIAL_SPECS[spec](lang, _value(field, v, table, lang, term)))
        elif spec:
            forms = spec.split("|")
            out.append(forms[0] if plural(v) == "one" else forms[-1])
        elif conv == "r":
            out.append(repr(v))
        else:
            out.append(_value(field, v, table, lang, term))
    return "".join(out)


def _value(name: str, v: Any, table: Mapping[str, str], lang: str, term) -> str:
    if isinstance(v, Msg):
        return render(v, table, lang, term)
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(name, x, table, lang, term) for x in v)
    kind = TERM_ARGS.get(name)
    if kind == "pub_type" and isinstance(v, int) and not isinstance(v, bool):
        v = str(v)  # a publication type is a number: its word is ``term.pub_type.<n>``
    if kind is not None and isinstance(v, str):
        word = term(kind, v) if term is not None else None
        if word is None:
            word = table.get(f"term.{kind}.{v}")
        return v if word is None else word
    return str(v)


def english(msg: Msg) -> str:
    """``msg`` in English (the engine's own table)."""
    return render(msg, english_table(), "en")


__all__ = ["Msg", "TERM_ARGS", "SPECIAL_SPECS", "ordinal", "de", "PLURAL_RULES", "english", "english_table", "render", "parse", "placeholders",
           "plural_forms"]
