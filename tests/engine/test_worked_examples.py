"""Every worked example of the rulebook (DIGEST §1 list), through the actions a player enters."""

from companion.actions import (
    Academy, AutomaAction, Embassy, Expedition, Publish, RevealAnimal, Research, Spend, TakeDie,
)
from companion.engine import (
    Card, apply, automa_slot_order, final_scores, max_expedition_value, preview_publication, score_inputs,
)

from .helpers import give, hand, new_game


def test_embassy_die_5_gives_3_tokens():
    st, _ = new_game()
    hand(st, 0, ("green", 5))
    before = st.seats[0].tokens
    apply(st, Embassy(0))
    assert st.seats[0].tokens == before + 3


def test_academy_purple_4_token_to_yellow_and_a_coin_gives_3_reputation():
    # Joelle: purple 4 on the Academy for Lemur catta (yellow), one token to change colour,
    # one coin to reach 5 -> 3 reputation.
    lemur = RevealAnimal("africa", "Lemur catta", ("mammal", "herbivore", "arboreal", "hot"))
    animals = [RevealAnimal("europe", f"e{i}", ("bird", "omnivore", "aquatic", "cold")) for i in range(10)]
    animals.insert(6, lemur)  # 6 in the display, 4 drafted: the lemur is the first refill card
    st, _ = new_game(("Joelle", "Jeremie"), animals=animals)
    cid = next(c for c in st.animal_display if c is not None and st.cards[c].name == "Lemur catta")
    s = st.seats[0]
    s.coins = 1
    hand(st, 0, ("purple", 4))
    rep, tokens = s.rep, s.tokens
    apply(st, Academy(0, cid, Spend(coins=1, colour="yellow")))
    assert s.rep == rep + 3
    # 1 token paid for the colour; reaching space 2 of the track gives 1 token back
    assert rep == 0 and s.tokens == tokens - 1 + 1 and s.coins == 0
    assert cid in s.animals


def test_olivier_expedition_worth_11():
    st, _ = new_game(("Olivier", "Eric"))
    s = st.seats[0]
    a1 = give(st, 0, "africa", ("mammal", "carnivore", "terrestrial", "hot"))
    a2 = give(st, 0, "africa", ("bird", "herbivore", "aquatic", "hot"))
    st.expedition["africa"] = 1  # someone went to Africa first: the next space gives 2 rep and +1
    s.tokens, s.coins = 2, 3
    hand(st, 0, ("red", 5))
    # spending everything: + the token that space 2 of the track gives during this expedition
    assert max_expedition_value(st, 0, "africa") == 5 + 1 + 2 + 3 + 2
    rep = s.rep
    apply(st, Expedition(0, "africa", Spend(coins=3, tokens=1, colour="yellow")))
    assert s.rep == rep + 2
    p = st.pending
    assert p.kind == "research" and p.value == 11 and p.continent == "africa"
    vp = s.vp
    apply(st, Research(0, ((a1, "mammal"), (a2, "bird"), (a2, "aquatic"))))  # 2 + 2 + 7
    assert s.vp == vp + 3  # Type III placement
    assert s.tokens == 0 + 1 and s.coins == 0  # both tokens spent; reputation space 2 gives one
    assert sorted(s.cubes[a2]) == ["aquatic", "bird"]


def test_eric_publication():
    st, _ = new_game(("Eric", "Olivier"))
    s = st.seats[0]
    aix = give(st, 0, "europe", ("bird", "omnivore", "aquatic", "temperate"), ("bird", "omnivore", "aquatic"),
               name="Aix galericulata")
    e2 = give(st, 0, "europe", ("bird", "omnivore", "aquatic", "cold"), ("bird", "omnivore", "aquatic"))
    e3 = give(st, 0, "europe", ("bird", "carnivore", "terrestrial", "cold"), ("bird",))
    o1 = give(st, 0, "oceania", ("bird", "omnivore", "arboreal", "hot"), ("bird", "omnivore", "arboreal"))
    a1 = give(st, 0, "asia", ("bird", "herbivore", "aquatic", "hot"), ("bird", "aquatic"))
    s.coins = 1
    hand(st, 0, ("blue", 4))
    action = Publish(0, aix, Spend(coins=1), extra=(
        (e2, "aquatic"), (a1, "aquatic"),
        (e2, "omnivore"), (o1, "omnivore"),
        (e2, "bird"), (e3, "bird"), (o1, "bird"), (a1, "bird"),
    ))
    preview = preview_publication(st, action)
    assert preview.vp_by_type == {0: 3, 1: 10, 2: 9, 3: 15}
    assert preview.vp == 37 and sorted(preview.discarded) == sorted((o1, a1)) and preview.cubes_lost == 1
    vp, seals = s.vp, s.seals
    apply(st, action)
    assert s.vp == vp + 15 + 9 + 10 + 3
    assert s.seals == seals + 1
    assert s.pub_cubes == {"aquatic": 3, "omnivore": 3, "bird": 5}
    assert sorted(s.published) == sorted([aix, e2, e3])
    assert o1 in st.discarded_animals and a1 in st.discarded_animals
    assert s.animals == [x for x in s.animals if x not in (aix, e2, e3, o1, a1)]
    assert s.cubes_lost == 1  # the arboreal cube he could not use


def test_jeremie_final_score_188():
    st, _ = new_game(("Jeremie", "Joelle"))
    s = st.seats[0]
    s.vp = 72
    s.pub_cubes = {"hot": 5, "carnivore": 8, "reptile": 10}
    for i in range(6):
        cid = len(st.cards)
        st.cards.append(Card(cid, "oceania", f"o{i}", ("reptile", "carnivore", "aquatic", "hot")))
        s.published.append(cid)
    oceania = ["Akona Wikiriwhi", "Egbert Rensing", "Emilia Morris", "Etano Palamo", "Paipau Piripi", "Phoebe Burke"]
    s.experts = oceania
    s.face_up = oceania[:4]
    s.seals, s.coins, s.tokens, s.rep = 6, 4, 0, 0
    inp = score_inputs(st)[0]
    assert inp.published == {"oceania": 6} or dict(inp.published)["oceania"] == 6
    breakdowns, ranking = final_scores(st)
    assert breakdowns[0].total == 188


def test_automa_carl_von_linne_value_5_university_gains_a_token_whatever_the_colours():
    st, _ = new_game(("Human", "Carl"), automas=(1,), stop=("take_die",))
    # the automa's die: a green 5 (the expert taken is not from Oceania)
    apply(st, TakeDie(0, 0, 0, 0))
    apply(st, Embassy(0))
    assert st.pending.seat == 1
    hand(st, 1, ("green", 5))
    tokens = st.seats[1].tokens
    apply(st, AutomaAction(1))
    assert st.seats[1].tokens == tokens + 1
    p = st.pending
    assert p.kind == "choose_expert" and p.seat == 1 and p.reason == "university"


def test_automa_dice_two_2s_lower_priority_goes_left():
    # priorities: red (America) above yellow (Africa): the yellow 2 goes further left
    priority = ("america", "asia", "europe", "oceania", "africa")
    dice = [("red", 2), ("blue", 5), ("yellow", 2), ("green", 3)]
    assert automa_slot_order(dice, priority) == [1, 3, 0, 2]
    st, _ = new_game(("Human", "Bot"), automas=(1,), priority=priority, dice={1: tuple(dice)})
    assert st.seats[1].slots == [[("yellow", 2)], [("red", 2)], [("green", 3)], [("blue", 5)]]
