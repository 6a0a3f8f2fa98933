"""Plain-language wording of what the Automa does, for the people moving the pieces."""

from __future__ import annotations

from typing import Optional, Sequence

from .content import CONTINENT_LABEL

SLOT_GIFT = ("nothing", "2 coins", "2 reputation", "3 VP")
LOCATION_LABEL = {
    "academy": "the Academy",
    "university": "the University",
    "embassy": "the Embassy",
    "bank": "the Bank",
    "expedition": "an Expedition",
}


def cap(text: str) -> str:
    """First letter upper-case ("the Automa" opening a sentence)."""
    return text[:1].upper() + text[1:]


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suf = "th"
    else:
        suf = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suf}"


def plural(n: int, word: str, many: Optional[str] = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def die_phrase(colour: str, value: int) -> str:
    return f"the {colour} {value}"


def slot_phrase(slot: int, n_slots: int = 4) -> str:
    return f"{ordinal(slot + 1)} slot from the left"


def gift_text(effect) -> str:
    """A slot effect as words: {} -> "nothing", {"coins": 2} -> "2 coins"."""
    if not effect:
        return "nothing"
    parts = []
    for k, v in effect.items():
        parts.append({"coins": plural(v, "coin"), "reputation": f"{v} reputation", "vp": f"{v} VP",
                      "tokens": plural(v, "expedition token"), "seals": plural(v, "Royal Seal")}.get(k, f"{v} {k}"))
    return join_and(parts)


def take_die(colour: str, value: int, *, owner_name: str, own: bool, slot: int, actor: str,
             gift: Optional[str] = None) -> str:
    """"Take the blue 5 from Joelle's board (Joelle gains 2 coins)." ``gift`` defaults to the
    printed slot effects (none, 2 coins, 2 reputation, 3 VP)."""
    if own:
        return f"Take {die_phrase(colour, value)} from {actor}'s own board."
    gift = SLOT_GIFT[slot] if gift is None else gift
    return f"Take {die_phrase(colour, value)} from {owner_name}'s board ({owner_name} gains {gift})."


def card_position(index: int, kind: str) -> str:
    """"3rd expert from the left" for display index 2."""
    return f"{ordinal(index + 1)} {kind} from the left"


def gains(*, tokens: int = 0, reputation: int = 0, seals: int = 0, coins: int = 0, vp: int = 0) -> list[str]:
    out = []
    if coins:
        out.append(plural(coins, "coin"))
    if tokens:
        out.append(plural(tokens, "expedition token"))
    if seals:
        out.append(plural(seals, "Royal Seal"))
    if reputation:
        out.append(f"{reputation} reputation")
    if vp:
        out.append(f"{vp} VP")
    return out


def join_and(items: Sequence[str]) -> str:
    items = list(items)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def continent(c: str) -> str:
    return CONTINENT_LABEL[c]


def dice_layout(actor: str, slots: Sequence[Sequence[tuple[str, int]]]) -> str:
    """"Place the Automa's dice left to right: yellow 2, red 2 | blue 3 | ..."."""
    parts = []
    for k, slot in enumerate(slots):
        if not slot:
            parts.append(f"slot {k + 1}: empty")
            continue
        parts.append(f"slot {k + 1}: " + " + ".join(f"{c} {v}" for c, v in slot))
    return f"Place {actor}'s dice, left to right — " + "; ".join(parts) + "."
