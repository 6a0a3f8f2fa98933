"""Sepultus Creatura (DIGEST §7, EN p.20): Academy with a die of exactly the printed value (any
colour, reputation as usual), research during an expedition to ANY continent at the printed
cost (one cube, on a listed category), never a reference, its cube counts in a publication of
a matching category and the card is kept as the reference's continent, a wildcard at the end,
invisible to the automa."""

from companion.actions import (
    Academy, AutomaAction, ChooseAnimal, DrawAnimal, Embassy, Expedition, Publish, Research,
    RevealAnimal, SeatConfig, Spend, TakeDie,
)
from companion.errors import (
    BadActionError, CardUnavailableError, ChanceError, DieValueError, ExpeditionError,
    PublicationError,
)
from companion.engine import preview_publication, score_inputs

from rulekit import Table, animal, automa_seat, sepultus, setup

BONES = sepultus(3, 5, "bird", "aquatic", name="Bones")


def bones_table(dice0, token="nothing", **kw):
    display = [BONES, animal("asia", "bird", "omnivore", "aquatic", "hot", "Heron"),
               animal("europe", "mammal", "carnivore", "terrestrial", "cold", "Wolf")]
    return setup(sepultus=True, display=display, picks=[3, 4, 1, 2], token=token,
                 dice={0: dice0, 1: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]}, **kw)


def test_sepultus_card_needs_the_sepultus_game_and_its_printed_values():
    t = Table().start().reveal_experts()
    t.refuse(sepultus(3, 5, "bird"), ChanceError, "sepultus")
    t = Table().start(sepultus=True).reveal_experts()
    t.refuse(RevealAnimal(None, "x", ("bird",), True, None, 5), BadActionError, "die value")
    t.refuse(RevealAnimal(None, "x", ("bird",), True, 3, None), BadActionError, "expedition value")
    t.refuse(RevealAnimal("asia", "x", ("bird",), True, 3, 5), BadActionError, "continent")
    t.refuse(RevealAnimal(None, "x", ("dragon",), True, 3, 5), BadActionError, "dragon")


def test_academy_exact_value_any_colour_reputation_as_usual():
    t = bones_table([("green", 4), ("yellow", 2), ("green", 1), ("green", 2)])
    bones = t.card("Bones")
    t.do(TakeDie(0, 0, 0))
    t.refuse(Academy(0, bones), DieValueError, "exactly 3")
    t.do(Embassy(0))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1))
    t.refuse(Academy(0, bones), DieValueError, "1 coin")
    t.do(Academy(0, bones, Spend(coins=1)))  # yellow 2 + 1 = 3: any colour
    s = t.seat(0)
    assert bones in s.animals and s.rep == 2


def test_expedition_to_any_continent_one_cube_at_the_printed_cost():
    # Heron (Asia) and Bones under study; an expedition to Oceania can research the Bones only
    t = bones_table([("green", 3), ("yellow", 3), ("green", 5), ("purple", 6)])
    bones, heron = t.card("Bones"), t.card("Heron")
    t.do(TakeDie(0, 0, 0), Academy(0, bones))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 2), Expedition(0, "oceania"))  # green 5: exactly the printed 5
    t.refuse(Research(0, ((bones, "mammal"),)), ExpeditionError, "bird")
    t.refuse(Research(0, ((bones, "bird"), (bones, "aquatic"))), ExpeditionError, "only one")
    t.refuse(Research(0, ((heron, "bird"),)), ExpeditionError, "asia")
    vp = t.seat(0).vp
    t.do(Research(0, ((bones, "aquatic"),)))
    assert t.seat(0).cubes[bones] == ["aquatic"]
    assert t.seat(0).vp == vp  # DIGEST silent; engine: a Sepultus card prints no placement VP


def test_sepultus_and_continent_animals_in_the_same_expedition():
    t = bones_table([("green", 3), ("purple", 6), ("green", 1), ("green", 2)], token="coins")
    bones, heron = t.card("Bones"), t.card("Heron")
    t.do(TakeDie(0, 0, 0), Academy(0, bones))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia", Spend(coins=1)))  # 7 = 5 + 2
    t.do(Research(0, ((bones, "bird"), (heron, "bird"))))
    assert t.seat(0).cubes == {bones: ["bird"], heron: ["bird"]}


def test_sepultus_never_reference_its_cube_counts_and_it_is_kept_as_the_references_continent():
    t = bones_table([("green", 3), ("purple", 6), ("purple", 5), ("green", 2)], token="coins")
    bones, heron = t.card("Bones"), t.card("Heron")
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Academy(0, bones))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia", Spend(coins=1)))
    t.do(Research(0, ((bones, "bird"), (heron, "bird"))))
    t.do(TakeDie(1, 1, 1), Embassy(1))
    t.do(TakeDie(0, 0, 2))
    t.refuse(Publish(0, bones, Spend(colour="green")), PublicationError, "reference")
    act = Publish(0, heron, extra=((bones, "bird"),))
    pv = preview_publication(t.st, act)
    assert pv.cubes_by_category == {"bird": 2}
    assert set(pv.kept) == {heron, bones} and pv.discarded == ()
    t.do(act)
    assert set(s.published) == {heron, bones}
    inp = score_inputs(t.st)[0]
    assert inp.sepultus == 1
    assert {k: v for k, v in inp.published.items() if v} == {"asia": 1}


def test_sepultus_cube_of_a_category_the_reference_does_not_publish_is_refused():
    t = bones_table([("green", 3), ("purple", 6), ("purple", 5), ("green", 2)], token="coins")
    bones, heron = t.card("Bones"), t.card("Heron")
    t.do(TakeDie(0, 0, 0), Academy(0, bones))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia", Spend(coins=1)))
    t.do(Research(0, ((bones, "aquatic"), (heron, "bird"))))
    t.do(TakeDie(1, 1, 1), Embassy(1))
    t.do(TakeDie(0, 0, 2))
    # Heron carries no aquatic cube: the Bones' aquatic cube cannot be published with it
    t.refuse(Publish(0, heron, extra=((bones, "aquatic"),)), PublicationError, "aquatic")


def test_automa_never_takes_a_sepultus_card():
    display = [BONES] + [animal("oceania", name=f"o{i}") for i in range(5)]
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Carl")], sepultus=True, display=display,
              picks=[1, 2, 3, 4], dice={1: [("green", 6), ("blue", 1), ("blue", 2), ("blue", 3)]})
    bones = t.card("Bones")
    t.do(TakeDie(0, 0, 0), Embassy(0))
    slot = next(i for i, sl in enumerate(t.seat(1).slots) if sl == [("green", 6)])
    t.do(TakeDie(1, 1, slot), AutomaAction(1))  # Carl, 6: Academy
    assert t.p.kind == "choose_animal" and t.p.seat == 1
    t.refuse(ChooseAnimal(1, bones), CardUnavailableError, "sepultus")


def test_automa_deck_draw_sets_a_sepultus_aside_and_draws_again():
    # only Sepultus cards left in the display: for the automa it is empty -> top of the deck
    t = Table().start(seats=[SeatConfig("Hugo"), automa_seat("Carl")], sepultus=True)
    t.reveal_experts()
    t.reveal_animals([sepultus(1, 2, "bird", name=f"S{i}") for i in range(5)] + [animal("asia", name="Yak0")])
    # the automa drafts first (last seat first)
    assert t.p.kind == "choose_animal" and t.p.seat == 1 and not t.p.from_deck
    t.refuse(ChooseAnimal(1, t.card("S0")), CardUnavailableError, "sepultus")
    t.do(ChooseAnimal(1, t.card("Yak0")))
    assert t.p.kind == "choose_animal" and t.p.seat == 1 and t.p.from_deck
    t.do(DrawAnimal(1, None, "Skull", ("reptile",), True, 2, 4))
    assert t.p.kind == "choose_animal" and t.p.seat == 1  # set aside, draws again
    assert t.card("Skull") in t.st.set_aside
    t.do(DrawAnimal(1, "asia", "Yak", ("mammal", "herbivore", "terrestrial", "cold")))
    assert t.seat(1).animals == [t.card("Yak0"), t.card("Yak")]
    # a human may take a Sepultus card with a free choice (engine interpretation 5)
    assert t.p.kind == "choose_animal" and t.p.seat == 0 and not t.p.from_deck
    t.do(ChooseAnimal(0, t.card("S0")))
