"""The reference player: a seeded human bot that plays for the scoring, the yardstick of the
tournament (``python -m automa tournament``).

It plays like a careful human who looks one turn ahead: every turn it tries each distinct die
it may take (from the slot that gives the others least, its own board first) with every legal
action and a few ways of paying for it, plays the turn out on a copy of the state (its own
research and card choices included), and keeps the turn with the best change of ``estimate``
minus what the die's owner gains. Ties: the first found (fixed order), so a seed gives one game.

``estimate(state, seat)`` is what the seat's position is worth at the end of the game, in VP:

- what is already certain: VP on the track, Royal Seals (4), coins (1 per 2), tokens (1), the
  end-game experts face up (VP per seal / token / 2 coins / expert / reputation space, +2 cubes
  to a category), published cubes and animals in their collections;
- what is under way, weighted by ``q``, the chance it still gets published (from 0.8 while four
  or more of its turns are left, down to 0 when none is): each research cube on an animal
  under study counts ``q`` × its publication VP and ``q`` of a cube in its category collection;
  each animal under study ``q`` of a card in its continent collection and ``q`` × 1 VP;
- collections below 4 elements (worth 0 at the end) count 0.75 VP per element while there is
  time to complete them, fading to 0 on its last turns, so it starts the sets it can finish;
- what its permanent experts still bring (their gain × how often that action comes up ×
  its turns left), a little for spare coins, tokens, seals and empty research spaces
  while turns are left (they are spent later).

Its habits follow from that, plus:

- **Research** (after an expedition): the set of cubes within the expedition's value with the
  best ``estimate`` (exhaustive over the best ten single cubes).
- **Spending**: expeditions are tried with the cheapest spend, with all its tokens, and with
  its coins on top; publications with the cheapest spend for each type it can reach, with
  every optional cube of the published categories and, as an alternative, also keeping the
  other animals of the reference's continent that carry no cube.
- **Cards**: the animal / expert that raises ``estimate`` most (continent sets, categories it
  collects, experts that fit); one-shot experts are used at once; a full expert board covers
  the expert worth least.
- **Its dice**: lowest value left, highest right (its best dice give it 3 VP when taken).
- **Royal Seal at the end of a round**: it takes the extra action when, over the colours on the
  central board, the average best turn (over the six faces of the die) is worth more than the
  seal it spends.

It never looks at what the opponent will do next; ``GreedyPlayer`` is kept as an alias of
``ReferencePlayer`` for old imports.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from companion.actions import (
    Action, ChooseAnimal, ChooseExpert, Pass, PlaceDice, Research, RollDie, SealAction,
    SetCategories, TakeDie,
)
from companion.content.vocab import CATEGORIES_BY_TYPE, TYPE_OF_CATEGORY
from companion.engine import (
    EXPERT, State, apply, die_options, pending_of, publishable_types, research_options,
)
from companion.errors import RuleError

#: what a gift to the die's owner is worth to it (VP-equivalent per unit)
GIFT_VALUE = {"coins": 0.5, "reputation": 1.2, "vp": 1.0, "tokens": 1.0, "seals": 4.0}

# chance an action of a location comes up on one of its turns (permanent experts' value)
_PLACE_RATE = {"academy": 0.2, "university": 0.15, "publication": 0.2, "expedition": 0.2,
               "embassy": 0.08, "bank": 0.08}
_GAIN_WORTH = {"coins": 0.5, "reputation": 0.8, "vp": 1.0}


def turns_left(st: State, seat: int) -> float:
    """About how many more turns the seat will play this game (its share of the dice still on
    the boards this round + 4 per round to come)."""
    if not st.tasks:
        return 0.0
    b = st.board
    on_boards = sum(len(d) for s in st.seats for d in s.slots)
    return (b.rounds - st.round) * b.dice_per_seat + on_boards / max(1, len(st.seats))


_VP_TABLES: dict = {}


def _vp_table(board) -> tuple[list[int], int]:
    """Collection VP for 0..60 elements (cached per board)."""
    t = _VP_TABLES.get(id(board))
    if t is None or t[0] is not board:
        t = _VP_TABLES[id(board)] = (board, [board.collection_vp(k) for k in range(61)], board.collection_min)
    return t[1], t[2]


def _smooth(board, n: float, grow: float) -> float:
    """Collection VP of ``n`` elements (``n`` may be fractional); below the minimum, ``grow``
    VP per element (the set may still be completed)."""
    table, low = _vp_table(board)
    lo = int(n)
    if lo >= 60:
        return table[60] + (n - 60) * (table[60] - table[59])
    a = table[lo] if lo >= low else max(table[lo], grow * lo)
    frac = n - lo
    if frac <= 1e-9:
        return a
    hi = lo + 1
    b = table[hi] if hi >= low else max(table[hi], grow * hi)
    return a + frac * (b - a)


class Profile:
    """The counts ``estimate`` reads, built once from a seat (and changed for what-ifs)."""

    __slots__ = ("vp", "coins", "tokens", "seals", "rep", "R", "pub_cubes", "pend", "published",
                 "sepultus", "unpub", "free_spaces", "experts", "n_experts", "active")

    def __init__(self, st: State, seat: int) -> None:
        s = st.seats[seat]
        cards = st.cards
        self.vp, self.coins, self.tokens, self.seals, self.rep = s.vp, s.coins, s.tokens, s.seals, s.rep
        self.R = turns_left(st, seat)
        self.pub_cubes = dict(s.pub_cubes)
        self.pend: dict[str, list[int]] = {}
        self.published: dict[str, int] = {}
        self.sepultus = 0
        for cid in s.published:
            c = cards[cid]
            if c.sepultus:
                self.sepultus += 1
            else:
                self.published[c.continent] = self.published.get(c.continent, 0) + 1
        self.unpub: dict[str, int] = {}
        self.free_spaces = 0
        for cid in s.animals:
            c = cards[cid]
            have = s.cubes.get(cid, ())
            if not c.sepultus:
                self.unpub[c.continent] = self.unpub.get(c.continent, 0) + 1
                self.free_spaces += 4 - len(have)
            for cat in have:
                self.pend.setdefault(cat, []).append(TYPE_OF_CATEGORY[cat])
        self.experts: dict[str, int] = {}
        for e in s.experts:
            k = EXPERT[e].continent
            self.experts[k] = self.experts.get(k, 0) + 1
        self.n_experts = len(s.experts)
        used = set(s.used)
        self.active = [EXPERT[n] for n in s.face_up if n is not None and n not in used]


def score_profile(p: Profile, board) -> float:
    R = p.R
    q = min(0.8, R / 5.0)  # chance a cube / animal under study still gets published
    grow = 0.75 * min(1.0, R / 8.0)
    flex = min(1.0, R / 6.0)
    per_coin = board.end_coins_per_vp
    v = float(p.vp) + board.end_vp_per_seal * p.seals + board.end_vp_per_token * p.tokens
    v += p.coins / per_coin if R > 0 else p.coins // per_coin
    v += flex * (0.25 * p.coins + 0.6 * p.tokens + 0.5 * p.seals + 0.4 * min(p.free_spaces, 12))
    bonus_cubes: dict[str, int] = {}
    for e in p.active:
        d = e.duration
        g = e.gain
        if d == "endgame":
            if g.cubes is not None:
                bonus_cubes[g.cubes.category] = bonus_cubes.get(g.cubes.category, 0) + g.cubes.count
            elif g.vp_per is not None:
                per = g.vp_per
                units = (p.tokens if per == "token" else p.seals if per == "seal" else p.coins // 2 if per == "coin_pair"
                         else p.n_experts if per == "expert" else p.rep)
                v += units * g.vp
        elif d == "permanent":
            tr = e.trigger
            if tr.on == "place_die":
                rate = _PLACE_RATE.get(tr.location, 0.1) * (0.35 if tr.continent else 1.0)
                worth = g.coins * 0.5 + g.reputation * 0.8 + g.vp
                v += rate * worth * R
            elif tr.on == "die_value":
                v += 0.25 * R
            elif tr.on == "expedition_value":
                v += 0.12 * R * (1 + (p.unpub.get(tr.continent, 0) > 0))
            elif tr.on == "place_cube":
                v += 0.12 * g.coins * R
        else:  # one-shot still face up (used on a later turn)
            v += flex * (0.5 * g.coins + 0.8 * g.reputation)
    pub_vp = board.publication_vp
    for cat in CATEGORY_LIST:
        pend = p.pend.get(cat)
        n = p.pub_cubes.get(cat, 0) + bonus_cubes.get(cat, 0)
        if pend:
            v += q * sum(pub_vp[t] for t in pend)
            n += q * len(pend)
        if n:
            v += _smooth(board, n, grow)
    best_cont = 0.0
    for cont in board.continents:
        n = p.published.get(cont, 0) + p.experts.get(cont, 0) + q * p.unpub.get(cont, 0)
        if n:
            v += _smooth(board, n, grow)
            best_cont = max(best_cont, n)
    if p.sepultus:  # wildcards: on the largest continent set (an approximation of the best spread)
        v += _smooth(board, best_cont + p.sepultus, grow) - _smooth(board, best_cont, grow)
    v += q * sum(p.unpub.values())  # Type 0: 1 VP per card kept
    return v


CATEGORY_LIST = [c for t in (1, 2, 3, 4) for c in CATEGORIES_BY_TYPE[t]]


def estimate(st: State, seat: int) -> float:
    """The seat's position in end-of-game VP (see the module doc)."""
    return score_profile(Profile(st, seat), st.board)


class ReferencePlayer:
    """``action(state)`` for whatever the game asks of its seat (see the module doc)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._plan: list[Action] = []
        self._research_memo: dict = {}

    # -- the game's questions

    def action(self, st: State) -> Action:
        p = pending_of(st)
        seat = p.seat
        if self._plan:
            return self._plan.pop(0)
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
            return self._seal(st, seat)
        raise ValueError(f"{k} is not a decision for the reference player")

    # -- cards

    def _animal(self, st: State, seat: int) -> Action:
        cards = [c for c in st.animal_display if c is not None]
        base = Profile(st, seat)
        b = st.board
        best, best_v = cards[0], None
        for cid in cards:
            c = st.cards[cid]
            p = _copy_profile(base)
            if c.sepultus:
                v = 0.5 * min(1.0, p.R / 6)  # a wildcard it may research and publish
            else:
                p.unpub[c.continent] = p.unpub.get(c.continent, 0) + 1
                p.free_spaces += 4
                v = score_profile(p, b)
                # categories it already collects make the card a better research target
                if c.categories:
                    for cat in c.categories:
                        if p.pub_cubes.get(cat, 0) + len(p.pend.get(cat, ())) >= 2:
                            v += 0.4
            if best_v is None or v > best_v:
                best, best_v = cid, v
        return ChooseAnimal(seat, best)

    def _expert_args(self, st: State, seat: int, name: str, cover: int | None = None) -> dict:
        s = st.seats[seat]
        if EXPERT[name].duration == "oneshot":
            return {"use_now": True}
        if all(x is not None for x in s.face_up):
            return {"slot": self._cover_slot(st, seat) if cover is None else cover}
        return {}

    def _cover_slot(self, st: State, seat: int) -> int:
        """The face-up expert whose loss costs least."""
        s = st.seats[seat]
        base = Profile(st, seat)
        best, best_v = 0, None
        for slot, name in enumerate(s.face_up):
            p = _copy_profile(base)
            p.active = [EXPERT[n] for i, n in enumerate(s.face_up) if n is not None and i != slot and n not in s.used]
            v = score_profile(p, st.board)
            if best_v is None or v > best_v:
                best, best_v = slot, v
        return best

    def _expert_value(self, st: State, seat: int, base: Profile, name: str, cover: int | None = None) -> float:
        e = EXPERT[name]
        p = _copy_profile(base)
        p.experts[e.continent] = p.experts.get(e.continent, 0) + 1
        p.n_experts += 1
        if e.duration == "oneshot":
            g = e.gain
            p.coins += g.coins
            return score_profile(p, st.board) + 0.8 * g.reputation
        s = st.seats[seat]
        if all(x is not None for x in s.face_up):
            slot = self._cover_slot(st, seat) if cover is None else cover
            p.active = [EXPERT[n] for i, n in enumerate(s.face_up) if n is not None and i != slot and n not in s.used]
        p.active = p.active + [e]
        return score_profile(p, st.board)

    def _expert(self, st: State, seat: int, from_deck: bool) -> Action:
        if from_deck:
            seen = set(st.experts_seen)
            name = self.rng.choice([n for n in EXPERT if n not in seen])
        else:
            base = Profile(st, seat)
            names = [n for n in st.expert_display if n is not None]
            s = st.seats[seat]
            cover = self._cover_slot(st, seat) if all(x is not None for x in s.face_up) else None
            name = max(names, key=lambda n: (self._expert_value(st, seat, base, n, cover), -names.index(n)))
            return ChooseExpert(seat, name, **self._expert_args(st, seat, name, cover))
        return ChooseExpert(seat, name, **self._expert_args(st, seat, name))

    # -- research

    def _research(self, st: State, seat: int) -> Action:
        s = st.seats[seat]
        p = pending_of(st)
        missing = [cid for cid in s.animals if st.cards[cid].categories is None
                   and st.cards[cid].continent == p.continent]
        if missing:  # the table would enter the card's categories now
            return SetCategories(missing[0], tuple(self.rng.choice(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4)))
        key = (p.continent, p.value, s.vp, tuple((cid, tuple(s.cubes.get(cid, ()))) for cid in s.animals),
               tuple(sorted(s.pub_cubes.items())), tuple(s.face_up), s.coins, st.round, s.rep)
        hit = self._research_memo.get(key)
        if hit is None:
            hit = self._research_memo[key] = self._research_plan(st, seat, p.value)
        return Research(seat, hit)

    def _research_plan(self, st: State, seat: int, budget: int) -> tuple:
        b = st.board
        opts = research_options(st, seat)
        if not opts:
            return ()
        base = Profile(st, seat)
        cube_coins = st.seats[seat].fx.cube_coins
        cards = st.cards

        def with_cubes(combo) -> float:
            p = _copy_profile(base)
            for cid, cat, _ in combo:
                t = TYPE_OF_CATEGORY[cat]
                p.vp += b.research_vp[t]
                p.coins += cube_coins.get(t, 0)
                p.pend[cat] = p.pend.get(cat, []) + [t]
                if not cards[cid].sepultus:
                    p.free_spaces -= 1
            return score_profile(p, b)

        single = sorted(opts, key=lambda o: -with_cubes((o,)))[:10]
        best, best_v = (), None
        for r in range(1, len(single) + 1):
            any_fit = False
            for combo in itertools.combinations(single, r):
                if sum(x[2] for x in combo) > budget:
                    continue
                keys = [x[0] if cards[x[0]].sepultus else (x[0], x[1]) for x in combo]
                if len(set(keys)) != len(keys):
                    continue
                any_fit = True
                v = with_cubes(combo)
                if best_v is None or v > best_v:
                    best, best_v = combo, v
            if not any_fit:
                break
        return tuple((cid, cat) for cid, cat, _ in best)

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
                if p.kind in ("choose_animal", "choose_expert") and p.from_deck:
                    break  # chance: stop here
                if p.kind == "research":
                    a = self._research(trial, seat)
                elif p.kind == "choose_animal":
                    a = self._animal(trial, seat)
                else:
                    a = self._expert(trial, seat, False)
                apply(trial, a)
                done.append(a)
                guard += 1
        except RuleError:
            return None
        return trial, done

    def _candidates(self, st: State, seat: int, die):
        s = st.seats[seat]
        seen_experts = set()
        cover = self._cover_slot(st, seat) if all(x is not None for x in s.face_up) else None
        for o in die_options(st, seat, die):
            a = o.action
            if o.kind == "university":
                if o.target in seen_experts:
                    continue  # one way per expert: its own slot rule (_expert_args)
                seen_experts.add(o.target)
                yield replace(a, **{"slot": None, "use_now": False, **self._expert_args(st, seat, o.target, cover)})
            elif o.kind == "expedition":
                yield a
                sp = a.spend
                free_tokens = s.tokens - sp.tokens - (1 if sp.colour and sp.colour_by != "seal" else 0)
                free_coins = s.coins - sp.coins
                if free_tokens > 0:
                    yield replace(a, spend=replace(sp, tokens=sp.tokens + free_tokens))
                if free_coins > 0:
                    yield replace(a, spend=replace(sp, coins=sp.coins + min(free_coins, 6)))
                    if free_tokens > 0:
                        yield replace(a, spend=replace(sp, tokens=sp.tokens + free_tokens, coins=sp.coins + min(free_coins, 6)))
            elif o.kind == "publish":
                ref = st.cards[o.target]
                types = publishable_types(st, seat, o.target, die)
                spends = []
                for t in sorted(types):
                    if types[t] not in spends:
                        spends.append(types[t])
                cubes = s.cubes
                for sp in spends:
                    base = replace(a, spend=sp)
                    yield base
                    cats = set(cubes.get(o.target, ()))
                    extra = tuple((cid, cat) for cid in s.animals if cid != o.target
                                  for cat in cubes.get(cid, ()) if cat in cats)
                    if extra:
                        base = replace(base, extra=extra)
                        yield base
                    givers = {cid for cid, _ in base.extra}
                    keep = tuple(cid for cid in s.animals if cid != o.target and cid not in givers
                                 and not st.cards[cid].sepultus and st.cards[cid].continent == ref.continent)
                    if keep:
                        yield replace(base, keep=keep)
            else:
                yield a

    def _best_option(self, st: State, seat: int, take: TakeDie | None = None):
        base = estimate(st, seat)
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
            v = estimate(trial, seat) - base
            if best is None or v > best[1]:
                best = (done, v)
        if best is None:  # pragma: no cover - the Embassy is always possible
            raise AssertionError("no legal action for the die")
        if take is None:
            self._plan = best[0][1:]
            return best[0][0], best[1]
        return best

    def _turn(self, st: State, seat: int) -> Action:
        self._research_memo.clear()
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

    # -- end of round

    def _seal(self, st: State, seat: int) -> Action:
        """A Royal Seal for one more action when the average best turn beats the seal."""
        s = st.seats[seat]
        if s.seals <= 0:
            return Pass(seat)
        base = estimate(st, seat)
        best_colour, best_gain = None, 0.0
        b = st.board
        # only a publication or an expedition repays a seal: colours of its animals' continents
        useful = {b.colour_of_continent[st.cards[cid].continent] for cid in s.animals if not st.cards[cid].sepultus}
        for colour, k in st.central.items():
            if k <= 0 or colour not in useful:
                continue
            pre = st.copy()
            apply(pre, SealAction(seat, colour))
            after_seal = estimate(pre, seat) - base  # the seal spent
            total = 0.0
            for value in range(1, 7):
                rolled = pre.copy()
                apply(rolled, RollDie(seat, value))
                saved = self._plan
                _, v = self._best_option(rolled, seat)
                self._plan = saved
                total += v
            gain = after_seal + total / 6
            if gain > best_gain:
                best_colour, best_gain = colour, gain
        if best_colour is None:
            return Pass(seat)
        return SealAction(seat, best_colour)


def _copy_profile(p: Profile) -> Profile:
    q = Profile.__new__(Profile)
    q.vp, q.coins, q.tokens, q.seals, q.rep, q.R = p.vp, p.coins, p.tokens, p.seals, p.rep, p.R
    q.pub_cubes = p.pub_cubes
    q.pend = dict(p.pend)
    q.published = p.published
    q.sepultus = p.sepultus
    q.unpub = dict(p.unpub)
    q.free_spaces = p.free_spaces
    q.experts = dict(p.experts)
    q.n_experts = p.n_experts
    q.active = p.active
    return q


GreedyPlayer = ReferencePlayer  # the name the first version had

__all__ = ["ReferencePlayer", "GreedyPlayer", "estimate", "turns_left", "Profile", "score_profile", "GIFT_VALUE"]
