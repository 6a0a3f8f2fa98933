"""Publication, DIGEST §4 in every detail (EN p.14-16 and the FAQ).

All but the first test start from Eric's table (rulekit.eric_game): blue 4 in hand; under study
Aix galericulata (Europe: bird, omnivore, aquatic, temperate; cubes bird/omnivore/aquatic), E2
(Europe, same categories and cubes), E3 (Europe: bird, omnivore, aquatic, cold; cubes
bird/omnivore), N1 (Africa: bird, carnivore, aquatic, hot; cubes bird/aquatic), N2 (Asia:
bird, herbivore, arboreal, hot; cubes bird/arboreal); 5 coins, 1 token, 1 seal.
"""

from companion.actions import Bank, Publish, Spend, TakeDie
from companion.errors import (
    BadActionError, CardUnavailableError, DieValueError, NotEnoughError, PublicationError,
    WrongColourError,
)
from companion.engine import preview_publication, publishable_types, score_inputs

from rulekit import animal, eric_game, setup


def test_die_value_1_cannot_publish_value_2_publishes_the_card_only():
    # an animal with no cube may be published (EN p.16 note; FAQ): Type 0, 1 VP, 1 seal
    t = setup(display=[animal("america", name="Bison")], picks=[1, 2, 0, 3],
              dice={0: [("red", 1), ("green", 1), ("green", 2), ("green", 3)]})
    s = t.seat(0)
    bison = t.card("Bison")
    t.do(TakeDie(0, 0, 0))
    t.refuse(Publish(0, bison), DieValueError, "2")
    vp, seals = s.vp, s.seals
    t.do(Publish(0, bison, Spend(coins=1)))
    assert s.published == [bison] and bison not in s.animals
    assert s.vp == vp + 1 and s.seals == seals + 1


def test_publishable_types_by_die_value():
    t, c = eric_game()
    types = publishable_types(t.st, 0, c["aix"])
    # blue 4: Type II free (a publication starts there, issue 39); III needs 1 coin, IV 2 coins
    assert set(types) == {2, 3, 4}
    assert types[2] == Spend() and types[3].coins == 1 and types[4].coins == 2


def test_value_decides_the_highest_type_and_the_reference_cubes_are_published_automatically():
    t, c = eric_game()
    s = t.seat(0)
    vp = s.vp
    t.do(Publish(0, c["aix"]))  # value 4: Type II omnivore, Type I bird, Type 0
    assert s.pub_cubes == {"omnivore": 1, "bird": 1}
    assert s.vp == vp + 3 + 2 + 1
    assert s.published == [c["aix"]]
    # the aquatic cube (Type III, above the die) stays on the published card: lost
    assert s.cubes_lost == 1 + 0 and c["aix"] not in s.cubes


def test_other_cards_are_optional_and_stay_under_study_with_their_cubes():
    # FAQ: you may leave some cards out for a later publication
    t, c = eric_game()
    s = t.seat(0)
    t.do(Publish(0, c["aix"], Spend(coins=1), extra=((c["e2"], "aquatic"),)))
    assert s.pub_cubes == {"aquatic": 2, "omnivore": 1, "bird": 1}
    assert sorted(s.published) == sorted([c["aix"], c["e2"]])
    assert sorted(s.animals) == sorted([c["e3"], c["n1"], c["n2"]])
    assert sorted(s.cubes[c["e3"]]) == ["bird", "omnivore"]
    assert sorted(s.cubes[c["n1"]]) == ["aquatic", "bird"]
    # E2 gave a cube: kept, and its other cubes (bird, omnivore) are lost
    assert s.cubes_lost == 2


def test_only_the_references_categories():
    t, c = eric_game()
    t.refuse(Publish(0, c["aix"], Spend(coins=1), extra=((c["n2"], "arboreal"),)),
             PublicationError, "arboreal")


def test_no_cube_on_the_reference_no_cube_of_that_type():
    # E3 carries no aquatic cube: with E3 as reference no aquatic cube can be published
    t, c = eric_game()
    t.refuse(Publish(0, c["e3"], Spend(coins=1), extra=((c["aix"], "aquatic"),)),
             PublicationError, "no aquatic cube")
    pv = preview_publication(t.st, Publish(0, c["e3"], Spend(coins=1), extra=((c["aix"], "bird"),)))
    assert pv.cubes_by_category == {"omnivore": 1, "bird": 2}


def test_extra_cube_must_exist_on_that_card():
    t, c = eric_game()
    t.refuse(Publish(0, c["aix"], Spend(coins=1), extra=((c["e3"], "aquatic"),)),
             PublicationError, "carries no aquatic cube")


def test_extra_cube_listed_twice_or_the_reference_itself():
    t, c = eric_game()
    t.refuse(Publish(0, c["aix"], extra=((c["e2"], "bird"), (c["e2"], "bird"))), PublicationError, "twice")
    t.refuse(Publish(0, c["aix"], extra=((c["aix"], "bird"),)), PublicationError, "reference")


def test_extra_cube_from_another_continent_counts_and_its_card_is_discarded():
    t, c = eric_game()
    s = t.seat(0)
    pv = preview_publication(t.st, Publish(0, c["aix"], extra=((c["n2"], "bird"),)))
    assert pv.cubes_by_category == {"omnivore": 1, "bird": 2}
    assert pv.kept == (c["aix"],) and pv.discarded == (c["n2"],)
    # Aix aquatic (above Type II) and N2 arboreal are lost
    assert pv.cubes_lost == 2
    t.do(Publish(0, c["aix"], extra=((c["n2"], "bird"),)))
    assert c["n2"] in t.st.discarded_animals and c["n2"] not in s.published


def test_keep_cards_of_the_same_continent_without_cubes():
    t, c = eric_game()
    s = t.seat(0)
    pv = preview_publication(t.st, Publish(0, c["aix"], keep=(c["e3"],)))
    assert pv.vp_by_type[0] == 2 and set(pv.kept) == {c["aix"], c["e3"]}
    assert pv.cubes_lost == 1 + 2  # Aix aquatic, E3 bird + omnivore
    t.refuse(Publish(0, c["aix"], keep=(c["n1"],)), PublicationError, "europe")
    e4 = t.card("E4")  # in the display, not Eric's
    t.refuse(Publish(0, c["aix"], keep=(e4,)), CardUnavailableError)
    t.refuse(Publish(0, c["aix"], keep=(c["aix"],)), PublicationError)
    t.do(Publish(0, c["aix"], keep=(c["e3"],)))
    assert sorted(s.published) == sorted([c["aix"], c["e3"]])


def test_reference_colour_must_match_token_changes_it():
    t, c = eric_game()
    s = t.seat(0)
    t.refuse(Publish(0, c["n1"]), WrongColourError, "yellow")
    # N1 (Africa) as reference: yellow by token, +1 coin -> 5; the aquatic cubes of the two
    # European cards are published with it, and those cards are discarded
    act = Publish(0, c["n1"], Spend(coins=1, colour="yellow"),
                  extra=((c["aix"], "aquatic"), (c["e2"], "aquatic"), (c["e3"], "bird")))
    pv = preview_publication(t.st, act)
    assert pv.cubes_by_category == {"aquatic": 3, "bird": 2}
    assert pv.vp == 15 + 4 + 1
    assert pv.kept == (c["n1"],) and set(pv.discarded) == {c["aix"], c["e2"], c["e3"]}
    tokens = s.tokens
    t.do(act)
    assert s.tokens == tokens - 1
    assert s.animals == [c["n2"]]


def test_reference_must_be_under_study():
    t, c = eric_game()
    t.refuse(Publish(0, t.card("E4")), CardUnavailableError)
    t.refuse(Publish(0, 999), CardUnavailableError)


def test_publication_spend_checks():
    t, c = eric_game()
    t.refuse(Publish(0, c["aix"], Spend(coins=6)), NotEnoughError, "coin")
    t.refuse(Publish(0, c["aix"], Spend(tokens=1)), BadActionError, "expedition")


def test_seal_coins_in_the_same_action():
    # a seal discarded for 5 coins can pay the publication's coins at once
    t, c = eric_game()
    s = t.seat(0)
    t.do(Publish(0, c["aix"], Spend(coins=7, seals_for_coins=1)))  # 4 + 7 = 11: up to IV
    assert s.coins == 5 + 5 - 7
    assert s.seals == 1 - 1 + 1


def test_published_cubes_and_cards_reach_the_final_scoring_inputs():
    from rulekit import eric_extra
    t, c = eric_game()
    t.do(Publish(0, c["aix"], Spend(coins=1), extra=eric_extra(c)))
    inp = score_inputs(t.st)[0]
    assert {k: v for k, v in inp.cubes.items() if v} == {"aquatic": 3, "omnivore": 3, "bird": 5}
    assert {k: v for k, v in inp.published.items() if v} == {"europe": 3}
    assert inp.sepultus == 0


def test_a_second_publication_later_with_the_cards_left():
    t, c = eric_game()
    s = t.seat(0)
    t.do(Publish(0, c["aix"], extra=((c["e2"], "omnivore"),)))
    assert c["e3"] in s.animals
    # end of round 2 -> round 3: E3 published on its own with a blue 3 (Type I bird)
    t.finish_turns()  # seat 1 is first on the Bank: it plays first in round 3
    t.new_round(dice={0: [("blue", 3), ("green", 1), ("green", 2), ("green", 3)],
                      1: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]})
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.do(TakeDie(0, 0, 0))
    vp = s.vp
    t.do(Publish(0, c["e3"]))
    assert s.vp == vp + 2 + 1
    assert s.pub_cubes["bird"] == 2 and s.pub_cubes["omnivore"] == 2
