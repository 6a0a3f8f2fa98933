"""The game view-model driven through whole games, as a person uses the screens (no display)."""

from __future__ import annotations

import random
import zlib

import pytest

from automa.content import BEHAVIORS, SCORING_CARDS
from companion.engine import queries
from companion.actions import TakeDie
from companion.app.game.texts import GameText
from companion.app.game.vm import GameVM, LocalCatalogue
from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
from companion.engine import replay
from companion.session import GameSession
from companion.store import GameStore

from game_play import FakeDie, FakeRead, FakeReader, answer, play_to_end

T = GameText()


def new_vm(game_dir, seats, seed=0, reader=None, sepultus=False):
    w = NewGameVM(T, random.Random(seed))
    w.seats = []
    for kind, name, *cards in seats:
        w.seats.append(SeatDraft(kind, name))
        if kind == AUTOMA:
            w.set_behaviour(len(w.seats) - 1, cards[0])
            w.set_scoring(len(w.seats) - 1, cards[1])
    w.shuffle_all()
    w.sepultus = sepultus
    store = GameStore(game_dir)
    s = w.create(store)
    assert s is not None, w.error
    return GameVM(s, T, LocalCatalogue(game_dir / "catalogue.json"), reader_factory=lambda: reader), store


def check_finished(vm):
    st = vm.state
    assert st.finished and vm.step.kind == "game_over"
    breakdowns, ranking = vm.step.scores()
    again = replay(vm.session.actions)
    b2, r2 = queries.final_scores(again)
    assert [b.total for b in breakdowns] == [b.total for b in b2]
    assert ranking.winners == r2.winners
    return breakdowns, ranking


@pytest.mark.parametrize("behaviour,scoring", [(b, s) for b in BEHAVIORS for s in SCORING_CARDS])
def test_solo_game_against_each_automa(game_dir, behaviour, scoring):
    reader = FakeReader()
    vm, store = new_vm(game_dir, [(HUMAN, "Ana"), (AUTOMA, "Automa", behaviour, scoring)],
                       seed=zlib.crc32(f"{behaviour}/{scoring}".encode()) % 1000, reader=reader)
    kinds = play_to_end(vm, random.Random(behaviour + scoring), reader)
    assert {"automa", "turn", "roll_dice", "place_dice", "reveal_expert", "reveal_animal",
            "reveal_round_token", "categories"} <= set(kinds)
    assert reader.calls, "some dice were entered by photo"
    breakdowns, ranking = check_finished(vm)
    assert breakdowns[1].kind == "automa" and breakdowns[1].total > 0
    # the saved file holds the same game
    with GameSession.open(store, vm.session.game_id) as again:
        assert again.state.to_json() == vm.state.to_json()


def test_two_human_game_with_photos_and_catalogue(game_dir):
    reader = FakeReader()
    names = [f"Animal {i}" for i in range(200)]
    vm, store = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=7, reader=reader)
    kinds = play_to_end(vm, random.Random(7), reader, names=names)
    assert "automa" not in kinds and kinds.count("place_dice") == 12
    check_finished(vm)
    # every animal a human took had its categories asked once and remembered by name
    taken = [c for s in vm.state.seats for c in s.published] + vm.state.discarded_animals
    cat = LocalCatalogue(game_dir / "catalogue.json")
    remembered = [vm.state.cards[c].name for c in taken if vm.state.cards[c].categories and cat.get(vm.state.cards[c].name)]
    assert remembered
    # a second game: a remembered name brings its categories when the card is revealed
    name = remembered[0]
    known = cat.get(name)
    vm2, _ = new_vm(game_dir, [(HUMAN, "Cy"), (HUMAN, "Di")], seed=8)
    while vm2.step.kind == "reveal_expert":
        vm2.step.reveal(vm2.step.candidates()[0])
    step = vm2.step
    assert step.kind == "reveal_animal"
    step.name = name.lower()
    assert step.reveal(known.continent)
    card = vm2.state.cards[0]
    assert card.name == known.name and card.categories == known.categories
    # a catalogue name with another continent is refused before anything is saved
    n = vm2.state.n_actions
    other = next(c for c in vm2.state.board.continents if c != known.continent)
    assert not vm2.step.reveal(other, name)
    assert "catalogue" in vm2.error and vm2.state.n_actions == n


def advance_to(vm, kind, rng, seat_kind=None, reader=None):
    for _ in range(2000):
        st = vm.step
        if st.kind == kind and (seat_kind is None or vm.state.seats[st.seat].kind == seat_kind):
            return st
        answer(vm, rng, reader)
    raise AssertionError(f"never reached {kind}")


def test_undo_redo_steps_and_log(game_dir):
    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (AUTOMA, "Automa", "carl-von-linne", "la-boudeuse")], seed=3)
    rng = random.Random(3)
    turn = advance_to(vm, "turn", rng)
    before = vm.state.to_json()
    n = len(vm.session.actions)
    spot = turn.dice()[0]
    assert turn.select_die(spot.owner, spot.slot, spot.index)
    bank = next(o for o in turn.options() if o.kind == "bank")
    assert "+5 coins" in bank.result
    assert turn.open(bank.index).confirm()
    assert len(vm.session.actions) == n + 2  # the die and its action
    assert any("Bank" in line for line in vm.log()[-2:])
    assert vm.undo()  # one tap takes back the die and the action
    assert vm.state.to_json() == before and vm.step.kind == "turn"
    assert vm.redo() and len(vm.session.actions) == n + 2
    assert vm.undo()
    # an automa's whole turn is one step too
    auto = advance_to(vm, "automa", rng)
    while not (auto.decision.plan is not None):
        answer(vm, rng)
        auto = advance_to(vm, "automa", rng)
    assert auto.instructions and "Take" in " ".join(auto.instructions)
    before = vm.state.to_json()
    kw = {"continent": "asia"} if auto.waits_for == "animal_from_deck" else {}
    if auto.waits_for == "expert_from_deck":
        kw = {"expert": auto.expert_names()[0]}
    assert auto.done(**kw)
    assert vm.undo()
    assert vm.state.to_json() == before and vm.step.kind == "automa"
    assert vm.redo() and vm.state.to_json() != before and vm.step.kind != "automa"


def test_refused_action_shows_the_engine_message_and_changes_nothing(game_dir):
    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=4)
    rng = random.Random(4)
    turn = advance_to(vm, "turn", rng)
    while turn.in_hand:  # a seal action's die is already in hand: wait for a turn that takes one
        answer(vm, rng, reader)
        turn = advance_to(vm, "turn", rng)
    spot = turn.dice()[0]
    turn.select_die(spot.owner, spot.slot, spot.index)
    emb = next(o for o in turn.options() if o.kind == "embassy")
    d = turn.open(emb.index)
    coins = vm.state.seats[turn.seat].coins
    d.set_spend(coins=coins + 1)  # more coins than the seat has
    legal, text = d.result()
    assert not legal and "coin" in text
    n = vm.state.n_actions
    assert not d.confirm()
    assert vm.error == text and vm.state.n_actions == n
    d.set_spend(coins=1)
    legal, text = d.result()
    assert legal and "pays 1 coin" in text
    # a die that is not there
    assert not turn.select_die(spot.owner, spot.slot, 7)
    assert vm.error and vm.state.n_actions == n


def test_photo_reads_refused_when_impossible(game_dir):
    reader = FakeReader()
    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=5, reader=reader)
    rng = random.Random(5)
    step = advance_to(vm, "roll_dice", rng, reader=None)
    e = step.entry
    # more dice than the seat draws
    reader.queue.append(FakeRead([FakeDie("red", 1)] * 5))
    assert not step.read_photo("p.jpg") and "5 dice" in e.message and e.message_is_error and not e.chips
    # more of a colour than are left in the bag (4 per colour)
    reader.queue.append(FakeRead([FakeDie("red", 2)] * 4))
    assert step.read_photo("p.jpg")
    assert step.submit()
    step = vm.step
    assert step.kind == "place_dice"
    for i in range(4):
        step.select(i)
        step.put(i)
    assert step.submit()
    step = vm.step
    assert step.kind == "roll_dice" and step.entry.bag["red"] == 0
    reader.queue.append(FakeRead([FakeDie("red", 3), FakeDie("blue", 3)]))
    assert not step.read_photo("p.jpg") and "red" in step.entry.message and "0 are left" in step.entry.message
    assert not step.entry.add("red", 3)
    # an unreadable photo and an empty one say why
    reader.queue.append(FakeRead([], error="not an image (unrecognised file format)"))
    assert not step.read_photo("x") and "not an image" in step.entry.message
    reader.queue.append(FakeRead([]))
    assert not step.read_photo("x") and "no die" in step.entry.message
    # an unknown colour must be chosen; fewer dice are kept and the rest tapped in
    reader.queue.append(FakeRead([FakeDie("unknown", 4, unsure=True, confidence=0.3), FakeDie("blue", 6)]))
    assert step.read_photo("x") and "2 missing" in step.entry.message
    assert step.entry.problem()
    assert not step.submit() and vm.error
    assert step.entry.set_colour(0, "green")
    assert step.entry.add("yellow", 1) and step.entry.add("purple", 2)
    assert step.entry.problem() is None
    assert step.submit()
    assert vm.state.seats[step.seat].rolled == [("green", 4), ("blue", 6), ("yellow", 1), ("purple", 2)]


def test_no_dice_reader_falls_back_to_hand_entry(game_dir):
    def broken():
        raise FileNotFoundError("models/dice_detector.onnx")

    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=6)
    vm._reader_factory = broken
    step = advance_to(vm, "roll_dice", random.Random(6))
    assert not step.read_photo("p.jpg")
    assert "not available" in step.entry.message and "by hand" in step.entry.message


def test_reopen_mid_game_and_continue(game_dir):
    reader = FakeReader()
    vm, store = new_vm(game_dir, [(HUMAN, "Ana"), (AUTOMA, "Automa", "abraham-trembley", "l-astrolabe")], seed=9,
                       reader=reader)
    rng = random.Random(9)
    for _ in range(120):
        answer(vm, rng, reader)
    # mid-turn: the die is taken but its action not yet entered (as after a crash)
    turn = advance_to(vm, "turn", rng)
    while turn.in_hand:  # a seal action's die is already in hand: wait for a turn that takes one
        answer(vm, rng, reader)
        turn = advance_to(vm, "turn", rng)
    spot = turn.dice()[0]
    vm.session.confirm(TakeDie(turn.seat, spot.owner, spot.slot, spot.index))
    state = vm.state.to_json()
    gid = vm.session.game_id
    vm.session.close()
    vm2 = GameVM(GameSession.open(store, gid), T, LocalCatalogue(game_dir / "c.json"), reader_factory=lambda: reader)
    assert vm2.state.to_json() == state
    step = vm2.step
    assert step.kind == "turn" and step.in_hand and step.die == vm2.state.hand
    assert {o.kind for o in step.options()} >= {"bank", "embassy"}
    play_to_end(vm2, rng, reader)
    check_finished(vm2)


def test_publication_preview_matches_the_confirmed_score(game_dir):
    seen = 0
    for seed in range(40):
        vm, _ = new_vm(game_dir / str(seed), [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=seed)
        rng = random.Random(seed)
        while vm.step.kind != "game_over" and seen < 3:
            st = vm.step
            if st.kind == "turn" and not st.in_hand:
                for spot in st.dice():
                    st.select_die(spot.owner, spot.slot, spot.index)
                    pubs = [o for o in st.options() if o.kind == "publish"]
                    cubes = [o for o in pubs if vm.state.seats[st.seat].cubes.get(o.action.reference)]
                    if cubes:
                        d = st.open(cubes[0].index)
                        pv = d.preview()
                        legal, text = d.result()
                        assert legal and pv is not None and f"scores {pv.vp} VP" in text
                        vp0 = vm.state.seats[st.seat].vp
                        assert d.confirm()
                        assert vm.state.seats[st.seat].vp - vp0 >= pv.vp
                        seen += 1
                        break
                else:
                    answer(vm, rng)
                continue
            answer(vm, rng)
        if seen >= 3:
            break
    assert seen >= 1


def test_a_human_owner_is_told_their_gain_after_confirm(game_dir):
    """Issue 41, item 11: when a seat takes a die from another human's board, what that human
    gains is on screen after Confirm ("Carl: take 2 coins"), not only in the log."""
    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Carl")], seed=11)
    rng = random.Random(11)
    seen_gain = seen_own = False
    for _ in range(3000):
        step = vm.step
        if step.kind == "game_over" or (seen_gain and seen_own):
            break
        if step.kind == "turn" and not step.in_hand:
            me = step.seat
            effects = vm.state.board.slot_effects
            spots = [s for s in step.dice() if s.owner != me and effects[s.slot]] if not seen_gain else \
                [s for s in step.dice() if s.owner == me]
            if spots:
                spot = spots[0]
                owner = vm.state.seats[spot.owner].name
                gain = dict(effects[spot.slot])
                assert step.select_die(spot.owner, spot.slot, spot.index), vm.error
                d = step.open(next(o.index for o in step.options() if o.kind == "bank"))
                assert d.confirm(), vm.error
                mine = [n for n in vm.notes if n.startswith(owner + ": take ")]
                if spot.owner != me:
                    k, n = next(iter(gain.items()))
                    word = {"coins": "coins", "reputation": "reputation", "vp": "VP"}[k]
                    assert mine == [f"{owner}: take {n} {word}"], vm.notes
                    seen_gain = True
                else:
                    assert mine == [], vm.notes
                    seen_own = True
                continue
        answer(vm, rng)
    assert seen_gain and seen_own


def test_a_human_is_told_their_gain_when_the_automa_takes_their_die(game_dir):
    """Issue 41, item 11: the automa's Done shows what the human whose die it took gains."""
    from companion.actions import TakeDie

    vm, _ = new_vm(game_dir, [(HUMAN, "Carl"), (AUTOMA, "Automa", "carl-von-linne", "la-boudeuse")], seed=5)
    rng = random.Random(5)
    for _ in range(3000):
        step = vm.step
        assert step.kind != "game_over", "the automa never took a die with an effect from Carl"
        if step.kind == "automa":
            takes = [a for a in step.decision.actions if isinstance(a, TakeDie) and a.owner == 0
                     and vm.state.board.slot_effects[a.slot]]
            if takes:
                k, n = next(iter(vm.state.board.slot_effects[takes[0].slot].items()))
                kw = {}
                if step.waits_for == "animal_from_deck":
                    kw["continent"] = "asia"
                elif step.waits_for == "expert_from_deck":
                    kw["expert"] = step.expert_names()[0]
                assert step.done(**kw), vm.error
                word = {"coins": "coins", "reputation": "reputation", "vp": "VP"}[k]
                assert f"Carl: take {n} {word}" in vm.notes, vm.notes
                return
        answer(vm, rng)
