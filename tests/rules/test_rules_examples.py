"""The rulebook's worked examples (DIGEST §1 list, EN page order), each played through the
actions a player enters at the table.

Jeremie's final count (188) is a scoring-table example; it is covered from the score inputs in
tests/scoring. Here the engine side of final scoring is covered in test_round_and_end.py.
"""


from companion.actions import (
    Academy, AutomaAction, Bank, Embassy, Expedition, PlaceDice, Publish, Research, RollDice,
    Spend, TakeDie, University,
)
from companion.errors import ExpeditionError
from companion.engine import die_options, preview_publication

from rulekit import SeatConfig, animal, automa_seat, eric_extra, eric_game, setup


def test_embassy_die_5_gives_3_tokens():
    # EN p.8: "Eric places a 5 die on the Embassy location. He earns 3 Expedition Tokens."
    t = setup(dice={0: [("red", 5), ("yellow", 1), ("purple", 1), ("blue", 1)]})
    tokens = t.seat(0).tokens
    t.do(TakeDie(0, 0, 0), Embassy(0))
    assert t.seat(0).tokens == tokens + 3
    assert t.st.central["red"] == 1  # the die sits on the central board


def test_bank_georgina_takes_first_player_token_order_unchanged():
    # EN p.9: Georgina (not first player) is the first on the Bank this round: +5 coins and the
    # First Player token (from Olivier); this round's order is unchanged.
    t = setup(seats=[SeatConfig("Olivier"), SeatConfig("Georgina"), SeatConfig("Joelle")], first=0)
    g = t.seat(1)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    coins = g.coins
    t.do(TakeDie(1, 1, 0), Bank(1))
    assert g.coins == coins + 5
    assert t.st.first_player == 1
    # the order of this round goes on clockwise from Olivier: Joelle plays next, then Olivier
    assert t.p.kind == "take_die" and t.p.seat == 2
    t.do(TakeDie(2, 2, 0), Bank(2))  # a second Bank die does not move the token again
    assert t.st.first_player == 1
    assert t.p.seat == 0


def test_choose_die_jeremie_takes_joelles_red_4_from_reputation_slot():
    # EN p.7: Jeremie takes the red 4 from Joelle's Reputation slot: Joelle immediately gains
    # 2 Reputation points (and reaching space 2 gives her its bonus: 1 expedition token).
    t = setup(seats=[SeatConfig("Jeremie"), SeatConfig("Joelle")],
              dice={1: [("green", 1), ("yellow", 2), ("red", 4), ("purple", 6)]})
    jo = t.seat(1)
    assert jo.slots[2] == [("red", 4)]
    tokens = jo.tokens
    t.do(TakeDie(0, 1, 2))
    assert jo.rep == 2
    assert jo.tokens == tokens + 1
    assert t.p.kind == "action" and t.p.die == ("red", 4)


def test_university_jamie_green_die_egbert_rensing_gives_a_token():
    # EN p.9: Jamie's green die recruits Egbert Rensing (Oceania): +1 expedition token.
    t = setup(seats=[SeatConfig("Jamie"), SeatConfig("Eve")], experts=["Egbert Rensing"],
              dice={0: [("green", 2), ("yellow", 1), ("purple", 1), ("blue", 1)]})
    j = t.seat(0)
    tokens = j.tokens
    t.do(TakeDie(0, 0, 0), University(0, "Egbert Rensing"))
    assert j.face_up[0] == "Egbert Rensing"
    assert "Egbert Rensing" in j.experts
    assert j.tokens == tokens + 1
    assert "Egbert Rensing" not in t.st.expert_display


def test_academy_joelle_purple_4_token_to_yellow_coin_to_5_gains_3_reputation():
    # EN p.10: purple 4, 1 token to make it yellow (Lemur catta, Africa), 1 coin -> value 5
    # -> 3 Reputation points.
    t = setup(seats=[SeatConfig("Joelle"), SeatConfig("Jeremie")],
              display=[animal("africa", "mammal", "herbivore", "arboreal", "hot", "Lemur catta")],
              picks=[1, 2, 3, 4],
              dice={0: [("purple", 4), ("yellow", 1), ("red", 1), ("blue", 1)]})
    jo = t.seat(0)
    lemur = t.card("Lemur catta")
    assert (jo.coins, jo.tokens, jo.rep) == (1, 1, 0)
    t.do(TakeDie(0, 0, 0), Academy(0, lemur, Spend(coins=1, colour="yellow")))
    assert lemur in jo.animals and lemur not in t.st.animal_display
    assert jo.rep == 3
    assert jo.coins == 0
    # 1 token spent on the colour, 1 gained when reaching reputation space 2
    assert jo.tokens == 1


def test_expedition_olivier_africa_value_11():
    # EN p.13: red 5 changed to yellow with a token, second space of Africa (+1, and 2
    # reputation in IT/FR), +2 (1 token) +3 (3 coins) = 11 -> two Type I cubes and one Type III
    # cube on his two African animals, +3 VP for the Type III.
    display = [animal("africa", "mammal", "herbivore", "aquatic", "hot", "O1"),
               animal("africa", "bird", "carnivore", "terrestrial", "hot", "O2"),
               animal("africa", "reptile", "carnivore", "terrestrial", "hot", "A1")]
    t = setup(seats=[SeatConfig("Anna"), SeatConfig("Bob"), SeatConfig("Olivier")],
              display=display, picks=[0, 1, 3, 4, 2, 5], token="token",
              dice={0: [("yellow", 6), ("red", 1), ("purple", 1), ("green", 1)],
                    1: [("blue", 1), ("blue", 2), ("green", 3), ("green", 4)],
                    2: [("red", 5), ("purple", 2), ("purple", 3), ("blue", 3)]})
    o = t.seat(2)
    o1, o2, a1 = t.card("O1"), t.card("O2"), t.card("A1")
    assert o.animals == [o1, o2]
    assert (o.coins, o.tokens) == (3, 2)  # 3rd player: 3 coins; 1 token + round token
    # Anna takes the first African space
    t.do(TakeDie(0, 0, 0), Expedition(0, "africa"))
    t.do(Research(0, ((a1, "reptile"), (a1, "carnivore"))))
    t.do(TakeDie(1, 1, 0), Bank(1))
    vp = o.vp
    t.do(TakeDie(2, 2, 0), Expedition(2, "africa", Spend(coins=3, tokens=1, colour="yellow")))
    assert t.p.kind == "research" and t.p.value == 11 and t.p.continent == "africa"
    assert o.rep == 2  # second space: 2 reputation
    t.do(Research(2, ((o1, "mammal"), (o2, "bird"), (o1, "aquatic"))))
    assert o.vp == vp + 3
    assert sorted(o.cubes[o1]) == ["aquatic", "mammal"] and o.cubes[o2] == ["bird"]
    assert o.coins == 0
    # 2 tokens - 1 (colour) - 1 (+2) + 1 (reputation space 2 bonus)
    assert o.tokens == 1
    assert t.st.expedition["africa"] == 2


def test_publication_eric_aix_galericulata():
    # EN p.14-16: blue 4 + 1 coin = 5 -> up to Type III on the Aix galericulata: 3 aquatic
    # cubes 15 VP, 3 omnivore 9 VP, 5 bird 10 VP, 3 European cards 3 VP; the 2 cards of other
    # continents are discarded with their cubes (an arboreal cube is lost); 1 Royal Seal.
    t, c = eric_game()
    e = t.seat(0)
    assert sorted(e.animals) == sorted(c.values())
    assert e.cubes[c["n2"]] == ["bird", "arboreal"] or sorted(e.cubes[c["n2"]]) == ["arboreal", "bird"]
    pub = Publish(0, c["aix"], Spend(coins=1), extra=eric_extra(c))
    pv = preview_publication(t.st, pub)
    assert pv.vp == 37
    assert pv.vp_by_type == {0: 3, 1: 10, 2: 9, 3: 15}
    assert pv.cubes_by_category == {"aquatic": 3, "omnivore": 3, "bird": 5}
    assert sorted(pv.kept) == sorted([c["aix"], c["e2"], c["e3"]])
    assert sorted(pv.discarded) == sorted([c["n1"], c["n2"]])
    assert pv.cubes_lost == 1 and pv.seals == 1
    vp, seals, coins = e.vp, e.seals, e.coins
    t.do(pub)
    assert e.vp == vp + 37
    assert e.seals == seals + 1
    assert e.coins == coins - 1
    assert e.pub_cubes == {"aquatic": 3, "omnivore": 3, "bird": 5}
    assert sorted(e.published) == sorted([c["aix"], c["e2"], c["e3"]])
    assert e.animals == []
    assert c["n1"] in t.st.discarded_animals and c["n2"] in t.st.discarded_animals
    assert e.cubes == {}


def test_publication_eric_needs_5_for_type_iii():
    # the same die without the coin (value 4) publishes only up to Type II
    t, c = eric_game()
    from companion.errors import PublicationError
    t.refuse(Publish(0, c["aix"], extra=((c["e2"], "aquatic"),)), PublicationError, "Type III")
    pv = preview_publication(t.st, Publish(0, c["aix"], extra=((c["e2"], "omnivore"),)))
    # Type II omnivore x2 (6) + Type I bird x1 (2) + cards: Aix + E2 (2)
    assert pv.vp_by_type == {0: 2, 1: 2, 2: 6}


def quentin_table():
    """Quentin (seat 0) at reputation 5, no American animal, a red 4 on his board (slot 1)."""
    display = [animal("asia", "mammal", "herbivore", "terrestrial", "hot", "Q1"),
               animal("america", "bird", "carnivore", "arboreal", "hot", "Condor")]
    t = setup(seats=[SeatConfig("Quentin"), SeatConfig("Rita")], display=display,
              picks=[2, 3, 4, 5],
              dice={0: [("purple", 5), ("red", 4), ("yellow", 1), ("blue", 1)],
                    1: [("green", 1), ("green", 2), ("green", 3), ("green", 4)]})
    # Academy +3 reputation (space 3), then Rita takes his reputation-slot die: +2 -> 5
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("Q1")))
    t.do(TakeDie(1, 0, 2), Embassy(1))
    return t


def test_faq_quentin_expedition_completed_by_the_reputation_animal_bonus():
    # EN FAQ: Quentin goes to America with no American animal; the expedition's reputation
    # reaches the animal bonus (space 8); he takes an American animal and researches it.
    t = quentin_table()
    q = t.seat(0)
    condor = t.card("Condor")
    assert q.rep == 5 and not any(t.st.cards[a].continent == "america" for a in q.animals)
    t.do(TakeDie(0, 0, 1), Expedition(0, "america"))
    # passing 6 then reaching 8: the expert bonus, then the animal bonus, in track order
    assert q.rep == 8 and t.p.kind == "choose_expert" and t.p.seat == 0
    t.choose_first()
    assert t.p.kind == "choose_animal" and t.p.seat == 0
    from companion.actions import ChooseAnimal
    t.do(ChooseAnimal(0, condor))
    assert t.p.kind == "research" and t.p.value == 4
    t.do(Research(0, ((condor, "bird"),)))
    assert q.cubes[condor] == ["bird"]


def test_faq_quentin_expedition_is_offered_by_the_option_query():
    # issue 2 §4: die_options lists "which actions a die can do"; Quentin's legal expedition
    # must be among them, or the app cannot offer the FAQ move
    t = quentin_table()
    t.do(TakeDie(0, 0, 1))
    assert ("expedition", "america") in {(o.kind, o.target) for o in die_options(t.st, 0)}


def test_faq_expedition_without_animal_and_without_bonus_is_refused():
    t = setup(display=[animal("asia", name="Q1")], picks=[1, 2, 3, 4],
              dice={0: [("red", 4), ("yellow", 1), ("purple", 1), ("blue", 1)]})
    t.do(TakeDie(0, 0, 0))
    t.refuse(Expedition(0, "america"), ExpeditionError, "america")


def test_automa_carl_von_linne_value_5_university_one_token_whatever_colours():
    # EN p.23: Carl von Linné takes a 5 -> University: 1 expert, +1 expedition token, colours
    # never matter (and the board's own colour bonus is not applied).
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Carl")], experts=["Egbert Rensing"],
              dice={0: [("red", 1), ("red", 2), ("red", 3), ("yellow", 1)],
                    1: [("green", 5), ("blue", 1), ("blue", 2), ("blue", 3)]})
    a = t.seat(1)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    slot = next(i for i, sl in enumerate(a.slots) if sl == [("green", 5)])
    tokens = a.tokens
    t.do(TakeDie(1, 1, slot), AutomaAction(1))
    assert t.p.kind == "choose_expert" and t.p.seat == 1
    from companion.actions import ChooseExpert
    t.do(ChooseExpert(1, "Egbert Rensing"))  # green die, Oceania expert: still only +1
    assert a.tokens == tokens + 1
    assert "Egbert Rensing" in a.experts


def test_automa_dice_two_2s_lower_priority_further_left():
    # EN p.22: equal values -> the colour of lower priority goes further left.
    pri = ("europe", "america", "africa", "asia", "oceania")
    t = setup(seats=[SeatConfig("Hugo"), automa_seat("Carl", priority=pri)], roll=False)
    t.do(RollDice(0, (("red", 1), ("red", 2), ("red", 3), ("red", 4))), PlaceDice(0, (0, 1, 2, 3)))
    t.do(RollDice(1, (("blue", 2), ("green", 2), ("yellow", 6), ("purple", 1))))
    a = t.seat(1)
    # purple 1 | green 2 (Oceania, lowest priority) | blue 2 (Europe, highest) | yellow 6
    assert a.slots == [[("purple", 1)], [("green", 2)], [("blue", 2)], [("yellow", 6)]]
