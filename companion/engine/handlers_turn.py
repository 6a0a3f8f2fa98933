"""Action handlers, part 2: the turn (take a die, the six actions, research), the automa's
action and the end-of-round seal actions. Each handler validates everything first (when
``check``) and only then mutates, so a refused action leaves the state as it was.
"""

from __future__ import annotations

from companion.actions import (
    Academy, AutomaAction, Bank, Embassy, Expedition, Pass, Publish, Research, RollDie, SealAction,
    SwapCubes, TakeDie, University,
)
from companion.content.vocab import TYPE_OF_CATEGORY
from companion.engine.automa_rows import behaviour_row
from companion.engine.effects import EXPERT
from companion.engine.rules import (
    _add_expert, _bonus_completes, _card_name, _cubes_available, cube_swaps, cubes_left, _commit_placement, _expect, _expert_name, _expert_slot, _gain_rep, _pay,
    _place_die, _push, _rep_bonus_kinds, _researchable, _resolve_spend, card_label, place_gains, rep_walk_gains,
)
from companion.engine.state import Seat, State, research_value
from companion.errors import (
    BadActionError, CardUnavailableError, DieValueError, ExpeditionError, NoSuchDieError, NotEnoughError,
    NotYourTurnError,
    PublicationError, WrongColourError,
)
from companion.messages import Msg


# --------------------------------------------------------------------------- handlers: the turn


def _h_take_die(st: State, a: TakeDie, check: bool) -> None:
    if check:
        _expect(st, "take_die", a.seat, "what.take_die")
        if not 0 <= a.owner < len(st.seats):
            raise NoSuchDieError("take.no_seat", n=a.owner)
        if not 0 <= a.slot <= 3:
            raise NoSuchDieError("take.bad_slot", got=a.slot)
        dice = st.seats[a.owner].slots[a.slot]
        if not 0 <= a.index < len(dice):
            raise NoSuchDieError("take.no_die", slot=a.slot, seat=st.seats[a.owner].name,
                                 at=Msg("take.at_position", n=a.index) if dice else "")
    owner = st.seats[a.owner]
    die = owner.slots[a.slot].pop(a.index)
    st.hand = die
    st.tasks.pop()
    st.tasks.append(("end_turn", a.seat))
    st.tasks.append(("action", a.seat))
    if a.owner != a.seat:
        g = st.board.slot_effects[a.slot]
        if g:
            owner.coins += g.get("coins", 0)
            owner.vp += g.get("vp", 0)
            r = g.get("reputation", 0)
            if r:
                _gain_rep(st, a.owner, r, [])  # off-turn: card bonuses deferred (never immediate)


def _start_action(st: State, a, check: bool, what: str) -> Seat:
    if check:
        _expect(st, "action", a.seat, what)
        if st.seats[a.seat].kind == "automa":
            raise NotYourTurnError("turn.automa_seat", seat=st.seats[a.seat].name)
    return st.seats[a.seat]


def _h_embassy(st: State, a: Embassy, check: bool) -> None:
    s = _start_action(st, a, check, "what.embassy")
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.embassy",
                                           place_gains(st, s, "embassy") if check else (0, 0, 0))
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "embassy")
    s.tokens += st.board.embassy_tokens(value)
    _push(st, after)


def _h_bank(st: State, a: Bank, check: bool) -> None:
    s = _start_action(st, a, check, "what.bank")
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.bank",
                                           place_gains(st, s, "bank") if check else (0, 0, 0))
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "bank")
    s.coins += st.board.bank_coins
    if not st.bank_claimed:
        st.bank_claimed = True
        st.first_player = a.seat
    _push(st, after)


def _h_university(st: State, a: University, check: bool) -> None:
    s = _start_action(st, a, check, "what.university")
    if check:
        name = _expert_name(a.name)
        if name not in st.expert_display:
            if not any(x is not None for x in st.expert_display):
                raise CardUnavailableError("university.empty")
            raise CardUnavailableError("display.expert_missing", name=name)
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.university",
                                           place_gains(st, s, "university") if check else (0, 0, 0))
    slot = _expert_slot(s, a.name, a.slot, a.use_now, check, a.under)
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "university")
    d = st.expert_display
    d[d.index(a.name)] = None
    if st.board.colour_of_continent[EXPERT[a.name].continent] == colour:
        s.tokens += 1
    _add_expert(st, a.seat, a.name, slot, a.use_now, after, a.under)
    _push(st, after)


def _h_academy(st: State, a: Academy, check: bool) -> None:
    s = _start_action(st, a, check, "what.academy")
    if check:
        if a.card not in st.animal_display:
            if not any(x is not None for x in st.animal_display):
                raise CardUnavailableError("academy.empty")
            raise CardUnavailableError("display.animal_missing", card=_card_name(st, a.card))
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.academy",
                                           place_gains(st, s, "academy") if check else (0, 0, 0))
    card = st.cards[a.card]
    if check:
        if card.sepultus:
            if value != card.die:
                diff = card.die - value
                fix = (Msg("academy.fix_more", n=diff) if diff > 0
                       else Msg("academy.fix_fewer") if a.spend.coins or a.spend.seals else "")
                raise DieValueError("academy.sepultus_value", card=card_label(card), die=card.die, value=value, fix=fix)
        else:
            need = st.board.colour_of_continent[card.continent]
            if colour != need:
                raise WrongColourError("academy.colour", colour=need, card=card_label(card))
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "academy")
    d = st.animal_display
    d[d.index(a.card)] = None
    s.animals.append(a.card)
    _gain_rep(st, a.seat, st.board.academy_reputation(value), after)
    _push(st, after)


def _h_expedition(st: State, a: Expedition, check: bool) -> None:
    s = _start_action(st, a, check, "what.expedition")
    b = st.board
    cont = a.continent
    if check and cont not in b.continents:
        raise BadActionError("expedition.unknown_continent", got=cont, continent_ids=b.continents)
    used = st.expedition[cont]
    if check and used >= len(b.expedition_spaces):
        raise ExpeditionError("expedition.full", continent=cont)
    rep, bonus = b.expedition_spaces[used]
    # the space's reputation is gained when the die is placed, before the value is raised
    # (EN p.12): coins, tokens and seals from the track may pay this expedition's spends
    colour, value, tokens = _resolve_spend(st, s, a.spend, True, check, "what.expedition",
                                           rep_walk_gains(b, s.rep, rep) if check and rep else (0, 0, 0))
    if check:
        if used >= len(b.expedition_spaces):
            raise ExpeditionError("expedition.full", continent=cont)
        need = b.colour_of_continent[cont]
        if colour != need:
            raise WrongColourError("expedition.colour", continent=cont, colour=need)
    # the research value without the seat's expert effects, which are added when the cubes are
    # placed: an expert gained on this expedition's reputation (space 6) counts (EN p.12 order)
    base = value - s.fx.die_bonus.get(colour, 0) + bonus
    value += bonus + s.fx.exp_bonus.get(cont, 0)
    if check and _cubes_available(st, s) <= 0:
        raise NotEnoughError("research.no_cubes_left", seat=s.name, have=0, n=1, hint="")
    if check and not _researchable(st, s, cont, value):
        # FAQ (Quentin): a bonus this expedition reaches may complete it, an animal of this
        # continent or an expert raising this very expedition; none: refused (issue 39, 2 and 7)
        kinds = _rep_bonus_kinds(b, s.rep, rep)
        if not kinds & {"animal", "expert"}:
            raise ExpeditionError("expedition.nothing_to_research", continent=cont, value=value, seat=s.name)
        if not _bonus_completes(st, s, cont, colour, value, kinds):
            raise ExpeditionError("expedition.bonus_cannot_complete", continent=cont, value=value, seat=s.name)
    st.tasks.pop()
    _place_die(st)
    st.expedition[cont] = used + 1
    s.vp += s.fx.exp_vp.get(cont, 0)
    after: list = []
    _gain_rep(st, a.seat, rep, after)
    _pay(st, s, a.spend, tokens)
    after.append(("research", a.seat, base, cont, colour))
    _push(st, after)


def _h_research(st: State, a: Research, check: bool) -> None:
    b = st.board
    t = st.tasks[-1]
    if check:
        t = _expect(st, "research", a.seat, "what.research")
    si, cont = t[1], t[3]
    value = research_value(st, t)
    s = st.seats[si]
    plan = []
    total = 0
    seen: set = set()
    for cid, cat in a.cubes:
        if check:
            if cid not in s.animals:
                raise CardUnavailableError("card.not_under_study", n=cid, seat=s.name)
        c = st.cards[cid]
        if c.sepultus:
            if check:
                if cat not in c.categories:
                    raise ExpeditionError("research.sepultus_category", card=card_label(c), categories=c.categories, got=cat)
                if s.cubes.get(cid) or cid in seen:
                    raise ExpeditionError("research.sepultus_one_cube", card=card_label(c))
            typ = TYPE_OF_CATEGORY[cat]
            cost, vp = c.cost, 0
        else:
            if check:
                if c.continent != cont:
                    raise ExpeditionError("research.other_continent", card=card_label(c), continent=c.continent, continent2=cont)
                if c.categories is None:
                    raise ExpeditionError("research.categories_first", card=card_label(c))
                if cat not in c.categories:
                    raise ExpeditionError("research.no_such_category", card=card_label(c), got=cat, categories=c.categories)
                if cat in s.cubes.get(cid, ()) or (cid, cat) in seen:
                    raise ExpeditionError("research.cube_already", card=card_label(c), category=cat)
            typ = TYPE_OF_CATEGORY[cat]
            cost, vp = b.research_cost[typ], b.research_vp[typ]
        seen.add((cid, cat))
        if c.sepultus:
            seen.add(cid)
        total += cost
        plan.append((cid, cat, typ, vp))
    if check:
        if total > value:
            raise ExpeditionError("research.over_budget", total=total, value=value)
        left = cubes_left(st, s)
        if len(plan) > left:
            raise NotEnoughError("research.no_cubes_left", seat=s.name, have=left, n=len(plan),
                                 hint=Msg("research.swap_hint") if cube_swaps(st, s) else "")
        if not plan and _researchable(st, s, cont, value):
            raise ExpeditionError("research.place_one", value=value, continent=cont)
    st.tasks.pop()
    cube_coins = s.fx.cube_coins
    for cid, cat, typ, vp in plan:
        s.cubes.setdefault(cid, []).append(cat)
        s.vp += vp
        s.coins += cube_coins.get(typ, 0)
        s.cubes_placed += 1


def _h_swap_cubes(st: State, a: SwapCubes, check: bool) -> None:
    """EN "5 CUBES" TOKENS: "you can always free some up by replacing 5 of your cubes on a
    Publication space with a '5 cubes' token" (FR: when a space holds 5 or more)."""
    if check:
        if not 0 <= a.seat < len(st.seats):
            raise BadActionError("seat.no_such", n=a.seat, last=len(st.seats) - 1)
        s = st.seats[a.seat]
        if s.kind != "human":
            raise NotYourTurnError("cubes.swap_automa", seat=s.name)
        if a.category not in TYPE_OF_CATEGORY:
            raise BadActionError("category.unknown", got=a.category, categories=tuple(TYPE_OF_CATEGORY))
        used = sum(s.cube_tokens.values())
        if used >= st.board.cube_tokens_per_colour:
            raise NotEnoughError("cubes.no_token_left", seat=s.name, n=used)
        have = s.pub_cubes.get(a.category, 0) - 5 * s.cube_tokens.get(a.category, 0)
        if have < 5:
            raise NotEnoughError("cubes.swap_needs_five", seat=s.name, have=have, category=a.category)
    s = st.seats[a.seat]
    s.cube_tokens[a.category] = s.cube_tokens.get(a.category, 0) + 1


def _h_publish(st: State, a: Publish, check: bool) -> None:
    s = _start_action(st, a, check, "what.publication")
    b = st.board
    if check and a.reference not in s.animals:
        raise CardUnavailableError("card.not_under_study", n=a.reference, seat=s.name)
    ref = st.cards[a.reference]
    if check and ref.sepultus:
        raise PublicationError("publish.sepultus_reference")
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.publication",
                                           place_gains(st, s, "publication") if check else (0, 0, 0))
    top = b.publish_max_type(value)
    if check:
        need = b.colour_of_continent[ref.continent]
        if colour != need:
            raise WrongColourError("publish.colour", card=card_label(ref), colour=need)
        if top is None:
            low = b.publish_max_type_table[0][0]
            raise DieValueError("publish.die_too_low", low=low, value=value, n=low - value)
        if a.up_to is not None:
            if not 0 <= a.up_to <= 4:
                raise BadActionError("publish.bad_up_to", got=a.up_to)
            if a.up_to > top:
                nxt = next(th for th, ty in b.publish_max_type_table if ty == a.up_to)
                raise DieValueError("publish.up_to_too_low", type=a.up_to, need=nxt, value=value, n=nxt - value)
            if a.up_to < top:
                # EN/FR p.15: "Starting with the Category of the highest Type you can publish,
                # you must take the corresponding Research cube" (issue 39, item 3)
                raise PublicationError("publish.must_start_highest", top=top, got=a.up_to)
    if a.up_to is not None:
        top = a.up_to  # a log written before issue 39 replays (unchecked) as it was played
    ref_cubes = s.cubes.get(a.reference, ())
    # categories published: the reference's, for types 1..top where it carries a cube
    pub_cats = {}
    if ref.categories is not None:
        for t_, cat in enumerate(ref.categories, 1):
            if t_ <= top and cat in ref_cubes:
                pub_cats[cat] = t_
    counts = {cat: 1 for cat in pub_cats}
    givers: list[int] = []
    seen = set()
    for cid, cat in a.extra:
        if check:
            if cid == a.reference:
                raise PublicationError("publish.reference_in_extra")
            if cid not in s.animals:
                raise CardUnavailableError("card.not_under_study", n=cid, seat=s.name)
            if (cid, cat) in seen:
                raise PublicationError("publish.cube_twice", category=cat, n=cid)
            if cat not in pub_cats:
                if ref.categories is not None and cat in ref.categories:
                    t_ = ref.categories.index(cat) + 1
                    if t_ > top:
                        raise PublicationError("publish.type_too_high", category=cat, type=t_, top=top)
                    raise PublicationError("publish.reference_has_no_cube", card=card_label(ref), category=cat)
                raise PublicationError("publish.not_reference_category", category=cat, card=card_label(ref))
            if cat not in s.cubes.get(cid, ()):
                raise PublicationError("publish.no_cube", card=card_label(st.cards[cid]), category=cat)
        seen.add((cid, cat))
        counts[cat] += 1
        if cid not in givers:
            givers.append(cid)
    refc = ref.continent
    if check:
        ks = set()
        for cid in a.keep:
            if cid == a.reference or cid in givers or cid in ks:
                raise PublicationError("publish.already_part", n=cid)
            if cid not in s.animals:
                raise CardUnavailableError("card.not_under_study", n=cid, seat=s.name)
            c = st.cards[cid]
            if not c.sepultus and c.continent != refc:
                raise PublicationError("publish.keep_continent", card=card_label(c), continent=c.continent, continent2=refc)
            ks.add(cid)
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "publication")
    vp = 0
    for cat, k in counts.items():
        vp += k * b.publication_vp[pub_cats[cat]]
        s.pub_cubes[cat] = s.pub_cubes.get(cat, 0) + k
    kept = [a.reference]
    discarded = []
    cards = st.cards
    for cid in givers:
        c = cards[cid]
        (kept if (c.sepultus or c.continent == refc) else discarded).append(cid)
    kept.extend(a.keep)
    vp += len(kept) * b.publication_vp[0]
    s.vp += vp
    published_cubes = sum(counts.values())
    on_cards = 0
    for cid in kept + discarded:
        on_cards += len(s.cubes.pop(cid, ()))
        s.animals.remove(cid)
    s.cubes_lost += on_cards - published_cubes
    s.published.extend(kept)
    st.discarded_animals.extend(discarded)
    s.seals += b.publish_seals
    _push(st, after)


# --------------------------------------------------------------------------- automa


def _h_automa(st: State, a: AutomaAction, check: bool) -> None:
    b = st.board
    if check:
        _expect(st, "action", a.seat, "what.automa_action")
        if st.seats[a.seat].kind != "automa":
            raise NotYourTurnError("turn.human_seat", seat=st.seats[a.seat].name)
    s = st.seats[a.seat]
    row = behaviour_row(s.behaviour, st.hand[1])
    kind = row["kind"]
    if check:
        if kind == "expedition":
            if a.continent is None:
                if any(st.expedition[c] < len(b.expedition_spaces) for c in b.continents):
                    raise ExpeditionError("automa.give_continent")
            elif a.continent not in b.continents:
                raise BadActionError("expedition.unknown_continent", got=a.continent, continent_ids=b.continents)
            elif st.expedition[a.continent] >= len(b.expedition_spaces):
                raise ExpeditionError("automa.continent_full", continent=a.continent)
        elif a.continent is not None:
            raise BadActionError("automa.continent_not_expedition", row=kind)
    st.tasks.pop()
    _place_die(st)
    after: list = []
    if kind == "academy":
        after.append(("choose_animal", a.seat, "academy"))
        _gain_rep(st, a.seat, row["reputation"], after)
    elif kind == "university":
        after.append(("choose_expert", a.seat, "university"))
        s.tokens += row.get("tokens", 0)
        s.seals += row.get("seals", 0)
        _gain_rep(st, a.seat, row.get("reputation", 0), after)
    elif kind == "embassy":
        s.tokens += row["tokens"]
    elif kind == "bank":
        s.coins += row["coins"]
        if not st.bank_claimed:
            st.bank_claimed = True
            st.first_player = a.seat
        s.tokens += row.get("tokens", 0)
        s.seals += row.get("seals", 0)
    elif kind == "expedition":
        if a.continent is not None:
            used = st.expedition[a.continent]
            st.expedition[a.continent] = used + 1
            _gain_rep(st, a.seat, b.expedition_spaces[used][0], after)
        s.vp += s.tokens * row["vp_per_token"]
        s.tokens = 0
    _push(st, after)


# --------------------------------------------------------------------------- end of round


def _h_seal_action(st: State, a: SealAction, check: bool) -> None:
    if check:
        _expect(st, "seal_offer", a.seat, "what.seal_action")
        if a.colour not in st.central:
            raise BadActionError("dice.unknown_colour", got=a.colour, colours=st.board.colours)
        if st.central[a.colour] < 1:
            have = [c for c, k in st.central.items() if k]
            raise NoSuchDieError("seal.no_die", colour=a.colour, colours=have)
    s = st.seats[a.seat]
    st.tasks.pop()
    s.seals -= 1
    st.central[a.colour] -= 1
    st.turn_seat = a.seat
    st.tasks.append(("end_seal", a.seat))
    st.tasks.append(("action", a.seat))
    st.tasks.append(("roll_die", a.seat, a.colour))


def _h_roll_die(st: State, a: RollDie, check: bool) -> None:
    if check:
        _expect(st, "roll_die", a.seat, "what.roll_die")
        if not 1 <= a.value <= 6:
            raise BadActionError("dice.bad_value", got=a.value)
    t = st.tasks.pop()
    st.hand = (t[2], a.value)


def _h_pass(st: State, a: Pass, check: bool) -> None:
    if check:
        _expect(st, "seal_offer", a.seat, "what.pass")
    st.tasks.pop()
