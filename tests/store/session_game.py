"""A deterministic driver that plays legal games through the real engine (for the session tests
and the crash child). ``next_action(state, seed)`` is a pure function of (state, seed): the
child process and the test compute the same game without talking to each other.

It proposes candidate actions for ``state.pending`` in a seeded order and returns the first one
the checked ``apply`` accepts (tried on a copy). It is not a good player; it only has to be a
legal one that visits many kinds of actions.
"""

from __future__ import annotations

import itertools
import random
from typing import Iterator

from companion import engine
from companion.actions import (
    Academy,
    Action,
    Bank,
    ChooseAnimal,
    ChooseExpert,
    DrawAnimal,
    Embassy,
    Expedition,
    Pass,
    PlaceDice,
    Publish,
    Research,
    RevealAnimal,
    RevealExpert,
    RevealRoundToken,
    RollDice,
    RollDie,
    SealAction,
    SeatConfig,
    StartGame,
    TakeDie,
    University,
)
from companion.content.experts import EXPERTS
from companion.content.vocab import CATEGORIES_BY_TYPE, CONTINENTS
from companion.errors import RuleError
from companion.engine import State

SEATS = (SeatConfig("Ana"), SeatConfig("Ben"))


def start_action(seats=SEATS) -> StartGame:
    return StartGame(seats=tuple(seats))


def _card_fields(rng: random.Random) -> dict:
    return {"continent": rng.choice(CONTINENTS),
            "categories": tuple(rng.choice(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4))}


def _candidates(st: State, rng: random.Random) -> Iterator[Action]:
    p = st.pending
    kind, seat = p.kind, p.seat
    if kind == "start_game":
        yield start_action()
    elif kind == "reveal_expert":
        unseen = [e.name for e in EXPERTS if e.name not in st.experts_seen]
        rng.shuffle(unseen)
        for name in unseen:
            yield RevealExpert(name=name)
    elif kind == "reveal_animal":
        for _ in range(20):
            yield RevealAnimal(**_card_fields(rng))
    elif kind == "choose_animal":
        if p.from_deck:
            for _ in range(20):
                yield DrawAnimal(seat=seat, **_card_fields(rng))
        cards = [c for c in st.animal_display if c is not None]
        rng.shuffle(cards)
        for c in cards:
            yield ChooseAnimal(seat=seat, card=c)
    elif kind == "choose_expert":
        names = [x for x in st.expert_display if x is not None]
        if p.from_deck or not names:
            names = [e.name for e in EXPERTS if e.name not in st.experts_seen]
        rng.shuffle(names)
        for name in names:
            yield ChooseExpert(seat=seat, name=name)
            yield ChooseExpert(seat=seat, name=name, use_now=True)
            yield ChooseExpert(seat=seat, name=name, slot=rng.randrange(4))  # covers one
    elif kind == "reveal_round_token":
        effects = list(st.board.round_token_effects)
        rng.shuffle(effects)
        for effect in effects:
            yield RevealRoundToken(effect=effect)
    elif kind == "roll_dice":
        for _ in range(20):
            bag = [c for c, k in st.bag.items() for _ in range(k)]
            rng.shuffle(bag)
            yield RollDice(seat=seat, dice=tuple((c, rng.randint(1, 6)) for c in bag[: p.count]))
    elif kind == "place_dice":
        n = p.count
        if n <= 4:
            options = list(itertools.permutations(range(4), n))
        else:  # the extra die shares a slot: every slot used, one twice
            options = [p for p in itertools.product(range(4), repeat=n) if set(p) == {0, 1, 2, 3}]
        rng.shuffle(options)
        for slots in options:
            yield PlaceDice(seat=seat, slots=slots)
    elif kind == "take_die":
        dice = [(o, sl, i) for o, s in enumerate(st.seats) for sl, dd in enumerate(s.slots) for i in range(len(dd))]
        rng.shuffle(dice)
        for owner, slot, index in dice:
            yield TakeDie(seat=seat, owner=owner, slot=slot, index=index)
    elif kind == "action":
        s = st.seats[seat]
        options: list[Action] = [Embassy(seat=seat), Bank(seat=seat)]
        options += [Academy(seat=seat, card=c) for c in st.animal_display if c is not None]
        options += [University(seat=seat, name=x, slot=sl) for x in st.expert_display if x is not None
                    for sl in (None, rng.randrange(4))]
        options += [Expedition(seat=seat, continent=c) for c in CONTINENTS]
        options += [Publish(seat=seat, reference=c) for c in s.animals]
        rng.shuffle(options)
        # prefer the interesting ones, Embassy (always possible) last
        options.sort(key=lambda a: isinstance(a, Embassy))
        yield from options
    elif kind == "research":
        s = st.seats[seat]
        singles = [(c, cat) for c in s.animals for cat in (st.cards[c].categories or ())]
        rng.shuffle(singles)
        for pair in singles:
            yield Research(seat=seat, cubes=(pair,))
        yield Research(seat=seat)
    elif kind == "seal_action":
        colours = [c for c, k in st.central.items() if k]
        rng.shuffle(colours)
        for c in colours[:1]:
            yield SealAction(seat=seat, colour=c)
        yield Pass(seat=seat)
    elif kind == "roll_die":
        yield RollDie(seat=seat, value=rng.randint(1, 6))


def next_action(st: State, seed: int) -> Action | None:
    """The driver's next legal action in ``st`` (``None`` when the game is over)."""
    if st.pending.kind == "game_over":
        return None
    rng = random.Random(f"{seed}:{st.n_actions}")
    tried = 0
    for action in _candidates(st, rng):
        tried += 1
        try:
            engine.apply(st.copy(), action)
        except RuleError:
            continue
        return action
    raise AssertionError(f"the driver found no legal action for {st.pending} after {tried} tries")


def play(seed: int, limit: int | None = None) -> tuple[list[Action], State]:
    """The driver's game from the start: (actions, final state), at most ``limit`` actions."""
    st = State()
    actions: list[Action] = []
    while limit is None or len(actions) < limit:
        action = next_action(st, seed)
        if action is None:
            break
        engine.apply(st, action)
        actions.append(action)
    return actions, st


def session_steps(session, seed: int = 11) -> Iterator[Action]:
    """The driver's actions for an open ``GameSession``, until the game is over."""
    while True:
        action = next_action(session.state, seed)
        if action is None:
            return
        yield action
