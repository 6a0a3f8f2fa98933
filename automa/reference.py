"""A fixed, seeded greedy human bot: the yardstick the tournament measures the automas against.

It is not meant to play well, only to play the same way every time and sensibly enough that a
harder automa beats it more often. Its rules, in full:

- **Its turn**: for every distinct die (colour, value) on any board, taken from the slot that
  gives the others least (its own board first), and every legal action for it
  (``companion.queries.die_options``: the cheapest spend; publications also tried with every
  optional cube of the reference's categories), it plays the turn out on a copy (research
  chosen greedily, its own card choices greedy) and keeps the one with the best
  ``value(seat)`` gain minus what the die's owner gains. Ties: first found (seeded order).
- ``value(seat)`` = its score if the game ended now (``companion.scoring.score_human``) +
  for each cube on an unpublished animal, 0.7 × what publishing it would score + 1.5 per
  unpublished animal + 0.6 per expedition token + 0.3 per coin (these are spent later).
- **Research**: the set of cubes (at most the budget) with the highest placement VP +
  0.7 × publication VP, by a small exhaustive search.
- **Cards**: an animal of the continent it already holds most of (published + studied), else
  the first in the display; an expert: one-shots used at once, otherwise the first of the
  continent it holds most experts of; a full board covers its first slot.
- **Dice**: lowest value left, highest right (its best dice give the most when taken).
- **Seals at the end of a round**: it passes (it keeps them for 4 VP each).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from companion.actions import (
    Action, ChooseAnimal, ChooseExpert, Pass, PlaceDice, Publish, Research, SetCategories, TakeDie,
)
from companion.content.vocab import CATEGORIES_BY_TYPE, TYPE_OF_CATEGORY
from companion.engine import EXPERT, apply, pending_of
from companion.errors import RuleError
from companion.queries import die_options, research_options
from companion.scoring import HumanScoreInput, score_human
from companion.state import State

GIFT_VALUE = {"coins": 0.3, "reputation": 0.5, "vp": 1.0, "tokens": 0.6, "seals": 4.0}


def value(st: State, seat: int) -> float:
    s = st.seats[seat]
    b = st.board
    published: dict[str, int] = {}
    sep = 0
    for cid in s.published:
        c = st.cards[cid]
        if c.sepultus:
            sep += 1
        else:
            published[c.continent] = published.get(c.continent, 0) + 1
    up = set(x for x in s.face_up if x is not None)
    inp = HumanScoreInput(s.name, s.vp, dict(s.pub_cubes), published, sep,
                          [(EXPERT[e], e in up) for e in s.experts], s.seals, s.coins, s.tokens, s.rep)
    v = float(score_human(inp, b).total)
    for cid in s.animals:
        v += 1.5
        for cat in s.cubes.get(cid, ()):
            v += 0.7 * b.publication_vp[TYPE_OF_CATEGORY[cat]]
    v += 0.6 * s.tokens + 0.3 * s.coins
    return v


class GreedyPlayer:
    """``action(state)`` for whatever the game asks of its seat (see the module doc)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._plan: list[Action] = []

    # -- the game's questions

    def action(self, st: State) -> Action:
        p = pending_of(st)
        seat = p.seat
        if self._plan:
            a = self._plan.pop(0)
            return a
        k = p.kind
        if k == "take_die":
            return self._turn(st, seat)
        if k == "action":  # a seal action's die
            return self._best_option(st, seat)[0]
        if k == "research":
            return self._research(st, seat)
        if k == "choose_animal":
            return self._animal(st, seat)
        if k == "choose_expert":
            return self._expert(st, seat, p.from_deck)
        if k == "place_dice":
            rolled = st.seats[seat].rolled
            order = sorted(range(len(rolled)), key=lambda i: rolled[i][1])
            slots = [0] * len(rolled)
            extra = max(0, len(rolled) - 4)
            for pos, i in enumerate(order):
                slots[i] = max(0, pos - extra)
            return PlaceDice(seat, tuple(slots))
        if k == "seal_action":
            return Pass(seat)
        raise ValueError(f"{k} is not a decision for the reference player")

    # -- cards

    def _animal(self, st: State, seat: int) -> Action:
        s = st.seats[seat]
        held: dict[str, int] = {}
        for cid in s.animals + s.published:
            c = st.cards[cid]
            if c.continent:
                held[c.continent] = held.get(c.continent, 0) + 1
        cards = [c for c in st.animal_display if c is not None]
        best = max(cards, key=lambda cid: (held.get(st.cards[cid].continent, -1) if not st.cards[cid].sepultus else -2,
                                           -cards.index(cid)))
        return ChooseAnimal(seat, best)

    def _expert_args(self, st: State, seat: int, name: str) -> dict:
        s = st.seats[seat]
        if EXPERT[name].duration == "oneshot":
            return {"use_now": True}
        if all(x is not None for x in s.face_up):
            return {"slot": 0}
        return {}

    def _expert_choice(self, st: State, seat: int) -> str:
        s = st.seats[seat]
        mine: dict[str, int] = {}
        for e in s.experts:
            mine[EXPERT[e].continent] = mine.get(EXPERT[e].continent, 0) + 1
        names = [n for n in st.expert_display if n is not None]
        return max(names, key=lambda n: (mine.get(EXPERT[n].continent, 0), -names.index(n)))

    def _expert(self, st: State, seat: int, from_deck: bool) -> Action:
        if from_deck:
            seen = set(st.experts_seen)
            name = self.rng.choice([n for n in EXPERT if n not in seen])
        else:
            name = self._expert_choice(st, seat)
        return ChooseExpert(seat, name, **self._expert_args(st, seat, name))

    # -- research

    def _research(self, st: State, seat: int) -> Action:
        s = st.seats[seat]
        p = pending_of(st)
        missing = [cid for cid in s.animals if st.cards[cid].categories is None
                   and st.cards[cid].continent == p.continent]
        if missing:  # the table would enter the card's categories now
            return SetCategories(missing[0], tuple(self.rng.choice(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4)))
        b = st.board
        opts = research_options(st, seat)
        best, best_v = (), 0.0
        n = len(opts)
        # exhaustive over small option sets, greedy by worth/cost beyond that
        if n <= 10:
            for r in range(1, n + 1):
                for combo in itertools.combinations(opts, r):
                    cost = sum(x[2] for x in combo)
                    if cost > p.value:
                        continue
                    keys = [x[0] if st.cards[x[0]].sepultus else (x[0], x[1]) for x in combo]
                    if len(set(keys)) != len(keys):
                        continue
                    v = sum(b.research_vp[TYPE_OF_CATEGORY[c]] + 0.7 * b.publication_vp[TYPE_OF_CATEGORY[c]]
                            for _, c, _ in combo)
                    if v > best_v:
                        best, best_v = combo, v
        else:
            budget = p.value
            used = set()
            chosen = []
            for cid, cat, cost in sorted(opts, key=lambda x: -x[2]):
                key = cid if st.cards[cid].sepultus else (cid, cat)
                if cost <= budget and key not in used:
                    chosen.append((cid, cat, cost))
                    used.add(key)
                    budget -= cost
            best = tuple(chosen)
        return Research(seat, tuple((cid, cat) for cid, cat, _ in best))

    # -- the turn

    def _play_out(self, st: State, seat: int, actions: list[Action]) -> tuple[State, list[Action]] | None:
        trial = st.copy()
        done = []
        try:
            for a in actions:
                apply(trial, a)
                done.append(a)
            guard = 0
            while trial.tasks and guard < 20:
                p = pending_of(trial)
                if p.seat != seat or p.kind not in ("research", "choose_animal", "choose_expert"):
                    break
                if p.kind == "choose_animal" and p.from_deck:
                    break  # chance: stop here
                if p.kind == "choose_expert" and p.from_deck:
                    break
                a = self.action(trial) if p.kind != "research" else self._research(trial, seat)
                apply(trial, a)
                done.append(a)
                guard += 1
        except RuleError:
            return None
        return trial, done

    def _candidates(self, st: State, seat: int, die):
        for o in die_options(st, seat, die):
            a = o.action
            if o.kind == "university":
                a = replace(a, **self._expert_args(st, seat, o.target))
                yield a
            elif o.kind == "publish":
                yield a
                ref = st.cards[o.target]
                cats = set(st.seats[seat].cubes.get(o.target, ()))
                extra = tuple((cid, cat) for cid in st.seats[seat].animals if cid != o.target
                              for cat in st.seats[seat].cubes.get(cid, ()) if cat in cats
                              and st.cards[cid].continent == ref.continent)
                if extra:
                    yield replace(a, extra=extra)
            else:
                yield a

    def _best_option(self, st: State, seat: int, take: TakeDie | None = None):
        base = value(st, seat)
        best = None
        if take is not None:
            pre = st.copy()
            apply(pre, take)
        else:
            pre = st
        for a in self._candidates(pre, seat, pre.hand):
            r = self._play_out(pre, seat, [a])
            if r is None:
                continue
            trial, done = r
            v = value(trial, seat) - base
            if best is None or v > best[1]:
                best = (done, v)
        if best is None:  # pragma: no cover - the Embassy is always possible
            raise AssertionError("no legal action for the die")
        if take is None:
            self._plan = best[0][1:]
            return best[0][0], best[1]
        return best

    def _turn(self, st: State, seat: int) -> Action:
        b = st.board
        spots = {}
        for si, s in enumerate(st.seats):
            for sl, dice in enumerate(s.slots):
                for i, die in enumerate(dice):
                    gift = 0 if si == seat else 1 + sl
                    if die not in spots or gift < spots[die][0]:
                        spots[die] = (gift, TakeDie(seat, si, sl, i))
        best = None
        for die, (gift, take) in spots.items():
            cost = 0.0
            if take.owner != seat:
                cost = sum(GIFT_VALUE.get(k, 0) * v for k, v in b.slot_effects[take.slot].items())
            done, v = self._best_option(st, seat, take)
            v -= cost
            if best is None or v > best[1]:
                best = ([take] + done, v)
        self._plan = best[0][1:]
        return best[0][0]
