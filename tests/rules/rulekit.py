"""A small table for the rules audit: sets a game up and plays it through the public API only
(``companion.actions`` + the checked ``companion.engine.apply`` + ``state.pending`` / queries),
the way a player at the table would enter it.

    t = setup(n=2, display=[animal("europe", "bird", "omnivore", "aquatic", "cold"), ...],
              picks=[...], token="nothing", dice={0: [("blue", 6), ...], 1: [...]})
    t.do(TakeDie(0, 0, 0), Embassy(0))
    t.refuse(Academy(0, 3), WrongColourError, "yellow")      # state unchanged, error class exact

Everything not given is filled with "neutral" content: end-game experts (no effect during
play) and filler animals, so that a test only states what its rule needs.
"""

from __future__ import annotations

import json

import pytest

from companion.actions import (
    AutomaAction, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy, Expedition, Pass, PlaceDice,
    Research, RevealAnimal, RevealExpert, RevealRoundToken, RollDice, SeatConfig, Spend, StartGame,
    TakeDie,
)
from companion.engine import EXPERT, apply, new_game

# End-game experts: no effect at all during play (safe fillers for the expert display).
FILLER_EXPERTS = (
    "Fernanda Brito Pedroso", "Maddalena Rotella", "Nargiz Tatilian", "Salvador Ortíz",
    "Gidea Grobbelaar", "Habib Abdalla", "N'Kogolo Bakumi", "Ankshu Ragavan", "Gangesh Mukerji",
    "Suriani binti Sulung", "Lotte Paulsen", "Manuel Núñez", "Vlad Koulechov", "Arnold Schuman",
    "Ilmatar Iivonen", "Kiteni Sariman", "Pora Paniu",
)

COLOUR = {"america": "red", "africa": "yellow", "asia": "purple", "europe": "blue", "oceania": "green"}


def animal(continent: str, cls: str = "mammal", diet: str = "herbivore", habitat: str = "terrestrial",
           climate: str = "hot", name: str = "") -> RevealAnimal:
    """A card revealed into the Academy display (categories: class, diet, habitat, climate)."""
    return RevealAnimal(continent, name, (cls, diet, habitat, climate))


def sepultus(die: int, cost: int, *categories: str, name: str = "") -> RevealAnimal:
    return RevealAnimal(None, name, tuple(categories), True, die, cost)


# filler animals: Oceania first (never the continent a test researches unless it says so)
FILLER_ORDER = ("oceania", "asia", "africa", "america", "europe")

AUTOMA_PRIORITY = ("europe", "america", "africa", "asia", "oceania")


def automa_seat(name: str = "Automa", behaviour: str = "carl-von-linne", scoring: str = "la-boudeuse",
                priority=AUTOMA_PRIORITY) -> SeatConfig:
    return SeatConfig(name, "automa", behaviour, scoring, tuple(priority))


def state_text(st) -> str:
    return json.dumps(st.to_json(), sort_keys=True)


class Table:
    """A game driven through the checked ``apply`` only."""

    def __init__(self, board=None) -> None:
        self.st = new_game(board)
        self._filler_experts = list(FILLER_EXPERTS)

    # -- basics

    @property
    def p(self):
        return self.st.pending

    def seat(self, i: int):
        return self.st.seats[i]

    def card(self, name: str) -> int:
        """The id of the (unique) card revealed with ``name``."""
        ids = [c.id for c in self.st.cards if c.name == name]
        assert len(ids) == 1, f"{len(ids)} cards named {name!r}"
        return ids[0]

    def do(self, *actions) -> "Table":
        for a in actions:
            apply(self.st, a)
        return self

    def refuse(self, action, err: type, *fragments: str):
        """``action`` is refused with exactly ``err``, its message names every fragment, and the
        state is unchanged (canonical JSON before == after)."""
        before = state_text(self.st)
        with pytest.raises(err) as ei:
            apply(self.st, action)
        assert type(ei.value) is err, f"expected {err.__name__}, got {type(ei.value).__name__}: {ei.value}"
        msg = str(ei.value)
        assert msg.strip(), "an error needs a message"
        for f in fragments:
            assert f.lower() in msg.lower(), f"{f!r} not in message {msg!r}"
        assert state_text(self.st) == before, "a refused action changed the state"
        return ei.value

    # -- chance fillers

    def next_filler_expert(self) -> str:
        seen = set(self.st.experts_seen)
        while self._filler_experts and self._filler_experts[0] in seen:
            self._filler_experts.pop(0)
        if self._filler_experts:
            return self._filler_experts.pop(0)
        return next(n for n in EXPERT if n not in seen)

    def reveal_experts(self, names=()) -> "Table":
        names = list(names)
        while self.p.kind == "reveal_expert":
            self.do(RevealExpert(names.pop(0) if names else self.next_filler_expert()))
        assert not names, f"experts not revealed (display full): {names}"
        return self

    def filler_animal(self, cls=RevealAnimal, **kw):
        """A neutral card from a continent with cards left (Oceania first)."""
        seen = [c.continent for c in self.st.cards]
        per = self.st.board.animals_per_continent
        cont = next(c for c in FILLER_ORDER if seen.count(c) < per)
        return cls(continent=cont, name="filler", categories=("mammal", "herbivore", "terrestrial", "hot"), **kw)

    def reveal_animals(self, cards=()) -> "Table":
        cards = list(cards)
        while self.p.kind == "reveal_animal":
            self.do(cards.pop(0) if cards else self.filler_animal())
        assert not cards, f"animals not revealed (display full): {cards}"
        return self

    # -- set-up and rounds

    def start(self, n: int = 2, first: int = 0, seats=None, sepultus: bool = False) -> "Table":
        if seats is None:
            seats = [SeatConfig(f"P{i}") for i in range(n)]
        self.do(StartGame(tuple(seats), first, sepultus))
        return self

    def draft(self, picks=None) -> "Table":
        """Starting draft (last seat first): ``picks`` = card ids in pick order; None = each seat
        takes the first card of the display."""
        picks = list(picks) if picks is not None else None
        while self.p.kind == "choose_animal" and self.p.reason == "start":
            seat = self.p.seat
            if picks:
                card = picks.pop(0)
            else:
                card = next(c for c in self.st.animal_display if c is not None)
            self.do(ChooseAnimal(seat, card))
        assert not picks, f"picks left over: {picks}"
        return self

    def roll(self, dice=None, slots=None) -> "Table":
        """Every seat rolls (in the order the engine asks) and humans place their dice.
        ``dice``: seat -> [(colour, value), ...]; ``slots``: seat -> slot per die."""
        dice = dict(dice or {})
        slots = dict(slots or {})
        while self.p.kind == "roll_dice":
            si = self.p.seat
            d = dice.get(si) or default_dice(si, self.p.count)
            self.do(RollDice(si, tuple(d)))
            if self.p.kind == "place_dice" and self.p.seat == si:
                sl = slots.get(si) or tuple(list(range(4)) + [0] * (len(d) - 4))
                self.do(PlaceDice(si, tuple(sl)))
        return self

    def finish_turns(self, seal_pass: bool = True) -> "Table":
        """Play every remaining turn of the round as 'take the first die you see (own board
        first), Bank'; answer card choices with the first card; then pass every seal offer."""
        st = self.st
        while True:
            k = self.p.kind
            si = self.p.seat
            if k == "take_die":
                own = [(si, sl, 0) for sl in range(4) if st.seats[si].slots[sl]]
                anyd = own or [(o, sl, 0) for o in range(st.n) for sl in range(4) if st.seats[o].slots[sl]]
                self.do(TakeDie(si, *anyd[0]))
            elif k == "action":
                if st.seats[si].kind == "automa":
                    from companion.engine import automa_expedition_continent, automa_row

                    row = automa_row(st, si)
                    cont = automa_expedition_continent(st, si) if row["kind"] == "expedition" else None
                    self.do(AutomaAction(si, cont))
                else:
                    self.do(Bank(si))
            elif k in ("choose_animal", "choose_expert"):
                self.choose_first()
            elif k == "research":
                from companion.engine import research_options

                opts = research_options(st, si)
                self.do(Research(si, (opts[0][:2],) if opts else ()))
            elif k == "seal_action" and seal_pass:
                self.do(Pass(si))
            else:
                return self

    def choose_first(self) -> "Table":
        p = self.p
        st = self.st
        if p.kind == "choose_animal":
            if p.from_deck:
                self.do(self.filler_animal(DrawAnimal, seat=p.seat))
            else:
                automa = st.seats[p.seat].kind == "automa"
                cid = next(c for c in st.animal_display
                           if c is not None and not (automa and st.cards[c].sepultus))
                self.do(ChooseAnimal(p.seat, cid))
        elif p.kind == "choose_expert":
            if p.from_deck:
                name = self.next_filler_expert()
            else:
                name = next(x for x in st.expert_display if x is not None)
            s = st.seats[p.seat]
            slot = None
            if s.kind == "human" and all(x is not None for x in s.face_up):
                slot = 0
            self.do(ChooseExpert(p.seat, name, slot))
        else:
            raise AssertionError(f"nothing to choose: {p}")
        return self

    def new_round(self, token: str = "nothing", experts=(), animals=(), dice=None, slots=None,
                  roll: bool = True) -> "Table":
        """From the start of a round (refill pending): refill, round token, dice."""
        self.reveal_experts(experts)
        self.reveal_animals(animals)
        return self.round_token(token, dice, slots, roll)

    def round_token(self, token: str = "nothing", dice=None, slots=None, roll: bool = True) -> "Table":
        """At the round token (the refill done): reveal it, then (``roll``) every seat's dice."""
        assert self.p.kind == "reveal_round_token", self.p
        self.do(RevealRoundToken(token))
        if roll and self.p.kind == "roll_dice":
            self.roll(dice, slots)
        return self

    def play_to_end(self) -> "Table":
        """Play every remaining round with Bank-only turns and neutral chance events."""
        guard = 0
        while self.p.kind != "game_over":
            guard += 1
            assert guard < 5000, "the game does not end"
            k = self.p.kind
            if k == "reveal_expert":
                self.reveal_experts()
            elif k == "reveal_animal":
                self.reveal_animals()
            elif k == "reveal_round_token":
                used = self.st.round_tokens
                self.do(RevealRoundToken("nothing" if used.count("nothing") < 2 else
                                         "coins" if used.count("coins") < 2 else "token"))
            elif k == "roll_dice":
                self.roll()
            else:
                before = self.st.n_actions
                self.finish_turns()
                if self.st.n_actions == before:
                    raise AssertionError(f"stuck at {self.p}")
        return self


def default_dice(seat: int, count: int = 4):
    """Four (five) dice for a seat that never exhaust a colour with up to 4 seats x 5 dice."""
    colours = ["red", "yellow", "purple", "blue", "green"]
    out = []
    for i in range(count):
        out.append((colours[(seat + i) % 5], 1 + (seat + i) % 6))
    return out


def setup(n: int = 2, first: int = 0, seats=None, sepultus: bool = False, experts=(), display=(),
          picks=None, refill=(), token: str = "nothing", dice=None, slots=None, board=None,
          roll: bool = True) -> Table:
    """A game through round 1's dice: StartGame, 6 experts, the animal display, the starting
    draft, the refill, the round token and (``roll``) every seat's dice. Stops at the first
    pending input that is not covered by the arguments (e.g. a round-token draft)."""
    t = Table(board)
    t.start(n if seats is None else len(seats), first, seats, sepultus)
    t.reveal_experts(experts)
    t.reveal_animals(display)
    t.draft(picks)
    t.reveal_animals(refill)
    return t.round_token(token, dice, slots, roll)


def setup_six_in_the_display(dice) -> Table:
    """Two seats in round 1 with six cards in the display after the draft (the draft takes
    d0 to d3; am1 and af1 are left, the refill adds as1, eu1, oc1 and am2), so six Academy
    actions empty it; ``dice``: each seat's, as ``setup`` takes them."""
    display = [animal("oceania", name=f"d{i}") for i in range(4)] + [
        animal("america", name="am1"), animal("africa", name="af1")]
    refill = [animal("asia", name="as1"), animal("europe", name="eu1"),
              animal("oceania", name="oc1"), animal("america", name="am2")]
    return setup(display=display, picks=[0, 1, 2, 3], refill=refill, dice=dice)


def eric_game():
    """Eric (seat 0) researches over two rounds the cubes of the Publication example: the
    Aix galericulata (Europe, bird, omnivore, aquatic) as reference, two other cards with an
    aquatic cube, 3 omnivore cubes, 5 bird cubes, 3 European cards, two cards of other
    continents, and an arboreal cube he cannot use."""
    display = [animal("europe", "bird", "omnivore", "aquatic", "temperate", "Aix galericulata"),
               animal("europe", "bird", "omnivore", "aquatic", "temperate", "E2"),
               animal("europe", "bird", "omnivore", "aquatic", "cold", "E3")]
    t = setup(seats=[SeatConfig("Eric"), SeatConfig("Zoe")], display=display, picks=[3, 4, 0, 1],
              token="animal", roll=False)
    aix, e2, e3 = t.card("Aix galericulata"), t.card("E2"), t.card("E3")
    t.do(ChooseAnimal(0, e3))  # round-token draft, first player first
    t.choose_first()  # Zoe
    t.reveal_animals()
    t.roll({0: [("blue", 6)] * 4, 1: [("red", 1), ("yellow", 2), ("purple", 3), ("green", 4)]})
    e = t.seat(0)
    # round 1: four European expeditions (spaces +0, +1, +2, +3)
    t.do(TakeDie(0, 0, 0), Expedition(0, "europe"), Research(0, ((aix, "bird"), (aix, "omnivore"))))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "europe"), Research(0, ((aix, "aquatic"),)))
    t.do(TakeDie(1, 1, 1), Embassy(1))
    t.do(TakeDie(0, 0, 2), Expedition(0, "europe"))
    assert e.rep == 6 and t.p.kind == "choose_expert" and t.p.reason == "reputation"
    t.choose_first()
    t.do(Research(0, ((e2, "bird"), (e2, "omnivore"))))
    t.do(TakeDie(1, 1, 2), Embassy(1))
    t.do(TakeDie(0, 0, 3), Expedition(0, "europe"))
    assert t.p.value == 9
    t.do(Research(0, ((e2, "aquatic"), (e3, "bird"))))
    t.do(TakeDie(1, 1, 3), Embassy(1))
    assert t.st.round == 2 and t.p.kind == "reveal_expert"
    t.reveal_experts()
    t.reveal_animals([animal("africa", "bird", "carnivore", "aquatic", "hot", "N1"),
                      animal("asia", "bird", "herbivore", "arboreal", "hot", "N2"),
                      animal("europe", "reptile", "carnivore", "terrestrial", "cold", "E4")])
    n1, n2 = t.card("N1"), t.card("N2")
    t.do(RevealRoundToken("animal"))
    t.do(ChooseAnimal(0, n1))
    t.do(ChooseAnimal(1, next(x for x in t.st.animal_display
                              if x is not None and x != n2 and t.st.cards[x].name == "filler")))
    t.reveal_animals()
    t.roll({0: [("blue", 4), ("yellow", 6), ("purple", 6), ("blue", 4)],
            1: [("red", 1), ("red", 2), ("green", 3), ("green", 4)]})
    t.do(TakeDie(0, 0, 0), Expedition(0, "europe"))
    assert e.rep == 9 and t.p.kind == "choose_animal" and t.p.reason == "reputation"
    t.do(ChooseAnimal(0, n2), Research(0, ((e3, "omnivore"),)))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "africa", Spend(coins=1, tokens=1)))
    assert t.p.value == 9
    t.do(Research(0, ((n1, "bird"), (n1, "aquatic"))))
    t.do(TakeDie(1, 1, 1), Embassy(1))
    t.do(TakeDie(0, 0, 2), Expedition(0, "asia", Spend(coins=1, tokens=1)))
    t.do(Research(0, ((n2, "bird"), (n2, "arboreal"))))
    t.do(TakeDie(1, 1, 2), Embassy(1))
    t.do(TakeDie(0, 0, 3))
    assert t.p.die == ("blue", 4)
    return t, dict(aix=aix, e2=e2, e3=e3, n1=n1, n2=n2)


def eric_extra(c):
    """Every other cube of the reference's three categories in Eric's publication."""
    return ((c["e2"], "aquatic"), (c["n1"], "aquatic"),
            (c["e2"], "omnivore"), (c["e3"], "omnivore"),
            (c["e2"], "bird"), (c["e3"], "bird"), (c["n1"], "bird"), (c["n2"], "bird"))
