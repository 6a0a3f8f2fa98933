"""Issue 39, items 7 and 2: an expedition completed by a bonus it reaches, and one it does not.

FAQ (EN p.24): "you can only choose to take an Action if you can complete the entire Action...
However, if a bonus granted by that Action would allow you to complete it, then you may do so."
Quentin's example: the reputation of an expedition to America gives him an animal of his choice;
"He chooses an Animal from America, which allows him to complete his Expedition Action."
DIGEST §4: "...and then the action must really be completed: an expedition that places no
cube is refused, whatever bonus it passed on the way."
"""

from companion.actions import Academy, Bank, ChooseAnimal, ChooseExpert, Expedition, Research, TakeDie
from companion.errors import ExpeditionError

from rulekit import animal, setup

BANK_DICE = [("green", 2), ("blue", 2), ("purple", 3), ("green", 4)]


def test_an_expedition_completed_by_the_expert_the_track_gives_is_accepted():
    # item 7: a red 1 on the first America space (+3 reputation, +0) takes the player from 3 to
    # 6, an expert; Renell Victorie (+2 to America expeditions) in the display makes it 3
    t = setup(experts=["Renell Victorie"], display=[animal("africa", name="Af"), animal("america", name="Am")],
              picks=[2, 3, 1, 4], dice={0: [("yellow", 5), ("red", 1), ("green", 1), ("green", 2)], 1: BANK_DICE})
    s = t.seat(0)
    am = t.card("Am")
    assert am in s.animals
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("Af")))
    assert s.rep == 3
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "america"))  # refused before: nothing to research with 1
    assert t.p.kind == "choose_expert" and t.p.seat == 0
    t.do(ChooseExpert(0, "Renell Victorie"))
    assert t.p.kind == "research" and t.p.value == 3
    t.do(Research(0, ((am, "mammal"),)))
    assert s.cubes[am] == ["mammal"]


def _rep_5(refill, die):
    """Seat 0 at reputation 5 (Academy 3 + 2), no American animal, ``die`` in hand; the
    display holds ``refill`` (an expedition to America from there reaches 6 and 8: an expert,
    end-game fillers only, and an animal)."""
    t = setup(display=[animal("africa", name="Af1"), animal("africa", name="Af2")], picks=[2, 3, 4, 5],
              refill=refill, dice={0: [("yellow", 5), ("yellow", 3), die, ("green", 1)], 1: BANK_DICE})
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("Af1")))
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.do(TakeDie(0, 0, 1), Academy(0, t.card("Af2")))
    t.do(TakeDie(1, 1, 1), Bank(1))
    assert s.rep == 5 and not any(t.st.cards[c].continent == "america" for c in s.animals)
    t.do(TakeDie(0, 0, 2))
    return t


def test_refused_when_no_animal_of_that_continent_can_be_had():
    # item 2: the bonus reaches an animal, but the display holds no American animal
    t = _rep_5([animal("asia"), animal("asia"), animal("europe"), animal("europe")], ("red", 6))
    t.refuse(Expedition(0, "america"), ExpeditionError, "America")


def test_refused_when_the_value_could_not_pay_for_a_cube_even_on_a_bonus_animal():
    # item 2: a red 1 is worth 1; the cheapest cube (Type I) costs 2
    t = _rep_5([animal("america", name="Am"), animal("asia"), animal("europe"), animal("europe")], ("red", 1))
    t.refuse(Expedition(0, "america"), ExpeditionError, "America")


def test_the_bonus_animal_must_be_one_that_completes_the_expedition():
    # item 2: "He chooses an Animal from America, which allows him to complete his Expedition"
    t = _rep_5([animal("america", name="Am"), animal("africa", name="Af3"), animal("europe"), animal("europe")],
               ("red", 6))
    s = t.seat(0)
    t.do(Expedition(0, "america"))
    assert t.p.kind == "choose_expert"
    t.choose_first()  # an end-game filler: no help
    assert t.p.kind == "choose_animal" and t.p.reason == "reputation"
    t.refuse(ChooseAnimal(0, t.card("Af3")), ExpeditionError, "America")
    t.do(ChooseAnimal(0, t.card("Am")))
    t.refuse(Research(0, ()), ExpeditionError)  # the action must be completed
    t.do(Research(0, ((t.card("Am"), "mammal"), (t.card("Am"), "herbivore"))))
    assert len(s.cubes[t.card("Am")]) == 2
