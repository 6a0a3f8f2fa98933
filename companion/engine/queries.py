"""Legal-option queries for the UI and the automa (read-only: they never change the state).

- ``dice_on_boards(state)``: every die a seat may take, with the slot effect its owner gets.
- ``die_options(state, seat, die=None)``: what a die can do for a seat, each option a complete
  legal action with the cheapest spend that makes it legal.
- ``cheapest_recolour``, ``max_expedition_value``, ``publishable_types``,
  ``preview_publication``, ``research_options``: the numbers behind those options.
- automa helpers: ``automa_row``, ``automa_expedition_continent``, ``automa_card_choice``.
- ``score_inputs(state)`` / ``final_scores(state)``: the finished game to ``companion.scoring``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.actions import (
    Academy, Action, Bank, Embassy, Expedition, Publish, Spend, University, NO_SPEND,
)
from companion.content.vocab import TYPE_OF_CATEGORY
from companion.engine.automa_rows import behaviour_row
from companion.engine.effects import EXPERT
from companion.engine.flow import apply
from companion.engine.rules import _bonus_completes, _rep_bonus_kinds, _researchable, place_gains, rep_walk_gains
from companion.engine.state import Card, State, pending_of

# --------------------------------------------------------------------------- dice


@dataclass(frozen=True, slots=True)
class DieSpot:
    owner: int
    slot: int
    index: int
    colour: str
    value: int
    effect: dict  # what the owner gains if another seat takes it ({} = nothing)


#: the publication types as the board prints them (the English ``term.pub_type.*``)
PUB_TYPE = ("Continent", "Type I", "Type II", "Type III", "Type IV")


def dice_on_boards(st: State) -> list[DieSpot]:
    out = []
    for si, s in enumerate(st.seats):
        for sl, dice in enumerate(s.slots):
            for i, (c, v) in enumerate(dice):
                out.append(DieSpot(si, sl, i, c, v, dict(st.board.slot_effects[sl])))
    return out


# --------------------------------------------------------------------------- spends


def cheapest_recolour(st: State, seat: int, die: tuple[str, int], colour: str) -> Spend | None:
    """The cheapest spend that makes ``die`` count as ``colour`` (token first, else a seal);
    None when the seat can pay neither."""
    if die[0] == colour:
        return NO_SPEND
    s = st.seats[seat]
    if s.tokens >= 1:
        return Spend(colour=colour)
    if s.seals >= 1:
        return Spend(seals=1, colour=colour, colour_by="seal")
    return None


def _value(st: State, seat: int, die: tuple[str, int], sp: Spend, expedition: bool = False) -> int:
    b = st.board
    s = st.seats[seat]
    colour = sp.colour or die[0]
    v = die[1] + s.fx.die_bonus.get(colour, 0) + sp.coins * b.coin_value + sp.seals * b.seal_value
    if expedition:
        v += sp.tokens * b.token_expedition_bonus
    return v


def _boost(st: State, seat: int, sp: Spend, need: int, tokens_ok: bool,
           extra: tuple[int, int, int] = (0, 0, 0)) -> Spend | None:
    """``sp`` plus the cheapest extra spend adding at least ``need`` value (coins, then tokens
    for expeditions, then seals); None when the seat cannot. ``extra``: (coins, tokens, seals)
    the action itself gives before its value is raised (an expedition's space reputation)."""
    if need <= 0:
        return sp
    s = st.seats[seat]
    b = st.board
    coins_free = s.coins + extra[0] - sp.coins
    tokens_free = s.tokens + extra[1] - sp.tokens - (1 if sp.colour and sp.colour_by != "seal" else 0)
    seals_free = s.seals + extra[2] - sp.seals - sp.seals_for_coins
    c = min(coins_free, need)
    need -= c * b.coin_value
    t = 0
    if need > 0 and tokens_ok and tokens_free > 0:
        t = min(tokens_free, -(-need // b.token_expedition_bonus))
        need -= t * b.token_expedition_bonus
    k = 0
    if need > 0 and seals_free > 0:
        k = min(seals_free, -(-need // b.seal_value))
        need -= k * b.seal_value
    if need > 0:
        return None
    return Spend(sp.coins + c, sp.tokens + t, sp.seals + k, sp.seals_for_coins, sp.colour, sp.colour_by)


def max_expedition_value(st: State, seat: int, continent: str, die: tuple[str, int] | None = None) -> int | None:
    """The highest value an expedition to ``continent`` can reach with ``die`` (default: the die
    in hand) spending everything; None when the die cannot go there (colour, full continent)."""
    die = die or st.hand
    b = st.board
    used = st.expedition[continent]
    if used >= len(b.expedition_spaces):
        return None
    s = st.seats[seat]
    need = b.colour_of_continent[continent]
    # what the space's reputation gives before the value is raised (the colour is paid before)
    wc, wt, ws = rep_walk_gains(b, s.rep, b.expedition_spaces[used][0])
    coins, tokens, seals = s.coins + wc, s.tokens + wt, s.seals + ws
    if die[0] == need:
        options = [Spend(coins, tokens, seals)]
    else:
        # recolour with a seal (its +5 is counted anyway when every seal is spent, and the token
        # stays for +2) or with a token; the best of those the seat can pay
        options = []
        if s.seals >= 1:
            options.append(Spend(coins, tokens, seals, 0, need, "seal"))
        if s.tokens >= 1:
            options.append(Spend(coins, tokens - 1, seals, 0, need, "token"))
        if not options:
            return None
    extra = b.expedition_spaces[used][1] + s.fx.exp_bonus.get(continent, 0)
    return max(_value(st, seat, die, sp, True) for sp in options) + extra


def publishable_types(st: State, seat: int, reference: int, die: tuple[str, int] | None = None) -> dict[int, Spend]:
    """Types 0..4 a publication with ``reference`` can start at with this die, each with the
    cheapest spend whose value reaches exactly that type (it must start at the highest type
    its value reaches: the types below the die's own are not offered)."""
    die = die or st.hand
    b = st.board
    card = st.cards[reference]
    if card.sepultus:
        return {}
    sp = cheapest_recolour(st, seat, die, b.colour_of_continent[card.continent])
    if sp is None:
        return {}
    out = {}
    base = _value(st, seat, die, sp)
    extra = place_gains(st, st.seats[seat], "publication")  # Gao Zhelan's coins raise this die
    for threshold, typ in b.publish_max_type_table:
        boosted = _boost(st, seat, sp, threshold - base, False, extra)
        # a publication starts at the highest type its value reaches (issue 39, item 3): a
        # type is offered only with a spend whose value starts exactly there
        if boosted is not None and b.publish_max_type(_value(st, seat, die, boosted)) == typ:
            out[typ] = boosted
    return out


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class Option:
    kind: str  # embassy | bank | university | academy | expedition | publish
    action: Action  # complete and legal (an Expedition is followed by its Research)
    target: Any = None  # expert name / card id / continent / reference card id
    value: int = 0  # die value with the spend (expedition: its total value)
    gain: str = ""  # short description of what it gives
    covers: str | None = None  # University with every expert slot taken: the expert this choice covers


def die_options(st: State, seat: int, die: tuple[str, int] | None = None) -> list[Option]:
    """Every action the die (default: the die in hand) can do for a human ``seat``, with the
    cheapest spend. Targets that need a spend the seat cannot pay are left out."""
    die = die or st.hand
    if die is None:
        return []
    b = st.board
    s = st.seats[seat]
    out: list[Option] = []
    v0 = _value(st, seat, die, NO_SPEND)
    out.append(Option("embassy", Embassy(seat), None, v0, f"+{b.embassy_tokens(v0)} expedition token(s)"))
    out.append(Option("bank", Bank(seat), None, v0, f"+{b.bank_coins} coins" + ("" if st.bank_claimed else ", first player")))
    full = s.kind == "human" and all(x is not None for x in s.face_up)
    for name in st.expert_display:
        if name is None:
            continue
        match = b.colour_of_continent[EXPERT[name].continent] == die[0]
        text = name + (" +1 expedition token" if match else "")
        if full:
            # every slot is taken: the new expert covers one of them, the player's choice
            for slot, old in enumerate(s.face_up):
                out.append(Option("university", University(seat, name, slot), name, v0,
                                  f"{text}, covers {old} (slot {slot})", old))
            # or under one of them: the four stay active, the new one has no effect (issue 39)
            out.append(Option("university", University(seat, name, under=True), name, v0,
                              f"{text}, placed under (no effect)"))
        else:
            out.append(Option("university", University(seat, name), name, v0,
                              f"{text}, in slot {s.face_up.index(None)}" if s.kind == "human" else text))
        if s.kind == "human" and EXPERT[name].duration == "oneshot":
            out.append(Option("university", University(seat, name, use_now=True), name, v0,
                              f"{text}, used at once ({_gain_text(EXPERT[name].effect.gain)})"))
    for cid in st.animal_display:
        if cid is None:
            continue
        c = st.cards[cid]
        if c.sepultus:
            need = c.die - v0
            if need < 0:
                continue
            sp = _boost(st, seat, NO_SPEND, need, False, place_gains(st, s, "academy"))
            if sp is None or _value(st, seat, die, sp) != c.die:
                continue
        else:
            sp = cheapest_recolour(st, seat, die, b.colour_of_continent[c.continent])
            if sp is None:
                continue
        v = _value(st, seat, die, sp)
        out.append(Option("academy", Academy(seat, cid, sp), cid, v, f"{c.label()}, +{b.academy_reputation(v)} reputation"))
    cost = b.research_cost
    for cont in b.continents:
        used = st.expedition[cont]
        if used >= len(b.expedition_spaces):
            continue
        sp = cheapest_recolour(st, seat, die, b.colour_of_continent[cont])
        if sp is None:
            continue
        rep, bonus = b.expedition_spaces[used]
        extra = bonus + s.fx.exp_bonus.get(cont, 0)
        v = _value(st, seat, die, sp, True) + extra
        researchable = _researchable(st, s, cont, v)
        # the space's reputation reaches a card bonus that completes the expedition (an animal
        # to research, an expert raising it: FAQ, Quentin), as apply accepts
        track_animal = not researchable and _bonus_completes(st, s, cont, b.colour_of_continent[cont], v,
                                                             _rep_bonus_kinds(b, s.rep, rep))
        if not researchable and not track_animal:
            # the cheapest cube within reach
            need = None
            for cid in s.animals:
                c = st.cards[cid]
                have = s.cubes.get(cid, ())
                if c.sepultus:
                    costs = [c.cost] if not have else []
                elif c.continent == cont:
                    cats = c.categories or ()
                    costs = [cost[t] for t, cat in enumerate(cats, 1) if cat not in have] if cats else [min(cost.values())]
                else:
                    costs = []
                for x in costs:
                    if need is None or x < need:
                        need = x
            kinds = _rep_bonus_kinds(b, s.rep, rep)
            gains = rep_walk_gains(b, s.rep, rep)
            sp2 = None
            if need is not None:
                sp2 = _boost(st, seat, sp, need - v, True, gains)
            if sp2 is None and kinds & {"animal", "expert"}:
                # the lowest value at which a card bonus completes it (issue 39)
                for target in range(v + 1, v + max(cost.values()) + 1):
                    x = _boost(st, seat, sp, target - v, True, gains)
                    if x is None:
                        break
                    vx = _value(st, seat, die, x, True) + extra
                    if _bonus_completes(st, s, cont, b.colour_of_continent[cont], vx, kinds):
                        sp2 = x
                        track_animal = True
                        break
            if sp2 is None:
                continue
            sp = sp2
            v = _value(st, seat, die, sp, True) + extra
        out.append(Option("expedition", Expedition(seat, cont, sp), cont, v, f"value {v}, +{rep} reputation"
                          + (" (reaches a card on the reputation track that completes it)" if track_animal else "")))
    for cid in s.animals:
        c = st.cards[cid]
        if c.sepultus:
            continue
        types = publishable_types(st, seat, cid, die)
        if not types:
            continue
        top = max(types)
        sp = types[min(types)]  # cheapest: lowest type
        # publish as high as the free spend allows
        best = max(t for t, x in types.items() if x == sp)
        v = _value(st, seat, die, sp)
        out.append(Option("publish", Publish(seat, cid, sp), cid, v, f"{c.label()} up to {PUB_TYPE[best]} ({PUB_TYPE[top]} reachable)"))
    return out


def research_options(st: State, seat: int) -> list[tuple[int, str, int]]:
    """During a pending research: every single cube placeable, as (card, category, cost)."""
    p = pending_of(st)
    if p.kind != "research" or p.seat != seat:
        return []
    return _research_options(st, st.seats[seat], p.value, p.continent)


def _research_options(st: State, s, value: int, continent: str) -> list[tuple[int, str, int]]:
    cost = st.board.research_cost
    cards = st.cards
    out = []
    for cid in s.animals:
        c = cards[cid]
        have = s.cubes.get(cid, ())
        if c.sepultus:
            if not have and c.cost <= value:
                out.extend((cid, cat, c.cost) for cat in c.categories)
        elif c.continent == continent and c.categories is not None:
            for t, cat in enumerate(c.categories, 1):
                if cat not in have and cost[t] <= value:
                    out.append((cid, cat, cost[t]))
    return out


_GAIN_WORDS = {"coins": "coin", "reputation": "reputation", "vp": "VP", "tokens": "expedition token",
               "seals": "royal seal", "expert": "expert card", "animal": "animal card"}


def _gain_text(g) -> str:
    """'+5 coins', '+3 reputation' ... for a gain (an expert's ``Gain`` or a dict)."""
    items = g.items() if isinstance(g, dict) else ((k, getattr(g, k)) for k in ("coins", "reputation", "vp"))
    parts = []
    for k, v in items:
        if v:
            word = _GAIN_WORDS.get(k, k)
            plural = "s" if v != 1 and word not in ("reputation", "VP") else ""
            parts.append(f"+{v} {word}{plural}")
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class PublicationPreview:
    vp: int  # every VP the action scores: the publication (vp_by_type) + experts/track (gains["vp"])
    vp_by_type: dict  # type -> VP of the publication itself (0 = kept cards)
    cubes_by_category: dict  # category -> cubes published
    kept: tuple[int, ...]
    discarded: tuple[int, ...]
    cubes_lost: int
    seals: int  # royal seals the publication gives
    # what placing the die on the Publication space also gives, from the face-up experts:
    # ((expert, {"coins": 3}), ...); and everything gained besides the publication itself, as
    # totals: coins, reputation (spaces moved), and the track bonuses reached on the way
    # (tokens, coins, seals, expert / animal cards to choose next), vp
    expert_gains: tuple = ()
    gains: dict = field(default_factory=dict)

    @property
    def publication_vp(self) -> int:
        return sum(self.vp_by_type.values())


def preview_publication(st: State, action: Publish) -> PublicationPreview:
    """What ``action`` would score and give, before it is confirmed (raises the same
    ``RuleError`` as ``apply`` when it is illegal), including the gains of the experts the die
    placement triggers and the reputation-track bonuses they reach. The state is not changed."""
    trial = st.copy()
    s0 = st.seats[action.seat]
    apply(trial, action)
    s1 = trial.seats[action.seat]
    b = st.board
    cubes = {k: v - s0.pub_cubes.get(k, 0) for k, v in s1.pub_cubes.items() if v != s0.pub_cubes.get(k, 0)}
    by_type: dict[int, int] = {}
    for cat, k in cubes.items():
        t = TYPE_OF_CATEGORY[cat]
        by_type[t] = by_type.get(t, 0) + k * b.publication_vp[t]
    kept = tuple(s1.published[len(s0.published):])
    by_type[0] = len(kept) * b.publication_vp[0]
    discarded = tuple(trial.discarded_animals[len(st.discarded_animals):])
    # experts triggered by placing the die on the Publication space (face up before the action)
    expert_gains = []
    gains = {"coins": 0, "reputation": 0, "vp": 0}
    for name in s0.face_up:
        if name is None:
            continue
        e = EXPERT[name]
        tr = e.effect.trigger
        if e.duration == "permanent" and tr.on == "place_die" and tr.location == "publication":
            g = {k: getattr(e.effect.gain, k) for k in ("coins", "reputation", "vp") if getattr(e.effect.gain, k)}
            expert_gains.append((name, g))
            for k, v in g.items():
                gains[k] += v
    # the totals, read from the trial (reputation-track bonuses included, wrap-around too)
    sp = action.spend
    recolour_token = 1 if sp.colour is not None and sp.colour != st.hand[0] and sp.colour_by != "seal" else 0
    gains["coins"] = s1.coins - s0.coins + sp.coins - sp.seals_for_coins * b.seal_coins
    gains["tokens"] = s1.tokens - s0.tokens + sp.tokens + recolour_token
    gains["seals"] = s1.seals - s0.seals + sp.seals + sp.seals_for_coins - b.publish_seals
    pub_vp = sum(by_type.values())
    gains["vp"] = s1.vp - s0.vp - pub_vp
    for kind in ("expert", "animal"):
        task = ("choose_" + kind, action.seat, "reputation")
        gains[kind] = trial.tasks.count(task) - st.tasks.count(task)
    gains = {k: v for k, v in gains.items() if v}
    return PublicationPreview(
        vp=pub_vp + gains.get("vp", 0), vp_by_type=dict(sorted(by_type.items())), cubes_by_category=cubes,
        kept=kept, discarded=discarded, cubes_lost=s1.cubes_lost - s0.cubes_lost, seals=b.publish_seals,
        expert_gains=tuple(expert_gains), gains=gains)


# --------------------------------------------------------------------------- automa helpers


def automa_row(st: State, seat: int, value: int | None = None):
    """The Behavior-card row the automa at ``seat`` applies for a die of ``value`` (default: in hand)."""
    if value is None:
        value = st.hand[1]
    return behaviour_row(st.seats[seat].behaviour, value)


def automa_expedition_continent(st: State, seat: int) -> str | None:
    """The continent where the automa holds the most animal cards (ties and zero: its priority
    order; a full continent is skipped); None when every continent is full."""
    s = st.seats[seat]
    b = st.board
    counts = {c: 0 for c in b.continents}
    for cid in s.animals:
        c = st.cards[cid]
        if not c.sepultus:
            counts[c.continent] += 1
    best = None
    for cont in s.priority:
        if st.expedition[cont] >= len(b.expedition_spaces):
            continue
        if best is None or counts[cont] > counts[best]:
            best = cont
    return best


def automa_card_choice(st: State, seat: int, kind: str):
    """The card an automa takes from the display: the highest-priority continent present, then
    reading order; Sepultus cards are invisible to it. None = the display is empty for it
    (the top of the deck is taken)."""
    s = st.seats[seat]
    if kind == "animal":
        cards = [(cid, st.cards[cid].continent) for cid in st.animal_display
                 if cid is not None and not st.cards[cid].sepultus]
    else:
        cards = [(n, EXPERT[n].continent) for n in st.expert_display if n is not None]
    for cont in s.priority:
        for x, c in cards:
            if c == cont:
                return x
    return None


# --------------------------------------------------------------------------- scoring


def score_inputs(st: State) -> list:
    """One ``HumanScoreInput``/``AutomaScoreInput`` per seat (meant for a finished game; during
    a game it scores what has been published so far)."""
    from companion.scoring import AutomaScoreInput, HumanScoreInput

    out = []
    for s in st.seats:
        if s.kind == "automa":
            animals: dict[str, int] = {}
            for cid in s.animals + s.published:
                c = st.cards[cid]
                if not c.sepultus:
                    animals[c.continent] = animals.get(c.continent, 0) + 1
            out.append(AutomaScoreInput(s.name, s.scoring, s.vp, animals, [EXPERT[e] for e in s.experts],
                                        s.coins, s.tokens, s.seals))
        else:
            published: dict[str, int] = {}
            sep = 0
            for cid in s.published:
                c = st.cards[cid]
                if c.sepultus:
                    sep += 1
                else:
                    published[c.continent] = published.get(c.continent, 0) + 1
            up = set(x for x in s.face_up if x is not None)
            out.append(HumanScoreInput(s.name, s.vp, dict(s.pub_cubes), published, sep,
                                       [(EXPERT[e], e in up) for e in s.experts],
                                       s.seals, s.coins, s.tokens, s.rep))
    return out


def final_scores(st: State):
    """(breakdowns in seat order, ranking) for the game."""
    from companion.scoring import final_ranking, score_automa, score_human, AutomaScoreInput

    breakdowns = []
    for inp in score_inputs(st):
        if isinstance(inp, AutomaScoreInput):
            breakdowns.append(score_automa(inp, st.board))
        else:
            breakdowns.append(score_human(inp, st.board))
    return breakdowns, final_ranking(breakdowns)


__all__ = [
    "DieSpot", "dice_on_boards", "cheapest_recolour", "max_expedition_value", "publishable_types",
    "Option", "die_options", "research_options", "PublicationPreview", "preview_publication",
    "automa_row", "automa_expedition_continent", "automa_card_choice", "score_inputs", "final_scores",
    "Card",
]
