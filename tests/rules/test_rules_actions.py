"""Each of the six actions, legal and illegal (DIGEST §1, §4; EN p.8-16), plus the turn's
"take a die" step. Every refusal is checked for its exact error class, a message that names
the problem, and an unchanged state."""

import pytest

from companion.actions import (
    Academy, Bank, ChooseExpert, Embassy, Expedition, Publish, Research, Spend, TakeDie, University,
)
from companion.errors import (
    BadActionError, CardUnavailableError, ExpeditionError, ExpertSlotError, NoSuchDieError,
    NotEnoughError, NotYourTurnError, WrongColourError,
)
from companion.engine import max_expedition_value

from rulekit import FILLER_EXPERTS, animal, setup, setup_six_in_the_display


def one_die(colour, value, **kw):
    """Seat 0 holds a (colour, value) die in hand, ready for its action."""
    t = setup(dice={0: [(colour, value), ("green", 1), ("green", 2), ("green", 3)],
                    1: [("red", 1), ("red", 2), ("yellow", 3), ("yellow", 4)]}, **kw)
    t.do(TakeDie(0, 0, 0))
    return t


# --------------------------------------------------------------------------- take a die


def test_action_before_taking_a_die_is_refused():
    t = setup()
    t.refuse(Embassy(0), NotYourTurnError, "take a die")


def test_taking_a_die_out_of_turn_is_refused():
    t = setup()
    t.refuse(TakeDie(1, 1, 0), NotYourTurnError, "seat 0")


def test_taking_a_missing_die_is_refused():
    t = setup()
    t.do(TakeDie(0, 0, 0), Bank(0))
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.refuse(TakeDie(0, 0, 0), NoSuchDieError, "slot 0")
    t.refuse(TakeDie(0, 1, 0), NoSuchDieError, "slot 0")


def test_a_second_action_with_the_same_die_is_refused():
    t = one_die("red", 5)
    t.do(Embassy(0))
    t.refuse(Bank(0), NotYourTurnError)


def test_same_action_several_times_in_a_round_is_allowed():
    # EN p.8: "You may perform the same action multiple times during a round."
    t = setup()
    for _ in range(2):
        t.do(TakeDie(0, 0, t.seat(0).slots.index(next(s for s in t.seat(0).slots if s))), Embassy(0))
        t.do(TakeDie(1, 1, t.seat(1).slots.index(next(s for s in t.seat(1).slots if s))), Embassy(1))
    assert t.st.round == 1


# --------------------------------------------------------------------------- Embassy


@pytest.mark.parametrize("value,tokens", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_embassy_tokens_by_value(value, tokens):
    t = one_die("purple", value)
    before = t.seat(0).tokens
    t.do(Embassy(0))
    assert t.seat(0).tokens == before + tokens


def test_embassy_colour_does_not_matter_and_coins_raise_the_value():
    t = one_die("green", 4)
    before = t.seat(0).tokens
    t.do(Embassy(0, Spend(coins=1)))  # 4 + 1 = 5 -> 3 tokens
    assert t.seat(0).tokens == before + 3
    assert t.seat(0).coins == 0


def test_embassy_beyond_6_still_3_tokens():
    t = one_die("green", 6, token="coins")
    before = t.seat(0).tokens
    t.do(Embassy(0, Spend(coins=3)))
    assert t.seat(0).tokens == before + 3


def test_embassy_more_coins_than_owned_is_refused():
    t = one_die("green", 4)
    t.refuse(Embassy(0, Spend(coins=2)), NotEnoughError, "coin")


def test_embassy_token_plus_two_is_only_for_expeditions():
    t = one_die("green", 4)
    t.refuse(Embassy(0, Spend(tokens=1)), BadActionError, "expedition")


def test_embassy_by_the_wrong_seat_is_refused():
    t = one_die("green", 4)
    t.refuse(Embassy(1), NotYourTurnError)


# --------------------------------------------------------------------------- Bank


def test_bank_five_coins_whatever_the_die():
    t = one_die("yellow", 1)
    before = t.seat(0).coins
    t.do(Bank(0))
    assert t.seat(0).coins == before + 5


def test_bank_first_player_keeps_token_and_claim_is_spent():
    t = setup(first=0)
    t.do(TakeDie(0, 0, 0), Bank(0))  # the first player is first on the Bank: keeps it
    assert t.st.first_player == 0
    t.do(TakeDie(1, 1, 0), Bank(1))  # the Bank was already claimed this round
    assert t.st.first_player == 0


def test_bank_claim_counts_next_round_dice_and_turns():
    t = setup(first=0)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    t.do(TakeDie(1, 1, 0), Bank(1))
    assert t.st.first_player == 1
    t.finish_turns()
    assert t.st.round == 2
    t.reveal_experts().reveal_animals()
    from companion.actions import RevealRoundToken
    t.do(RevealRoundToken("nothing"))
    assert t.p.kind == "roll_dice" and t.p.seat == 1  # seat 1 draws first
    t.roll()
    assert t.p.kind == "take_die" and t.p.seat == 1  # and plays first


def test_bank_claim_resets_each_round():
    t = setup(first=0)
    t.do(TakeDie(0, 0, 0), Embassy(0))
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.finish_turns()  # the helper's later Bank turns do not move the token again
    assert t.st.first_player == 1
    t.new_round()
    # round 2: seat 1 plays first; seat 0 is the first on the Bank this round -> takes it
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 0), Bank(0))
    assert t.st.first_player == 0


# --------------------------------------------------------------------------- University


def test_university_any_colour_no_token_without_match():
    t = one_die("red", 1, experts=["Egbert Rensing"])
    before = t.seat(0).tokens
    t.do(University(0, "Egbert Rensing"))
    assert t.seat(0).tokens == before
    assert t.seat(0).face_up == ["Egbert Rensing", None, None, None]


def test_university_token_when_the_changed_colour_matches():
    # the die "is considered to be that colour for the duration of your Action"
    t = one_die("red", 1, experts=["Egbert Rensing"])
    before = t.seat(0).tokens
    t.do(University(0, "Egbert Rensing", spend=Spend(colour="green")))
    assert t.seat(0).tokens == before - 1 + 1


def test_university_expert_not_in_display_is_refused():
    t = one_die("red", 1)
    t.refuse(University(0, "Egbert Rensing"), CardUnavailableError, "not in the expert display")


def test_university_unknown_expert_name_is_refused():
    t = one_die("red", 1)
    t.refuse(University(0, "Charles Darwin"), BadActionError)


def test_university_experts_not_replaced_during_the_round():
    t = one_die("red", 1)
    name = t.st.expert_display[2]
    t.do(University(0, name))
    assert t.st.expert_display[2] is None
    assert t.p.kind == "take_die"  # no reveal asked


def _four_experts(t, names):
    """Seat 0 recruits ``names`` at the University (its dice), seat 1 Embassies."""
    for i, name in enumerate(names):
        slot = next(k for k, sl in enumerate(t.seat(0).slots) if sl)
        t.do(TakeDie(0, 0, slot), University(0, name))
        slot = next(k for k, sl in enumerate(t.seat(1).slots) if sl)
        t.do(TakeDie(1, 1, slot), Embassy(1))


def test_university_fifth_expert_covers_one_only_when_all_slots_are_taken():
    t = setup(experts=FILLER_EXPERTS[:6], dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]})
    t.do(TakeDie(0, 0, 0), University(0, FILLER_EXPERTS[0]))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1))
    # slot 1 is free: covering slot 0 is not allowed yet
    t.refuse(University(0, FILLER_EXPERTS[1], slot=0), ExpertSlotError, "free")
    t.do(University(0, FILLER_EXPERTS[1]))
    t.do(TakeDie(1, 1, 1), Embassy(1))
    t.do(TakeDie(0, 0, 2), University(0, FILLER_EXPERTS[2]))
    t.do(TakeDie(1, 1, 2), Embassy(1))
    t.do(TakeDie(0, 0, 3), University(0, FILLER_EXPERTS[3]))
    t.do(TakeDie(1, 1, 3), Embassy(1))
    s = t.seat(0)
    assert s.face_up == list(FILLER_EXPERTS[:4])
    # round 2: a fifth expert with all slots taken must name the slot it covers
    t.new_round(experts=["Cristian Miller"], dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]})
    t.do(TakeDie(0, 0, 0))
    t.refuse(University(0, "Cristian Miller"), ExpertSlotError, "cover")
    t.refuse(University(0, "Cristian Miller", slot=4), ExpertSlotError, "slot")
    t.do(University(0, "Cristian Miller", slot=2))
    assert s.face_up[2] == "Cristian Miller"
    # covered: still owned (continent collection), no longer active
    assert FILLER_EXPERTS[2] in s.experts and FILLER_EXPERTS[2] not in s.face_up
    assert FILLER_EXPERTS[2] in s.covered()


def test_university_empty_display_is_refused():
    t = setup(dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                    1: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)]})
    names = [x for x in t.st.expert_display]
    # 6 experts: seat 0 takes 4 (covering needs a slot for the 5th/6th), seat 1 takes 2
    for i in range(4):
        t.do(TakeDie(0, 0, i), University(0, names[i]))
        if i < 2:
            t.do(TakeDie(1, 1, i), University(1, names[4 + i]))
        else:
            t.do(TakeDie(1, 1, i))
            if i == 3:
                t.refuse(University(1, names[0]), CardUnavailableError, "no expert left")
            t.do(Embassy(1))


# --------------------------------------------------------------------------- Academy


def _academy_table(colour="purple", value=4, **kw):
    display = [animal("africa", "mammal", "herbivore", "arboreal", "hot", "Lemur"),
               animal("asia", "mammal", "carnivore", "terrestrial", "hot", "Tiger")]
    return one_die(colour, value, display=display, picks=[2, 3, 4, 5], **kw)


def test_academy_wrong_colour_is_refused():
    t = _academy_table()
    t.refuse(Academy(0, t.card("Lemur")), WrongColourError, "yellow")


def test_academy_same_colour_is_allowed():
    t = _academy_table()
    t.do(Academy(0, t.card("Tiger")))
    assert t.card("Tiger") in t.seat(0).animals


def test_academy_colour_change_by_seal_adds_five():
    from rulekit import eric_game
    t, c = eric_game()  # seat 0: blue 4 in hand, 1 royal seal, 1 token
    s = t.seat(0)
    assert s.seals == 1
    # round 2's display holds the European E4; a seal changes the blue die to red and +5
    am = [x for x in t.st.animal_display if x is not None and t.st.cards[x].continent != "europe"]
    target = am[0]
    need = {"america": "red", "africa": "yellow", "asia": "purple", "oceania": "green"}[t.st.cards[target].continent]
    assert s.rep == 15
    t.do(Academy(0, target, Spend(seals=1, colour=need, colour_by="seal")))
    assert target in s.animals
    # 4 + 5 = 9 -> 3 reputation: 15 -> 0 -> 1 -> 2 (wraps, then reaches the token bonus)
    assert s.rep == 2
    assert s.seals == 0 and s.tokens == 1 + 1  # no token spent on the colour, +1 bonus


def test_academy_card_not_in_display_is_refused():
    t = _academy_table()
    t.refuse(Academy(0, 2), CardUnavailableError, "#2")  # card 2 is seat 1's (starting draft)
    t.refuse(Academy(0, 99), CardUnavailableError, "#99")


@pytest.mark.parametrize("value,rep", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_academy_reputation_by_value(value, rep):
    t = _academy_table(value=value)
    t.do(Academy(0, t.card("Tiger")))
    assert t.seat(0).rep == rep


def test_academy_no_replacement_and_empty_display_is_refused():
    # 6 cards in the display after the draft; six Academy actions empty it; the 7th is refused
    t = setup_six_in_the_display({0: [("red", 1), ("yellow", 1), ("purple", 1), ("blue", 1)],
                                 1: [("green", 1), ("red", 2), ("blue", 2), ("yellow", 2)]})
    order = [(0, 0, "am1"), (1, 0, "oc1"), (0, 1, "af1"), (1, 1, "am2"), (0, 2, "as1"), (1, 2, "eu1")]
    for seat, slot, name in order:
        t.do(TakeDie(seat, seat, slot), Academy(seat, t.card(name)))
        assert t.p.kind == "take_die"  # never refilled during the round
    assert all(x is None for x in t.st.animal_display)
    t.do(TakeDie(0, 0, 3))
    t.refuse(Academy(0, t.card("d0")), CardUnavailableError, "no animal left")


# --------------------------------------------------------------------------- Expedition


def _expedition_table(dice0, display=None, **kw):
    display = display or [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Panda"),
                          animal("asia", "bird", "omnivore", "aquatic", "temperate", "Crane"),
                          animal("europe", "reptile", "herbivore", "terrestrial", "hot", "Lizard")]
    t = setup(display=display, picks=[3, 4, 0, 1], dice={0: dice0,
              1: [("red", 1), ("red", 2), ("yellow", 3), ("yellow", 4)]}, **kw)
    return t


def test_expedition_wrong_colour_is_refused_and_token_changes_it():
    t = _expedition_table([("red", 6), ("green", 1), ("green", 2), ("green", 3)])
    t.do(TakeDie(0, 0, 0))
    t.refuse(Expedition(0, "asia"), WrongColourError, "purple")
    t.do(Expedition(0, "asia", Spend(colour="purple")))
    assert t.p.kind == "research" and t.p.value == 6


def test_expedition_unknown_continent_is_refused():
    t = _expedition_table([("purple", 6), ("green", 1), ("green", 2), ("green", 3)])
    t.do(TakeDie(0, 0, 0))
    t.refuse(Expedition(0, "antarctica"), BadActionError, "antarctica")


def test_expedition_spaces_left_to_right_reputation_and_bonus_then_full():
    t = _expedition_table([("purple", 4)] * 4, token="coins")
    s = t.seat(0)
    panda, crane = t.card("Panda"), t.card("Crane")
    plan = [((panda, "mammal"),), ((crane, "bird"),), ((panda, "carnivore"),), ((crane, "omnivore"),)]
    expected = [(3, 4), (2, 5), (1, 6), (0, 7)]  # (reputation, value) for a 4 on spaces 1-4
    for i, (rep, value) in enumerate(expected):
        r0 = s.rep
        t.do(TakeDie(0, 0, i), Expedition(0, "asia"))
        while t.p.kind in ("choose_expert", "choose_animal"):
            t.choose_first()
        assert t.p.kind == "research" and t.p.value == value, (i, t.p)
        assert s.rep - r0 == rep
        assert t.st.expedition["asia"] == i + 1
        t.do(Research(0, plan[i]))
        if i < 3:
            t.do(TakeDie(1, 1, i), Embassy(1))
    # the last seat-1 die: Asia is full for the rest of the round
    t.do(TakeDie(1, 1, 3))
    assert max_expedition_value(t.st, 1, "asia") is None
    t.refuse(Expedition(1, "asia", Spend(colour="purple")), ExpeditionError, "asia")


def test_expedition_value_with_coins_tokens_seal_and_research_costs():
    from rulekit import eric_game
    t, c = eric_game()  # blue 4 in hand; 5 coins, 1 token, 1 seal; Europe space 2 free
    s = t.seat(0)
    assert (s.coins, s.tokens, s.seals) == (5, 1, 1)
    assert t.st.expedition["europe"] == 1
    t.do(Expedition(0, "europe", Spend(coins=2, tokens=1, seals=1)))
    # 4 + 1 (space 2) + 2 coins + 2 (token) + 5 (seal) = 14
    assert t.p.value == 14
    assert (s.coins, s.tokens, s.seals) == (3, 0, 0)
    vp = s.vp
    # Aix temperate (IV, 10) + E3 ... aquatic would be 7: 17 > 14 -> refused
    t.refuse(Research(0, ((c["aix"], "temperate"), (c["e3"], "aquatic"))), ExpeditionError, "17")
    t.do(Research(0, ((c["aix"], "temperate"),)))  # 10 of 14; the 4 left are lost
    assert s.vp == vp + 5  # Type IV placement
    assert t.p.kind == "take_die" and t.p.seat == 1


@pytest.mark.parametrize("category,cost,vp", [("mammal", 2, 0), ("carnivore", 4, 1),
                                              ("arboreal", 7, 3), ("cold", 10, 5)])
def test_research_cost_and_placement_vp_by_type(category, cost, vp):
    # a die (+ coins) worth exactly the cost on the first space (+0); 1 + 3 coins after the token
    die = min(cost, 6)
    t = _expedition_table([("purple", die), ("green", 1), ("green", 2), ("green", 3)], token="coins")
    s = t.seat(0)
    panda = t.card("Panda")
    t.do(TakeDie(0, 0, 0))
    t.do(Expedition(0, "asia", Spend(coins=cost - die)))
    assert t.p.value == cost
    vp0 = s.vp
    t.do(Research(0, ((panda, category),)))
    assert s.vp - vp0 == vp
    assert s.cubes[panda] == [category]


def test_research_one_less_than_the_cost_is_refused():
    t = _expedition_table([("purple", 6), ("green", 1), ("green", 2), ("green", 3)])
    panda = t.card("Panda")
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"))  # 6
    t.refuse(Research(0, ((panda, "arboreal"),)), ExpeditionError, "7")


def test_research_rules_other_continent_other_seat_twice_and_empty():
    t = _expedition_table([("purple", 6), ("green", 1), ("green", 2), ("green", 3)])
    panda, lizard = t.card("Panda"), t.card("Lizard")
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"))
    t.refuse(Research(0, ((lizard, "reptile"),)), CardUnavailableError)  # seat 1's card
    t.refuse(Research(0, ((panda, "bird"),)), ExpeditionError, "bird")  # not its category
    t.refuse(Research(0, ((panda, "mammal"), (panda, "mammal"))), ExpeditionError, "already")
    t.refuse(Research(0, ()), ExpeditionError, "at least one")
    t.refuse(Research(1, ((panda, "mammal"),)), NotYourTurnError)
    t.do(Research(0, ((panda, "mammal"), (panda, "carnivore"))))
    assert sorted(t.seat(0).cubes[panda]) == ["carnivore", "mammal"]


def test_research_only_animals_of_the_expedition_continent():
    display = [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Panda"),
               animal("europe", "bird", "omnivore", "aquatic", "temperate", "Swan")]
    t = _expedition_table([("purple", 6), ("blue", 6), ("green", 2), ("green", 3)], display=display)
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"))
    t.refuse(Research(0, ((t.card("Swan"), "bird"),)), ExpeditionError, "europe")


def test_research_cube_already_on_the_card_is_refused():
    t = _expedition_table([("purple", 6), ("purple", 5), ("green", 2), ("green", 3)])
    panda = t.card("Panda")
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"), Research(0, ((panda, "mammal"),)))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia"))
    t.refuse(Research(0, ((panda, "mammal"),)), ExpeditionError, "already")


def test_expedition_that_cannot_place_a_cube_is_refused():
    # value 1 on the first space: the cheapest cube costs 2
    t = _expedition_table([("purple", 1), ("green", 1), ("green", 2), ("green", 3)])
    t.do(TakeDie(0, 0, 0))
    t.refuse(Expedition(0, "asia"), ExpeditionError, "asia")
    t.do(Expedition(0, "asia", Spend(coins=1)))  # 2: one Type I cube


def test_publish_and_expedition_only_for_own_turn_seat():
    t = _expedition_table([("purple", 6), ("green", 1), ("green", 2), ("green", 3)])
    t.do(TakeDie(0, 0, 0))
    t.refuse(Publish(1, 3), NotYourTurnError)
    t.refuse(Expedition(1, "asia"), NotYourTurnError)


def test_reputation_expert_choice_is_a_choose_expert_with_slot_rules():
    t = _expedition_table([("purple", 6), ("purple", 6), ("green", 2), ("green", 3)])
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"), Research(0, ((t.card("Panda"), "mammal"),)))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia"))  # rep 3 + 2 = 5
    t.do(Research(0, ((t.card("Panda"), "carnivore"),)))
    assert s.rep == 5
    assert t.p.kind == "take_die" and t.p.seat == 1
    t.refuse(ChooseExpert(0, t.st.expert_display[0]), NotYourTurnError)


def test_expedition_coins_from_its_own_reputation_bonus_can_raise_its_value():
    # EN p.12: the die is placed, its space's reputation is gained "immediately", THEN the value
    # is improved with coins/tokens/seals; DIGEST §4: "a bonus gained during it ... counts".
    # Seat 0 at reputation 3 with 1 coin goes to Asia's first space (+3 -> 6: passes 4, +3
    # coins) and spends 3 coins on a Type III cube (4 + 3 = 7).
    display = [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Panda"),
               animal("asia", "bird", "omnivore", "aquatic", "hot", "Crane")]
    t = setup(display=display, picks=[2, 3, 0, 4],
              dice={0: [("purple", 5), ("purple", 4), ("green", 1), ("green", 2)],
                    1: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]})
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("Crane")))
    assert (s.rep, s.coins) == (3, 1)
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia", Spend(coins=3)))
    while t.p.kind == "choose_expert":  # space 6 reached too
        t.choose_first()
    assert t.p.kind == "research" and t.p.value == 7
    t.do(Research(0, ((t.card("Panda"), "arboreal"),)))
    assert s.coins == 1 + 3 - 3
