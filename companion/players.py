"""Seeded random players and a seeded chance source, for the simulator and the tests.

``ChanceSource(rng)`` answers the table's inputs (cards revealed, round tokens, dice rolled)
from what is really left in the box; ``RandomPlayer(rng)`` answers a seat's decisions with a
random LEGAL action, built from ``companion.queries``. ``next_action(state, chance, players)``
picks whichever the pending input needs. Automa seats are played by the same random player
through ``AutomaAction`` (their card choices follow the automa priority rule) until the real
automa (``automa/``) is plugged in.
"""

from __future__ import annotations

import random
from typing import Sequence

from companion.actions import (
    Action, AutomaAction, ChooseAnimal, ChooseExpert, DrawAnimal, Pass, PlaceDice, Research,
    RevealAnimal, RevealExpert, RevealRoundToken, RollDice, RollDie, SealAction, SetCategories,
    TakeDie, UseExpert,
)
from companion.content.vocab import CATEGORIES, CATEGORIES_BY_TYPE
from companion.engine import EXPERT, pending_of
from companion.queries import (
    automa_card_choice, automa_expedition_continent, automa_row, die_options, research_options,
)
from companion.state import State


class ChanceSource:
    """Random chance events drawn from what is left in the box."""

    def __init__(self, rng: random.Random, sepultus_rate: float = 1.0, unknown_categories: float = 0.0) -> None:
        self.rng = rng
        self.unknown_categories = unknown_categories

    def _card_fields(self, st: State) -> dict:
        rng = self.rng
        b = st.board
        left = {c: b.animals_per_continent for c in b.continents}
        sep = b.sepultus_cards if st.sepultus else 0
        for c in st.cards:
            if c.sepultus:
                sep -= 1
            else:
                left[c.continent] -= 1
        pool = [(c, k) for c, k in left.items() if k > 0]
        total = sum(k for _, k in pool) + sep
        r = rng.randrange(total)
        if r < sep:
            cats = tuple(rng.sample(CATEGORIES, rng.randint(1, 3)))
            return dict(sepultus=True, die=rng.randint(1, 6), cost=rng.randint(2, 9), categories=cats,
                        name=f"Sepultus {len(st.cards)}")
        r -= sep
        for c, k in pool:
            if r < k:
                cats = None if rng.random() < self.unknown_categories else tuple(
                    rng.choice(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4))
                return dict(continent=c, categories=cats)
            r -= k
        raise AssertionError("empty deck")  # pragma: no cover

    def action(self, st: State) -> Action:
        p = pending_of(st)
        rng = self.rng
        k = p.kind
        if k == "reveal_expert":
            seen = set(st.experts_seen)
            return RevealExpert(rng.choice([n for n in EXPERT if n not in seen]))
        if k == "reveal_animal":
            return RevealAnimal(**self._card_fields(st))
        if k == "reveal_round_token":
            pool = list(st.board.round_token_pool())
            for e in st.round_tokens:
                pool.remove(e)
            return RevealRoundToken(rng.choice(pool))
        if k == "roll_dice":
            bag = [c for c, n in st.bag.items() for _ in range(n)]
            drawn = rng.sample(bag, p.count)
            return RollDice(p.seat, tuple((c, rng.randint(1, 6)) for c in drawn))
        if k == "roll_die":
            return RollDie(p.seat, rng.randint(1, 6))
        if k == "choose_animal" and p.from_deck:
            return DrawAnimal(p.seat, **self._card_fields(st))
        raise ValueError(f"{k} is not a chance event")


CHANCE_KINDS = frozenset({"reveal_expert", "reveal_animal", "reveal_round_token", "roll_dice", "roll_die"})


class RandomPlayer:
    """A random legal decision for whatever the pending input asks of its seat."""

    def __init__(self, rng: random.Random, seal_rate: float = 0.5, oneshot_rate: float = 0.3) -> None:
        self.rng = rng
        self.seal_rate = seal_rate
        self.oneshot_rate = oneshot_rate

    def action(self, st: State) -> Action:
        p = pending_of(st)
        rng = self.rng
        seat = p.seat
        s = st.seats[seat]
        k = p.kind
        automa = s.kind == "automa"
        if k == "choose_animal":
            if automa:
                return ChooseAnimal(seat, automa_card_choice(st, seat, "animal"))
            return ChooseAnimal(seat, rng.choice([c for c in st.animal_display if c is not None]))
        if k == "choose_expert":
            if p.from_deck:
                seen = set(st.experts_seen)
                name = rng.choice([n for n in EXPERT if n not in seen])
            elif automa:
                name = automa_card_choice(st, seat, "expert")
            else:
                name = rng.choice([n for n in st.expert_display if n is not None])
            return self._expert(st, seat, name, ChooseExpert)
        if k == "place_dice":
            n = p.count
            slots = [0, 1, 2, 3]
            while len(slots) < n:
                slots.append(rng.randrange(4))
            rng.shuffle(slots)
            return PlaceDice(seat, tuple(slots[:n]))
        if k == "take_die":
            if not automa and rng.random() < self.oneshot_rate:
                one = [x for x in s.face_up if x is not None and EXPERT[x].duration == "oneshot"]
                if one:
                    return UseExpert(seat, rng.choice(one))
            spots = [(si, sl, i) for si, x in enumerate(st.seats) for sl, dice in enumerate(x.slots)
                     for i in range(len(dice))]
            return TakeDie(seat, *rng.choice(spots))
        if k == "action":
            if automa:
                row = automa_row(st, seat)
                cont = automa_expedition_continent(st, seat) if row["kind"] == "expedition" else None
                return AutomaAction(seat, cont)
            opts = die_options(st, seat)
            # prefer the interesting actions a little
            weighted = [o for o in opts if o.kind in ("publish", "expedition", "academy")]
            o = rng.choice(weighted if weighted and rng.random() < 0.7 else opts)
            a = o.action
            if o.kind == "university":
                a = self._expert(st, seat, o.target, None, a)
            return a
        if k == "research":
            missing = [cid for cid in s.animals if st.cards[cid].categories is None
                       and st.cards[cid].continent == p.continent]
            if missing:
                cid = missing[0]
                return SetCategories(cid, tuple(rng.choice(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4)))
            budget = p.value
            opts = research_options(st, seat)
            rng.shuffle(opts)
            chosen = []
            used = set()
            for cid, cat, cost in opts:
                sep = st.cards[cid].sepultus
                key = cid if sep else (cid, cat)
                if cost <= budget and key not in used:
                    chosen.append((cid, cat))
                    used.add(key)
                    budget -= cost
            return Research(seat, tuple(chosen))
        if k == "seal_action":
            if rng.random() < self.seal_rate:
                colours = [c for c, n in st.central.items() if n]
                return SealAction(seat, rng.choice(colours))
            return Pass(seat)
        raise ValueError(f"{k} is not a decision")

    def _expert(self, st: State, seat: int, name: str, cls, base=None):
        s = st.seats[seat]
        rng = self.rng
        if s.kind == "automa":
            return cls(seat, name)
        use_now = EXPERT[name].duration == "oneshot" and rng.random() < 0.5
        slot = None
        if not use_now and all(x is not None for x in s.face_up):
            slot = rng.randrange(len(s.face_up))
        if base is not None:
            from dataclasses import replace

            return replace(base, slot=slot, use_now=use_now)
        return cls(seat, name, slot, use_now)


def next_action(st: State, chance: ChanceSource, players: Sequence[RandomPlayer]) -> Action:
    """The next input: a chance event from ``chance`` or a decision of the seat's player."""
    p = pending_of(st)
    if p.kind in CHANCE_KINDS or (p.kind == "choose_animal" and p.from_deck):
        return chance.action(st)
    return players[p.seat].action(st)
