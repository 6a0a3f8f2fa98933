"""Issue 39: the game screen offers exactly what the engine now allows."""

from __future__ import annotations

from companion.actions import Spend, TakeDie
from companion.app.game.turn_vm import TurnStep

from issue39_kit import FakeVM, rulekit


def _publish_draft(vm):
    turn = TurnStep(vm)
    opt = next(o for o in turn.options() if o.kind == "publish" and o.action.reference == vm.table.card("Aix galericulata"))
    return turn, turn.open(opt.index)


def test_publication_types_start_at_the_die_and_only_raise_it():
    # item 3: "Starting with the Category of the highest Type you can publish, you must take
    # the corresponding Research cube" (EN p.15): Eric's blue 4 starts at Type II
    t, c = rulekit.eric_game()
    vm = FakeVM(t)
    turn, d = _publish_draft(vm)
    assert sorted(d.publishable()) == [2, 3, 4]
    d.set_up_to(1)  # not offered: nothing changes
    assert d.action.spend == Spend() and d.action.up_to is None and d.top_type() == 2
    d.set_up_to(3)
    assert d.action.spend == Spend(coins=1) and d.action.up_to is None and d.top_type() == 3
    assert d.result()[0]
    d.set_up_to(2)
    assert d.action.spend == Spend() and d.result()[0]
    assert d.confirm() and vm.state.seats[0].pub_cubes == {"omnivore": 1, "bird": 1}


def test_a_one_shot_expert_is_offered_on_the_bonus_step_of_ones_own_turn():
    # item 6: "can be activated at any time during your turn" (EN p.10)
    from companion.app.game.cards_vm import ChooseExpertStep
    from test_rules_issue39_oneshot import ONE_SHOT, _at_own_bonus_step

    t = _at_own_bonus_step()
    vm = FakeVM(t)
    step = ChooseExpertStep(vm)
    assert step.one_shots() == [ONE_SHOT]
    coins = vm.state.seats[0].coins
    assert step.use_expert(ONE_SHOT) and vm.state.seats[0].coins == coins + 5
    again = ChooseExpertStep(vm)
    assert again.one_shots() == [] and again.pending.kind == "choose_expert"


def test_placing_a_new_expert_under_is_offered_when_every_slot_is_taken():
    # item 1: "you can cover an existing Expert card or place it under an existing Expert card"
    from companion.app.game.cards_vm import ChooseExpertStep
    from test_rules_issue39_under import FOUR, _four_face_up

    t = _four_face_up("expert")
    vm = FakeVM(t)
    while vm.state.pending.kind == "choose_expert" and vm.state.pending.seat != 0:
        t.choose_first()
    step = ChooseExpertStep(vm)
    assert step.needs_slot()
    name = step.names()[0]
    assert step.take(name, under=True), vm.error
    s = vm.state.seats[0]
    assert s.face_up == list(FOUR) and name in s.experts


def test_the_university_draft_places_under():
    from test_rules_issue39_under import FOUR, _four_face_up

    t = _four_face_up()
    t.roll()
    if t.p.seat != 0:
        t.do(TakeDie(1, 1, 0), rulekit.Bank(1))
    vm = FakeVM(t)
    turn = TurnStep(vm)
    assert turn.select_die(0, 0, 0)
    unders = [o for o in turn.options() if o.kind == "university" and o.action.under]
    assert unders and all(vm.t("g.res.under") in o.result for o in unders)
    cover = next(o for o in turn.options() if o.kind == "university" and o.action.slot == 1)
    d = turn.open(cover.index)
    d.set_under()
    assert d.action.under and d.action.slot is None and d.result()[0]
    d.set_slot(2)
    assert not d.action.under and d.action.slot == 2
    d.set_under()
    assert d.confirm() and vm.state.seats[0].face_up == list(FOUR)


def test_the_coins_a_placement_gives_may_raise_the_same_die_in_the_draft():
    # item 4: Gao Zhelan's 3 coins arrive when the die is placed on the Publication
    from test_rules_issue39_placement_coins import _gao_and_a_blue_1

    t, ref = _gao_and_a_blue_1()
    vm = FakeVM(t)
    turn = TurnStep(vm)
    opt = next(o for o in turn.options() if o.kind == "publish" and o.action.reference == ref)
    d = turn.open(opt.index)
    assert d.limits()["coins"] == 1 + 3
    d.set_spend(coins=4)
    assert d.top_type() == 3 and d.result()[0]
    assert d.confirm() and vm.state.seats[0].coins == 0


def test_the_bonus_animal_offered_is_one_that_completes_the_expedition():
    # items 2/7: the FAQ allows the expedition because the bonus completes it
    from companion.actions import Expedition
    from companion.app.game.cards_vm import ChooseAnimalStep
    from rulekit import animal
    from test_rules_issue39_expedition_bonus import _rep_5

    t = _rep_5([animal("america", name="Am"), animal("africa", name="Af3"), animal("europe"), animal("europe")],
               ("red", 6))
    t.do(Expedition(0, "america"))
    t.choose_first()
    vm = FakeVM(t)
    step = ChooseAnimalStep(vm)
    assert step.cards() == [t.card("Am")]


def test_out_of_cubes_the_research_screen_offers_the_five_cubes_swap():
    # item 5: "you can always free some up by replacing 5 of your cubes on a Publication space
    # with a '5 cubes' token"
    from companion.actions import Expedition
    from companion.app.game.turn_vm import ResearchStep
    from test_rules_issue39_cube_supply import _table

    t, s = _table({"bird": 30})
    t.do(Expedition(0, "oceania"))
    vm = FakeVM(t)
    step = ResearchStep(vm)
    a1 = s.animals[0]
    assert step.cubes_left() == 0 and step.out_of_cubes() and step.swaps() == ["bird"]
    step.toggle(a1, "mammal")
    assert step.chosen == []  # no cube to place yet
    assert step.swap("bird") and vm.notes
    step = ResearchStep(vm)
    assert step.cubes_left() == 5 and not step.out_of_cubes()
    step.toggle(a1, "mammal")
    assert step.result()[0] and step.submit()
    assert vm.state.seats[0].cubes[a1] == ["mammal"]
