"""The automa's Behavior cards as data (DIGEST §6, EN p.22-23) and the mechanical automa rules
the engine applies itself (dice placement on its board).

A row is read by the VALUE of the die the automa took (1..6); colour never matters. Each row
names the location and the card's gains; the engine applies only these, never the board's.
"""

from __future__ import annotations

from types import MappingProxyType

#: behaviour id -> display name
BEHAVIOUR_NAMES = MappingProxyType({
    "carl-von-linne": "Carl von Linné",
    "abraham-trembley": "Abraham Trembley",
    "louis-jean-marie-daubenton": "Louis Jean-Marie Daubenton",
})


def _row(kind: str, **gain: int) -> MappingProxyType:
    return MappingProxyType({"kind": kind, **gain})


#: behaviour id -> {die value: row}; row["kind"] in academy/university/embassy/bank/expedition.
#: academy: 1 animal + ``reputation``; university: 1 expert + ``tokens``/``seals``/``reputation``;
#: embassy: ``tokens``; bank: ``coins`` + first player + ``tokens``/``seals``;
#: expedition: ``vp_per_token`` (all tokens discarded).
BEHAVIOURS = MappingProxyType({
    "carl-von-linne": MappingProxyType({
        6: _row("academy", reputation=3),
        5: _row("university", tokens=1),
        4: _row("expedition", vp_per_token=4),
        3: _row("embassy", tokens=2),
        2: _row("bank", coins=5),
        1: _row("expedition", vp_per_token=3),
    }),
    "abraham-trembley": MappingProxyType({
        6: _row("expedition", vp_per_token=5),
        5: _row("academy", reputation=3),
        4: _row("university", seals=1),
        3: _row("bank", coins=5, tokens=1),
        2: _row("embassy", tokens=2),
        1: _row("academy", reputation=1),
    }),
    "louis-jean-marie-daubenton": MappingProxyType({
        6: _row("embassy", tokens=3),
        5: _row("expedition", vp_per_token=6),
        4: _row("academy", reputation=2),
        3: _row("university", reputation=2),
        2: _row("expedition", vp_per_token=5),
        1: _row("bank", coins=5, seals=1),
    }),
})

SCORING_IDS = ("la-boudeuse", "hms-resolution", "l-astrolabe")


def behaviour_row(behaviour: str, value: int):
    """The row of ``behaviour`` for a die of ``value`` (values above 6 read row 6, below 1 row 1)."""
    rows = BEHAVIOURS[behaviour]
    return rows[max(1, min(6, value))]


def automa_slot_order(dice, priority) -> list[int]:
    """Slots (0 = leftmost) for an automa's rolled ``dice`` [(colour, value), ...]: lowest value
    left; equal values: the colour of lower priority further left; with one die more than
    slots, the two lowest share the leftmost slot. ``priority``: continents, highest first;
    colours map to continents in the board's order."""
    from companion.content.vocab import CONTINENT_OF_COLOUR

    rank = {c: i for i, c in enumerate(priority)}
    order = sorted(range(len(dice)), key=lambda i: (dice[i][1], -rank[CONTINENT_OF_COLOUR[dice[i][0]]]))
    extra = max(0, len(dice) - 4)
    slots = [0] * len(dice)
    for pos, i in enumerate(order):
        slots[i] = max(0, pos - extra)
    return slots
