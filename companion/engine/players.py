"""Seeded random players and a seeded chance source, for the simulator and the tests.

``ChanceSource(rng)`` answers the table's inputs (cards revealed, round tokens, dice rolled)
from what is really left in the box; ``RandomPlayer(rng)`` answers a seat's decisions with a
random LEGAL action, built from ``companion.engine.queries``. ``next_action(state, chance, players)``
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
    SwapCubes, TakeDie, UseExpert,
)
from companion.content.vocab import CATEGORIES, CATEGORIES_BY_TYPE
from companion.engine.effects import EXPERT
from companion.actions import Academy, Bank, Embassy, Expedition, NO_SPEND, Publish, University
from companion.engine.flow import apply
from companion.engine.rules import _research_below, _researchable, cube_swaps, cubes_left
from companion.errors import RuleError
from companion.engine.queries import (
    _boost, _research_options, _value, automa_card_choice, automa_expedition_continent, automa_row,
    cheapest_recolour,
)
from companion.engine.state import State, pending_of


_CLASS, _DIET, _HABITAT, _CLIMATE = (tuple(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4))
_N_CLASS, _N_DIET, _N_HABITAT, _N_CLIMATE = len(_CLASS), len(_DIET), len(_HABITAT), len(_CLIMATE)


def _pick(rng: random.Random, seq):
    """``rng.choice`` without its overhead (the simulator's hot path)."""
    return seq[int(rng.random() * len(seq))]


def _int(rng: random.Random, lo: int, hi: int) -> int:
    """``_int(rng, lo, hi)``, faster."""
    return lo + int(rng.random() * (hi - lo + 1))


def _sample(rng: random.Random, seq, k: int) -> list:
    pool = list(seq)
    out = []
    for _ in range(k):
        i = int(rng.random() * len(pool))
        pool[i], pool[-1] = pool[-1], pool[i]
        out.append(pool.pop())
    return out


class ChanceSource:
    """Random chance events drawn from what is left in the box."""

    def __init__(self, rng: random.Random, sepultus_rate: float = 1.0, unknown_categories: float = 0.0) -> None:
        self.rng = rng
        self.unknown_categories = unknown_categories
        self._state = None  # remaining-deck counts, updated incrementally
        self._counted = 0
        self._left: dict = {}
        self._sep = 0
        self._experts_state = None  # unseen experts, updated incrementally
        self._experts_n = 0
        self._unseen: list[str] = []

    def _card_fields(self, st: State, cls, *seat) -> Action:
        """``cls(*seat, <the next card of the deck>)`` (RevealAnimal or DrawAnimal)."""
        rng = self.rng
        b = st.board
        if self._state is not st or self._counted > len(st.cards):
            self._state = st
            self._counted = 0
            self._left = {c: b.animals_per_continent for c in b.continents}
            self._sep = b.sepultus_cards if st.sepultus else 0
        left = self._left
        for c in st.cards[self._counted:]:
            if c.sepultus:
                self._sep -= 1
            else:
                left[c.continent] -= 1
        self._counted = len(st.cards)
        sep = self._sep
        total = sum(left.values()) + sep
        r = int(rng.random() * total)
        if r < sep:
            cats = tuple(_sample(rng, CATEGORIES, _int(rng, 1, 3)))
            die = _int(rng, 1, 6)
            return cls(*seat, None, f"Sepultus {len(st.cards)}", cats, True, die, _int(rng, 2, 9))
        r -= sep
        for c, k in left.items():
            if r < k:
                if rng.random() < self.unknown_categories:
                    return cls(*seat, c)
                rnd = rng.random
                return cls(*seat, c, "", (_CLASS[int(rnd() * _N_CLASS)], _DIET[int(rnd() * _N_DIET)],
                                          _HABITAT[int(rnd() * _N_HABITAT)], _CLIMATE[int(rnd() * _N_CLIMATE)]))
            r -= k
        raise AssertionError("empty deck")  # pragma: no cover

    def unseen_experts(self, st: State) -> list[str]:
        """The experts still in the deck, in annex order (cached: ``experts_seen`` only grows)."""
        seen = st.experts_seen
        if self._experts_state is not st or self._experts_n > len(seen):
            self._experts_state = st
            self._experts_n = 0
            self._unseen = list(EXPERT)
        unseen = self._unseen
        for name in seen[self._experts_n:]:
            unseen.remove(name)
        self._experts_n = len(seen)
        return unseen

    def action(self, st: State, p=None) -> Action:
        p = p or pending_of(st)
        rng = self.rng
        k = p.kind
        if k == "reveal_animal":
            return self._card_fields(st, RevealAnimal)
        if k == "roll_dice":
            bag: list[str] = []
            for c, n in st.bag.items():
                bag += [c] * n
            r = rng.random
            drawn = []
            for _ in range(p.count):  # _sample, in place on this fresh list
                i = int(r() * len(bag))
                bag[i], bag[-1] = bag[-1], bag[i]
                drawn.append(bag.pop())
            return RollDice(p.seat, tuple([(c, 1 + int(r() * 6)) for c in drawn]))
        if k == "reveal_expert":
            return RevealExpert(_pick(rng, self.unseen_experts(st)))
        if k == "reveal_round_token":
            pool = list(st.board.round_token_pool())
            for e in st.round_tokens:
                pool.remove(e)
            return RevealRoundToken(_pick(rng, pool))
        if k == "roll_die":
            return RollDie(p.seat, _int(rng, 1, 6))
        if k == "choose_animal" and p.from_deck:
            return self._card_fields(st, DrawAnimal, p.seat)
        raise ValueError(f"{k} is not a chance event")


CHANCE_KINDS = frozenset({"reveal_expert", "reveal_animal", "reveal_round_token", "roll_dice", "roll_die"})




class RandomPlayer:
    """A random legal decision for whatever the pending input asks of its seat."""

    def __init__(self, rng: random.Random, seal_rate: float = 0.5, oneshot_rate: float = 0.3) -> None:
        self.rng = rng
        self.seal_rate = seal_rate
        self.oneshot_rate = oneshot_rate

    def action(self, st: State, p=None) -> Action:
        p = p or pending_of(st)
        rng = self.rng
        seat = p.seat
        s = st.seats[seat]
        k = p.kind
        automa = s.kind == "automa"
        # the two most frequent decisions first
        if k == "take_die":
            return self._take_die(st, seat)
        if k == "action":
            return self._action(st, seat)
        if k == "choose_animal":
            if automa:
                return ChooseAnimal(seat, automa_card_choice(st, seat, "animal"))
            a = ChooseAnimal(seat, _pick(rng, [c for c in st.animal_display if c is not None]))
            if _research_below(st, seat) is not None and not _accepted(st, a):
                # the bonus card of one's own expedition must complete it (issue 39)
                a = next((ChooseAnimal(seat, c) for c in st.animal_display
                          if c is not None and _accepted(st, ChooseAnimal(seat, c))), a)
            return a
        if k == "choose_expert":
            if p.from_deck:
                seen = set(st.experts_seen)
                name = _pick(rng, [n for n in EXPERT if n not in seen])
            elif automa:
                name = automa_card_choice(st, seat, "expert")
            else:
                name = _pick(rng, [n for n in st.expert_display if n is not None])
            a = self._expert(st, seat, name, ChooseExpert)
            if not p.from_deck and not automa and _research_below(st, seat) is not None and not _accepted(st, a):
                # the bonus card of one's own expedition must complete it (issue 39)
                a = next((x for n in st.expert_display if n is not None
                          for x in (ChooseExpert(seat, n), ChooseExpert(seat, n, under=True),
                                    *(ChooseExpert(seat, n, k) for k in range(4)))
                          if _accepted(st, x)), a)
            return a
        if k == "place_dice":
            n = p.count
            slots = [0, 1, 2, 3]
            while len(slots) < n:
                slots.append(int(rng.random() * 4))
            return PlaceDice(seat, tuple(_sample(rng, slots, n)))
        if k == "research":
            missing = [cid for cid in s.animals if st.cards[cid].categories is None
                       and st.cards[cid].continent == p.continent]
            if missing:
                cid = missing[0]
                return SetCategories(cid, tuple(_pick(rng, CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4)))
            budget = p.value
            opts = _research_options(st, s, p.value, p.continent)
            left = cubes_left(st, s)
            if left <= 0 and opts:
                swaps = cube_swaps(st, s)
                if swaps:  # out of cubes: free 5 with a "5 cubes" token (issue 39)
                    return SwapCubes(seat, swaps[0])
            opts = _sample(rng, opts, len(opts))
            chosen = []
            used = set()
            for cid, cat, cost in opts:
                sep = st.cards[cid].sepultus
                key = cid if sep else (cid, cat)
                if cost <= budget and key not in used and len(chosen) < left:
                    chosen.append((cid, cat))
                    used.add(key)
                    budget -= cost
            return Research(seat, tuple(chosen))
        if k == "seal_action":
            if rng.random() < self.seal_rate:
                colours = [c for c, n in st.central.items() if n]
                return SealAction(seat, _pick(rng, colours))
            return Pass(seat)
        raise ValueError(f"{k} is not a decision")

    def _take_die(self, st: State, seat: int) -> Action:
        """Start of a turn: sometimes a one-shot expert first, else a random die on any board."""
        rng = self.rng
        s = st.seats[seat]
        if s.kind != "automa" and rng.random() < self.oneshot_rate:
            one = [x for x in s.face_up if x is not None and EXPERT[x].duration == "oneshot"]
            if one:
                return UseExpert(seat, _pick(rng, one))
        spots = []
        add = spots.append
        for si, x in enumerate(st.seats):
            a, b, c, d = x.slots  # the four slots, left to right
            if a:
                add((si, 0, len(a)))
            if b:
                add((si, 1, len(b)))
            if c:
                add((si, 2, len(c)))
            if d:
                add((si, 3, len(d)))
        si, sl, k = spots[int(rng.random() * len(spots))]
        return TakeDie(seat, si, sl, int(rng.random() * k) if k > 1 else 0)

    def _action(self, st: State, seat: int) -> Action:
        if st.seats[seat].kind == "automa":
            row = automa_row(st, seat)
            cont = automa_expedition_continent(st, seat) if row["kind"] == "expedition" else None
            return AutomaAction(seat, cont)
        return self._human_action(st, seat)

    def _human_action(self, st: State, seat: int) -> Action:
        """A random legal action for the die in hand: the kinds are tried in random order (the
        interesting ones first most of the time), each with a random target and the cheapest
        spend (sometimes more); Embassy and Bank are always possible."""
        rng = self.rng
        r = int(rng.random() * 4)
        tries = _TRIES[r]
        if rng.random() < 0.15:
            tries = ((RandomPlayer._try_embassy, RandomPlayer._try_bank)[int(rng.random() * 2)],) + tries
        for fn in tries:
            a = fn(self, st, seat)
            if a is not None:
                return a
        return Embassy(seat) if rng.random() < 0.5 else Bank(seat)

    def _try_embassy(self, st, seat):
        return Embassy(seat)

    def _try_bank(self, st, seat):
        return Bank(seat)

    def _try_university(self, st, seat):
        names = [n for n in st.expert_display if n is not None]
        if not names:
            return None
        return self._expert(st, seat, _pick(self.rng, names), University)

    def _try_academy(self, st, seat):
        cards = [c for c in st.animal_display if c is not None]
        if not cards:
            return None
        cid = _pick(self.rng, cards)
        c = st.cards[cid]
        die = st.hand
        if c.sepultus:
            sp = _boost(st, seat, NO_SPEND, c.die - _value(st, seat, die, NO_SPEND), False)
            if sp is None or _value(st, seat, die, sp) != c.die:
                return None
        else:
            sp = cheapest_recolour(st, seat, die, st.board.colour_of_continent[c.continent])
            if sp is None:
                return None
        return Academy(seat, cid, sp)

    def _try_expedition(self, st, seat):
        rng = self.rng
        b = st.board
        s = st.seats[seat]
        open_ = [c for c in b.continents if st.expedition[c] < len(b.expedition_spaces)]
        if not open_:
            return None
        cont = _pick(rng, open_)
        sp = cheapest_recolour(st, seat, st.hand, b.colour_of_continent[cont])
        if sp is None:
            return None
        extra = b.expedition_spaces[st.expedition[cont]][1] + s.fx.exp_bonus.get(cont, 0)
        v = _value(st, seat, st.hand, sp, True) + extra
        if rng.random() < 0.5:
            more = _boost(st, seat, sp, _int(rng, 1, 8), True)
            if more is not None:
                sp = more
                v = _value(st, seat, st.hand, sp, True) + extra
        if not _researchable(st, s, cont, v):
            return None
        return Expedition(seat, cont, sp)

    def _try_publish(self, st, seat):
        rng = self.rng
        b = st.board
        s = st.seats[seat]
        refs = [c for c in s.animals if not st.cards[c].sepultus]
        if not refs:
            return None
        ref = _pick(rng, refs)
        card = st.cards[ref]
        sp = cheapest_recolour(st, seat, st.hand, b.colour_of_continent[card.continent])
        if sp is None:
            return None
        low = b.publish_max_type_table[0][0]
        sp = _boost(st, seat, sp, low - _value(st, seat, st.hand, sp), False)
        if sp is None:
            return None
        if rng.random() < 0.4:
            more = _boost(st, seat, sp, _int(rng, 1, 3), False)
            if more is not None:
                sp = more
        top = b.publish_max_type(_value(st, seat, st.hand, sp))
        mine = s.cubes.get(ref, ())
        cats = {cat for t, cat in enumerate(card.categories or (), 1) if t <= top and cat in mine}
        extra = tuple((cid, cat) for cid in s.animals if cid != ref for cat in s.cubes.get(cid, ())
                      if cat in cats and rng.random() < 0.7)
        givers = {cid for cid, _ in extra}
        keep = tuple(cid for cid in s.animals if cid != ref and cid not in givers
                     and (st.cards[cid].sepultus or st.cards[cid].continent == card.continent) and rng.random() < 0.3)
        return Publish(seat, ref, sp, None, extra, keep)

    def _expert(self, st: State, seat: int, name: str, cls):
        """``cls(seat, name, slot, use_now)`` (ChooseExpert or University) with a random legal
        placement: a one-shot used at once half the time; a random slot to cover when all are taken."""
        s = st.seats[seat]
        rng = self.rng
        if s.kind == "automa":
            return cls(seat, name)
        use_now = EXPERT[name].duration == "oneshot" and rng.random() < 0.5
        slot = None
        if not use_now and None not in s.face_up:
            slot = int(rng.random() * (len(s.face_up) + 1))
            if slot == len(s.face_up):  # placed under an existing expert (issue 39)
                return cls(seat, name, under=True)
        return cls(seat, name, slot, use_now)


# the four interesting kinds, rotated by a random start (publish, expedition, academy, university)
_KINDS = (RandomPlayer._try_publish, RandomPlayer._try_expedition, RandomPlayer._try_academy,
          RandomPlayer._try_university)
_TRIES = tuple(_KINDS[r:] + _KINDS[:r] for r in range(4))


def next_action(st: State, chance: ChanceSource, players: Sequence[RandomPlayer]) -> Action:
    """The next input: a chance event from ``chance`` or a decision of the seat's player."""
    t = st.tasks[-1] if st.tasks else None
    if t is not None and (t[0] == "take_die" or t[0] == "action"):
        pl = players[t[1]]
        if type(pl) is RandomPlayer:  # the simulator's hot path: no Pending to build
            return pl._take_die(st, t[1]) if t[0] == "take_die" else pl._action(st, t[1])
    p = pending_of(st)
    if p.kind in CHANCE_KINDS or (p.kind == "choose_animal" and p.from_deck):
        return chance.action(st, p)
    return players[p.seat].action(st, p)


def _accepted(st: State, a: Action) -> bool:
    """Whether the checked ``apply`` accepts ``a`` now (tried on a copy)."""
    try:
        apply(st.copy(), a)
    except RuleError:
        return False
    return True
