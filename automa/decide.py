"""``decide(state, seat)``: what an automa seat does now, as ordinary engine actions plus the
sentences the table needs to move the physical pieces.

Pure: the state passed in is never changed (the chain of actions is tried on a copy through the
engine's checked ``apply``, so an illegal decision would raise here, never reach the log).

A decision answers every input the game waits for from that automa, in a row, until the game
waits for someone else or for the table (a card drawn from a deck is a chance event: the table
enters which card came up, then ``decide`` is called again):

- its turn (``take_die``): the die (DIGEST §6 tie-breaks), its Behavior-card row, the card it
  takes at the Academy/University, reputation bonuses earned on the way;
- ``action`` (the die already in its hand);
- card choices outside its turn: the 2 starting animals, round-token drafts, reputation bonuses.

Its dice are placed on its board by the engine when they are rolled (``dice_instructions`` says
where); the slot effect it receives when someone takes one of its dice is applied by the engine
(``gift_instructions`` says it for the table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from companion.actions import Action, AutomaAction, ChooseAnimal, ChooseExpert, TakeDie
from companion.engine import EXPERT, State, animal_deck_left, apply, expert_deck_left

from companion.messages import Msg

from . import words
from .content import Priority, behavior
from .logic import DieView, choose_card
from .plan import CardView, TableView, TurnPlan, plan_turn, turn_messages
from .words import M

AUTOMA_INPUTS = ("take_die", "action", "choose_animal", "choose_expert")


@dataclass(frozen=True)
class Decision:
    """What an automa does now.

    ``actions``: engine actions to apply in order (empty when only the table can go on).
    ``instructions``: plain sentences for the people at the table (English).
    ``messages``: the same sentences as messages (``automa.words.AutomaMsg``: ``str()`` is the
    English; the app renders them in the table's language).
    ``waits_for``: None, or ``"animal_from_deck"`` / ``"expert_from_deck"``: the automa takes
    the top card of that deck; the table draws it and enters it (``DrawAnimal`` /
    ``ChooseExpert`` with the name), then calls ``decide`` again.
    ``plan``: the turn's plan (die, row, card, continent, VP) when this decision holds its turn.
    """

    seat: int
    actions: tuple[Action, ...]
    instructions: tuple[str, ...]
    waits_for: Optional[str] = None
    plan: Optional[TurnPlan] = None
    messages: tuple[Msg, ...] = ()


class NotAutomaInputError(ValueError):
    """``decide`` was asked for a seat the game is not waiting for (or a human seat)."""


# --------------------------------------------------------------------------- state → view


def _priority(st: State, seat: int) -> Priority:
    return Priority(tuple(st.seats[seat].priority))


def _names(st: State) -> tuple[str, ...]:
    return tuple(s.name for s in st.seats)


def _animal_views(st: State) -> tuple[CardView, ...]:
    out = []
    for pos, cid in enumerate(st.animal_display):
        if cid is None:
            continue
        c = st.cards[cid]
        out.append(CardView(None if c.sepultus else c.continent, c.name or None, cid, pos))
    return tuple(out)


def _expert_views(st: State) -> tuple[CardView, ...]:
    return tuple(CardView(EXPERT[n].continent, n, n, pos) for pos, n in enumerate(st.expert_display) if n is not None)


def _animal_counts(st: State, seat: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    s = st.seats[seat]
    for cid in s.animals + s.published:
        c = st.cards[cid]
        if not c.sepultus:
            counts[c.continent] = counts.get(c.continent, 0) + 1
    return counts


def table_view(st: State, seat: int) -> TableView:
    """The engine state as the Automa's planner sees it."""
    b = st.board
    dice = tuple(
        DieView(c, v, si, sl, (si, sl, i))
        for si, s in enumerate(st.seats)
        for sl, slot in enumerate(s.slots)
        for i, (c, v) in enumerate(slot)
    )
    n_spaces = len(b.expedition_spaces)
    free = {}
    for c in b.continents:
        used = st.expedition[c]
        free[c] = None if used >= n_spaces else (used, b.expedition_spaces[used][0])
    return TableView(
        n_seats=len(st.seats),
        names=_names(st),
        dice=dice,
        expert_display=_expert_views(st),
        animal_display=_animal_views(st),
        expert_deck=expert_deck_left(st),
        animal_deck=animal_deck_left(st, non_sepultus_only=True),
        expedition_free=free,
        bank_claimed=st.bank_claimed,
        animals=_animal_counts(st, seat),
        tokens=st.seats[seat].tokens,
        slot_gifts=tuple(words.gift_msg(e) for e in b.slot_effects),
    )


# --------------------------------------------------------------------------- reputation words


def reputation_message(st: State, seat: int, start: int, steps: int) -> Optional[Msg]:
    """"Move the Automa's reputation marker 3 spaces, from 3 to 6: on 4 it gains 3 coins; on 6
    1 expert (by its priorities)."."""
    if steps <= 0:
        return None
    b = st.board
    length = b.reputation_track_length
    pos = start
    hits = []
    for _ in range(steps):
        pos = (pos + 1) % length
        bonus = b.reputation_bonuses.get(pos)
        if bonus:
            bits = []
            for k, v in bonus.items():
                if k in ("expert", "animal"):
                    bits.append(M(f"ai.rep.cards.{k}", n=v))
                else:
                    bits.append(words.gift_msg({k: v}))
            hits.append(M("ai.rep.hit", pos=pos, gains=words.join_and_msg(bits)))
    who = st.seats[seat].name
    return M("ai.rep.move", who=who, steps=steps, start=start, end=pos,
             round=M("ai.rep.round") if (pos < start or steps >= length) else "",
             hits=M("ai.rep.hits", hits=words.chain_msg("ai.semicolon", hits)) if hits else "")


def reputation_sentence(st: State, seat: int, start: int, steps: int) -> Optional[str]:
    m = reputation_message(st, seat, start, steps)
    return None if m is None else str(m)


# --------------------------------------------------------------------------- one step


def _lead_actor(name: str) -> str:
    """The actor's name after "Set-up: ": as entered, "the Automa" not capitalised."""
    capped = words.cap(name)
    return "t" + capped[1:] if capped.startswith("The ") else capped


def _card_step(st: State, seat: int, kind: str, reason: str) -> tuple[Optional[Action], list[Msg], Optional[str]]:
    """A card choice (animal or expert) from the display; a deck draw stops the chain."""
    pr = _priority(st, seat)
    name = st.seats[seat].name
    lead = reason if reason in ("start", "round", "reputation") else None
    actor = _lead_actor(name) if lead else words.cap(name)
    views = _animal_views(st) if kind == "animal" else _expert_views(st)
    i = choose_card([v.continent for v in views], pr)
    if i is None:
        text = M(f"ai.deck.{kind}", actor=actor)
        return None, [M(f"ai.lead.{lead}", text=text) if lead else text], f"{kind}_from_deck"
    v = views[i]
    action = ChooseAnimal(seat, v.ref) if kind == "animal" else ChooseExpert(seat, v.ref)
    card = v.name if v.name else M("ai.the_animal", continent=v.continent)
    text = M("ai.chosen", actor=actor, card=card, pos=words.card_position_msg(v.pos, kind))
    return action, [M(f"ai.lead.{lead}", text=text) if lead else text], None


def _row_reputation(plan: TurnPlan) -> int:
    return plan.row.reputation + plan.space_reputation


# --------------------------------------------------------------------------- decide


def decide(state: State, seat: int) -> Decision:
    """Everything the automa at ``seat`` does now (see the module doc). Raises
    ``NotAutomaInputError`` when the game is not waiting for this automa."""
    if not 0 <= seat < len(state.seats):
        raise NotAutomaInputError(f"there is no seat {seat}")
    s0 = state.seats[seat]
    if s0.kind != "automa":
        raise NotAutomaInputError(f"{s0.name} is a human seat: the automa decides only for automa seats")
    p = state.pending
    if p.seat != seat or p.kind not in AUTOMA_INPUTS:
        raise NotAutomaInputError(
            f"the game is not waiting for {s0.name} (it waits for {p.describe()}): nothing to decide"
        )
    behav = behavior(s0.behaviour)
    pr = _priority(state, seat)
    st = state.copy()
    actions: list[Action] = []
    text: list[Msg] = []
    plan: Optional[TurnPlan] = None
    waits: Optional[str] = None
    skip_card = False  # the turn's own card is already in the turn's sentences
    while True:
        p = st.pending
        if p.seat != seat or p.kind not in AUTOMA_INPUTS:
            break
        if p.kind in ("take_die", "action"):
            view = table_view(st, seat)
            if p.kind == "take_die":
                plan = plan_turn(view, seat, behav, pr)
                die = plan.die
                step = [TakeDie(seat, die.ref[0], die.ref[1], die.ref[2])]
            else:
                colour, value = st.hand
                plan = plan_turn(view, seat, behav, pr, die=DieView(colour, value, -1, 0))
                step = []
            step.append(AutomaAction(seat, plan.continent if plan.location == "expedition" else None))
            rep_before = st.seats[seat].rep
            for a in step:
                apply(st, a)
                actions.append(a)
            text.extend(turn_messages(view, plan))
            rs = reputation_message(st, seat, rep_before, _row_reputation(plan))
            if rs:
                text.append(rs)
            skip_card = plan.location in ("academy", "university")
            continue
        kind = "animal" if p.kind == "choose_animal" else "expert"
        action, sentences, waits = _card_step(st, seat, kind, p.reason or "")
        if action is None:
            if skip_card and p.reason in ("academy", "university"):
                # the turn's sentences already say "the top card of the deck"
                sentences = [M(f"ai.draw_that.{kind}")]
            text.extend(sentences)
            break
        if plan is not None and skip_card and p.reason in ("academy", "university"):
            expected = plan.card_view.ref if plan.card_view is not None else None
            if expected != (action.card if kind == "animal" else action.name):  # pragma: no cover
                raise AssertionError("the turn's card and the card chosen differ")
        else:
            text.extend(sentences)
        skip_card = False
        apply(st, action)
        actions.append(action)
    return Decision(seat, tuple(actions), tuple(str(m) for m in text), waits, plan, tuple(text))


# --------------------------------------------------------------------------- outside its turn


def dice_message(state: State, seat: int) -> Msg:
    """Where the automa's dice go on its board this round (the engine placed them on roll)."""
    s = state.seats[seat]
    if s.kind != "automa":
        raise NotAutomaInputError(f"{s.name} is a human seat")
    return words.dice_layout_msg(s.name, [list(slot) for slot in s.slots])


def dice_instructions(state: State, seat: int) -> str:
    return str(dice_message(state, seat))


def gift_message(state: State, action: TakeDie) -> Optional[Msg]:
    """When a seat takes a die from an automa's board: what the automa gains (to be said with
    that turn, BEFORE the action is applied to ``state``). None when it gains nothing or the
    owner is not an automa or the die is the taker's own."""
    if action.owner == action.seat or not 0 <= action.owner < len(state.seats):
        return None
    owner = state.seats[action.owner]
    if owner.kind != "automa":
        return None
    effect = state.board.slot_effects[action.slot]
    if not effect:
        return None
    parts: list = [M("ai.gift.gains", owner=words.cap(owner.name), gift=words.gift_msg(effect))]
    rs = reputation_message(state, action.owner, owner.rep, effect.get("reputation", 0))
    if rs is not None:
        parts.append(rs)
        if "ai.rep.cards.animal" in rs.keys() or "ai.rep.cards.expert" in rs.keys():
            parts.append(M("ai.gift.cards_later"))
    return words.chain_msg("ai.space", parts)


def gift_instructions(state: State, action: TakeDie) -> Optional[str]:
    m = gift_message(state, action)
    return None if m is None else str(m)
