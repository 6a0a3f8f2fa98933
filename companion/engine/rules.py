"""The rules' shared pieces, below the action handlers: the checks and refusals
(``_expect``, names in messages), the reputation track walks, deck counts, die values and
spends, placing a die, experts taken, cards entered and ``_researchable``.

Nothing here is an action handler or the door: those are in ``handlers_setup``,
``handlers_turn`` and ``flow``, which import from here (never the other way).
"""

from __future__ import annotations

from companion.actions import Academy, Bank, Embassy, Expedition, Publish, Spend, University
from companion.content.board import Board
from companion.content.experts import expert_by_name
from companion.content.vocab import CATEGORIES, CATEGORIES_BY_TYPE, TYPE_OF_CATEGORY, close_matches
from companion.engine.effects import EXPERT, refresh_effects
from companion.engine.state import Card, Pending, Seat, State, pending_of, research_value
from companion.errors import (
    BadActionError, ChanceError, ExpertSlotError, NotEnoughError, NotYourTurnError,
)
from companion.messages import Msg


HUMAN_ACTIONS = (Embassy, Bank, University, Academy, Expedition, Publish)


# --------------------------------------------------------------------------- helpers


def _expect(st: State, kind: str, seat: int | None, what: str) -> tuple:
    """The top task when it is ``kind`` (of ``seat``); else ``NotYourTurnError`` (``what``: the
    message key of what was tried, e.g. ``"what.take_die"``)."""
    t = st.tasks[-1]
    if t[0] != kind or (seat is not None and t[1] != seat):
        p = pending_of(st)
        if p.kind == kind:
            raise NotYourTurnError("turn.not_yours", seat=_seat_name(st, p.seat), verb=Msg(_VERB[kind]), n=p.seat,
                                   other=_seat_name(st, seat), other_n=seat)
        raise NotYourTurnError("turn.not_now", what=Msg(what), pending=_describe_pending(st, p))
    return t


#: the task a seat was expected to answer -> what that seat does (message keys)
_VERB = {"take_die": "verb.take_die", "action": "verb.action", "research": "verb.research",
         "choose_animal": "verb.choose_animal", "choose_expert": "verb.choose_expert", "roll_dice": "verb.roll_dice",
         "place_dice": "verb.place_dice", "roll_die": "verb.roll_die"}


def _seat_name(st: State, i: int | None) -> str | Msg:
    return st.seats[i].name if i is not None and 0 <= i < len(st.seats) else Msg("seat.number", n=i)


def card_label(c: Card) -> str | Msg:
    """The card as the table knows it: its name, or 'Asia animal #3' / 'Sepultus Creatura #3'
    (``Card.label()`` as a message, so the app can word it in the player's language), counted
    from 1 like the screens."""
    if c.name:
        return c.name
    if c.sepultus:
        return Msg("card.sepultus", n=c.id + 1)
    return Msg("card.unnamed", continent=c.continent, n=c.id + 1)


def _card_name(st: State, cid: int) -> str | Msg:
    """'Panda (card #3)', 'Asia animal #3' or 'card #99': the card as the table knows it."""
    if not 0 <= cid < len(st.cards):
        return Msg("card.number", n=cid)
    c = st.cards[cid]
    label = card_label(c)
    return label if isinstance(label, Msg) else Msg("card.named_number", card=label, n=cid)


_PENDING = {
    "start_game": "pending.start_game",
    "reveal_expert": "pending.reveal_expert",
    "reveal_animal": "pending.reveal_animal",
    "reveal_round_token": "pending.reveal_round_token",
    "choose_animal": "pending.choose_animal",
    "choose_expert": "pending.choose_expert",
    "roll_dice": "pending.roll_dice",
    "place_dice": "pending.place_dice",
    "take_die": "pending.take_die",
    "action": "pending.action",
    "research": "pending.research",
    "seal_action": "pending.seal_action",
    "roll_die": "pending.roll_die",
    "game_over": "pending.game_over",
}
_PENDING_DECK = {"choose_animal": "pending.choose_animal_deck", "choose_expert": "pending.choose_expert_deck"}


def _describe_pending(st: State, p: Pending) -> Msg:
    who = (Msg("who.seat", name=st.seats[p.seat].name, n=p.seat) if p.seat is not None and p.seat < len(st.seats)
           else Msg("who.table"))
    key = _PENDING_DECK[p.kind] if p.from_deck and p.kind in _PENDING_DECK else _PENDING[p.kind]
    return Msg(key, who=who, count=p.count, value=p.value)


def _seat_ok(st: State, seat: int) -> Seat:
    if not 0 <= seat < len(st.seats):
        raise BadActionError("seat.no_such", n=seat, last=len(st.seats) - 1)
    return st.seats[seat]


def _immediate(st: State, si: int) -> bool:
    return st.turn_seat is None or st.turn_seat == si


def track_walk(board: Board, pos: int, n: int) -> tuple[int, list]:
    """Move ``n`` spaces along the reputation track from ``pos`` (wrapping to 0 past the end):
    ``(final position, [(space, bonus), ...])`` for every bonus space reached or passed."""
    length = board.reputation_track_length
    bonuses = board.reputation_bonuses
    hits = []
    for _ in range(n):
        pos += 1
        if pos >= length:
            pos = 0
        b = bonuses.get(pos)
        if b:
            hits.append((pos, b))
    return pos, hits


def _gain_rep(st: State, si: int, n: int, after: list) -> None:
    if n <= 0:
        return
    s = st.seats[si]
    end, hits = track_walk(st.board, s.rep, n)
    for pos, b in hits:
        s.rep = pos
        _bonus(st, si, b, after)
    s.rep = end


def _bonus(st: State, si: int, b, after: list) -> None:
    s = st.seats[si]
    for k, v in b.items():
        if k == "tokens":
            s.tokens += v
        elif k == "coins":
            s.coins += v
        elif k == "seals":
            s.seals += v
        elif k == "vp":
            s.vp += v
        elif k == "reputation":
            _gain_rep(st, si, v, after)
        elif k in ("expert", "animal"):
            for _ in range(v):
                if _immediate(st, si):
                    after.append(("choose_" + k, si, "reputation"))
                else:
                    st.deferred.append((si, k))


def _rep_bonus_kinds(board: Board, pos: int, n: int) -> set[str]:
    """The bonus kinds reached moving ``n`` spaces from ``pos``."""
    out: set[str] = set()
    length = board.reputation_track_length
    for _ in range(n):
        pos = (pos + 1) % length
        b = board.reputation_bonuses.get(pos)
        if b:
            out.update(b)
    return out


def rep_walk_gains(board: Board, pos: int, n: int) -> tuple[int, int, int]:
    """(coins, tokens, seals) the reputation-track bonuses give moving ``n`` spaces from ``pos``
    (as ``_gain_rep`` walks the track)."""
    coins = tokens = seals = 0
    for at, b in track_walk(board, pos, n)[1]:
        coins += b.get("coins", 0)
        tokens += b.get("tokens", 0)
        seals += b.get("seals", 0)
        r = b.get("reputation", 0)
        if r:
            c2, t2, s2 = rep_walk_gains(board, at, r)
            coins, tokens, seals = coins + c2, tokens + t2, seals + s2
    return coins, tokens, seals


def place_gains(st: State, s: Seat, location: str) -> tuple[int, int, int]:
    """(coins, tokens, seals) a seat gains when its die is placed at ``location``: its face-up
    experts' placement gains (Gao Zhelan's 3 coins at the Publication, Cathrin Holzhausen's 2
    at the Academy...) and the track bonuses their reputation reaches. They arrive when the die
    is placed, so they may raise that same die (Eric's example: place, then raise; issue 39)."""
    g = s.fx.place.get(location)
    if not g:
        return 0, 0, 0
    if not g[1]:
        return g[0], 0, 0
    c, t, se = rep_walk_gains(st.board, s.rep, g[1])
    return g[0] + c, t, se


def _push(st: State, after: list) -> None:
    if after:
        st.tasks.extend(reversed(after))


def animal_deck_left(st: State, non_sepultus_only: bool = False) -> int:
    b = st.board
    total_animals = b.animals_per_continent * len(b.continents)
    seen_sep = st.card_counts().get(None, 0)
    left_animals = total_animals - (len(st.cards) - seen_sep)
    if non_sepultus_only:
        return left_animals
    return left_animals + ((b.sepultus_cards - seen_sep) if st.sepultus else 0)


def expert_deck_left(st: State) -> int:
    return len(EXPERT) - len(st.experts_seen)


def _die_value(board: Board, s: Seat, colour: str, value: int, sp: Spend, expedition: bool) -> int:
    v = value + s.fx.die_bonus.get(colour, 0) + sp.coins * board.coin_value + sp.seals * board.seal_value
    if expedition:
        v += sp.tokens * board.token_expedition_bonus
    return v


def _resolve_spend(st: State, s: Seat, sp: Spend, expedition: bool, check: bool, what: str,
                   extra: tuple[int, int, int] = (0, 0, 0)) -> tuple[str, int, int]:
    """(colour the die counts as, its value with the spends, expedition tokens it costs).

    ``extra`` = (coins, tokens, seals) the seat gains during the action before it raises the
    value (an expedition's own space reputation); the colour change is paid from what is held
    before (the die must have the continent's colour to be placed)."""
    colour, value = st.hand
    board = st.board
    tokens = sp.tokens
    if sp.colour is not None and sp.colour != colour:
        if check and sp.colour not in board.colours:
            raise BadActionError("spend.unknown_colour", got=sp.colour, colours=board.colours)
        if sp.colour_by == "seal":
            if check and sp.seals < 1:
                raise BadActionError("spend.seal_colour_needs_seal")
        else:
            if check and sp.colour_by not in (None, "token"):
                raise BadActionError("spend.bad_colour_by", got=sp.colour_by)
            tokens += 1
        colour = sp.colour
    elif check and sp.colour_by is not None:
        raise BadActionError("spend.already_colour", colour=colour)
    if check:
        if sp.tokens and not expedition:
            raise BadActionError("spend.tokens_not_expedition", what=Msg(what))
        x_coins, x_tokens, x_seals = extra
        if tokens - sp.tokens > s.tokens:
            raise NotEnoughError("spend.colour_token_short", seat=s.name, have=s.tokens)
        if tokens > s.tokens + x_tokens:
            raise NotEnoughError("spend.tokens_short", need=tokens, seat=s.name, have=s.tokens, extra=_from_rep(x_tokens))
        seals = sp.seals + sp.seals_for_coins
        if seals > s.seals + x_seals or (sp.colour_by == "seal" and s.seals < 1):
            raise NotEnoughError("spend.seals_short", need=seals, seat=s.name, have=s.seals, extra=_from_rep(x_seals))
        have = s.coins + sp.seals_for_coins * board.seal_coins
        if sp.coins > have + x_coins:
            raise NotEnoughError("spend.coins_short", need=sp.coins, seat=s.name, have=have, extra=_from_rep(x_coins))
    return colour, _die_value(board, s, colour, value, sp, expedition), tokens


def _from_rep(n: int) -> Msg | str:
    return Msg("spend.from_reputation", n=n) if n else ""


def _pay(st: State, s: Seat, sp: Spend, tokens: int) -> None:
    s.coins += sp.seals_for_coins * st.board.seal_coins - sp.coins
    s.tokens -= tokens
    s.seals -= sp.seals + sp.seals_for_coins


def _place_die(st: State) -> None:
    st.central[st.hand[0]] += 1
    st.hand = None


def _commit_placement(st: State, si: int, s: Seat, spend, tokens: int, location: str) -> list:
    """After every check of an action at ``location``: close the action task, put the die on
    the central board, apply the face-up experts' gains for placing it there, then pay the
    spends (those gains may pay them: ``place_gains``). Returns the list of follow-ups (card
    choices) to push once the action is done."""
    st.tasks.pop()
    _place_die(st)
    after: list = []
    _place_gains(st, si, s, location, after)
    _pay(st, s, spend, tokens)
    return after


def _place_gains(st: State, si: int, s: Seat, location: str, after: list) -> None:
    g = s.fx.place.get(location)
    if g:
        s.coins += g[0]
        s.vp += g[2]
        if g[1]:
            _gain_rep(st, si, g[1], after)


def _expert_name(name: str) -> str:
    if name in EXPERT:
        return name
    try:
        e = expert_by_name(name)
    except KeyError:
        raise BadActionError("expert.unknown", got=name, hint=did_you_mean_msg(str(name), EXPERT)) from None
    raise BadActionError("expert.spelling", name=e.name, got=name)


def did_you_mean_msg(word: str, choices) -> Msg | str:
    """`` (did you mean 'x'?)`` as a message (``companion.content.vocab.did_you_mean``), or ``""``."""
    names = close_matches(word, choices)
    if not names:
        return ""
    if len(names) == 1:
        return Msg("hint.did_you_mean", name=names[0])
    return Msg("hint.did_you_mean_several", names=[repr(x) for x in names[:-1]], last=names[-1])


def _expert_slot(s: Seat, name: str, slot: int | None, use_now: bool, check: bool,
                 under: bool = False) -> int | None:
    """Where a human puts a new expert (None = used at once / under another / automa).
    Validates when ``check``."""
    if s.kind == "automa":
        if check and (slot is not None or use_now or under):
            raise ExpertSlotError("expert.automa_no_slots")
        return None
    if under:
        # EN University: "If you have no more empty slots you can cover an existing Expert card
        # or place it under an existing Expert card" (issue 39, item 1)
        if check:
            if use_now:
                raise ExpertSlotError("expert.under_or_use_now")
            if slot is not None:
                raise ExpertSlotError("expert.under_no_slot", slot=slot)
            if None in s.face_up:
                raise ExpertSlotError("expert.under_with_free_slot", name=name, free=s.face_up.index(None))
        return None
    if use_now:
        if check:
            if EXPERT[name].duration != "oneshot":
                raise ExpertSlotError("expert.use_now_not_oneshot", name=name)
            if slot is not None:
                raise ExpertSlotError("expert.use_now_no_slot")
        return None
    fu = s.face_up
    free = -1
    for i, x in enumerate(fu):
        if x is None:
            free = i
            break
    if slot is None:
        if free < 0:
            raise ExpertSlotError("expert.slots_full", n=len(fu), name=name, last=len(fu) - 1)
        return free
    if check:
        if not 0 <= slot < len(fu):
            raise ExpertSlotError("expert.bad_slot", last=len(fu) - 1, got=slot)
        if fu[slot] is not None and free >= 0:
            raise ExpertSlotError("expert.cover_with_free_slot", slot=slot, held=fu[slot], free=free)
    return slot


def _add_expert(st: State, si: int, name: str, slot: int | None, use_now: bool, after: list,
                under: bool = False) -> None:
    s = st.seats[si]
    s.experts.append(name)
    if s.kind == "automa" or under:
        return  # under an existing expert: owned (collections), covered (no effect)
    if use_now:
        s.used.append(name)
        _oneshot(st, si, name, after)
        return
    s.face_up[slot] = name
    refresh_effects(s)


def _oneshot(st: State, si: int, name: str, after: list) -> None:
    g = EXPERT[name].effect.gain
    s = st.seats[si]
    s.coins += g.coins
    if g.reputation:
        _gain_rep(st, si, g.reputation, after)


def _check_card_info(st: State, a, check: bool) -> None:
    if not check:
        return
    b = st.board
    if not isinstance(a.name, str):
        raise BadActionError("card.name_not_text")
    if a.sepultus:
        if not st.sepultus:
            raise ChanceError("sepultus.not_in_game")
        if a.continent is not None:
            raise BadActionError("sepultus.no_continent")
        if st.card_counts().get(None, 0) >= b.sepultus_cards:
            raise ChanceError("sepultus.all_revealed", n=b.sepultus_cards)
        if a.die is None or not 1 <= a.die <= 6:
            raise BadActionError("sepultus.die")
        if a.cost is None or a.cost < 1:
            raise BadActionError("sepultus.cost")
        cats = a.categories
        if not cats:
            raise BadActionError("sepultus.categories")
        for c in cats:
            if c not in TYPE_OF_CATEGORY:
                raise BadActionError("category.unknown", got=c, categories=CATEGORIES)
        if len(set(cats)) != len(cats):
            raise BadActionError("category.twice")
        return
    if a.die is not None or a.cost is not None:
        raise BadActionError("card.die_cost_only_sepultus")
    if a.continent not in b.continents:
        raise BadActionError("card.continent_needed", continent_ids=b.continents, got=a.continent)
    if st.card_counts().get(a.continent, 0) >= b.animals_per_continent:
        raise ChanceError("card.continent_all_revealed", n=b.animals_per_continent, continent=a.continent)
    if a.categories is not None:
        _check_categories(a.categories)


_ALLOWED_BY_POSITION = tuple(frozenset(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4))


def _check_categories(cats) -> None:
    if len(cats) == 4:
        a0, a1, a2, a3 = _ALLOWED_BY_POSITION
        if cats[0] in a0 and cats[1] in a1 and cats[2] in a2 and cats[3] in a3:
            return
    if len(cats) != 4:
        raise BadActionError("category.four")
    for i, c in enumerate(cats):
        allowed = CATEGORIES_BY_TYPE[i + 1]
        if c not in allowed:
            raise BadActionError("category.wrong_type", i=i + 1, type=i + 1, categories=allowed, got=c)


def _new_card(st: State, a) -> Card:
    c = Card(len(st.cards), None if a.sepultus else a.continent, a.name,
             tuple(a.categories) if a.categories is not None else None, a.sepultus, a.die, a.cost)
    st.cards.append(c)
    return c


def _category_type(card: Card, category: str) -> int | None:
    """The type of ``category`` on ``card`` (None if the card does not carry that category)."""
    cats = card.categories
    if cats is None or category not in cats:
        return None
    return TYPE_OF_CATEGORY[category]


def _researchable(st: State, s: Seat, continent: str, value: int) -> bool:
    if s.kind == "human" and _cubes_available(st, s) <= 0:
        return False  # no cube to place (issue 39, item 5)
    cost = st.board.research_cost
    cheapest = min(cost.values())
    for cid in s.animals:
        c = st.cards[cid]
        have = s.cubes.get(cid)
        if c.sepultus:
            if not have and c.cost <= value:
                return True
        elif c.continent == continent and (not have or len(have) < 4):
            if c.categories is None:
                if cheapest <= value:
                    return True
                continue
            for t, cat in enumerate(c.categories, 1):
                if cost[t] <= value and (not have or cat not in have):
                    return True
    return False


# --------------------------------------------------------------------------- completing an expedition


def _expert_value_bonus(name: str, continent: str, colour: str) -> int:
    """What expert ``name``, face up, adds to an expedition to ``continent`` with a ``colour`` die."""
    e = EXPERT[name]
    if e.duration != "permanent":
        return 0
    tr = e.effect.trigger
    if tr.on == "expedition_value" and tr.continent == continent:
        return e.effect.gain.value
    if tr.on == "die_value" and tr.colour == colour:
        return e.effect.gain.value
    return 0


def _bonus_completes(st: State, s: Seat, continent: str, colour: str, value: int, kinds) -> bool:
    """An expedition whose research ``value`` places no cube now: can the card bonuses ``kinds``
    reached during it ("expert", "animal") complete it? FAQ: "if a bonus granted by that Action
    would allow you to complete it, then you may do so" (Quentin's example; issue 39, items 2
    and 7). An expert from the display adding to this continent or die colour raises the value;
    an animal of this continent (or a Sepultus card it can pay) from the display gives a card to
    research. With an empty display the card is the deck's top (chance): it counts when the
    deck can still hold a card that helps."""
    if "expert" in kinds:
        shown = [n for n in st.expert_display if n is not None]
        pool = shown if shown else [n for n in EXPERT if n not in st.experts_seen]
        value += max((_expert_value_bonus(n, continent, colour) for n in pool), default=0)
        if _researchable(st, s, continent, value):
            return True
    if "animal" in kinds and _cubes_available(st, s) > 0:
        cheapest = min(st.board.research_cost.values())
        shown = [cid for cid in st.animal_display if cid is not None]
        if shown:
            for cid in shown:
                c = st.cards[cid]
                if c.sepultus:
                    if c.cost <= value:
                        return True
                elif c.continent == continent and cheapest <= value:
                    return True
        elif cheapest <= value and st.card_counts().get(continent, 0) < st.board.animals_per_continent:
            return True
    return False


def _research_below(st: State, si: int):
    """(the research task of ``si`` waiting under its own reputation card choices, the kinds of
    those choices) or None."""
    kinds = set()
    for t in reversed(st.tasks):
        if t[0] in ("choose_animal", "choose_expert") and t[1] == si and t[2] == "reputation":
            kinds.add(t[0][7:])
            continue
        if t[0] == "research" and t[1] == si:
            return t, kinds
        return None
    return None


def research_completable(st: State, si: int) -> bool:
    """False when ``si``'s expedition waiting under its card choices can no longer place a cube
    (nothing affordable now, and the choices left cannot change that)."""
    r = _research_below(st, si)
    if r is None:
        return True
    t, kinds = r
    s = st.seats[si]
    v = research_value(st, t)
    return _researchable(st, s, t[3], v) or _bonus_completes(st, s, t[3], t[4], v, kinds)


def cubes_left(st: State, s: Seat) -> int:
    """Research cubes left in the seat's supply (30 per colour, issue 39 item 5)."""
    return st.board.research_cubes_per_colour - s.cubes_in_play()


def cube_swaps(st: State, s: Seat) -> list[str]:
    """The categories whose Publication space holds 5 of the seat's cubes that a "5 cubes"
    token may replace (none when its tokens are all used)."""
    if sum(s.cube_tokens.values()) >= st.board.cube_tokens_per_colour:
        return []
    return [cat for cat, n in s.pub_cubes.items() if n - 5 * s.cube_tokens.get(cat, 0) >= 5]


def _cubes_available(st: State, s: Seat) -> int:
    """Cubes the seat can place: its supply, or 5 once it swaps cubes for a token."""
    left = cubes_left(st, s)
    if left <= 0 and cube_swaps(st, s):
        return 5
    return left
