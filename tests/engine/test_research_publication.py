"""Expedition + research, publication (DIGEST §4) and Sepultus Creatura (DIGEST §7)."""


from companion.actions import (
    Academy, ChooseAnimal, Expedition, Publish, Research, SetCategories, Spend, TakeDie, Embassy,
)
from companion.engine import Card, apply
from companion.errors import (
    BadActionError, CardUnavailableError, DieValueError, ExpeditionError, PublicationError, WrongColourError,
)
from companion.engine import (
    die_options, max_expedition_value, preview_publication, publishable_types, score_inputs,
)

from .helpers import give, hand, new_game, refused


def _next_turn(st, seat_done):
    """The other seat plays a quick Embassy so ``seat_done`` gets the next turn."""
    p = st.pending
    other = p.seat
    apply(st, TakeDie(other, other, next(i for i, d in enumerate(st.seats[other].slots) if d), 0))
    apply(st, Embassy(other))


def test_expedition_spaces_fill_left_to_right():
    st, _ = new_game()
    b = st.board
    a = give(st, 0, "america")
    got = []
    for i in range(4):
        if st.pending.seat != 0:
            _next_turn(st, 0)
        s = st.seats[0]
        s.rep = 0
        hand(st, 0, ("red", 3))
        apply(st, Expedition(0, "america"))
        got.append((s.rep, st.pending.value))
        apply(st, Research(0, ((a, "mammal"),)))
        s.cubes.pop(a, None)  # scenario: the card is fresh again for the next expedition
        s.cubes_placed = 0
    assert [g[1] - 3 for g in got] == [bonus for _, bonus in b.expedition_spaces]
    assert [g[0] for g in got] == [rep for rep, _ in b.expedition_spaces]
    if st.pending.seat != 0:
        _next_turn(st, 0)
    hand(st, 0, ("red", 3))
    refused(st, Expedition(0, "america"), ExpeditionError, "every expedition space of America")


def test_expedition_refusals():
    st, _ = new_game()
    hand(st, 0, ("red", 2))
    refused(st, Expedition(0, "atlantis"), BadActionError)
    refused(st, Expedition(0, "asia"), WrongColourError, "needs a purple die")
    refused(st, Expedition(0, "america"), ExpeditionError, "could not place any research cube")
    give(st, 0, "america")
    refused(st, Expedition(0, "america", Spend(tokens=5)), Exception, "token")
    apply(st, Expedition(0, "america"))  # value 2 + 0: one Type I cube is affordable


def test_expedition_allowed_when_its_reputation_brings_the_animal_it_needs():
    # FAQ (Quentin): no American animal, but the space's reputation reaches the animal bonus
    st, _ = new_game(animals=None)
    s = st.seats[0]
    s.rep = 6  # +3 from the first space -> 9, passing 8 (animal)
    hand(st, 0, ("red", 4))
    apply(st, Expedition(0, "america"))
    p = st.pending
    assert p.kind == "choose_animal" and p.seat == 0 and p.reason == "reputation"
    amer = next(c for c in st.animal_display if c is not None and st.cards[c].continent == "america")
    apply(st, ChooseAnimal(0, amer))
    p = st.pending
    assert p.kind == "research" and p.value == 4
    refused(st, Research(0, ()), ExpeditionError, "at least one")
    apply(st, Research(0, ((amer, "mammal"),)))
    assert s.cubes[amer] == ["mammal"]


def test_research_refusals():
    st, _ = new_game()
    s = st.seats[0]
    a = give(st, 0, "america", cubes=("mammal",))
    e = give(st, 0, "europe")
    s.coins = 20
    hand(st, 0, ("red", 1))
    apply(st, Expedition(0, "america", Spend(coins=6)))  # value 7
    refused(st, Research(0, ((e, "bird"),)), ExpeditionError, "from Europe")
    refused(st, Research(0, ((a, "mammal"),)), ExpeditionError, "already carries")
    refused(st, Research(0, ((a, "bird"),)), ExpeditionError, "no category")
    refused(st, Research(0, ((a, "herbivore"), (a, "herbivore"))), ExpeditionError, "already carries")
    refused(st, Research(0, ((a, "arboreal"), (a, "herbivore"))), ExpeditionError, "cost 11")
    refused(st, Research(0, ((99, "hot"),)), CardUnavailableError)
    refused(st, Research(1, ((a, "hot"),)), Exception)
    vp = s.vp
    apply(st, Research(0, ((a, "arboreal"),)))
    assert s.vp == vp + 3 and sorted(s.cubes[a]) == ["arboreal", "mammal"]


def test_categories_can_be_entered_later_but_before_research():
    st, _ = new_game()
    s = st.seats[0]
    cid = len(st.cards)
    st.cards.append(Card(cid, "america", "mystery", None))
    s.animals.append(cid)
    hand(st, 0, ("red", 2))
    apply(st, Expedition(0, "america"))
    refused(st, Research(0, ((cid, "mammal"),)), ExpeditionError, "enter the four categories")
    refused(st, SetCategories(cid, ("mammal", "bird", "aquatic", "hot")), BadActionError, "Type II")
    apply(st, SetCategories(cid, ("mammal", "herbivore", "aquatic", "hot")))
    assert st.pending.kind == "research"  # entering categories does not move the game on
    refused(st, SetCategories(cid, ("mammal", "herbivore", "aquatic", "hot")), BadActionError, "already has")
    apply(st, Research(0, ((cid, "mammal"),)))


# ---------------------------------------------------------------- publication


def _pub_setup():
    st, _ = new_game()
    s = st.seats[0]
    ref = give(st, 0, "europe", ("bird", "omnivore", "aquatic", "cold"), ("bird", "aquatic"))
    same = give(st, 0, "europe", ("bird", "carnivore", "aquatic", "cold"), ("bird", "carnivore", "aquatic"))
    other = give(st, 0, "asia", ("bird", "omnivore", "aquatic", "hot"), ("omnivore", "aquatic", "hot"))
    plain = give(st, 0, "europe", ("mammal", "herbivore", "terrestrial", "cold"))
    far = give(st, 0, "africa", ("mammal", "herbivore", "terrestrial", "hot"))
    return st, s, ref, same, other, plain, far


def test_publication_needs_value_2_and_the_reference_colour():
    st, s, ref, *_ = _pub_setup()
    s.coins = 0
    hand(st, 0, ("blue", 1))
    refused(st, Publish(0, ref), DieValueError, "spend 1 coin")
    refused(st, Publish(0, ref, Spend(colour="red")), WrongColourError)
    refused(st, Publish(0, 99), CardUnavailableError)
    assert publishable_types(st, 0, ref) == {}  # no coin, no token for +value... (tokens: colour only)
    s.coins = 5
    assert sorted(publishable_types(st, 0, ref)) == [0, 1, 2, 3, 4]
    assert publishable_types(st, 0, ref)[3] == Spend(coins=4)


def test_publication_mandatory_reference_cube_optional_others_and_discards():
    st, s, ref, same, other, plain, far = _pub_setup()
    s.coins = 10
    hand(st, 0, ("blue", 5))  # up to Type III
    # optional cubes must be of a category the reference publishes, with its cube
    refused(st, Publish(0, ref, extra=((same, "carnivore"),)), PublicationError, "not a category of the reference")
    refused(st, Publish(0, ref, extra=((other, "omnivore"),)), PublicationError, "carries no omnivore cube")
    refused(st, Publish(0, ref, extra=((other, "hot"),)), PublicationError)
    refused(st, Publish(0, ref, extra=((plain, "bird"),)), PublicationError, "carries no bird")
    refused(st, Publish(0, ref, extra=((ref, "bird"),)), PublicationError, "automatically")
    refused(st, Publish(0, ref, keep=(far,)), PublicationError, "from Africa")
    refused(st, Publish(0, ref, up_to=4), DieValueError, "needs a die of 6")
    action = Publish(0, ref, extra=((same, "bird"), (same, "aquatic"), (other, "aquatic")), keep=(plain,))
    pv = preview_publication(st, action)
    # bird: 2 cubes x2; aquatic: 3 cubes x5; kept: ref, same, plain = 3 cards x1
    assert pv.vp_by_type == {0: 3, 1: 4, 3: 15} and pv.vp == 22
    assert pv.discarded == (other,)
    # lost: same's carnivore; other's omnivore and hot
    assert pv.cubes_lost == 3
    vp, seals = s.vp, s.seals
    apply(st, action)
    assert s.vp == vp + 22 and s.seals == seals + 1
    assert sorted(s.published) == sorted([ref, same, plain])
    assert far in s.animals and not {ref, same, other, plain} & set(s.animals)
    assert other in st.discarded_animals
    assert s.pub_cubes == {"bird": 2, "aquatic": 3}
    inp = score_inputs(st)[0]
    assert inp.published["europe"] == 3 and inp.cubes["aquatic"] == 3


def test_publication_up_to_type_i_and_without_cubes():
    st, s, ref, same, other, plain, far = _pub_setup()
    hand(st, 0, ("blue", 3))
    refused(st, Publish(0, ref, up_to=0), PublicationError, "Type I")  # starts at the die's type (issue 39)
    apply(st, Publish(0, ref, up_to=1))  # aquatic (Type III) is not published: that cube is lost
    assert s.pub_cubes == {"bird": 1} and s.cubes_lost == 1
    _next_turn(st, 0)
    hand(st, 0, ("green", 2))
    vp = s.vp
    apply(st, Publish(0, far, Spend(colour="yellow")))  # an animal without cubes: Type 0 only
    assert s.vp == vp + 1 and far in s.published


def test_die_options_lists_the_legal_actions_with_their_cheapest_spends():
    st, s, ref, same, other, plain, far = _pub_setup()
    s.tokens, s.seals, s.coins = 1, 0, 0
    hand(st, 0, ("blue", 1))
    opts = die_options(st, 0)
    kinds = {o.kind for o in opts}
    assert {"embassy", "bank", "university", "academy", "expedition"} <= kinds
    pubs = {o.target: o for o in opts if o.kind == "publish"}
    assert pubs == {}  # value 1 and no coin: nothing can be published
    s.coins = 1
    pubs = {o.target: o for o in die_options(st, 0) if o.kind == "publish"}
    assert pubs[ref].action.spend == Spend(coins=1)
    assert pubs[far].action.spend == Spend(coins=1, colour="yellow")
    for o in die_options(st, 0):  # every option is legal as given
        trial = st.copy()
        a = o.action
        if o.kind == "university" and a.slot is None and all(x is not None for x in s.face_up):
            continue
        apply(trial, a)
    exp = {o.target: o for o in die_options(st, 0) if o.kind == "expedition"}
    # a Type I cube (2) needs one coin; everything spent: 1 + 1 coin + 2 (token)
    assert exp["europe"].value == 2 and exp["europe"].action.spend == Spend(coins=1)
    # + the token space 2 of the track gives on the way (the first space's 3 reputation)
    assert max_expedition_value(st, 0, "europe") == 1 + 1 + 2 + 2
    assert "asia" in exp and exp["asia"].action.spend.colour == "purple"


# ---------------------------------------------------------------- Sepultus Creatura


def _sep_game():
    st, t = new_game(sepultus=True)
    sep = len(st.cards)
    st.cards.append(Card(sep, None, "Big bones", ("reptile", "carnivore", "hot"), True, 4, 5))
    st.discarded_animals.append(st.animal_display[0])
    st.animal_display[0] = sep
    return st, sep


def test_sepultus_at_the_academy_needs_the_exact_value_any_colour():
    st, sep = _sep_game()
    s = st.seats[0]
    s.coins = 3
    hand(st, 0, ("green", 3))
    refused(st, Academy(0, sep), DieValueError, "exactly 4.*spend 1 coin")
    refused(st, Academy(0, sep, Spend(coins=2)), DieValueError, "exactly 4")
    opts = [o for o in die_options(st, 0) if o.kind == "academy" and o.target == sep]
    assert opts and opts[0].action.spend == Spend(coins=1)
    apply(st, Academy(0, sep, Spend(coins=1)))
    assert sep in s.animals and s.rep == 2


def test_sepultus_research_any_continent_one_cube_then_published_as_the_reference_continent():
    st, sep = _sep_game()
    s = st.seats[0]
    st.discarded_animals.append(sep)
    st.animal_display[0] = None
    st.discarded_animals.remove(sep)
    s.animals.append(sep)
    ref = give(st, 0, "oceania", ("reptile", "carnivore", "aquatic", "hot"), ("reptile",))
    hand(st, 0, ("red", 5))
    apply(st, Expedition(0, "america"))  # 5: the Sepultus card costs 5, whatever the continent
    refused(st, Research(0, ((sep, "bird"),)), ExpeditionError, "lists")
    refused(st, Research(0, ((sep, "reptile"), (sep, "hot"))), ExpeditionError, "only one")
    vp = s.vp
    apply(st, Research(0, ((sep, "reptile"),)))
    assert s.cubes[sep] == ["reptile"] and s.vp == vp  # no placement VP for a Sepultus cube
    _next_turn(st, 0)
    hand(st, 0, ("green", 3))
    refused(st, Publish(0, sep), PublicationError, "cannot be the reference")
    apply(st, Publish(0, ref, extra=((sep, "reptile"),)))
    assert sep in s.published and s.pub_cubes == {"reptile": 2}
    inp = score_inputs(st)[0]
    assert inp.sepultus == 1 and inp.published == {"oceania": 1} or dict(inp.published).get("oceania") == 1
