"""The rules: ``apply`` (checked), ``apply_unchecked`` (trusted replay), ``replay``, ``pending``.

Each action handler validates everything first (when ``check``) and only then mutates, so a
rejected action leaves the state exactly as it was. What comes next is kept as a small stack
of tasks in ``state.tasks``; automatic steps (round start, end of turn, end of round...) run
in ``_advance`` after every action, so the top task is always one that needs an input.
``pending_of(state)`` describes it for the UI and the automa. Interpretations: docs/engine.md.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from companion.actions import (
    Academy, Action, AutomaAction, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy,
    Expedition, Pass, PlaceDice, Publish, Research, RevealAnimal, RevealExpert, RevealRoundToken,
    RollDice, RollDie, SealAction, SetCategories, Spend, StartGame, TakeDie, University, UseExpert,
    checker_for,
)
from companion.content.board import Board
from companion.content.experts import EXPERTS, expert_by_name
from companion.content.vocab import CATEGORIES, CATEGORIES_BY_TYPE, TYPE_OF_CATEGORY, close_matches
from companion.engine_board import board_from_values
from companion.engine_automa import BEHAVIOURS, SCORING_IDS, automa_slot_order, behaviour_row
from companion.errors import (
    BadActionError, CardUnavailableError, ChanceError, DieValueError, ExpeditionError,
    ExpertSlotError, GameOverError, NoSuchDieError, NotEnoughError, NotYourTurnError,
    PublicationError, RuleError, SetupError, WrongColourError,
)
from companion.messages import Msg
from companion.state import Card, Seat, State

EXPERT = {e.name: e for e in EXPERTS}
HUMAN_ACTIONS = (Embassy, Bank, University, Academy, Expedition, Publish)

# --------------------------------------------------------------------------- expert effects


class Fx:
    """Aggregated permanent effects of a seat's face-up experts (the one interpreter)."""

    __slots__ = ("place", "exp_vp", "cube_coins", "die_bonus", "exp_bonus")

    def __init__(self) -> None:
        self.place: dict[str, tuple[int, int, int]] = {}  # location -> (coins, reputation, vp)
        self.exp_vp: dict[str, int] = {}  # continent -> vp when placing an expedition die there
        self.cube_coins: dict[int, int] = {}  # type -> coins per cube placed
        self.die_bonus: dict[str, int] = {}  # colour -> +value
        self.exp_bonus: dict[str, int] = {}  # continent -> +expedition value


NO_FX = Fx()


_FX_CACHE: dict[tuple, Fx] = {}  # face-up experts (slot order) -> their aggregate (Fx is never changed once built)


def refresh_effects(seat: Seat) -> None:
    """Recompute ``seat.fx`` from its face-up experts (automas never apply expert effects)."""
    if seat.kind != "human":
        seat.fx = NO_FX
        return
    key = tuple(seat.face_up)
    fx = _FX_CACHE.get(key)
    if fx is None:
        if len(_FX_CACHE) >= 4096:
            _FX_CACHE.clear()
        fx = _FX_CACHE[key] = _build_fx([x for x in key if x is not None])
    seat.fx = fx


def _build_fx(names: list[str]) -> Fx:
    if not names:
        return NO_FX
    fx = Fx()
    for name in names:
        e = EXPERT[name]
        if e.duration != "permanent":
            continue
        tr, g = e.effect.trigger, e.effect.gain
        if tr.on == "place_die":
            if tr.location == "expedition":
                fx.exp_vp[tr.continent] = fx.exp_vp.get(tr.continent, 0) + g.vp
            else:
                c, r, v = fx.place.get(tr.location, (0, 0, 0))
                fx.place[tr.location] = (c + g.coins, r + g.reputation, v + g.vp)
        elif tr.on == "place_cube":
            fx.cube_coins[tr.type] = fx.cube_coins.get(tr.type, 0) + g.coins
        elif tr.on == "die_value":
            fx.die_bonus[tr.colour] = fx.die_bonus.get(tr.colour, 0) + g.value
        elif tr.on == "expedition_value":
            fx.exp_bonus[tr.continent] = fx.exp_bonus.get(tr.continent, 0) + g.value
    return fx


# --------------------------------------------------------------------------- pending


class Pending(NamedTuple):
    """What the game waits for.

    ``kind``: start_game | reveal_expert | reveal_animal | choose_animal | choose_expert |
    reveal_round_token | roll_dice | place_dice | take_die | action | research | seal_action |
    roll_die | game_over. ``seat``: who must act (None for table/chance inputs that belong to
    nobody). ``accepts``: the action type names accepted now (``set_categories`` is accepted at
    any time and not listed). ``reason`` (choices: start, round, reputation, academy,
    university), ``count`` (dice to roll), ``value``/``continent`` (research budget),
    ``from_deck`` (the display is empty: the card comes from the deck), ``die`` (the die in
    hand for ``action``)."""

    kind: str
    seat: int | None = None
    accepts: tuple[str, ...] = ()
    reason: str | None = None
    count: int | None = None
    value: int | None = None
    continent: str | None = None
    from_deck: bool = False
    die: tuple[str, int] | None = None

    def describe(self) -> str:
        who = f"seat {self.seat}" if self.seat is not None else "the table"
        return f"{self.kind} ({who})"


_HUMAN_ACTION_NAMES = ("embassy", "bank", "university", "academy", "expedition", "publish")


_tuple_new = tuple.__new__
_GAME_OVER = Pending("game_over")
_CONST_PENDING = {
    "start": Pending("start_game", accepts=("start_game",)),
    "reveal_expert": Pending("reveal_expert", accepts=("reveal_expert",)),
    "reveal_animal": Pending("reveal_animal", accepts=("reveal_animal",)),
    "round_token": Pending("reveal_round_token", accepts=("reveal_round_token",)),
}
_HUMAN_ACTION_ACCEPTS = _HUMAN_ACTION_NAMES + ("use_expert",)


def _p_choose_animal(st: State, t: tuple) -> Pending:
    deck = not _animal_display_has(st, t[1])
    return _tuple_new(Pending, ("choose_animal", t[1], ("draw_animal",) if deck else ("choose_animal",), t[2],
                                None, None, None, deck, None))


def _p_choose_expert(st: State, t: tuple) -> Pending:
    deck = st.expert_display.count(None) == len(st.expert_display)
    return _tuple_new(Pending, ("choose_expert", t[1], ("choose_expert",), t[2], None, None, None, deck, None))


def _p_take_die(st: State, t: tuple) -> Pending:
    acc = ("take_die", "use_expert") if st.seats[t[1]].kind == "human" else ("take_die",)
    return _tuple_new(Pending, ("take_die", t[1], acc, None, None, None, None, False, None))


def _p_action(st: State, t: tuple) -> Pending:
    acc = _HUMAN_ACTION_ACCEPTS if st.seats[t[1]].kind == "human" else ("automa_action",)
    return _tuple_new(Pending, ("action", t[1], acc, None, None, None, None, False, st.hand))


_PENDING_OF = {
    "choose_animal": _p_choose_animal,
    "choose_expert": _p_choose_expert,
    "take_die": _p_take_die,
    "action": _p_action,
    "roll_dice": lambda st, t: _tuple_new(Pending, ("roll_dice", t[1], ("roll_dice",), None, st.dice_this_round,
                                                    None, None, False, None)),
    "place_dice": lambda st, t: _tuple_new(Pending, ("place_dice", t[1], ("place_dice",), None,
                                                     len(st.seats[t[1]].rolled), None, None, False, None)),
    "research": lambda st, t: _tuple_new(Pending, ("research", t[1], ("research", "use_expert"), None, None,
                                                   research_value(st, t), t[3], False, None)),
    "seal_offer": lambda st, t: _tuple_new(Pending, ("seal_action", t[1], ("seal_action", "pass"), None, None,
                                                     None, None, False, None)),
    "roll_die": lambda st, t: _tuple_new(Pending, ("roll_die", t[1], ("roll_die",), None, None, None, None, False,
                                                   None)),
}


def pending_of(st: State) -> Pending:
    """What ``st`` waits for (see ``Pending``)."""
    tasks = st.tasks
    if not tasks:
        return _GAME_OVER
    t = tasks[-1]
    k = t[0]
    fn = _PENDING_OF.get(k)
    if fn is not None:
        return fn(st, t)
    p = _CONST_PENDING.get(k)
    if p is None:  # pragma: no cover - every waiting task is listed
        raise AssertionError(f"task {t!r} needs no input")
    return p


# --------------------------------------------------------------------------- public API


def new_game(board: Board | None = None) -> State:
    """An empty state waiting for ``StartGame``."""
    return State(board)


def apply(st: State, action: Action) -> State:
    """Apply ``action`` after checking every rule; on a ``RuleError`` the state is untouched."""
    door = _DOOR.get(type(action))
    if door is None:
        raise BadActionError("action.not_an_action", got=action)
    if not st.tasks:
        raise GameOverError("turn.game_over")
    door[1](action)  # field types (BadActionError naming the field)
    door[0](st, action, True)
    st.n_actions += 1
    _advance(st)
    return st


def apply_unchecked(st: State, action: Action) -> State:
    """Apply a trusted action (replay of a log that was checked when it was written)."""
    _HANDLERS[type(action)](st, action, False)
    st.n_actions += 1
    _advance(st)
    return st


def replay(actions: Iterable[Action], board: Board | None = None, checked: bool = False) -> State:
    """The state after ``actions`` from a new game (unchecked unless ``checked``)."""
    st = State(board)
    step = apply if checked else apply_unchecked
    for a in actions:
        step(st, a)
    return st


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
    (``Card.label()`` as a message, so the app can word it in the player's language)."""
    if c.name:
        return c.name
    if c.sepultus:
        return Msg("card.sepultus", n=c.id)
    return Msg("card.unnamed", continent=c.continent, n=c.id)


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


def _push(st: State, after: list) -> None:
    if after:
        st.tasks.extend(reversed(after))


def _animal_display_has(st: State, si: int) -> bool:
    if st.seats[si].kind == "automa":
        cards = st.cards
        return any(c is not None and not cards[c].sepultus for c in st.animal_display)
    d = st.animal_display
    return d.count(None) != len(d)


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
    """After every check of an action at ``location``: close the action task, pay the spends,
    put the die on the central board and apply the face-up experts' gains for placing it
    there. Returns the list of follow-ups (card choices) to push once the action is done."""
    st.tasks.pop()
    _pay(st, s, spend, tokens)
    _place_die(st)
    after: list = []
    _place_gains(st, si, s, location, after)
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


def _expert_slot(s: Seat, name: str, slot: int | None, use_now: bool, check: bool) -> int | None:
    """Where a human puts a new expert (None = used at once / automa). Validates when ``check``."""
    if s.kind == "automa":
        if check and (slot is not None or use_now):
            raise ExpertSlotError("expert.automa_no_slots")
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


def _add_expert(st: State, si: int, name: str, slot: int | None, use_now: bool, after: list) -> None:
    s = st.seats[si]
    s.experts.append(name)
    if s.kind == "automa":
        return
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
            raise BadActionError("category.wrong_type", i=i + 1, type="I II III IV".split()[i], categories=allowed, got=c)


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


# --------------------------------------------------------------------------- handlers: set-up & chance


def _h_start(st: State, a: StartGame, check: bool) -> None:
    if check:
        _expect(st, "start", None, "what.start_game")
    b = st.board if a.board is None else board_from_values(a.board)  # SetupError when invalid
    if check:
        n = len(a.seats)
        if not b.min_seats <= n <= b.max_seats:
            raise SetupError("setup.seats", min=b.min_seats, max=b.max_seats, got=n)
        autos = sum(1 for x in a.seats if x.kind == "automa")
        if autos > b.max_automas:
            raise SetupError("setup.automas", max=b.max_automas, got=autos)
        names = set()
        for i, x in enumerate(a.seats):
            if not x.name.strip():
                raise SetupError("setup.no_name", n=i)
            if x.name in names:
                raise SetupError("setup.same_name", name=x.name)
            names.add(x.name)
            if x.kind == "human":
                if x.behaviour or x.scoring or x.priority:
                    raise SetupError("setup.human_cards", name=x.name)
            elif x.kind == "automa":
                if x.behaviour not in BEHAVIOURS:
                    raise SetupError("setup.behaviour", name=x.name, choices=tuple(BEHAVIOURS))
                if x.scoring not in SCORING_IDS:
                    raise SetupError("setup.scoring", name=x.name, choices=tuple(SCORING_IDS))
                if x.priority is None or sorted(x.priority) != sorted(b.continents):
                    raise SetupError("setup.priority", name=x.name)
            else:
                raise SetupError("setup.kind", n=i, got=x.kind)
        if not 0 <= a.first_player < n:
            raise SetupError("setup.first_player", last=n - 1)
    n = len(a.seats)
    if b is not st.board:
        st.set_board(b)
    st.seats = [Seat(x.name, x.kind, x.behaviour, x.scoring, tuple(x.priority) if x.priority else None) for x in a.seats]
    for i, s in enumerate(st.seats):
        pos = (i - a.first_player) % n
        s.coins = b.starting_coins[pos]
        s.tokens = b.starting_tokens
        refresh_effects(s)
    st.sepultus = a.sepultus
    st.first_player = a.first_player
    st.expert_display = [None] * b.expert_display_size
    st.animal_display = [None] * b.animal_display_size[n]
    st.tasks.pop()
    todo: list[tuple] = [("refill_experts",), ("refill_animals",)]
    for pos in range(n - 1, -1, -1):
        seat = (a.first_player + pos) % n
        todo.extend([("choose_animal", seat, "start")] * b.starting_animals)
    todo.extend([("refill_animals",), ("round_start",)])
    _push(st, todo)


def _h_reveal_expert(st: State, a: RevealExpert, check: bool) -> None:
    if check:
        _expect(st, "reveal_expert", None, "what.reveal_expert")
        name = _expert_name(a.name)
        if name in st.experts_seen:
            raise ChanceError("chance.expert_seen", name=name)
    st.tasks.pop()
    d = st.expert_display
    d[d.index(None)] = a.name
    st.experts_seen.append(a.name)


def _h_reveal_animal(st: State, a: RevealAnimal, check: bool) -> None:
    if check:
        _expect(st, "reveal_animal", None, "what.reveal_animal")
        _check_card_info(st, a, True)
    st.tasks.pop()
    c = _new_card(st, a)
    d = st.animal_display
    d[d.index(None)] = c.id


def _h_set_categories(st: State, a: SetCategories, check: bool) -> None:
    if check:
        if not 0 <= a.card < len(st.cards):
            raise CardUnavailableError("card.no_such", n=a.card)
        c = st.cards[a.card]
        if c.sepultus:
            raise BadActionError("sepultus.categories_at_reveal")
        if c.categories is not None:
            raise BadActionError("card.has_categories", card=card_label(c), categories=c.categories)
        _check_categories(a.categories)
    c = st.cards[a.card]
    st.cards[a.card] = Card(c.id, c.continent, c.name, tuple(a.categories), False, None, None)


def _h_round_token(st: State, a: RevealRoundToken, check: bool) -> None:
    b = st.board
    if check:
        _expect(st, "round_token", None, "what.round_token")
        if a.effect not in b.round_token_effects:
            raise BadActionError("token.unknown", got=a.effect, token_ids=b.round_token_effects)
        if st.round_tokens.count(a.effect) >= b.round_token_counts.get(a.effect, 0):
            raise ChanceError("token.used_up", token_id=a.effect)
    st.tasks.pop()
    st.round_tokens.append(a.effect)
    e = a.effect
    n = len(st.seats)
    if e == "token":
        for s in st.seats:
            s.tokens += b.round_token_tokens
    elif e == "coins":
        for s in st.seats:
            s.coins += b.round_token_coins
    elif e in ("expert", "animal"):
        todo = [("choose_" + e, (st.first_player + i) % n, "round") for i in range(n)]
        todo.append(("refill_experts",) if e == "expert" else ("refill_animals",))
        _push(st, todo)
    elif e == "extra_die":
        st.dice_this_round = b.dice_per_seat + b.extra_die


def _h_roll_dice(st: State, a: RollDice, check: bool) -> None:
    if check:
        _expect(st, "roll_dice", a.seat, "what.roll_dice")
        if len(a.dice) != st.dice_this_round:
            raise ChanceError("dice.count", seat=st.seats[a.seat].name, count=st.dice_this_round, got=len(a.dice))
        need: dict[str, int] = {}
        for colour, value in a.dice:
            if colour not in st.bag:
                raise BadActionError("dice.unknown_colour", got=colour, colours=st.board.colours)
            if not 1 <= value <= 6:
                raise BadActionError("dice.bad_value", got=value)
            need[colour] = need.get(colour, 0) + 1
        for colour, k in need.items():
            if k > st.bag[colour]:
                raise ChanceError("dice.bag_short", n=st.bag[colour], dice_colour=colour, got=k)
    st.tasks.pop()
    s = st.seats[a.seat]
    for colour, _ in a.dice:
        st.bag[colour] -= 1
    dice = [(c, v) for c, v in a.dice]
    if s.kind == "automa":
        for die, slot in zip(dice, automa_slot_order(dice, s.priority)):
            s.slots[slot].append(die)
    else:
        s.rolled = dice
        st.tasks.append(("place_dice", a.seat))


def _h_place_dice(st: State, a: PlaceDice, check: bool) -> None:
    s = st.seats[a.seat] if 0 <= a.seat < len(st.seats) else None
    if check:
        _expect(st, "place_dice", a.seat, "what.place_dice")
        n = len(s.rolled)
        if len(a.slots) != n:
            raise BadActionError("place.count", n=n, got=len(a.slots))
        counts = [0, 0, 0, 0]
        for x in a.slots:
            if not 0 <= x <= 3:
                raise BadActionError("place.bad_slot", got=x)
            counts[x] += 1
        extra = n - 4
        if extra <= 0:
            if max(counts) > 1:
                raise BadActionError("place.one_per_slot")
        elif min(counts) < 1 or max(counts) > 1 + extra:
            raise BadActionError("place.extra_die", n=n, k=extra + 1)
    st.tasks.pop()
    for die, x in zip(s.rolled, a.slots):
        s.slots[x].append(die)
    s.rolled = []


# --------------------------------------------------------------------------- handlers: cards


def _h_choose_animal(st: State, a: ChooseAnimal, check: bool) -> None:
    if check:
        _expect(st, "choose_animal", a.seat, "what.choose_animal")
        if not _animal_display_has(st, a.seat):
            raise CardUnavailableError("display.empty_draw")
        if a.card not in st.animal_display:
            raise CardUnavailableError("display.animal_missing", card=_card_name(st, a.card))
        if st.seats[a.seat].kind == "automa" and st.cards[a.card].sepultus:
            raise CardUnavailableError("automa.no_sepultus")
    st.tasks.pop()
    d = st.animal_display
    d[d.index(a.card)] = None
    st.seats[a.seat].animals.append(a.card)


def _h_draw_animal(st: State, a: DrawAnimal, check: bool) -> None:
    if check:
        _expect(st, "choose_animal", a.seat, "what.draw_animal")
        if _animal_display_has(st, a.seat):
            raise CardUnavailableError("display.not_empty")
        _check_card_info(st, a, True)
    s = st.seats[a.seat]
    c = _new_card(st, a)
    if c.sepultus and s.kind == "automa":
        st.set_aside.append(c.id)  # the automa ignores it and draws again (task stays)
        return
    st.tasks.pop()
    s.animals.append(c.id)


def _h_choose_expert(st: State, a: ChooseExpert, check: bool) -> None:
    s = st.seats[a.seat] if 0 <= a.seat < len(st.seats) else None
    from_display = any(x is not None for x in st.expert_display)
    if check:
        _expect(st, "choose_expert", a.seat, "what.choose_expert")
        name = _expert_name(a.name)
        if from_display:
            if name not in st.expert_display:
                raise CardUnavailableError("display.expert_missing", name=name)
        elif name in st.experts_seen:
            raise ChanceError("chance.expert_seen_deck", name=name)
    slot = _expert_slot(s, a.name, a.slot, a.use_now, check)
    st.tasks.pop()
    if from_display:
        d = st.expert_display
        d[d.index(a.name)] = None
    else:
        st.experts_seen.append(a.name)
    after: list = []
    _add_expert(st, a.seat, a.name, slot, a.use_now, after)
    _push(st, after)


def _h_use_expert(st: State, a: UseExpert, check: bool) -> None:
    if check:
        t = st.tasks[-1]
        if t[0] not in ("take_die", "action", "research") or t[1] != a.seat:
            raise NotYourTurnError("expert.own_turn")
        s = st.seats[a.seat]
        if s.kind == "automa":
            raise NotYourTurnError("expert.automa_never")
        name = _expert_name(a.name)
        if name not in s.face_up:
            raise ExpertSlotError("expert.not_face_up", name=name, seat=s.name)
        if EXPERT[name].duration != "oneshot":
            raise ExpertSlotError("expert.not_oneshot", name=name)
    s = st.seats[a.seat]
    s.face_up[s.face_up.index(a.name)] = None
    s.used.append(a.name)
    refresh_effects(s)
    after: list = []
    _oneshot(st, a.seat, a.name, after)
    _push(st, after)


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
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.embassy")
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "embassy")
    s.tokens += st.board.embassy_tokens(value)
    _push(st, after)


def _h_bank(st: State, a: Bank, check: bool) -> None:
    s = _start_action(st, a, check, "what.bank")
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.bank")
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
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.university")
    slot = _expert_slot(s, a.name, a.slot, a.use_now, check)
    after = _commit_placement(st, a.seat, s, a.spend, tokens, "university")
    d = st.expert_display
    d[d.index(a.name)] = None
    if st.board.colour_of_continent[EXPERT[a.name].continent] == colour:
        s.tokens += 1
    _add_expert(st, a.seat, a.name, slot, a.use_now, after)
    _push(st, after)


def _h_academy(st: State, a: Academy, check: bool) -> None:
    s = _start_action(st, a, check, "what.academy")
    if check:
        if a.card not in st.animal_display:
            if not any(x is not None for x in st.animal_display):
                raise CardUnavailableError("academy.empty")
            raise CardUnavailableError("display.animal_missing", card=_card_name(st, a.card))
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.academy")
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


def _researchable(st: State, s: Seat, continent: str, value: int) -> bool:
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
    if check and not _researchable(st, s, cont, value):
        if "animal" not in _rep_bonus_kinds(b, s.rep, rep):
            raise ExpeditionError("expedition.nothing_to_research", continent=cont, value=value, seat=s.name)
    st.tasks.pop()
    _place_die(st)
    st.expedition[cont] = used + 1
    s.vp += s.fx.exp_vp.get(cont, 0)
    after: list = []
    _gain_rep(st, a.seat, rep, after)
    _pay(st, s, a.spend, tokens)
    after.append(("research", a.seat, base, cont, colour))
    _push(st, after)


def research_value(st: State, t: tuple) -> int:
    """The value of the research task ``t``: its base + the seat's expert effects now."""
    fx = st.seats[t[1]].fx
    return t[2] + fx.die_bonus.get(t[4], 0) + fx.exp_bonus.get(t[3], 0)


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
        if not plan and _researchable(st, s, cont, value):
            raise ExpeditionError("research.place_one", value=value, continent=cont)
    st.tasks.pop()
    cube_coins = s.fx.cube_coins
    for cid, cat, typ, vp in plan:
        s.cubes.setdefault(cid, []).append(cat)
        s.vp += vp
        s.coins += cube_coins.get(typ, 0)
        s.cubes_placed += 1


def _h_publish(st: State, a: Publish, check: bool) -> None:
    s = _start_action(st, a, check, "what.publication")
    b = st.board
    if check and a.reference not in s.animals:
        raise CardUnavailableError("card.not_under_study", n=a.reference, seat=s.name)
    ref = st.cards[a.reference]
    if check and ref.sepultus:
        raise PublicationError("publish.sepultus_reference")
    colour, value, tokens = _resolve_spend(st, s, a.spend, False, check, "what.publication")
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
    if a.up_to is not None:
        top = a.up_to
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


# --------------------------------------------------------------------------- automatic steps


def _auto_refill_experts(st: State, t: tuple) -> None:
    k = min(st.expert_display.count(None), expert_deck_left(st))
    st.tasks.extend([("reveal_expert",)] * k)


def _auto_refill_animals(st: State, t: tuple) -> None:
    k = min(st.animal_display.count(None), animal_deck_left(st))
    st.tasks.extend([("reveal_animal",)] * k)


def _auto_round_start(st: State, t: tuple) -> None:
    st.round += 1
    st.bank_claimed = False
    for c in st.expedition:
        st.expedition[c] = 0
    st.dice_this_round = st.board.dice_per_seat
    st.tasks.extend((("dice",), ("round_token",), ("refill_animals",), ("refill_experts",)))


def _auto_dice(st: State, t: tuple) -> None:
    n = len(st.seats)
    st.tasks.append(("turns",))
    st.tasks.extend(("roll_dice", (st.first_player + i) % n) for i in range(n - 1, -1, -1))


def _auto_turns(st: State, t: tuple) -> None:
    st.turn_start = st.first_player
    st.turn_seat = st.first_player
    st.tasks.append(("take_die", st.first_player))


def _flush_deferred(st: State) -> None:
    if st.deferred:
        todo = [("choose_" + k, si, "reputation") for si, k in st.deferred]
        st.deferred = []
        _push(st, todo)


def _auto_end_turn(st: State, t: tuple) -> None:
    st.turn_seat = None
    st.tasks.append(("next_turn", t[1]))
    _flush_deferred(st)


def _dice_left(st: State) -> bool:
    for s in st.seats:
        for sl in s.slots:
            if sl:
                return True
    return False


def _auto_next_turn(st: State, t: tuple) -> None:
    if _dice_left(st):
        nxt = (t[1] + 1) % len(st.seats)
        st.turn_seat = nxt
        st.tasks.append(("take_die", nxt))
    else:
        st.tasks.append(("end_round",))


def _auto_end_round(st: State, t: tuple) -> None:
    n = len(st.seats)
    st.tasks.append(("round_cleanup",))
    st.tasks.extend(("seal_offer", (st.first_player + i) % n) for i in range(n - 1, -1, -1))


def _auto_end_seal(st: State, t: tuple) -> None:
    st.turn_seat = None
    _flush_deferred(st)


def _auto_round_cleanup(st: State, t: tuple) -> None:
    for i, x in enumerate(st.expert_display):
        if x is not None:
            st.discarded_experts.append(x)
            st.expert_display[i] = None
    for i, x in enumerate(st.animal_display):
        if x is not None:
            st.discarded_animals.append(x)
            st.animal_display[i] = None
    for c, k in st.central.items():
        st.bag[c] += k
        st.central[c] = 0
    if st.round >= st.board.rounds:
        st.tasks.append(("game_end",))
    else:
        st.tasks.append(("round_start",))


def _auto_game_end(st: State, t: tuple) -> None:
    for s in st.seats:
        if s.kind == "automa":
            continue  # it never publishes: its Scoring card counts the animals in front of it
        for cid in s.animals:
            s.cubes_lost += len(s.cubes.pop(cid, ()))
            st.discarded_animals.append(cid)
        s.animals = []


_AUTO = {
    "refill_experts": _auto_refill_experts,
    "refill_animals": _auto_refill_animals,
    "round_start": _auto_round_start,
    "dice": _auto_dice,
    "turns": _auto_turns,
    "end_turn": _auto_end_turn,
    "next_turn": _auto_next_turn,
    "end_round": _auto_end_round,
    "end_seal": _auto_end_seal,
    "round_cleanup": _auto_round_cleanup,
    "game_end": _auto_game_end,
}


# tasks that wait for an input with no condition to skip them
_WAITS = frozenset({"take_die", "action", "research", "reveal_animal", "reveal_expert", "roll_dice", "place_dice",
                    "round_token", "roll_die", "start"})


def _advance(st: State) -> None:
    tasks = st.tasks
    auto = _AUTO
    waits = _WAITS
    while tasks:
        t = tasks[-1]
        k = t[0]
        if k in waits:
            return
        fn = auto.get(k)
        if fn is not None:
            tasks.pop()
            fn(st, t)
            continue
        if k == "choose_animal":
            if not _animal_display_has(st, t[1]) and animal_deck_left(st, st.seats[t[1]].kind == "automa") <= 0:
                tasks.pop()
                continue
        elif k == "choose_expert":
            if st.expert_display.count(None) == len(st.expert_display) and expert_deck_left(st) <= 0:
                tasks.pop()
                continue
        elif k == "seal_offer":
            s = st.seats[t[1]]
            if s.kind == "automa" or s.seals <= 0 or not any(st.central.values()):
                tasks.pop()
                continue
        break


_HANDLERS = {
    StartGame: _h_start,
    RevealExpert: _h_reveal_expert,
    RevealAnimal: _h_reveal_animal,
    DrawAnimal: _h_draw_animal,
    SetCategories: _h_set_categories,
    RevealRoundToken: _h_round_token,
    RollDice: _h_roll_dice,
    PlaceDice: _h_place_dice,
    TakeDie: _h_take_die,
    UseExpert: _h_use_expert,
    ChooseAnimal: _h_choose_animal,
    ChooseExpert: _h_choose_expert,
    Embassy: _h_embassy,
    Bank: _h_bank,
    University: _h_university,
    Academy: _h_academy,
    Expedition: _h_expedition,
    Research: _h_research,
    Publish: _h_publish,
    AutomaAction: _h_automa,
    SealAction: _h_seal_action,
    RollDie: _h_roll_die,
    Pass: _h_pass,
}


# the checked door: (handler, field checker) per action class
_DOOR = {cls: (h, checker_for(cls)) for cls, h in _HANDLERS.items()}

__all__ = ["apply", "apply_unchecked", "replay", "describe_action", "new_game", "Pending", "pending_of", "refresh_effects",
           "animal_deck_left", "expert_deck_left", "RuleError", "EXPERT"]

from companion.engine_describe import describe_action  # noqa: E402  (re-exported for the log)
