"""A seeded player that answers the game view-model's questions through its public methods only
(what a person does on the screens), for the whole-game tests."""

from __future__ import annotations

import os
import random
from pathlib import Path


class FakeDie:
    def __init__(self, colour, value, unsure=False, confidence=0.99):
        self.colour, self.value, self.unsure, self.confidence = colour, value, unsure, confidence
        self.box = (0, 0, 10, 10)


class FakeRead:
    def __init__(self, dice, error=None, ms=12.0):
        self.dice, self.error, self.ms = tuple(dice), error, ms


class FakeReader:
    """Stands in for ``vision.reader.DiceReader``: returns the queued reads in order."""

    def __init__(self):
        self.queue = []
        self.calls = []

    def read(self, source):
        self.calls.append(source)
        return self.queue.pop(0)


def solo_game(data_dir: Path, seed: int, title: str):
    """A new game, Ana (human) against an automa, named ``title`` and set up from ``seed``, saved
    in ``data_dir`` (made the app's data folder, as a browser test's app will read it): (its
    session, a GameVM on it). The caller closes the session."""
    os.environ["ENCYCLOPEDIA_DATA_DIR"] = str(data_dir)
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM, LocalCatalogue
    from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    t = GameText()
    w = NewGameVM(t, random.Random(seed))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(AUTOMA, "Automa")]
    w.shuffle_all()
    w.title = title
    s = w.create(GameStore())
    try:
        return s, GameVM(s, t, LocalCatalogue(Path(data_dir) / f"catalogue-{seed}.json"))
    except BaseException:
        s.close()
        raise


def roll(rng, bag, count):
    left = [c for c, k in bag.items() for _ in range(k)]
    rng.shuffle(left)
    return [(c, rng.randint(1, 6)) for c in left[:count]]


def answer(vm, rng: random.Random, photo_reader: FakeReader | None = None, names=()) -> str:
    """Answer the current step once; returns its kind."""
    step = vm.step
    k = step.kind
    ok = True
    if k == "reveal_expert":
        ok = step.reveal(rng.choice(step.candidates()))
    elif k == "reveal_animal":
        left = [c for c, n in step.continents_left().items() if n > 0]
        name = names[len(vm.state.cards)] if len(vm.state.cards) < len(names) else ""
        ok = step.reveal(rng.choice(left), name)
    elif k == "reveal_round_token":
        ok = step.reveal(rng.choice([e for e, n in step.choices() if n > 0]))
    elif k == "roll_dice":
        dice = roll(rng, step.entry.bag, step.entry.count)
        if photo_reader is not None and rng.random() < 0.5:
            photo_reader.queue.append(FakeRead([FakeDie(c, v, unsure=(i == 0)) for i, (c, v) in enumerate(dice)]))
            assert step.read_photo(b"jpeg bytes"), step.entry.message
            assert step.entry.problem() is not None  # the unsure die must be looked at
            step.entry.confirm_chip(0)
        else:
            for c, v in dice:
                assert step.entry.add(c, v), step.entry.message
        ok = step.submit()
    elif k == "place_dice":
        slots = list(range(4)) + [0] * (len(step.rolled) - 4)
        rng.shuffle(slots)
        for i, s in enumerate(slots):
            step.select(i)
            step.put(s)
        ok = step.submit()
    elif k == "turn":
        if not step.in_hand:
            spot = rng.choice(step.dice())
            assert step.select_die(spot.owner, spot.slot, spot.index), vm.error
        opts = step.options()
        assert opts, "a die always has the Bank at least"
        pref = [o for o in opts if o.kind in ("publish", "expedition", "academy", "university")]
        o = rng.choice(pref if pref and rng.random() < 0.8 else opts)
        d = step.open(o.index)
        legal, text = d.result()
        assert legal, text
        ok = d.confirm()
    elif k == "research":
        opts = step.options()
        rng.shuffle(opts)
        for cid, cat, cost in opts:
            if step.affordable((cid, cat)):
                step.toggle(cid, cat)
        legal, text = step.result()
        if not legal:  # e.g. two cubes on one Sepultus card: take the first only
            step.chosen = step.chosen[:1]
        ok = step.submit()
    elif k == "choose_animal":
        if step.pending.from_deck:
            ok = step.draw(rng.choice(list(step.state.board.continents)))
        else:
            ok = step.take(rng.choice(step.cards()))
    elif k == "choose_expert":
        names_ = step.names()
        ok = step.take(rng.choice(names_), 0 if step.needs_slot() else None)
    elif k == "seal_action":
        cols = step.colours()
        ok = step.take(rng.choice(cols)[0]) if cols and rng.random() < 0.7 else step.pass_()
    elif k == "roll_die":
        ok = step.roll(rng.randint(1, 6))
    elif k == "categories":
        for typ in (1, 2, 3, 4):
            step.choose(typ, rng.choice(step.choices(typ)))
        ok = step.submit()
    elif k == "automa":
        kw = {}
        if step.waits_for == "animal_from_deck":
            kw["continent"] = rng.choice(list(step.state.board.continents))
        elif step.waits_for == "expert_from_deck":
            kw["expert"] = step.expert_names()[0]
        ok = step.done(**kw)
    elif k == "game_over":
        return k
    assert ok, f"{k}: {vm.error}"
    return k


def play_to_end(vm, rng, photo_reader=None, names=(), limit=5000) -> list[str]:
    kinds = []
    for _ in range(limit):
        k = answer(vm, rng, photo_reader, names)
        kinds.append(k)
        if k == "game_over":
            return kinds
    raise AssertionError("the game did not end")
