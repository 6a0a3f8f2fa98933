"""Action handlers, part 1: the set-up, the table's chance inputs (cards revealed, round
tokens, dice rolled) and the card choices. Each handler validates everything first (when
``check``) and only then mutates, so a refused action leaves the state as it was.
"""

from __future__ import annotations

from companion.actions import (
    ChooseAnimal, ChooseExpert, DrawAnimal, PlaceDice, RevealAnimal, RevealExpert, RevealRoundToken,
    RollDice, SetCategories, StartGame, UseExpert,
)
from companion.board_values import board_from_values
from companion.engine.automa_rows import BEHAVIOURS, SCORING_IDS, automa_slot_order
from companion.engine.effects import EXPERT, refresh_effects
from companion.engine.rules import (
    _add_expert, _card_name, _check_card_info, _check_categories, _expect, _expert_name, _expert_slot,
    _new_card, _oneshot, _push, card_label,
    _research_below, research_completable,
)
from companion.engine.state import Card, Seat, State, _animal_display_has
from companion.errors import (
    BadActionError, CardUnavailableError, ChanceError, ExpeditionError, ExpertSlotError, NotYourTurnError,
    SetupError,
)


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
    if check:
        _choice_keeps_expedition(st, a, _h_choose_animal)
    st.tasks.pop()
    d = st.animal_display
    d[d.index(a.card)] = None
    st.seats[a.seat].animals.append(a.card)


def _choice_keeps_expedition(st: State, a, handler) -> None:
    """A reputation card chosen during one's own expedition must let it be completed when it
    could be: the FAQ allows the expedition because the bonus completes it, so a choice that
    leaves nothing to research is refused (an animal of another continent, an expert covering
    the one that paid for it...; issue 39, item 2)."""
    if _research_below(st, a.seat) is None or not research_completable(st, a.seat):
        return
    trial = st.copy()
    handler(trial, a, False)
    if not research_completable(trial, a.seat):
        t = _research_below(st, a.seat)[0]
        raise ExpeditionError("expedition.choice_cannot_complete", continent=t[3], seat=st.seats[a.seat].name)


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
    slot = _expert_slot(s, a.name, a.slot, a.use_now, check, a.under)
    if check and from_display:
        _choice_keeps_expedition(st, a, _h_choose_expert)
    st.tasks.pop()
    if from_display:
        d = st.expert_display
        d[d.index(a.name)] = None
    else:
        st.experts_seen.append(a.name)
    after: list = []
    _add_expert(st, a.seat, a.name, slot, a.use_now, after, a.under)
    _push(st, after)


#: the steps after the action that are still the seat's own turn when ``turn_seat`` is that
#: seat: a bonus card chosen at the end of the turn, the die of an end-of-round seal action
#: ("at any time during your turn", EN p.10; issue 39, item 6)
_OWN_TURN_STEPS = ("choose_animal", "choose_expert", "roll_die")


def _h_use_expert(st: State, a: UseExpert, check: bool) -> None:
    if check:
        t = st.tasks[-1]
        if not (t[0] in ("take_die", "action", "research")
                or (t[0] in _OWN_TURN_STEPS and st.turn_seat == a.seat)) or t[1] != a.seat:
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
