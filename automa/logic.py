"""The Automa's choices as pure functions over plain inputs (no engine types).

Everything here follows DIGEST §6; the engine adapter (``automa.decide``) turns a game state
into these inputs and the answers into engine actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Mapping, Optional, Sequence

from .content import CONTINENT_OF_COLOUR, Priority


@dataclass(frozen=True)
class DieView:
    """A die lying on some seat's board, as the Automa sees it."""

    colour: str
    value: int
    owner: int  # seat whose board holds it
    slot: int  # 0..3, left to right (the slot effect an opponent's owner gains)
    ref: Hashable = None  # whatever the engine needs to name this die


# Gain for the die's owner when someone else takes it: slot 0 none, 1 two coins,
# 2 two reputation, 3 three VP. DIGEST §6: "own die, then slot none, 2 coins, 2 reputation, 3 VP".
def gift_rank(die: DieView, automa_seat: int) -> int:
    """0 = the Automa's own die (nobody gains), 1 + slot for an opponent's die."""
    return 0 if die.owner == automa_seat else 1 + die.slot


def die_choice_key(die: DieView, automa_seat: int, priority: Priority, n_seats: int) -> tuple:
    """Smaller is better: highest value, then highest-priority colour, then least gift.
    A final, purely deterministic key (the owner's seat clockwise from the Automa, then slot)
    separates dice that are identical in all three respects; the choice between them changes
    nothing for anyone."""
    clockwise = (die.owner - automa_seat) % max(n_seats, 1)
    return (-die.value, priority.colour_rank(die.colour), gift_rank(die, automa_seat), clockwise, die.slot)


def choose_die(dice: Sequence[DieView], automa_seat: int, priority: Priority, n_seats: int) -> DieView:
    if not dice:
        raise ValueError("no die left on any board: the Automa has nothing to take")
    return min(dice, key=lambda d: die_choice_key(d, automa_seat, priority, n_seats))


def arrange_dice(dice: Sequence[tuple[str, int]], priority: Priority) -> list[list[int]]:
    """Where the Automa puts its freshly rolled dice.

    ``dice`` is a list of (colour, value). Returns 4 slots left to right, each a list of
    indices into ``dice``. Lowest value on the left; equal values: lower-priority colour further
    left; with 5 dice the two lowest (in that same order) share the leftmost slot. Fewer than
    4 dice (never in the rules, but safe) fill from the left.
    """
    n = len(dice)
    if not 0 <= n <= 5:
        raise ValueError(f"an Automa places 4 dice (5 with the extra-die round token), got {n}")
    order = sorted(
        range(n),
        key=lambda i: (dice[i][1], -priority.colour_rank(dice[i][0]), i),
    )
    slots: list[list[int]] = [[], [], [], []]
    if n == 5:
        slots[0] = [order[0], order[1]]
        rest = order[2:]
        for k, i in enumerate(rest):
            slots[1 + k].append(i)
    else:
        for k, i in enumerate(order):
            slots[k].append(i)
    return slots


def choose_card(display: Sequence[Optional[str]], priority: Priority) -> Optional[int]:
    """Index of the card the Automa takes from a display listed in reading order.

    Each entry is the card's continent, or None for a card the Automa cannot see (a Sepultus
    Creatura card). Highest-priority continent first; within it, the first in reading order.
    None when the display holds no card it can take (the caller then draws from the deck).
    """
    best: Optional[int] = None
    best_rank = 99
    for i, cont in enumerate(display):
        if cont is None:
            continue
        r = priority.rank(cont)
        if r < best_rank:
            best, best_rank = i, r
    return best


def choose_cards(display: Sequence[Optional[str]], priority: Priority, count: int) -> list[int]:
    """Several cards in a row (setup: 2 starting animals): each pick by priority from what is
    left. Returns display indices (of the original list), in the order taken."""
    remaining = list(display)
    picks: list[int] = []
    for _ in range(count):
        i = choose_card(remaining, priority)
        if i is None:
            break
        picks.append(i)
        remaining[i] = None
    return picks


def choose_expedition_continent(
    animals: Mapping[str, int], full: Sequence[str] | set[str], priority: Priority
) -> Optional[str]:
    """The continent of an Automa expedition: where it holds the most animal cards; ties and
    zero by priority; full continents skipped. None when every continent is full."""
    open_ = [c for c in priority.order if c not in full]
    if not open_:
        return None
    return max(open_, key=lambda c: (animals.get(c, 0), -priority.rank(c)))


def colour_continent(colour: str) -> str:
    return CONTINENT_OF_COLOUR[colour]
