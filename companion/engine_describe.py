"""One sentence per action, for the readable game log ("did I already pay for that?").

``describe_action(state_before, action)`` uses the names in the state BEFORE the action.
It never raises for a well-formed action, even an illegal one (the log may show refused
input); unknown ids are shown as numbers.
"""

from __future__ import annotations

from companion.actions import (
    Academy, Action, AutomaAction, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy,
    Expedition, Pass, PlaceDice, Publish, Research, RevealAnimal, RevealExpert, RevealRoundToken,
    RollDice, RollDie, SealAction, SetCategories, Spend, StartGame, TakeDie, University, UseExpert,
)
from companion.engine_board import board_from_values
from companion.errors import RuleError
from companion.state import State

_TOKEN_WORDS = {
    "token": "each seat gains 1 expedition token",
    "coins": "each seat gains 3 coins",
    "expert": "each seat takes a free expert",
    "animal": "each seat takes a free animal",
    "extra_die": "each seat draws a fifth die",
    "nothing": "no effect",
}


def _seat(st: State, i: int) -> str:
    return st.seats[i].name if 0 <= i < len(st.seats) else f"seat {i}"


def _card(st: State, cid: int) -> str:
    if 0 <= cid < len(st.cards):
        c = st.cards[cid]
        return c.label() + ("" if c.sepultus or not c.name else f" ({c.continent.capitalize()})")
    return f"card #{cid}"


def _spend(sp: Spend) -> str:
    parts = []
    if sp.colour:
        parts.append(f"made {sp.colour} with a {'seal' if sp.colour_by == 'seal' else 'token'}")
    if sp.coins:
        parts.append(f"{sp.coins} coin{'s' * (sp.coins != 1)}")
    if sp.tokens:
        parts.append(f"{sp.tokens} token{'s' * (sp.tokens != 1)} for +{2 * sp.tokens}")
    seals = sp.seals - (1 if sp.colour_by == "seal" else 0)
    if sp.colour_by == "seal":
        parts.append("the seal's +5")
    if seals > 0:
        parts.append(f"{seals} seal{'s' * (seals != 1)} for +{5 * seals}")
    if sp.seals_for_coins:
        parts.append(f"{sp.seals_for_coins} seal{'s' * (sp.seals_for_coins != 1)} for coins")
    return f" ({', '.join(parts)})" if parts else ""


def _die(st: State) -> str:
    return f"{st.hand[0]} {st.hand[1]}" if st.hand else "the die"


def _card_fields(a) -> str:
    if a.sepultus:
        return f"{a.name or 'a Sepultus Creatura'} (Sepultus: die {a.die}, expedition {a.cost})"
    return f"{a.name or 'an animal'} ({(a.continent or '?').capitalize()})"


def describe_action(st: State, a: Action) -> str:
    """A short sentence for ``a`` applied to ``st`` (the state before it)."""
    try:
        return _describe(st, a)
    except Exception:  # pragma: no cover - a log line must never break the log
        return a.TYPE.replace("_", " ")


def _describe(st: State, a: Action) -> str:
    if isinstance(a, StartGame):
        names = ", ".join(x.name + (" (automa)" if x.kind == "automa" else "") for x in a.seats)
        first = a.seats[a.first_player].name if 0 <= a.first_player < len(a.seats) else "?"
        text = f"new game: {names}; {first} starts" + ("; with Sepultus Creatura" if a.sepultus else "")
        if a.board is not None:
            try:
                own = board_from_values(a.board).overridden
            except RuleError:
                own = frozenset()
            if own:
                text += f"; board values from the box: {', '.join(sorted(own))}"
        return text
    if isinstance(a, RevealExpert):
        return f"the table reveals the expert {a.name}"
    if isinstance(a, RevealAnimal):
        return f"the table reveals {_card_fields(a)}"
    if isinstance(a, DrawAnimal):
        return f"{_seat(st, a.seat)} draws {_card_fields(a)} from the deck"
    if isinstance(a, SetCategories):
        return f"{_card(st, a.card)} is {', '.join(a.categories)}"
    if isinstance(a, RevealRoundToken):
        return f"round {st.round}: the round token is {a.effect.replace('_', ' ')} ({_TOKEN_WORDS.get(a.effect, '?')})"
    if isinstance(a, RollDice):
        return f"{_seat(st, a.seat)} rolls " + ", ".join(f"{c} {v}" for c, v in a.dice)
    if isinstance(a, PlaceDice):
        s = st.seats[a.seat] if 0 <= a.seat < len(st.seats) else None
        if s and len(s.rolled) == len(a.slots):
            return f"{s.name} places " + ", ".join(f"{c} {v} in slot {x + 1}" for (c, v), x in zip(s.rolled, a.slots))
        return f"{_seat(st, a.seat)} places the dice"
    if isinstance(a, TakeDie):
        me = _seat(st, a.seat)
        try:
            c, v = st.seats[a.owner].slots[a.slot][a.index]
        except (IndexError, KeyError):
            return f"{me} takes a die from {_seat(st, a.owner)}'s slot {a.slot + 1}"
        if a.owner == a.seat:
            return f"{me} takes their own {c} {v}"
        eff = st.board.slot_effects[a.slot] if 0 <= a.slot < 4 else {}
        gain = ", ".join(f"{n} {k.replace('reputation', 'reputation').replace('vp', 'VP')}" for k, n in eff.items())
        return f"{me} takes {_seat(st, a.owner)}'s {c} {v} (slot {a.slot + 1}: " + (
            f"{_seat(st, a.owner)} gains {gain})" if gain else "no effect)")
    if isinstance(a, UseExpert):
        return f"{_seat(st, a.seat)} uses {a.name}"
    if isinstance(a, ChooseAnimal):
        return f"{_seat(st, a.seat)} takes {_card(st, a.card)}"
    if isinstance(a, ChooseExpert):
        where = " and uses it at once" if a.use_now else (f" (slot {a.slot + 1})" if a.slot is not None else "")
        return f"{_seat(st, a.seat)} takes the expert {a.name}{where}"
    me = _seat(st, getattr(a, "seat", -1))
    if isinstance(a, Embassy):
        return f"{me}: Embassy with {_die(st)}{_spend(a.spend)}"
    if isinstance(a, Bank):
        return f"{me}: Bank with {_die(st)}{_spend(a.spend)}" + ("" if st.bank_claimed else ", takes the first-player token")
    if isinstance(a, University):
        return f"{me}: University with {_die(st)}, recruits {a.name}{_spend(a.spend)}"
    if isinstance(a, Academy):
        return f"{me}: Academy with {_die(st)}, studies {_card(st, a.card)}{_spend(a.spend)}"
    if isinstance(a, Expedition):
        return f"{me}: Expedition to {a.continent.capitalize()} with {_die(st)}{_spend(a.spend)}"
    if isinstance(a, Research):
        if not a.cubes:
            return f"{me} places no research cube"
        return f"{me} researches " + ", ".join(f"{cat} on {_card(st, cid)}" for cid, cat in a.cubes)
    if isinstance(a, Publish):
        more = f", with {len(a.extra)} cube(s) from other animals" if a.extra else ""
        keep = f", keeping {len(a.keep)} more card(s)" if a.keep else ""
        upto = f" up to Type {a.up_to}" if a.up_to is not None else ""
        return f"{me}: Publication of {_card(st, a.reference)}{upto} with {_die(st)}{_spend(a.spend)}{more}{keep}"
    if isinstance(a, AutomaAction):
        from companion.engine_automa import behaviour_row

        s = st.seats[a.seat] if 0 <= a.seat < len(st.seats) else None
        if s is None or s.behaviour is None or st.hand is None:
            return f"{me}: automa action"
        row = behaviour_row(s.behaviour, st.hand[1])
        where = f" to {a.continent.capitalize()}" if a.continent else ""
        return f"{me} (automa): {row['kind'].capitalize()}{where} with {_die(st)}"
    if isinstance(a, SealAction):
        return f"{me} spends a royal seal for an extra action with a {a.colour} die"
    if isinstance(a, RollDie):
        return f"{me} rolls a {a.value}"
    if isinstance(a, Pass):
        return f"{me} passes"
    return a.TYPE.replace("_", " ")
