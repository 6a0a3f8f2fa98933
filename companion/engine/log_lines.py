"""One sentence per action, for the readable game log ("did I already pay for that?").

``describe_action(state_before, action)`` uses the names in the state BEFORE the action.
It never raises for a well-formed action, even an illegal one (the log may show refused
input); unknown ids are shown as numbers. ``describe(state_before, action)`` is the same line
as a :class:`companion.messages.Msg` (key + arguments) that the app words in the player's
language; ``describe_action`` is its English.
"""

from __future__ import annotations

from companion.actions import (
    Academy, Action, AutomaAction, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy,
    Expedition, Pass, PlaceDice, Publish, Research, RevealAnimal, RevealExpert, RevealRoundToken,
    RollDice, RollDie, SealAction, SetCategories, Spend, StartGame, SwapCubes, TakeDie, University, UseExpert,
)
from companion.board_values import board_from_values
from companion.engine.automa_rows import behaviour_row
from companion.engine.rules import card_label
from companion.engine.state import State
from companion.errors import RuleError
from companion.messages import Msg

#: what each round token does (message keys)
_TOKEN_WORDS = {
    "token": "log.token_effect.token",
    "coins": "log.token_effect.coins",
    "expert": "log.token_effect.expert",
    "animal": "log.token_effect.animal",
    "extra_die": "log.token_effect.extra_die",
    "nothing": "log.token_effect.nothing",
}
#: what the owner of a slot gains when another seat takes the die there (message keys)
_GAIN = {
    "coins": "log.gain.coins", "reputation": "log.gain.reputation", "vp": "log.gain.vp", "tokens": "log.gain.tokens",
    "seals": "log.gain.seals", "expert": "log.gain.expert", "animal": "log.gain.animal",
}


def _seat(st: State, i: int) -> str | Msg:
    return st.seats[i].name if 0 <= i < len(st.seats) else Msg("seat.number", n=i)


def _card(st: State, cid: int) -> str | Msg:
    if 0 <= cid < len(st.cards):
        c = st.cards[cid]
        if c.sepultus or not c.name:
            return card_label(c)
        return Msg("log.card_named", name=c.name, continent=c.continent)
    return Msg("card.number", n=cid)


def _spend(sp: Spend) -> Msg | str:
    parts: list[Msg] = []
    if sp.colour:
        parts.append(Msg("log.spend.colour_seal" if sp.colour_by == "seal" else "log.spend.colour_token", colour=sp.colour))
    if sp.coins:
        parts.append(Msg("log.spend.coins", n=sp.coins))
    if sp.tokens:
        parts.append(Msg("log.spend.tokens", n=sp.tokens, plus=2 * sp.tokens))
    seals = sp.seals - (1 if sp.colour_by == "seal" else 0)
    if sp.colour_by == "seal":
        parts.append(Msg("log.spend.seal_for_colour"))
    if seals > 0:
        parts.append(Msg("log.spend.seals", n=seals, plus=5 * seals))
    if sp.seals_for_coins:
        parts.append(Msg("log.spend.seals_for_coins", n=sp.seals_for_coins))
    return Msg("log.spend", parts=parts) if parts else ""


def _die(st: State) -> Msg:
    return Msg("log.die", colour=st.hand[0], value=st.hand[1]) if st.hand else Msg("log.the_die")


def _card_fields(a) -> Msg:
    if a.sepultus:
        return Msg("log.sepultus_fields", name=a.name or Msg("log.a_sepultus"), die=a.die, cost=a.cost)
    return Msg("log.animal_fields", name=a.name or Msg("log.an_animal"), continent=_continent(a.continent or "?"))


def _continent(c) -> str:
    """A continent's id (translated as a game word) or, when it is none, the text as given."""
    from companion.content.vocab import CONTINENTS

    return c if c in CONTINENTS else c.capitalize()


def _words(xs) -> tuple[str, ...]:
    """``xs`` as a tuple of words (``TypeError`` otherwise: the line falls back to the type)."""
    xs = tuple(xs)
    if not all(isinstance(x, str) for x in xs):
        raise TypeError("not words")
    return xs


def describe_action(st: State, a: Action) -> str:
    """A short sentence for ``a`` applied to ``st`` (the state before it), in English."""
    try:
        return str(_describe(st, a))
    except Exception:  # pragma: no cover - a log line must never break the log
        return a.TYPE.replace("_", " ")


def describe(st: State, a: Action) -> Msg:
    """The log line of ``a`` applied to ``st`` as a message (key + arguments), for the app to
    word in the player's language; ``str()`` of it is :func:`describe_action`'s English."""
    try:
        m = _describe(st, a)
        str(m)  # a line that cannot be worded (odd field values) falls back to the type
        return m
    except Exception:  # pragma: no cover - a log line must never break the log
        return Msg("log.action_type", type=a.TYPE.replace("_", " "))


def _describe(st: State, a: Action) -> Msg:
    if isinstance(a, StartGame):
        names = [Msg("log.automa_seat", name=x.name) if x.kind == "automa" else x.name for x in a.seats]
        _words(x.name for x in a.seats)
        first = a.seats[a.first_player].name if 0 <= a.first_player < len(a.seats) else "?"
        own: frozenset = frozenset()
        if a.board is not None:
            try:
                own = board_from_values(a.board).overridden
            except RuleError:
                own = frozenset()
        return Msg("log.start_game", names=names, first=first,
                   sepultus=Msg("log.with_sepultus") if a.sepultus else "",
                   board=Msg("log.board_from_box", keys=sorted(own)) if own else "")
    if isinstance(a, RevealExpert):
        return Msg("log.reveal_expert", name=a.name)
    if isinstance(a, RevealAnimal):
        return Msg("log.reveal_animal", card=_card_fields(a))
    if isinstance(a, DrawAnimal):
        return Msg("log.draw_animal", seat=_seat(st, a.seat), card=_card_fields(a))
    if isinstance(a, SetCategories):
        return Msg("log.set_categories", card=_card(st, a.card), categories=_words(a.categories))
    if isinstance(a, RevealRoundToken):
        words = _TOKEN_WORDS.get(a.effect)
        return Msg("log.round_token", round=st.round, token=a.effect.replace("_", " ") if words is None else a.effect,
                   what=Msg(words) if words else "?")
    if isinstance(a, RollDice):
        return Msg("log.roll_dice", seat=_seat(st, a.seat), dice=[Msg("log.die", colour=c, value=v) for c, v in a.dice])
    if isinstance(a, PlaceDice):
        s = st.seats[a.seat] if 0 <= a.seat < len(st.seats) else None
        if s and len(s.rolled) == len(a.slots):
            return Msg("log.place_dice", seat=s.name, dice=[Msg("log.die_in_slot", colour=c, value=v, slot=x + 1)
                                                             for (c, v), x in zip(s.rolled, a.slots)])
        return Msg("log.place_dice_unknown", seat=_seat(st, a.seat))
    if isinstance(a, TakeDie):
        me = _seat(st, a.seat)
        try:
            c, v = st.seats[a.owner].slots[a.slot][a.index]
        except (IndexError, KeyError):
            return Msg("log.take_die_unknown", seat=me, owner=_seat(st, a.owner), slot=a.slot + 1)
        die = Msg("log.die", colour=c, value=v)
        if a.owner == a.seat:
            return Msg("log.take_own_die", seat=me, die=die)
        eff = st.board.slot_effects[a.slot] if 0 <= a.slot < 4 else {}
        if not eff:
            return Msg("log.take_die_no_effect", seat=me, owner=_seat(st, a.owner), die=die, slot=a.slot + 1)
        gain = [Msg(_GAIN[k], n=n) for k, n in eff.items()]
        return Msg("log.take_die", seat=me, owner=_seat(st, a.owner), die=die, slot=a.slot + 1, gain=gain)
    if isinstance(a, SwapCubes):
        return Msg("log.swap_cubes", seat=_seat(st, a.seat), category=a.category)
    if isinstance(a, UseExpert):
        return Msg("log.use_expert", seat=_seat(st, a.seat), name=a.name)
    if isinstance(a, ChooseAnimal):
        return Msg("log.choose_animal", seat=_seat(st, a.seat), card=_card(st, a.card))
    if isinstance(a, ChooseExpert):
        where = (Msg("log.expert_used_at_once") if a.use_now else Msg("log.expert_under") if a.under
                 else Msg("log.expert_slot", slot=a.slot + 1) if a.slot is not None else "")
        return Msg("log.choose_expert", seat=_seat(st, a.seat), name=a.name, where=where)
    me = _seat(st, getattr(a, "seat", -1))
    if isinstance(a, Embassy):
        return Msg("log.embassy", seat=me, die=_die(st), spend=_spend(a.spend))
    if isinstance(a, Bank):
        return Msg("log.bank", seat=me, die=_die(st), spend=_spend(a.spend),
                   first="" if st.bank_claimed else Msg("log.bank_first_player"))
    if isinstance(a, University):
        return Msg("log.university_under" if a.under else "log.university", seat=me, die=_die(st), name=a.name,
                   spend=_spend(a.spend))
    if isinstance(a, Academy):
        return Msg("log.academy", seat=me, die=_die(st), card=_card(st, a.card), spend=_spend(a.spend))
    if isinstance(a, Expedition):
        return Msg("log.expedition", seat=me, continent=_continent(a.continent), die=_die(st), spend=_spend(a.spend))
    if isinstance(a, Research):
        if not a.cubes:
            return Msg("log.research_none", seat=me)
        return Msg("log.research", seat=me, cubes=[Msg("log.cube_on", category=cat, card=_card(st, cid))
                                                   for cid, cat in a.cubes])
    if isinstance(a, Publish):
        return Msg("log.publish", seat=me, card=_card(st, a.reference),
                   up_to=Msg("log.publish_up_to", type=a.up_to) if a.up_to is not None else "",
                   die=_die(st), spend=_spend(a.spend),
                   extra=Msg("log.publish_extra", n=len(a.extra)) if a.extra else "",
                   keep=Msg("log.publish_keep", n=len(a.keep)) if a.keep else "")
    if isinstance(a, AutomaAction):
        s = st.seats[a.seat] if 0 <= a.seat < len(st.seats) else None
        if s is None or s.behaviour is None or st.hand is None:
            return Msg("log.automa_action_unknown", seat=me)
        row = behaviour_row(s.behaviour, st.hand[1])
        return Msg("log.automa_action", seat=me, location=row["kind"],
                   to=Msg("log.automa_to", continent=_continent(a.continent)) if a.continent else "", die=_die(st))
    if isinstance(a, SealAction):
        return Msg("log.seal_action", seat=me, colour=a.colour)
    if isinstance(a, RollDie):
        return Msg("log.roll_die", seat=me, value=a.value)
    if isinstance(a, Pass):
        return Msg("log.pass", seat=me)
    return Msg("log.action_type", type=a.TYPE.replace("_", " "))
