"""A whole Automa turn planned over a plain view of the table (no engine types).

``plan_turn(view, seat)`` applies DIGEST §6 in order: which die, which Behavior row, which card
or continent, what it gains; ``describe_turn`` words it for the table. The engine adapter
(``automa.decide``) builds the view from a game state and turns the plan into engine actions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

from companion.messages import Msg

from . import words
from .content import Behavior, BehaviorRow, Priority
from .logic import DieView, choose_card, choose_die, choose_expedition_continent
from .words import M

DECK = "deck"


@dataclass(frozen=True)
class CardView:
    """A face-up card in a display, in reading order."""

    continent: Optional[str]  # None: a card the Automa ignores (Sepultus Creatura)
    name: Optional[str] = None  # None: not entered yet (unnamed animal)
    ref: object = None  # the engine's handle (animal card id / expert name)
    pos: Optional[int] = None  # its space in the display, counting spaces emptied this round


@dataclass(frozen=True)
class TableView:
    """What the Automa needs to see, engine-neutral."""

    n_seats: int
    names: tuple[str, ...]
    dice: tuple[DieView, ...]
    expert_display: tuple[CardView, ...]
    animal_display: tuple[CardView, ...]
    expert_deck: int  # cards left in the expert deck
    animal_deck: int  # cards the Automa could draw (0 when only Sepultus cards are left)
    expedition_free: dict  # continent -> (space index 0..3, reputation of that space) or None when full
    bank_claimed: bool  # a die already went to the Bank this round
    animals: dict  # continent -> animal cards in front of the Automa
    tokens: int  # the Automa's expedition tokens
    slot_gifts: tuple = words.SLOT_GIFT  # per slot, as words (messages)


@dataclass(frozen=True)
class TurnPlan:
    seat: int
    die: DieView
    row: BehaviorRow
    location: str
    card: Union[int, str, None] = None  # display index, DECK, or None (nothing to take)
    card_view: Optional[CardView] = None
    continent: Optional[str] = None  # expedition continent (None: every continent full)
    space: Optional[int] = None  # expedition space index
    space_reputation: int = 0
    tokens_discarded: int = 0
    vp: int = 0
    first_player: bool = False  # it actually takes the first-player token
    notes: tuple[str, ...] = field(default=())


def pick_card(display: Sequence[CardView], deck: int, priority: Priority) -> Union[int, str, None]:
    """A card by priority; empty (or only-Sepultus) display: the top of the deck; nothing: None."""
    i = choose_card([c.continent for c in display], priority)
    if i is not None:
        return i
    return DECK if deck > 0 else None


def plan_turn(view: TableView, seat: int, behavior: Behavior, priority: Priority,
              die: Optional[DieView] = None) -> TurnPlan:
    """The Automa's turn; ``die``: the die already in its hand (else it chooses one)."""
    if die is None:
        die = choose_die(view.dice, seat, priority, view.n_seats)
    row = behavior.row(die.value)
    loc = row.location
    if loc in ("academy", "university"):
        display = view.animal_display if loc == "academy" else view.expert_display
        deck = view.animal_deck if loc == "academy" else view.expert_deck
        card = pick_card(display, deck, priority)
        notes = ()
        if card is None:
            kind = "animal" if loc == "academy" else "expert"
            notes = (f"no {kind} left in the display or the deck: the Automa takes the rest of its row without a card",)
        return TurnPlan(
            seat, die, row, loc, card=card,
            card_view=display[card] if isinstance(card, int) else None, notes=notes,
        )
    if loc == "expedition":
        full = {c for c, free in view.expedition_free.items() if free is None}
        cont = choose_expedition_continent(view.animals, full, priority)
        tokens = view.tokens
        if cont is None:
            return TurnPlan(
                seat, die, row, loc, continent=None, tokens_discarded=tokens,
                vp=tokens * row.vp_per_token,
                notes=("every continent's expedition spaces are full: the die goes beside the board, "
                       "no space reputation; the Automa still discards its tokens for VP",),
            )
        space, rep = view.expedition_free[cont]
        return TurnPlan(
            seat, die, row, loc, continent=cont, space=space, space_reputation=rep,
            tokens_discarded=tokens, vp=tokens * row.vp_per_token,
        )
    if loc == "bank":
        return TurnPlan(seat, die, row, loc, first_player=row.first_player and not view.bank_claimed)
    return TurnPlan(seat, die, row, loc)


def describe_take_msg(view: TableView, seat: int, die: DieView) -> Msg:
    actor = view.names[seat]
    own = die.owner == seat
    return words.take_die_msg(
        die.colour, die.value, owner_name=view.names[die.owner], own=own,
        slot=die.slot, actor=actor, gift=None if own else view.slot_gifts[die.slot],
    )


def describe_take(view: TableView, seat: int, die: DieView) -> str:
    return str(describe_take_msg(view, seat, die))


def card_phrase_msg(plan: TurnPlan, kind: str) -> Msg:
    if plan.card == DECK:
        return M(f"ai.card.deck.{kind}")
    cv = plan.card_view
    assert cv is not None and isinstance(plan.card, int)
    pos = words.card_position_msg(plan.card if cv.pos is None else cv.pos, kind)
    if cv.name:
        return M("ai.card.named", name=cv.name, pos=pos)
    return M(f"ai.card.unnamed.{kind}", continent=cv.continent, pos=pos) if cv.continent else M("ai.card.at", pos=pos)


def card_phrase(plan: TurnPlan, kind: str) -> str:
    return str(card_phrase_msg(plan, kind))


def turn_messages(view: TableView, plan: TurnPlan) -> tuple[Msg, ...]:
    """One to three short sentences: the die, where it goes, what the Automa gains (messages:
    ``str()`` is English, the app renders them in the table's language)."""
    actor = words.cap(view.names[plan.seat])
    row = plan.row
    out: list[Msg] = [] if plan.die.owner < 0 else [describe_take_msg(view, plan.seat, plan.die)]
    if plan.location in ("academy", "university"):
        kind = "animal" if plan.location == "academy" else "expert"
        out.append(M(f"ai.place.{plan.location}", location=plan.location))
        got: list = []
        if plan.card is not None:
            got.append(card_phrase_msg(plan, kind))
        got += words.gains_msgs(tokens=row.tokens, reputation=row.reputation, seals=row.seals)
        if plan.card is None:
            out.append(M(f"ai.none_left.{kind}", actor=actor, what=words.join_and_msg(got)))
        else:
            out.append(M("ai.takes", actor=actor, what=words.join_and_msg(got)))
        if plan.card == DECK and plan.location == "academy":
            out.append(M("ai.sepultus_aside"))
    elif plan.location == "expedition":
        if plan.continent is None:
            out.append(M("ai.expedition.full"))
        else:
            out.append(M("ai.expedition.place", n=plan.space + 1, continent=plan.continent))
        rep, n = plan.space_reputation, plan.tokens_discarded
        if n:
            key = "ai.expedition.gain_discard" if rep else "ai.expedition.discard"
            extra = {"rep": rep} if rep else {}
            out.append(M(key, actor=actor, n=n, vp=plan.vp, per=row.vp_per_token, **extra))
        elif rep:
            out.append(M("ai.expedition.gain_none", actor=actor, rep=rep))
        else:
            out.append(M("ai.expedition.none", actor=actor))
    elif plan.location == "bank":
        out.append(M("ai.place.bank", location="bank"))
        got = words.gains_msgs(coins=row.coins, tokens=row.tokens, seals=row.seals)
        if plan.first_player:
            got.append(M("ai.first_player"))
        out.append(M("ai.takes", actor=actor, what=words.join_and_msg(got)))
    else:  # embassy
        out.append(M("ai.place.embassy", location="embassy"))
        out.append(M("ai.takes", actor=actor, what=words.join_and_msg(words.gains_msgs(tokens=row.tokens, seals=row.seals))))
    return tuple(out)


def describe_turn(view: TableView, plan: TurnPlan) -> tuple[str, ...]:
    """``turn_messages`` in English."""
    return tuple(str(m) for m in turn_messages(view, plan))
