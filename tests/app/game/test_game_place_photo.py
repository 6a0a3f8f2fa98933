"""Dice placed from the photo that read them (issue 38, item 5): a photo of a seat's dice lying on
its board puts the k-th die from the left on the k-th slot (with the extra die, the two closest
share a slot); the player confirms in one step, and one gesture moves a die: a drag onto a slot
(``PlaceDiceStep.move``), or, in two taps, the die then the slot, with the same swaps. Dice
tapped in by hand are placed as before; the game never depends on the camera."""

from __future__ import annotations

import random

import flet as ft
from control_tree import every_control
from game_play import FakeDie, FakeRead, FakeReader
from test_game_views import texts
from test_game_vm import advance_to, new_vm

from companion.app.game.dice_view import PLACE_GROUP, DicePanel
from companion.app.game.dice_vm import PlaceDiceStep, slots_from_photo
from companion.app.game.wizard_vm import HUMAN


def _boxes(*xs, w=40):
    return [(x, 100, w, w) for x in xs]


# --------------------------------------------------------------------------- the pure function


def test_left_to_right_by_box_centre():
    assert slots_from_photo(_boxes(20, 110, 200, 290)) == [0, 1, 2, 3]
    assert slots_from_photo(_boxes(290, 200, 110, 20)) == [3, 2, 1, 0]
    assert slots_from_photo(_boxes(200, 20, 290, 110)) == [2, 0, 3, 1]
    # the centre counts, not the left edge: a wide box starting first but centred second
    assert slots_from_photo([(0, 0, 200, 40), (60, 0, 20, 20), (300, 0, 20, 20), (400, 0, 20, 20)]) == [1, 0, 2, 3]
    # y does not matter (a board photographed a little askew)
    assert slots_from_photo([(20, 300, 40, 40), (110, 10, 40, 40), (200, 200, 40, 40), (290, 0, 40, 40)]) == [0, 1, 2, 3]
    # equal centres keep the read's order
    assert slots_from_photo(_boxes(0, 0, 0, 0)) == [0, 1, 2, 3]


def test_with_the_extra_die_the_two_closest_share_a_slot():
    assert slots_from_photo(_boxes(20, 110, 130, 250, 340)) == [0, 1, 1, 2, 3]
    assert slots_from_photo(_boxes(20, 40, 150, 250, 340)) == [0, 0, 1, 2, 3]
    assert slots_from_photo(_boxes(20, 110, 200, 290, 300)) == [0, 1, 2, 3, 3]
    # in any read order
    assert slots_from_photo(_boxes(300, 110, 20, 290, 200)) == [3, 1, 0, 3, 2]
    # a tie between two gaps: the leftmost pair
    assert slots_from_photo(_boxes(0, 10, 100, 110, 300)) == [0, 0, 1, 2, 3]


def test_nothing_placed_without_a_box_or_with_too_few_dice():
    assert slots_from_photo(_boxes(20, 110, 200)) is None
    assert slots_from_photo([]) is None
    assert slots_from_photo(_boxes(20, 110, 200) + [None]) is None
    assert slots_from_photo(_boxes(20, 110, 200) + [(290, 100, 0, 40)]) is None  # an empty box
    assert slots_from_photo(_boxes(20, 110, 200, 290), 0) is None


# --------------------------------------------------------------------------- the game's steps


def _roll_step(game_dir, extra_die=False):
    reader = FakeReader()
    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=5, reader=reader)
    rng = random.Random(5)
    if extra_die:
        tok = advance_to(vm, "reveal_round_token", rng)
        assert tok.reveal("extra_die"), vm.error
    return vm, reader, advance_to(vm, "roll_dice", rng)


def _dice(step, n):
    bag = step.entry.bag
    return [(c, 1 + i) for i, c in enumerate([c for c, k in bag.items() for _ in range(k)][::3][:n])]


def _by_hand(game_dir, extra_die=False):
    """The placing step after a seat's dice (four, or five with the extra die) were tapped in by
    hand: (vm, the dice, the step)."""
    vm, _, step = _roll_step(game_dir, extra_die=extra_die)
    dice = _dice(step, 5 if extra_die else 4)
    for c, v in dice:
        assert step.entry.add(c, v)
    assert step.submit()
    return vm, dice, vm.step


def _photo_read(vm, reader, step, dice, xs):
    die = []
    for (c, v), x in zip(dice, xs):
        d = FakeDie(c, v)
        d.box = (x, 100, 40, 40)
        die.append(d)
    reader.queue.append(FakeRead(die))
    assert step.read_photo(b"jpeg bytes"), step.entry.message
    assert step.submit(), vm.error
    return vm.step


def test_four_dice_read_from_a_photo_are_placed_in_one_step_both_orders(game_dir):
    for xs, want in (((20, 110, 200, 290), [0, 1, 2, 3]), ((290, 200, 110, 20), [3, 2, 1, 0])):
        vm, reader, step = _roll_step(game_dir / str(xs[0]))
        seat = step.seat
        dice = _dice(step, 4)
        place = _photo_read(vm, reader, step, dice, xs)
        assert place.kind == "place_dice" and place.seat == seat
        assert place.from_photo and place.slots == want and place.ready() and place.selected is None
        n = vm.state.n_actions
        assert place.submit(), vm.error  # one step: Confirm the board
        assert vm.state.n_actions == n + 1
        slots = vm.state.seats[seat].slots
        assert [s[0] for s in slots] == [dice[want.index(k)] for k in range(4)]


def test_five_dice_with_the_extra_die_the_two_closest_share_a_slot(game_dir):
    vm, reader, step = _roll_step(game_dir, extra_die=True)
    assert step.entry.count == 5
    seat = step.seat
    dice = _dice(step, 5)
    place = _photo_read(vm, reader, step, dice, (340, 20, 130, 250, 110))
    assert place.from_photo and place.slots == [3, 0, 1, 2, 1] and place.ready()
    assert place.submit(), vm.error
    assert vm.state.seats[seat].slots == [[dice[1]], [dice[2], dice[4]], [dice[3]], [dice[0]]]


def test_a_tap_on_a_slot_moves_a_picked_die_and_keeps_every_die_placed(game_dir):
    vm, reader, step = _roll_step(game_dir)
    dice = _dice(step, 4)
    place = _photo_read(vm, reader, step, dice, (20, 110, 200, 290))
    place.select(0)
    place.put(2)  # the die of slot 3 swaps with it
    assert place.slots == [2, 1, 0, 3] and place.ready() and place.selected is None
    place.select(3)
    place.put(3)  # on its own slot: nothing moves
    assert place.slots == [2, 1, 0, 3]
    assert place.submit(), vm.error
    assert vm.state.seats[place.seat].slots[2] == [dice[0]]


def test_moves_with_the_extra_die_stay_legal(game_dir):
    vm, reader, step = _roll_step(game_dir, extra_die=True)
    dice = _dice(step, 5)
    place = _photo_read(vm, reader, step, dice, (20, 110, 130, 250, 340))
    assert place.slots == [0, 1, 1, 2, 3]
    place.select(1)
    place.put(3)  # from the shared slot: two dice on slot 4 now, no swap
    assert place.slots == [0, 3, 1, 2, 3]
    place.select(0)
    place.put(3)  # slot 1 would be empty and slot 4 over-full: a die of slot 4 goes to slot 1
    assert place.slots == [3, 0, 1, 2, 3] and sorted(place.slots) == [0, 1, 2, 3, 3]
    assert place.submit(), vm.error


def _twin(place):
    """A second placing step of the same seat, with ``place``'s dice where they are."""
    other = PlaceDiceStep(place.vm)
    other.slots, other.selected, other.from_photo = list(place.slots), place.selected, place.from_photo
    return other


def _moves_are_select_then_put(place):
    """From where ``place`` stands, every drop of a die on another slot ends as its tap on the
    die then on the slot does (the same swaps, the same next selection)."""
    for i in range(len(place.rolled)):
        for slot in range(place.n_slots):
            if place.slots[i] == slot:
                continue
            dragged, tapped = _twin(place), _twin(place)
            assert dragged.move(i, slot)
            tapped.select(i)
            tapped.put(slot)
            assert (dragged.slots, dragged.selected) == (tapped.slots, tapped.selected), (place.slots, i, slot)


def _refused(place, *moves):
    before = (list(place.slots), place.selected, place.from_photo)
    for i, slot in moves:
        assert not place.move(i, slot), (i, slot)
        assert (place.slots, place.selected, place.from_photo) == before, (i, slot)


BAD_MOVES = ((-1, 0), (5, 1), (9, 0), (0, -1), (0, 4), (0, 9), (None, 1), (1, None), ("0", 1), (True, 1), (0.0, 1))


def test_a_drag_onto_a_slot_moves_a_die_of_a_photo_placed_board_in_one_gesture(game_dir):
    vm, reader, step = _roll_step(game_dir)
    dice = _dice(step, 4)
    place = _photo_read(vm, reader, step, dice, (20, 110, 200, 290))
    _moves_are_select_then_put(place)
    assert place.move(0, 2)  # the die of slot 3 swaps with it
    assert place.slots == [2, 1, 0, 3] and place.ready() and place.selected is None and place.from_photo
    _moves_are_select_then_put(place)
    _refused(place, (3, 3), (0, 2))  # dropped back on its own slot: nothing moves
    place.select(1)
    _refused(place, (1, 1), (4, 0), *BAD_MOVES)  # nor the selection: a die and a slot that exist only
    assert place.selected == 1
    assert place.move(3, 0)  # a selected die is not the one dragged: the dragged one moves
    assert place.slots == [2, 1, 3, 0] and place.selected is None
    assert place.submit(), vm.error
    assert [s[0] for s in vm.state.seats[place.seat].slots] == [dice[3], dice[1], dice[0], dice[2]]


def test_a_drag_with_the_extra_die_stays_legal(game_dir):
    vm, reader, step = _roll_step(game_dir, extra_die=True)
    dice = _dice(step, 5)
    place = _photo_read(vm, reader, step, dice, (20, 110, 130, 250, 340))
    assert place.slots == [0, 1, 1, 2, 3]
    _moves_are_select_then_put(place)
    assert place.move(1, 3)  # from the shared slot: two dice on slot 4 now, no swap
    assert place.slots == [0, 3, 1, 2, 3]
    _moves_are_select_then_put(place)
    assert place.move(0, 3)  # slot 1 would be empty and slot 4 over-full: a die of slot 4 goes to slot 1
    assert place.slots == [3, 0, 1, 2, 3] and sorted(place.slots) == [0, 1, 2, 3, 3]
    _refused(place, (0, 3), (4, 3), *BAD_MOVES)
    assert place.submit(), vm.error


def test_a_drag_places_dice_tapped_in_by_hand(game_dir):
    vm, dice, place = _by_hand(game_dir)
    assert place.kind == "place_dice" and not place.from_photo and place.selected == 0
    _moves_are_select_then_put(place)
    _refused(place, (4, 0), *BAD_MOVES)
    assert place.move(2, 1)  # an unplaced die, not the selected one: the selection stays on the first unplaced
    assert place.slots == [None, None, 1, None] and place.selected == 0
    assert place.move(0, 1)  # a taken slot: its die goes back to the unplaced ones
    assert place.slots == [1, None, None, None] and place.selected == 1
    _refused(place, (0, 1), (2, 5))
    assert place.move(0, 3)  # a placed die to an empty slot
    assert place.slots == [3, None, None, None] and place.selected == 1
    _moves_are_select_then_put(place)
    for i, slot in ((1, 0), (2, 1), (3, 2)):
        assert place.move(i, slot)
    assert place.slots == [3, 0, 1, 2] and place.ready() and place.selected is None
    _moves_are_select_then_put(place)
    assert place.submit(), vm.error
    assert [s[0] for s in vm.state.seats[place.seat].slots] == [dice[1], dice[2], dice[3], dice[0]]


def test_a_drag_with_the_extra_die_by_hand_lets_two_dice_share_a_slot(game_dir):
    vm, dice, place = _by_hand(game_dir, extra_die=True)
    assert place.kind == "place_dice" and not place.from_photo and len(place.rolled) == 5
    _refused(place, *BAD_MOVES)
    for i, slot in ((4, 2), (0, 2)):  # two dice on slot 3: none goes back
        assert place.move(i, slot)
    assert place.slots == [2, None, None, None, 2] and place.selected == 1
    _moves_are_select_then_put(place)
    for i, slot in ((1, 0), (2, 1), (3, 3)):
        assert place.move(i, slot)
    assert place.slots == [2, 0, 1, 3, 2] and place.ready()
    assert place.submit(), vm.error
    assert vm.state.seats[place.seat].slots == [[dice[1]], [dice[2]], [dice[0], dice[4]], [dice[3]]]


def test_dice_tapped_in_by_hand_are_placed_as_before(game_dir):
    vm, dice, place = _by_hand(game_dir)
    assert place.kind == "place_dice" and not place.from_photo
    assert place.slots == [None] * 4 and place.selected == 0 and not place.ready()
    place.put(1)
    place.put(1)  # the second die takes slot 2: the first goes back to the unplaced ones
    assert place.slots == [None, 1, None, None] and place.selected == 0
    for k in (0, 2, 3):
        place.put(k)
    assert place.slots == [0, 1, 2, 3] and place.submit()
    # the next seat (Ben) by hand too: nothing is placed for him from Ana's photo either
    assert vm.step.kind == "roll_dice"


def test_a_read_completed_by_hand_or_cleared_is_placed_by_hand(game_dir):
    vm, reader, step = _roll_step(game_dir)
    dice = _dice(step, 4)
    d = FakeDie(*dice[0])
    d.box = (20, 100, 40, 40)
    reader.queue.append(FakeRead([d]))
    assert step.read_photo(b"jpeg bytes")
    for c, v in dice[1:]:
        assert step.entry.add(c, v)  # dice tapped in: no box, so no placement from the photo
    assert step.submit()
    assert not vm.step.from_photo and vm.step.slots == [None] * 4
    # a photo placement the player starts again is placed by hand
    vm, reader, step = _roll_step(game_dir / "again")
    place = _photo_read(vm, reader, step, _dice(step, 4), (20, 110, 200, 290))
    place.clear()
    assert not place.from_photo and place.slots == [None] * 4 and place.selected == 0


def test_only_the_seat_the_photo_was_of_is_placed(game_dir):
    vm, reader, step = _roll_step(game_dir)
    place = _photo_read(vm, reader, step, _dice(step, 4), (20, 110, 200, 290))
    assert place.submit()
    step = vm.step
    assert step.kind == "roll_dice" and step.seat != place.seat
    for c, v in _dice(step, 4):
        assert step.entry.add(c, v)
    assert step.submit() and vm.step.kind == "place_dice" and not vm.step.from_photo


class _Panel(DicePanel):
    def __init__(self, vm):
        self.vm, self.gt, self.phone = vm, vm.t, True

    def redraw(self):
        pass


def test_the_place_step_says_the_dice_came_from_the_photo(game_dir):
    vm, reader, step = _roll_step(game_dir)
    dice = _dice(step, 4)
    place = _photo_read(vm, reader, step, dice, (290, 200, 110, 20))
    words = texts(_Panel(vm).draw_place_dice(place))
    assert any(w.startswith("Placed from the photo, left to right") for w in words)
    assert "Every die has a slot." in words and "Drag a die onto the slot it goes on, or tap the die, then the slot." not in words
    place.clear()
    words = texts(_Panel(vm).draw_place_dice(place))
    assert "Drag a die onto the slot it goes on, or tap the die, then the slot." in words


def _drags_and_targets(panel, place):
    """The placing step drawn: its Draggable dice by the index they carry, its DragTarget slots."""
    drawn = list(every_control(panel.draw_place_dice(place)))
    drags = {c.data: c for c in drawn if isinstance(c, ft.Draggable)}
    return drags, [c for c in drawn if isinstance(c, ft.DragTarget)]


class _Drop:
    """What Flet hands a DragTarget's ``on_accept``: the dragged control as ``src``."""

    def __init__(self, src):
        self.src = src


def test_the_place_step_drags_every_die_onto_every_slot(game_dir):
    """Each die on screen (placed or not) is a Draggable carrying its index, each slot a
    DragTarget of the same group; a drop on a slot is ``move``, the taps stay."""
    vm, dice, place = _by_hand(game_dir)
    assert not place.from_photo
    place.put(2)  # the first die on slot 3 by two taps
    panel = _Panel(vm)
    drags, targets = _drags_and_targets(panel, place)
    assert sorted(drags) == [0, 1, 2, 3] and len(targets) == 4
    assert {c.group for c in (*drags.values(), *targets)} == {PLACE_GROUP}
    assert all(c.on_accept is not None for c in targets)
    # a die's feedback under the finger has no accessible name: the screen reader hears the die once
    assert all(not isinstance(c.content_feedback, ft.Semantics) for c in drags.values())
    assert [[t for t in texts(c) if t.startswith("die ")] for c in targets][2] == [f"die {dice[0][0]} {dice[0][1]}"]
    targets[0].on_accept(_Drop(drags[3]))  # an unplaced die onto slot 1
    assert place.slots == [2, None, None, 0]
    drags, targets = _drags_and_targets(panel, place)
    targets[0].on_accept(_Drop(drags[0]))  # a placed die onto a taken slot: that die goes back
    assert place.slots == [0, None, None, None] and place.selected == 1
    targets[1].on_accept(_Drop(None))  # a drop whose source is gone: nothing
    targets[1].on_accept(object())
    assert place.slots == [0, None, None, None] and place.selected == 1


def test_a_layout_of_another_round_is_not_used(game_dir):
    """A page's photo of an earlier round (a shared game: this round's dice entered on another
    phone) never places this round's dice, even the same dice."""
    from companion.app.game.dice_vm import PlaceDiceStep

    vm, reader, step = _roll_step(game_dir)
    place = _photo_read(vm, reader, step, _dice(step, 4), (20, 110, 200, 290))
    assert place.from_photo and PlaceDiceStep(vm).from_photo  # built again (an undo): placed again
    vm.photo_layout = (vm.state.round - 1,) + vm.photo_layout[1:]
    again = PlaceDiceStep(vm)
    assert not again.from_photo and again.slots == [None] * 4
