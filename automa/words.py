"""What the Automa says to the table, as keyed messages (issue 41, item 1).

Every instruction is an :class:`AutomaMsg`: a key of the Automa's English table
(``automa/messages-en.json``) and its arguments, like the engine's refusals
(``companion.messages.Msg``). ``str(msg)`` is the English sentence (the wording of before);
the app renders the same message in French or Italian with its tables
(``companion/app/assets/i18n/automa/{fr,it}.json``, ``companion.app.common.engine_text``).
Game words are passed as the engine's ids under the argument names of
``companion.messages.TERM_ARGS`` (``colour``, ``continent``, ``location``), so the Automa says
them with the same words as the engine and the screens; a die is the engine's own ``log.die``.

The functions without ``_msg`` return the English text (the command line, the tests of the
wording); those with ``_msg`` return the message.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Optional, Sequence, Union

from companion.messages import Msg, english_table, render
from companion.messages import ordinal as _ordinal


@lru_cache(maxsize=None)
def automa_table_en() -> dict[str, str]:
    """The Automa's own English table (``automa/messages-en.json``, keys ``ai.*``)."""
    table = json.loads(resources.files("automa").joinpath("messages-en.json").read_text(encoding="utf-8"))
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise ValueError("automa/messages-en.json must be a flat object of strings")
    return table


@lru_cache(maxsize=None)
def english_with_automa() -> dict[str, str]:
    """The engine's English table and the Automa's (the Automa's sentences nest engine words)."""
    return {**english_table(), **automa_table_en()}


class AutomaMsg(Msg):
    """A message of the Automa: ``str()`` renders it in English with the Automa's table."""

    __slots__ = ()

    def __str__(self) -> str:
        return render(self, english_with_automa(), "en")


Text = Union[str, Msg]
M = AutomaMsg


def cap(text: str) -> str:
    """First letter upper-case ("the Automa" opening a sentence)."""
    return text[:1].upper() + text[1:]


def ordinal(n: int) -> str:
    return _ordinal("en", n)


def plural(n: int, word: str, many: Optional[str] = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


# --------------------------------------------------------------------------- joining


def join_and_msg(items: Sequence[Text]) -> Text:
    """"a, b and c" (each language its own "and")."""
    items = list(items)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return M("ai.and", head=items[:-1], last=items[-1])


def chain_msg(key: str, items: Sequence[Text]) -> Text:
    """Items joined pairwise by ``key``'s template ("{a}; {b}", "{a} + {b}", "{a} {b}")."""
    items = [i for i in items if i != ""]
    if not items:
        return ""
    out = items[-1]
    for item in reversed(items[:-1]):
        out = M(key, a=item, b=out)
    return out


def join_and(items: Sequence[str]) -> str:
    return str(join_and_msg(items))


# --------------------------------------------------------------------------- gains


GAIN_KEYS = ("coins", "reputation", "vp", "tokens", "seals")


def gain_msg(kind: str, n: int) -> Msg:
    """One gain ("2 coins", "1 expedition token"); an unknown kind is shown with its id."""
    if kind in GAIN_KEYS:
        return M(f"ai.gain.{kind}", n=n)
    return M("ai.gain.other", n=n, what=kind)


def gift_msg(effect) -> Text:
    """A slot effect as words: {} -> "nothing", {"coins": 2} -> "2 coins"."""
    if not effect:
        return M("ai.gift.nothing")
    return join_and_msg([gain_msg(k, v) for k, v in effect.items()])


def gift_text(effect) -> str:
    return str(gift_msg(effect))


#: the printed slot effects, as words
SLOT_GIFT = tuple(gift_msg(e) for e in ({}, {"coins": 2}, {"reputation": 2}, {"vp": 3}))


def gains_msgs(*, tokens: int = 0, reputation: int = 0, seals: int = 0, coins: int = 0, vp: int = 0) -> list[Msg]:
    out = []
    for kind, n in (("coins", coins), ("tokens", tokens), ("seals", seals), ("reputation", reputation), ("vp", vp)):
        if n:
            out.append(gain_msg(kind, n))
    return out


def gains(**kw: int) -> list[str]:
    return [str(m) for m in gains_msgs(**kw)]


# --------------------------------------------------------------------------- dice, cards


def die_msg(colour: str, value: int) -> Msg:
    """The engine's own words for a die ("blue 5", "le 5 bleu", "il dado blu da 5")."""
    return Msg("log.die", colour=colour, value=value)


def take_die_msg(colour: str, value: int, *, owner_name: str, own: bool, slot: int, actor: str,
                 gift: Optional[Text] = None) -> Msg:
    """"Take the blue 5 from Joelle's board (Joelle gains 2 coins)." ``gift`` defaults to the
    printed slot effects (none, 2 coins, 2 reputation, 3 VP)."""
    die = die_msg(colour, value)
    if own:
        return M("ai.take_own", die=die, actor=actor)
    gift = SLOT_GIFT[slot] if gift is None else gift
    if isinstance(gift, Msg) and gift.key == "ai.gift.nothing":
        return M("ai.take_nothing", die=die, owner=owner_name)
    return M("ai.take", die=die, owner=owner_name, gift=gift)


def take_die(*args: Any, **kw: Any) -> str:
    return str(take_die_msg(*args, **kw))


def card_position_msg(index: int, kind: str) -> Msg:
    """"3rd expert from the left" for display index 2 (``kind``: animal or expert)."""
    return M(f"ai.pos.{kind}", n=index + 1)


def card_position(index: int, kind: str) -> str:
    return str(card_position_msg(index, kind))


def dice_layout_msg(actor: str, slots: Sequence[Sequence[tuple[str, int]]]) -> Msg:
    """"Place the Automa's dice, left to right — slot 1: yellow 2 + red 2; slot 2: ..."."""
    parts: list[Text] = []
    for k, slot in enumerate(slots):
        if not slot:
            parts.append(M("ai.layout.empty", n=k + 1))
            continue
        dice = chain_msg("ai.plus", [M("ai.layout.die", colour=c, value=v) for c, v in slot])
        parts.append(M("ai.layout.slot", n=k + 1, dice=dice))
    return M("ai.layout", actor=actor, slots=chain_msg("ai.semicolon", parts))


def dice_layout(actor: str, slots: Sequence[Sequence[tuple[str, int]]]) -> str:
    return str(dice_layout_msg(actor, slots))
