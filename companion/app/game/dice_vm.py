"""Dice entry for one seat: coloured chips tapped in by hand or read from a photo.

``DiceEntry`` holds the chips of the dice a seat drew and rolled. A photo read
(``vision.reader.ReadResult``) becomes chips to confirm or correct in one tap; unsure reads are
marked, and reads the game makes impossible are refused with the reason:

- more dice than the seat draws this round (``count``: 4, or 5 with the extra-die token);
- more dice of a colour than are left in the bag (4 of each colour in play, minus those already
  drawn this round: the engine's ``state.bag``).

A read with fewer dice than the seat draws is kept and the missing dice are tapped in.

The dice questions: ``RollDiceStep`` (a seat's dice drawn and rolled, entered with a
``DiceEntry``), ``PlaceDiceStep`` (a human puts each die on a slot) and ``RollDieStep`` (one die
rolled again). Drawn by ``dice_view``.

Dice read from a photo of them lying on the seat's board come to ``PlaceDiceStep`` already on
their slots (``slots_from_photo``: left to right by box centre; with the extra die the two
closest share a slot); the player checks and confirms, and a die moved onto a taken slot swaps
with the die there. Dice tapped in by hand (or partly) start unplaced, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from automa.decide import dice_message
from companion.actions import PlaceDice, RollDice, RollDie
from companion.app.game.steps import Step
from companion.content.vocab import COLOURS

UNKNOWN = "unknown"


@dataclass
class Chip:
    colour: str  # a game colour, or "unknown" (the reader could not tell)
    value: int
    unsure: bool = False
    confidence: float | None = None  # from the reader; None when typed by hand
    box: tuple[float, float, float, float] | None = None  # the die in the photo (original pixels); None by hand


class DiceEntry:
    def __init__(self, seat_name: str, count: int, bag: dict[str, int], text):
        self.seat_name = seat_name
        self.count = count
        self.bag = dict(bag)
        self.t = text
        self.chips: list[Chip] = []
        self.selected: int | None = None  # chip being corrected
        self._message: str | None = None  # the last refusal
        self._read: dict | None = None  # the last photo read: dice read, reads left out
        self.message_is_error = False
        self.read_ms: float | None = None
        self.photo = None  # the photo (bytes or path) the chips were read from; None by hand
        self.removed: list[tuple[float, float, float, float]] = []  # read boxes the player removed
        self._sure_removed = False  # a sure read was removed (another seat's die, most likely)

    @property
    def message(self) -> str | None:
        """The last refusal, else what the last photo read says about the chips NOW ("4 dice
        read. 1 unsure: ..."): the unsure and missing counts follow the corrections, and the
        "unsure" sentence goes once every unsure die is confirmed or corrected."""
        if self._message is not None or self._read is None:
            return self._message
        unsure = sum(1 for c in self.chips if c.unsure)
        missing = self.count - len(self.chips)
        bits = [self.t("g.dice.read_ok", n=self._read["n"])]
        if unsure:
            bits.append(self.t("g.dice.read_unsure", n=unsure))
        if missing > 0:
            bits.append(self.t("g.dice.read_missing", n=missing))
        if self._read["left_out"]:
            bits.append(self.t("g.dice.read_left_out", n=self._read["left_out"]))
        return " ".join(bits)

    @message.setter
    def message(self, text: str | None) -> None:
        self._message = text

    # -- by hand ------------------------------------------------------------------------
    def add(self, colour: str, value: int) -> bool:
        """Tap in one die. Refused (with ``message``) when it would make the dice impossible."""
        if colour not in COLOURS:
            return self._refuse(self.t("g.dice.bad_colour", colour=colour))
        if not 1 <= value <= 6:
            return self._refuse(self.t("g.dice.bad_value", value=value))
        if len(self.chips) >= self.count:
            return self._refuse(self.t("g.dice.too_many", name=self.seat_name, count=self.count, n=len(self.chips) + 1))
        if self.of_colour(colour) + 1 > self.bag.get(colour, 0):
            return self._refuse(self.colour_gone(colour))
        self.chips.append(Chip(colour, value))
        self.message, self.message_is_error = None, False
        return True

    def remove(self, i: int) -> None:
        chip = self.chips.pop(i)
        if chip.box is not None and chip.unsure:
            # an unsure read the player removed: kept as "not a die" (a sure read removed is more
            # likely another seat's die, which must not teach the reader that dice are not dice)
            self.removed.append(chip.box)
        elif chip.box is not None:
            self._sure_removed = True
        self.selected = None

    def clear(self) -> None:
        self.chips = []
        self.selected = None
        self._read = None
        self.photo, self.removed, self._sure_removed = None, [], False
        self.message, self.message_is_error = None, False

    def select(self, i: int | None) -> None:
        self.selected = i

    def set_colour(self, i: int, colour: str) -> bool:
        """Correct a chip's colour (one tap); the chip is no longer unsure."""
        if colour not in COLOURS:
            return self._refuse(self.t("g.dice.bad_colour", colour=colour))
        chip = self.chips[i]
        if colour != chip.colour and self.of_colour(colour) + 1 > self.bag.get(colour, 0):
            return self._refuse(self.colour_gone(colour))
        chip.colour, chip.unsure = colour, False
        self.message, self.message_is_error = None, False
        return True

    def set_value(self, i: int, value: int) -> bool:
        if not 1 <= value <= 6:
            return self._refuse(self.t("g.dice.bad_value", value=value))
        chip = self.chips[i]
        chip.value, chip.unsure = value, False
        return True

    def confirm_chip(self, i: int) -> None:
        """The player looked at an unsure read and it is right: the selection moves on to the
        next unsure die (after this one, then from the first), none when every die is sure."""
        if self.chips[i].colour != UNKNOWN:
            self.chips[i].unsure = False
        n = len(self.chips)
        self.selected = next((j % n for j in range(i + 1, i + 1 + n) if self.chips[j % n].unsure), None)

    def confirm_all(self) -> None:
        """The player looked at every unsure read and all are right ("All N are right", one tap
        for what "It is right" does die by die): each unsure read of a game colour becomes sure;
        a read of an unknown colour stays unsure (its colour must be chosen) and is selected."""
        for c in self.chips:
            if c.unsure and c.colour != UNKNOWN:
                c.unsure = False
        self.selected = next((i for i, c in enumerate(self.chips) if c.unsure), None)

    def unsure_known(self) -> int:
        """How many unsure reads have a game colour (what ``confirm_all`` confirms)."""
        return sum(1 for c in self.chips if c.unsure and c.colour != UNKNOWN)

    def confirmed_dice(self) -> list[tuple[tuple[float, float, float, float], str | None, int]]:
        """The dice of the photo as the player confirmed them (box, colour, value): the read
        chips, corrected; dice tapped in by hand have no box and are left out."""
        return [(c.box, c.colour if c.colour in COLOURS else None, c.value) for c in self.chips if c.box is not None]

    def photo_complete(self) -> bool:
        """Whether every die the photo shows is among ``confirmed_dice`` with its box: not when a
        die was tapped in by hand (the reader missed it), the read left reads out, or a sure read
        was removed (another seat's die). The reader's detector learns only from complete photos
        (it would learn the others' dice as background: docs/vision.md)."""
        return (self._read is not None and not self._read["left_out"] and not self._sure_removed
                and all(c.box is not None for c in self.chips))

    # -- photo --------------------------------------------------------------------------
    def load_read(self, result) -> bool:
        """Chips from a ``ReadResult``; refused (chips unchanged) when the read is impossible."""
        if getattr(result, "error", None):
            return self._refuse(self.t("g.dice.read_error", why=result.error))
        dice = list(result.dice)
        self.read_ms = getattr(result, "ms", None)
        if not dice:
            return self._refuse(self.t("g.dice.none_found"))
        left_out = 0
        if len(dice) > self.count:
            # more reads than the seat's dice: when the reads of game colours fit, the rest are
            # "unknown" reads (a white die, or table art such as a dotted cloth) and are left out
            # (docs/app.md, "Dice by photo"); more game dice than the seat draws are another
            # seat's dice as well: refused
            game = [d for d in dice if d.colour in COLOURS]
            if not game or len(game) > self.count:
                return self._refuse(self.t("g.dice.photo_too_many", n=len(dice), name=self.seat_name, count=self.count))
            left_out, dice = len(dice) - len(game), game
        per: dict[str, int] = {}
        for d in dice:
            if d.colour in COLOURS:
                per[d.colour] = per.get(d.colour, 0) + 1
        for c, k in per.items():
            if k > self.bag.get(c, 0):
                return self._refuse(self.t("g.dice.photo_colour", n=k, colour=self.t.dice_colour(c, k), left=self.bag.get(c, 0)))
        for d in dice:
            if not 1 <= int(d.value) <= 6:
                return self._refuse(self.t("g.dice.bad_value", value=d.value))
        self.chips = [Chip(d.colour if d.colour in COLOURS else UNKNOWN, int(d.value),
                           bool(d.unsure) or d.colour not in COLOURS, float(d.confidence),
                           _box(getattr(d, "box", None))) for d in dice]
        self.removed, self._sure_removed = [], False
        self.selected = next((i for i, c in enumerate(self.chips) if c.unsure), None)
        self._read = {"n": len(self.chips), "left_out": left_out}
        self.message, self.message_is_error = None, False  # the read's summary (``message``)
        return True

    # -- checks -------------------------------------------------------------------------
    def of_colour(self, colour: str) -> int:
        return sum(1 for c in self.chips if c.colour == colour)

    def colour_gone(self, colour: str) -> str:
        """No more dice of ``colour`` in the bag than it holds: how many it holds."""
        n = self.bag.get(colour, 0)
        return self.t("g.dice.colour_gone", colour=self.t.dice_colour(colour, n), n=n)

    def problem(self) -> str | None:
        """Why these chips cannot be confirmed yet (None: they can)."""
        if len(self.chips) != self.count:
            return self.t("g.dice.need", name=self.seat_name, count=self.count, n=len(self.chips))
        if any(c.colour == UNKNOWN for c in self.chips):
            return self.t("g.dice.unknown_colour")
        if any(c.unsure for c in self.chips):
            return self.t("g.dice.confirm_unsure")
        for c in COLOURS:
            if self.of_colour(c) > self.bag.get(c, 0):
                return self.colour_gone(c)
        return None

    def action(self, seat: int) -> RollDice:
        return RollDice(seat, tuple((c.colour, c.value) for c in self.chips))

    def _refuse(self, why: str) -> bool:
        self.message, self.message_is_error = why, True
        return False


def _box(b) -> tuple[float, float, float, float] | None:
    try:
        x, y, w, h = (float(v) for v in b)
    except (TypeError, ValueError):
        return None
    return (x, y, w, h) if w > 0 and h > 0 else None


def slots_from_photo(boxes, n_slots: int = 4) -> list[int] | None:
    """The slots of dice lying on a player board, from their boxes in a photo ((x, y, w, h), x to
    the right): the dice sorted by box centre x, left to right, the k-th die on slot k. With more
    dice than slots (the extra die), the dice closest in x share a slot: neighbouring groups whose
    facing centres are closest are joined until there are ``n_slots`` groups (a tie: the leftmost
    pair). ``result[i]`` is the slot of ``boxes[i]``. None (do not place): fewer dice than slots,
    no slots, or a die without a box."""
    boxes = [_box(b) for b in boxes]
    if n_slots <= 0 or len(boxes) < n_slots or any(b is None for b in boxes):
        return None
    centre = [x + w / 2 for x, _, w, _ in boxes]
    order = sorted(range(len(boxes)), key=lambda i: (centre[i], i))
    groups = [[i] for i in order]
    while len(groups) > n_slots:
        k = min(range(len(groups) - 1), key=lambda k: (centre[groups[k + 1][0]] - centre[groups[k][-1]], k))
        groups[k:k + 2] = [groups[k] + groups[k + 1]]
    slots = [0] * len(boxes)
    for slot, g in enumerate(groups):
        for i in g:
            slots[i] = slot
    return slots


class RollDiceStep(Step):
    """A seat's dice drawn and rolled: tapped in, or read from a photo (see ``DiceEntry``)."""

    kind = "roll_dice"

    def __init__(self, vm):
        super().__init__(vm)
        self.entry = DiceEntry(self.seat_name, self.pending.count, dict(self.state.bag), self.t)
        self.automa = self.state.seats[self.seat].kind == "automa"

    def read_photo(self, source) -> bool:
        reader, problem = self.vm.dice_reader()
        if reader is None:
            self.entry.message = problem
            self.entry.message_is_error = True
            return False
        ok = self.entry.load_read(reader.read(source))
        if ok:
            self.entry.photo = source
        return ok

    def learned_from(self) -> int:
        """How many of the table's dice the reader learned from (0: the shipped reader)."""
        return self.vm.learned_from()

    def submit(self) -> bool:
        problem = self.entry.problem()
        if problem:
            self.vm.error = problem
            return False
        seat = self.seat
        action = self.entry.action(seat)
        boxes = tuple(c.box for c in self.entry.chips)
        ok = self._confirm(action)
        if ok:
            # dice read from a photo (every die with its box) are placed from it at the next step
            read = not self.automa and boxes and all(b is not None for b in boxes)
            self.vm.photo_layout = (self.state.round, seat, action.dice, boxes) if read else None
        if ok and self.entry.photo is not None:
            self.vm.keep_confirmed_photo(self.entry.photo, self.entry.confirmed_dice(), self.entry.removed,
                                         complete=self.entry.photo_complete())
        if ok and self.automa:
            self.vm.note(dice_message(self.vm.state, seat))
        return ok


class PlaceDiceStep(Step):
    """A human puts each rolled die on a slot: drags a die onto a slot (``move``, one gesture),
    or taps a die, then a slot (``select`` + ``put``, the same move in two taps). Dice read from
    a photo start on the slots the photo shows (``from_photo``; see ``slots_from_photo``)."""

    kind = "place_dice"

    def __init__(self, vm):
        super().__init__(vm)
        self.rolled = list(self.state.seats[self.seat].rolled)
        self.slots: list[int | None] = [None] * len(self.rolled)
        self.selected: int | None = 0 if self.rolled else None
        self.n_slots = len(self.state.board.slot_effects)
        layout = getattr(vm, "photo_layout", None)
        placed = None
        if layout is not None and layout[:2] == (self.state.round, self.seat) and list(layout[2]) == self.rolled:
            placed = slots_from_photo(layout[3], self.n_slots)
        self.from_photo = placed is not None
        if placed is not None:
            self.slots, self.selected = list(placed), None

    def select(self, i: int) -> None:
        self.selected = i

    def put(self, slot: int) -> None:
        """Put the selected die on ``slot`` (a die already there goes back to the unplaced ones,
        except with the extra die, when two dice may share a slot). On a board placed from a
        photo, a placed die moved onto a taken slot swaps with the die there (with the extra die:
        only when its own slot would be left empty or the slot over-full), so each tap on a slot
        keeps every die placed."""
        if self.selected is None:
            return
        i, old = self.selected, self.slots[self.selected]
        if self.from_photo and old is not None and old != slot:
            self.slots[i] = slot
            others = [j for j in self.in_slot(slot) if j != i]
            full = len(others) + 1 > 1 + max(0, len(self.rolled) - self.n_slots)
            if others and (full or not self.in_slot(old)):
                self.slots[others[0]] = old
            self.selected = None
            return
        share = len(self.rolled) > 4
        if not share:
            for j, s in enumerate(self.slots):
                if s == slot and j != self.selected:
                    self.slots[j] = None
        self.slots[self.selected] = slot
        nxt = [j for j, s in enumerate(self.slots) if s is None]
        self.selected = nxt[0] if nxt else None

    def move(self, i: int, slot: int) -> bool:
        """Die ``i`` (placed or not) onto ``slot`` in one gesture (a drag and drop): exactly
        ``select(i)`` then ``put(slot)``, with the same swap rules. False, and nothing changes
        (not the selection either), for a die or a slot that does not exist, or a die dropped
        back on its own slot."""
        if not (isinstance(i, int) and isinstance(slot, int)) or isinstance(i, bool) or isinstance(slot, bool):
            return False
        if not (0 <= i < len(self.rolled) and 0 <= slot < self.n_slots) or self.slots[i] == slot:
            return False
        self.select(i)
        self.put(slot)
        return True

    def clear(self) -> None:
        """Every die back to the unplaced ones (a photo's placement too): placed by hand from here."""
        self.slots = [None] * len(self.rolled)
        self.selected = 0 if self.rolled else None
        self.from_photo = False

    def in_slot(self, slot: int) -> list[int]:
        return [j for j, s in enumerate(self.slots) if s == slot]

    def ready(self) -> bool:
        return all(s is not None for s in self.slots)

    def submit(self) -> bool:
        if not self.ready():
            self.vm.error = self.t("g.err.place_all")
            return False
        return self._confirm(PlaceDice(self.seat, tuple(self.slots)))


class RollDieStep(Step):
    kind = "roll_die"

    def colour(self) -> str | None:
        for tk in reversed(self.state.tasks):
            if tk[0] == "roll_die":
                return tk[2]
        return None

    def roll(self, value: int) -> bool:
        return self._confirm(RollDie(self.seat, value))
