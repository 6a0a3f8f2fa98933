"""Issue 39, item 5: the research-cube supply and the "5 cubes" tokens.

EN content: "120 wooden Research cubes" and "28 '5 cubes' tokens", set-up 3: each player takes
"the Research cubes and '5 cubes' tokens of the colour of their choice" (30 and 7 per colour).
EN "5 CUBES" TOKENS: "Particularly prolific researchers may find themselves lacking Research
cubes towards the end of the game. In that case you can always free some up by replacing 5 of
your cubes on a Publication space with a '5 cubes' token." FR: "Lorsque vous avez 5 cubes ou
plus sur un emplacement de Publication, vous pouvez remplacer 5 cubes par un de ces jetons."
FR p.16: cubes lost in a publication "reviennent dans votre réserve".

The scenarios put the cubes a long game would have published on the seat directly (reaching 30
through play takes most of a game); everything else goes through the checked ``apply``.
"""

from companion.actions import Expedition, Research, SwapCubes, TakeDie
from companion.errors import BadActionError, NotEnoughError, NotYourTurnError
from companion.engine import research_options, score_inputs

from rulekit import automa_seat, setup
from companion.actions import SeatConfig


def _table(pub_cubes, cubes_on_first=()):
    """Seat 0 holds two Oceania animals (mammal, herbivore, terrestrial, hot), a green 6 to
    take, and ``pub_cubes`` on the Publication spaces."""
    t = setup(dice={0: [("green", 6), ("green", 5), ("red", 1), ("red", 2)]})
    s = t.seat(0)
    assert all(t.st.cards[c].continent == "oceania" for c in s.animals)
    s.pub_cubes = dict(pub_cubes)
    s.cubes_placed = sum(pub_cubes.values())
    if cubes_on_first:
        s.cubes[s.animals[0]] = list(cubes_on_first)
        s.cubes_placed += len(cubes_on_first)
    t.do(TakeDie(0, 0, 0))
    return t, s


def test_no_cube_left_no_research_until_five_published_cubes_are_swapped_for_a_token():
    t, s = _table({"bird": 30})  # all 30 cubes on the Bird publication space
    a1 = s.animals[0]
    t.do(Expedition(0, "oceania"))  # completable: a swap frees 5 cubes
    t.refuse(Research(0, ((a1, "mammal"),)), NotEnoughError, "0 research cube", "5 cubes")
    inputs = score_inputs(t.st)[0]
    t.do(SwapCubes(0, "bird"))  # "you can always free some up"
    assert s.cube_tokens == {"bird": 1}
    assert score_inputs(t.st)[0] == inputs  # the token stands for the 5 cubes: same score
    t.do(Research(0, ((a1, "mammal"), (a1, "herbivore"))))
    assert sorted(s.cubes[a1]) == ["herbivore", "mammal"]


def test_an_expedition_with_no_cube_to_place_is_refused():
    # 28 published, none 5 on one space, 2 on an animal: 30 in play, nothing to swap
    pub = {"bird": 4, "omnivore": 4, "aquatic": 4, "cold": 4, "reptile": 4, "carnivore": 4, "arboreal": 4}
    t, s = _table(pub, ("mammal", "herbivore"))
    t.refuse(Expedition(0, "oceania"), NotEnoughError, "0 research cube")


def test_the_swap_needs_five_cubes_on_that_space_and_a_token_left():
    t, s = _table({"bird": 4, "mammal": 12})
    t.refuse(SwapCubes(0, "bird"), NotEnoughError, "4 cube")
    t.refuse(SwapCubes(0, "fish"), BadActionError)
    t.do(SwapCubes(0, "mammal"), SwapCubes(0, "mammal"))
    t.refuse(SwapCubes(0, "mammal"), NotEnoughError, "2 cube")  # 12 - 10 left on the space
    assert research_options(t.st, 0) == []  # no research pending: the swap changed no step


def test_seven_tokens_per_colour():
    t, s = _table({"mammal": 30})
    for _ in range(6):
        t.do(SwapCubes(0, "mammal"))
    s.pub_cubes["bird"] = 5
    s.cubes_placed += 5
    t.do(SwapCubes(0, "bird"))
    t.refuse(SwapCubes(0, "bird"), NotEnoughError, "7")


def test_an_automa_has_no_cubes_to_swap():
    t = setup(seats=[SeatConfig("Ann"), automa_seat()])
    t.refuse(SwapCubes(1, "bird"), NotYourTurnError, "automa")
