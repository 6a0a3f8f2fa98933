"""Every expert effect kind (EN annex, DIGEST §5): place_die per location, expedition per
continent, place_cube per type, die_value by colour, expedition_value by continent, one-shot
use then flipped, end-game only while face up, covered = no effect.

Each effect is measured against the same game played with a neutral (end-game) expert in its
place, so the difference is exactly the expert's gain."""

import pytest

from companion.actions import (
    Academy, Bank, Embassy, Expedition, Publish, Research, Spend, TakeDie, University,
    UseExpert,
)
from companion.errors import ExpertSlotError, NotYourTurnError
from companion.engine import final_scores, score_inputs

from rulekit import COLOUR, FILLER_EXPERTS, animal, setup

NEUTRAL = "Vlad Koulechov"  # end-game: no effect during play
OTHER = FILLER_EXPERTS[0]


def expert_table(expert, cont="america", die=4, token="nothing", other_colour=None):
    """Seat 0 recruits ``expert`` with its slot-0 die (University), seat 1 Embassies, then seat 0
    holds its slot-1 die: colour of ``cont`` (or ``other_colour``), value ``die``. Seat 0
    studies 'Mine' (of ``cont``); 'Other' (of ``cont``) is in the display."""
    display = [animal(cont, "mammal", "carnivore", "arboreal", "cold", "Mine"),
               animal(cont, "bird", "omnivore", "aquatic", "hot", "Other")]
    colour = other_colour or COLOUR[cont]
    t = setup(experts=[expert, OTHER], display=display, picks=[2, 3, 0, 4], token=token,
              dice={0: [("green", 1), (colour, die), ("green", 2), ("green", 3)],
                    1: [("yellow", 1), ("yellow", 2), ("blue", 1), ("blue", 2)]})
    t.do(TakeDie(0, 0, 0), University(0, expert))
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1))
    return t


def gains(expert, act, **kw):
    """(coins, reputation, vp) seat 0 gains with ``act`` beyond what the same act gives with a
    neutral expert."""
    out = []
    for e in (expert, NEUTRAL):
        t = expert_table(e, **kw)
        s = t.seat(0)
        before = (s.coins, s.rep, s.vp)
        for a in act(t):
            t.do(a)
        out.append((s.coins - before[0], s.rep - before[1], s.vp - before[2]))
    return tuple(a - b for a, b in zip(*out))


def research_mine(t):
    return [Research(0, ((t.card("Mine"), "mammal"),))]


LOCATION_ACTS = {
    "university": lambda t: [University(0, OTHER)],
    "embassy": lambda t: [Embassy(0)],
    "bank": lambda t: [Bank(0)],
    "academy": lambda t: [Academy(0, t.card("Other"))],
    "publication": lambda t: [Publish(0, t.card("Mine"))],
}

PLACE_DIE = [
    ("Cristian Miller", "university", (2, 0, 0)),
    ("Adamu Ashenafi", "university", (0, 0, 3)),
    ("Leonardas Vaikutis", "university", (0, 2, 0)),
    ("Etienne Lebeau", "embassy", (0, 2, 0)),
    ("Aymar Dibumbè", "embassy", (2, 0, 0)),
    ("Piaar Jhari", "embassy", (0, 0, 3)),
    ("Samara El-Ouadie", "bank", (0, 2, 0)),
    ("Phoebe Burke", "bank", (0, 0, 3)),
    ("Shanti Shevade", "academy", (0, 2, 0)),
    ("Cathrin Holzhausen", "academy", (2, 0, 0)),
    ("Paipau Piripi", "academy", (0, 0, 3)),
    ("Elena Lewis", "publication", (0, 2, 0)),
    ("Adriana Zarek", "publication", (0, 2, 0)),
    ("Gao Zhelan", "publication", (3, 0, 0)),
    ("Egbert Rensing", "publication", (3, 0, 0)),
]


@pytest.mark.parametrize("expert,location,gain", PLACE_DIE, ids=[p[0] for p in PLACE_DIE])
def test_place_die_expert(expert, location, gain):
    # die 1 keeps every reputation move below the first bonus space (2): only the expert counts
    assert gains(expert, LOCATION_ACTS[location], die=1 if location != "publication" else 2) == gain


@pytest.mark.parametrize("expert,cont", [("Audrey Morton", "america"), ("Rabiah Assaf", "africa"),
                                         ("Morishita Shinzo", "asia"), ("Louwrens Korte", "europe"),
                                         ("Emilia Morris", "oceania")])
def test_expedition_vp_expert_only_on_its_continent(expert, cont):
    act = lambda t: [Expedition(0, cont)] + research_mine(t)  # noqa: E731
    c, r, v = gains(expert, act, cont=cont)
    assert (c, v) == (0, 3)
    other = "africa" if cont != "africa" else "asia"
    act2 = lambda t: [Expedition(0, other)] + research_mine(t)  # noqa: E731
    assert gains(expert, act2, cont=other)[2] == 0


def test_university_expert_does_not_pay_for_its_own_recruiting_die():
    t = setup(experts=["Cristian Miller"])
    coins = t.seat(0).coins
    t.do(TakeDie(0, 0, 0), University(0, "Cristian Miller"))
    assert t.seat(0).coins == coins


@pytest.mark.parametrize("expert,category,coins", [("Alonso Rossette", "mammal", 1),
                                                   ("Mathias Hass", "carnivore", 1),
                                                   ("Simon Hodesmann", "arboreal", 2),
                                                   ("Kedar Ghale", "cold", 3)])
def test_place_cube_expert_per_cube_of_its_type(expert, category, coins):
    # die 6 + 4 coins = 10 pays for any single cube (1 coin + 3 from the round token)
    def act(cat):
        return lambda t: [Expedition(0, "america", Spend(coins=4)), Research(0, ((t.card("Mine"), cat),))]

    assert gains(expert, act(category), die=6, token="coins")[0] == coins
    other = "cold" if category != "cold" else "mammal"
    assert gains(expert, act(other), die=6, token="coins")[0] == 0


def test_die_value_expert_after_colour_changes():
    # Rogério Luz: red dice +1. A red 4 to America is worth 5; a purple die turned red by a token
    # counts as red (+1); a red die turned yellow is not red any more.
    t = expert_table("Rogério Luz", cont="america", die=4)
    t.do(Expedition(0, "america"))
    assert t.p.value == 5
    t = expert_table("Rogério Luz", cont="america", die=4, other_colour="purple")
    t.do(Expedition(0, "america", Spend(colour="red")))
    assert t.p.value == 5
    t = expert_table("Rogério Luz", cont="africa", die=4, other_colour="red")
    t.do(Expedition(0, "africa", Spend(colour="yellow")))
    assert t.p.value == 4


def test_die_value_expert_counts_for_every_action():
    # a red 2 + Rogério = 3 at the Embassy: 2 tokens instead of 1
    t = expert_table("Rogério Luz", cont="america", die=2)
    tokens = t.seat(0).tokens
    t.do(Embassy(0))
    assert t.seat(0).tokens == tokens + 2


@pytest.mark.parametrize("expert,cont", [("Renell Victorie", "america"), ("Girgis Al-Ghumari", "africa"),
                                         ("Pu Geun-Young", "asia"), ("Katie MacSweeney", "europe"),
                                         ("Akona Wikiriwhi", "oceania")])
def test_expedition_value_expert_only_on_its_continent(expert, cont):
    t = expert_table(expert, cont=cont, die=4)
    t.do(Expedition(0, cont))
    assert t.p.value == 6
    other = "asia" if cont != "asia" else "europe"
    t = expert_table(expert, cont=other, die=4)
    t.do(Expedition(0, other))
    assert t.p.value == 4


@pytest.mark.parametrize("expert,coins,rep", [("Safi Limbila", 5, 0), ("Rachel Mostinckx", 5, 0),
                                              ("Ishiwata Eiko", 0, 3), ("Matilda Glenn", 0, 3)])
def test_oneshot_kept_face_up_then_used_on_own_turn_and_flipped(expert, coins, rep):
    t = expert_table(expert, die=1)
    s = t.seat(0)
    assert s.face_up[0] == expert
    c0, r0 = s.coins, s.rep
    t.do(UseExpert(0, expert))
    assert s.coins - c0 == coins + (3 if rep >= 4 else 0)
    assert s.rep - r0 == rep
    assert expert not in s.face_up and expert in s.used and expert in s.experts
    t.refuse(UseExpert(0, expert), ExpertSlotError, "face up")
    t.do(Embassy(0))


def test_oneshot_used_at_once_when_recruited():
    t = setup(experts=["Safi Limbila"])
    s = t.seat(0)
    coins = s.coins
    t.do(TakeDie(0, 0, 0), University(0, "Safi Limbila", use_now=True))
    assert s.coins == coins + 5
    assert s.face_up == [None] * 4 and s.used == ["Safi Limbila"]


def test_oneshot_only_on_the_owners_turn_and_only_oneshots():
    t = expert_table("Safi Limbila", die=1)
    t.do(Embassy(0))
    assert t.p.seat == 1
    t.refuse(UseExpert(0, "Safi Limbila"), NotYourTurnError, "own turn")
    t = expert_table("Cristian Miller", die=1)
    t.refuse(UseExpert(0, "Cristian Miller"), ExpertSlotError, "one-shot")
    t.refuse(University(0, OTHER, use_now=True), ExpertSlotError, "one-shot")


def test_oneshot_usable_before_taking_the_die():
    # "activated at any time during your turn"
    t = expert_table("Safi Limbila", die=1)
    t.do(Embassy(0))
    t.do(TakeDie(1, 1, 1), Embassy(1))
    assert t.p.kind == "take_die" and t.p.seat == 0
    coins = t.seat(0).coins
    t.do(UseExpert(0, "Safi Limbila"))
    assert t.seat(0).coins == coins + 5


def test_covered_permanent_expert_has_no_effect():
    # Aymar Dibumbè (+2 coins at the Embassy) covered by a fifth expert: no more coins
    names = ["Aymar Dibumbè"] + list(FILLER_EXPERTS[:4])
    t = setup(experts=names + [FILLER_EXPERTS[4]],
              dice={0: [("red", 1)] * 4, 1: [("blue", 1)] * 4})
    for i in range(4):
        t.do(TakeDie(0, 0, i), University(0, names[i]))
        t.do(TakeDie(1, 1, i))
        if i < 3:
            t.do(Embassy(1))
        else:
            t.do(University(1, names[4]))  # the display keeps FILLER_EXPERTS[4] for later
    s = t.seat(0)
    assert s.face_up == names[:4]
    t.new_round(experts=["Cristian Miller"], dice={0: [("red", 1)] * 4, 1: [("blue", 1)] * 4})
    t.do(TakeDie(0, 0, 0))
    coins = s.coins
    t.do(Embassy(0))
    assert s.coins == coins + 2  # still active
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), University(0, "Cristian Miller", slot=0))  # covers Aymar
    assert "Aymar Dibumbè" in s.covered()
    t.do(TakeDie(1, 1, 1), Embassy(1))
    coins = s.coins
    t.do(TakeDie(0, 0, 2), Embassy(0))
    assert s.coins == coins
    inp = score_inputs(t.st)[0]
    flags = {e.name: active for e, active in inp.experts}
    assert flags["Aymar Dibumbè"] is False and flags["Cristian Miller"] is True


def test_endgame_experts_count_only_face_up_every_expert_counts_in_its_continent():
    # Pora Paniu (1 VP per 2 coins) and Nargiz Tatilian (1 VP per token) recruited; Nargiz is
    # covered later. Played to the end: Pora counts, Nargiz does not; both are in the
    # collections (2 experts < 4: 0 VP there).
    f = [x for x in FILLER_EXPERTS if x not in ("Pora Paniu", "Nargiz Tatilian")]
    names = ["Pora Paniu", "Nargiz Tatilian", f[0], f[1]]
    t = setup(experts=names + [f[2], f[3]],
              dice={0: [("red", 1)] * 4, 1: [("blue", 1)] * 4})
    for i in range(4):
        t.do(TakeDie(0, 0, i), University(0, names[i]))
        t.do(TakeDie(1, 1, i), Embassy(1))
    t.new_round(experts=[f[4]], dice={0: [("red", 1)] * 4, 1: [("blue", 1)] * 4})
    t.do(TakeDie(0, 0, 0), University(0, f[4], slot=1))  # covers Nargiz
    t.play_to_end()
    s = t.seat(0)
    breakdowns, ranking = final_scores(t.st)
    b = breakdowns[0]
    expected = s.vp + 4 * s.seals + s.coins // 2 + s.tokens + s.coins // 2  # + Pora
    assert b.total == expected, b
    flags = {e.name: active for e, active in score_inputs(t.st)[0].experts}
    assert flags == {"Pora Paniu": True, "Nargiz Tatilian": False, f[0]: True, f[1]: True, f[4]: True}


def test_expert_gained_on_the_expeditions_own_reputation_counts_for_its_value():
    # audit N1 (adopted): at space 6 reached by the expedition's reputation, Pu Geun-Young (+2 to
    # Asian expeditions) is taken before the research: the research value includes it
    from companion.actions import ChooseExpert
    display = [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Panda"),
               animal("asia", "bird", "omnivore", "aquatic", "hot", "Crane")]
    t = setup(experts=["Pu Geun-Young"], display=display, picks=[2, 3, 0, 4],
              dice={0: [("purple", 5), ("purple", 4), ("green", 1), ("green", 2)],
                    1: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]})
    s = t.seat(0)
    t.do(TakeDie(0, 0, 0), Academy(0, t.card("Crane")))  # reputation 3
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1), Expedition(0, "asia"))  # +3 -> 6
    assert s.rep == 6 and t.p.kind == "choose_expert"
    t.do(ChooseExpert(0, "Pu Geun-Young"))
    assert t.p.kind == "research" and t.p.value == 4 + 2
    t.do(Research(0, ((t.card("Panda"), "mammal"), (t.card("Panda"), "carnivore"))))
