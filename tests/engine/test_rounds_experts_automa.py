"""Round tokens, reputation, end of round (seal actions), end of game, expert effects, automa
rows, and the JSON form of every action."""

import json

import pytest

from companion.actions import (
    ACTION_TYPES, Academy, AutomaAction, Bank, ChooseAnimal, ChooseExpert, DrawAnimal, Embassy,
    Expedition, Pass, PlaceDice, Publish, Research, RevealRoundToken, RollDice, RollDie, SealAction,
    SeatConfig, Spend, StartGame, TakeDie, University, UseExpert, action_from_json,
)
from companion.engine import BEHAVIOURS, apply
from companion.errors import (
    BadActionError, CardUnavailableError, ExpertSlotError, GameOverError, NoSuchDieError, NotYourTurnError,
)

from .helpers import bank_turns, give, hand, new_game, refused


# ---------------------------------------------------------------- round tokens


@pytest.mark.parametrize("effect", ["token", "coins", "nothing"])
def test_round_token_simple_effects(effect):
    st, t = new_game(("A", "B", "C"), stop=("reveal_round_token",))
    before = [(s.tokens, s.coins) for s in st.seats]
    apply(st, RevealRoundToken(effect))
    after = [(s.tokens, s.coins) for s in st.seats]
    delta = {"token": (1, 0), "coins": (0, 3), "nothing": (0, 0)}[effect]
    assert all((a[0] - b[0], a[1] - b[1]) == delta for a, b in zip(after, before))
    assert st.pending.kind == "roll_dice" and st.pending.count == 4


@pytest.mark.parametrize("effect", ["expert", "animal"])
def test_round_token_drafts_in_seat_order_from_the_first_player_then_refill(effect):
    st, t = new_game(("A", "B", "C"), first=2, stop=("reveal_round_token",))
    apply(st, RevealRoundToken(effect))
    order = []
    while st.pending.kind == "choose_" + effect:
        p = st.pending
        order.append(p.seat)
        assert p.reason == "round"
        if effect == "expert":
            apply(st, ChooseExpert(p.seat, next(n for n in st.expert_display if n)))
        else:
            apply(st, ChooseAnimal(p.seat, next(c for c in st.animal_display if c is not None)))
    assert order == [2, 0, 1]
    assert st.pending.kind == "reveal_" + effect  # refill
    t.run(stop=("roll_dice",))
    display = st.expert_display if effect == "expert" else st.animal_display
    assert all(x is not None for x in display)


def test_round_token_extra_die_two_dice_share_a_slot():
    st, t = new_game(stop=("reveal_round_token",))
    apply(st, RevealRoundToken("extra_die"))
    p = st.pending
    assert p.count == 5
    dice = (("red", 1), ("red", 2), ("blue", 3), ("blue", 4), ("green", 5))
    apply(st, RollDice(p.seat, dice))
    refused(st, PlaceDice(p.seat, (0, 1, 2, 3, 3 + 1)), BadActionError)
    refused(st, PlaceDice(p.seat, (0, 0, 0, 1, 2)), BadActionError, "exactly 2 dice share")
    apply(st, PlaceDice(p.seat, (0, 1, 2, 3, 3)))
    s = st.seats[p.seat]
    assert s.slots[3] == [("blue", 4), ("green", 5)]
    t.run(stop=("take_die",))
    other = st.pending.seat
    vp = s.vp
    if other == p.seat:
        apply(st, TakeDie(other, other, 0, 0))
        apply(st, Embassy(other))
        other = st.pending.seat
    apply(st, TakeDie(other, p.seat, 3, 1))  # the second die of the shared slot
    assert st.hand == ("green", 5) and s.vp == vp + 3


# ---------------------------------------------------------------- reputation


def test_reputation_wraps_and_gives_every_bonus_reached_or_passed():
    st, _ = new_game()
    s = st.seats[0]
    s.rep = 13
    seals, tokens = s.seals, s.tokens
    hand(st, 0, ("red", 6))
    st.seats[0].experts = ["Etienne Lebeau"]  # Embassy: +2 reputation (face up)
    s.face_up[0] = "Etienne Lebeau"
    st.experts_seen.append("Etienne Lebeau")
    from companion.engine import refresh_effects
    refresh_effects(s)
    apply(st, Embassy(0, Spend()))  # +2 rep: 13 -> 15 passing 14 (seal)
    assert s.rep == 15 and s.seals == seals + 1
    _ = tokens
    apply(st, TakeDie(1, 1, 0, 0))
    apply(st, Embassy(1))
    hand(st, 0, ("red", 6))
    s.tokens = 0
    apply(st, Embassy(0))  # 15 -> 0 -> 1: wraps, no bonus on 0/1
    assert s.rep == 1 and s.tokens == 3


def test_card_bonus_earned_on_another_seats_turn_waits_for_the_end_of_that_turn():
    st, _ = new_game()
    b = st.seats[1]
    b.rep = 5  # +2 from the reputation slot -> 7, passing 6 (expert)
    apply(st, TakeDie(0, 1, 2, 0))
    assert b.rep == 7 and st.deferred == [(1, "expert")]
    assert st.pending.kind == "action" and st.pending.seat == 0
    apply(st, Bank(0))
    p = st.pending
    assert (p.kind, p.seat, p.reason) == ("choose_expert", 1, "reputation")
    apply(st, ChooseExpert(1, next(n for n in st.expert_display if n)))
    assert st.pending.kind == "take_die" and st.pending.seat == 1


def test_card_bonus_from_the_deck_when_the_display_is_empty():
    st, _ = new_game()
    s = st.seats[0]
    st.discarded_animals += [c for c in st.animal_display if c is not None]
    st.animal_display = [None] * len(st.animal_display)
    s.rep = 7
    hand(st, 0, ("red", 1))
    apply(st, Bank(0))
    # nothing triggered (Bank gives no reputation); use an Embassy expert to move the track
    s.rep = 6
    st.seats[0].experts.append("Etienne Lebeau")
    st.experts_seen.append("Etienne Lebeau")
    s.face_up[0] = "Etienne Lebeau"
    from companion.engine import refresh_effects
    refresh_effects(s)
    apply(st, TakeDie(1, 1, 0, 0))
    apply(st, Embassy(1))
    hand(st, 0, ("red", 1))
    apply(st, Embassy(0))  # 6 -> 8: animal bonus, display empty
    p = st.pending
    assert p.kind == "choose_animal" and p.from_deck and p.accepts == ("draw_animal", "use_expert")  # its own turn (issue 39)
    refused(st, ChooseAnimal(0, 0), CardUnavailableError, "deck")
    apply(st, DrawAnimal(0, "asia", "Panda"))
    assert st.cards[-1].name == "Panda" and st.cards[-1].id in s.animals


# ---------------------------------------------------------------- end of round / game


def test_seal_actions_at_the_end_of_the_round_in_order_from_the_first_player():
    st, t = new_game(("A", "B", "C"), automas=(2,), first=1)
    st.seats[0].seals = 1
    st.seats[1].seals = 2
    st.seats[2].seals = 3  # an automa never takes this action
    p = bank_turns(st, until=("seal_action",))
    assert st.first_player == 1 and p.seat == 1  # B, the first to use the Bank, holds the token
    refused(st, SealAction(0, "red"), NotYourTurnError)
    colours = [c for c, k in st.central.items() if k]
    missing = next(c for c, k in st.central.items() if not k) if len(colours) < 5 else None
    if missing:
        refused(st, SealAction(p.seat, missing), NoSuchDieError)
    apply(st, SealAction(p.seat, colours[0]))
    assert st.seats[p.seat].seals == 1 and st.pending.kind == "roll_die"
    apply(st, RollDie(p.seat, 5))
    assert st.pending.kind == "action" and st.hand == (colours[0], 5)
    tokens = st.seats[p.seat].tokens
    apply(st, Embassy(p.seat))
    assert st.seats[p.seat].tokens == tokens + 3
    nxt = st.pending
    assert (nxt.kind, nxt.seat) == ("seal_action", 0)  # C is an automa: skipped
    apply(st, Pass(0))
    assert st.pending.kind == "reveal_expert"  # round 2: the displays are refilled
    assert st.round == 2 and st.expert_display == [None] * 6
    assert sum(st.bag.values()) == 20 and not any(st.central.values())


def test_game_end_discards_unpublished_animals_and_their_cubes():
    st, t = new_game()
    s = st.seats[0]
    cid = give(st, 0, "america", cubes=("mammal", "hot"))
    for r in range(6):
        p = bank_turns(st, until=("reveal_round_token", "game_over", "reveal_expert", "reveal_animal"), table=t)
        if p.kind == "game_over":
            break
        t.run(stop=("take_die",))
    assert st.finished and st.pending.kind == "game_over" and st.round == 6
    assert s.animals == [] and cid in st.discarded_animals and s.cubes_lost == 2
    refused(st, Bank(0), GameOverError)


# ---------------------------------------------------------------- experts


def _with_expert(st, seat, name):
    from companion.engine import refresh_effects
    s = st.seats[seat]
    s.experts.append(name)
    st.experts_seen.append(name)
    s.face_up[s.face_up.index(None)] = name
    refresh_effects(s)


@pytest.mark.parametrize("expert, action, gain", [
    ("Cristian Miller", "university", ("coins", 2)),
    ("Adamu Ashenafi", "university", ("vp", 3)),
    ("Leonardas Vaikutis", "university", ("rep", 2)),
    ("Aymar Dibumbè", "embassy", ("coins", 2)),
    ("Piaar Jhari", "embassy", ("vp", 3)),
    ("Samara El-Ouadie", "bank", ("rep", 2)),
    ("Phoebe Burke", "bank", ("vp", 3)),
    ("Cathrin Holzhausen", "academy", ("coins", 2)),
    ("Paipau Piripi", "academy", ("vp", 3)),
    ("Gao Zhelan", "publication", ("coins", 3)),
    ("Elena Lewis", "publication", ("rep", 2)),
    ("Audrey Morton", "expedition", ("vp", 3)),
])
def test_place_die_experts(expert, action, gain):
    st, _ = new_game()
    s = st.seats[0]
    s.rep = 8  # away from bonus spaces for +2 (10 gives a token: count it)
    _with_expert(st, 0, expert)
    am = give(st, 0, "america")
    s.coins = 10
    hand(st, 0, ("red", 1))
    before = dict(coins=s.coins, vp=s.vp, rep=s.rep, tokens=s.tokens)
    a = {"university": University(0, next(n for n in st.expert_display if n), spend=Spend()),
         "embassy": Embassy(0), "bank": Bank(0),
         "academy": Academy(0, next(c for c in st.animal_display if st.cards[c].continent == "america")),
         "publication": Publish(0, am, Spend(coins=1)),
         "expedition": Expedition(0, "america", Spend(coins=1))}[action]
    apply(st, a)
    after = dict(coins=s.coins, vp=s.vp, rep=s.rep, tokens=s.tokens)
    k, v = gain
    own = {("embassy", "coins"): 0, ("bank", "coins"): 5, ("publication", "coins"): -1,
           ("publication", "vp"): 1, ("academy", "rep"): 1, ("expedition", "rep"): 3}
    assert after[k] - before[k] == v + own.get((action, k), 0)


def test_die_value_expert_counts_after_a_colour_change_and_expedition_bonus_expert():
    st, _ = new_game()
    _with_expert(st, 0, "Yaban Peker")  # yellow dice +1
    _with_expert(st, 0, "Girgis Al-Ghumari")  # Africa expeditions +2
    give(st, 0, "africa")
    hand(st, 0, ("red", 3))
    apply(st, Expedition(0, "africa", Spend(colour="yellow")))
    assert st.pending.value == 3 + 1 + 2  # first space: +0


@pytest.mark.parametrize("expert, typ, coins", [("Alonso Rossette", 1, 1), ("Mathias Hass", 2, 1),
                                                ("Simon Hodesmann", 3, 2), ("Kedar Ghale", 4, 3)])
def test_place_cube_experts(expert, typ, coins):
    st, _ = new_game()
    s = st.seats[0]
    _with_expert(st, 0, expert)
    a = give(st, 0, "america")
    b2 = give(st, 0, "america")
    s.coins = 20
    hand(st, 0, ("red", 6))
    apply(st, Expedition(0, "america", Spend(coins=14)))  # 20
    cat = ("mammal", "herbivore", "arboreal", "hot")[typ - 1]
    c0 = s.coins
    apply(st, Research(0, ((a, cat), (b2, cat))))
    assert s.coins - c0 == 2 * coins


@pytest.mark.parametrize("expert, k, v", [("Safi Limbila", "coins", 5), ("Matilda Glenn", "rep", 3)])
def test_one_shot_experts_are_used_on_your_own_turn_then_flipped(expert, k, v):
    st, _ = new_game()
    s = st.seats[0]
    s.rep = 10
    _with_expert(st, 0, expert)
    refused(st, UseExpert(1, expert), NotYourTurnError)
    refused(st, UseExpert(0, "Rogério Luz"), ExpertSlotError, "not face up")
    before = getattr(s, k if k != "rep" else "rep")
    apply(st, UseExpert(0, expert))
    assert getattr(s, k) - before == v + (0 if k != "rep" else 0)
    assert expert in s.used and expert not in s.face_up
    refused(st, UseExpert(0, expert), ExpertSlotError)


def test_covered_expert_has_no_effect_but_counts_for_collections():
    st, _ = new_game()
    s = st.seats[0]
    for n in ("Phoebe Burke", "Rogério Luz", "Yaban Peker", "Mathieu Aubert"):
        _with_expert(st, 0, n)
    hand(st, 0, ("red", 1))
    apply(st, University(0, next(n for n in st.expert_display if n), slot=0))  # covers Phoebe Burke
    assert "Phoebe Burke" in s.covered()
    apply(st, TakeDie(1, 1, 0, 0))
    apply(st, Embassy(1))
    hand(st, 0, ("red", 1))
    vp = s.vp
    apply(st, Bank(0))
    assert s.vp == vp  # Phoebe Burke (Bank +3 VP) is covered
    from companion.engine import score_inputs
    inp = score_inputs(st)[0]
    assert ("Phoebe Burke", False) in [(e.name, act) for e, act in inp.experts]


# ---------------------------------------------------------------- automa


@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_automa_rows_apply_the_card_gains_only(behaviour, value):
    st, _ = new_game(("Human", "Bot"), automas=(1,), behaviour=behaviour)
    apply(st, TakeDie(0, 0, 0, 0))
    apply(st, Embassy(0))
    s = st.seats[1]
    s.tokens = 2
    s.rep = 0
    give(st, 1, "europe")
    before = dict(coins=s.coins, tokens=s.tokens, seals=s.seals, vp=s.vp, rep=s.rep)
    hand(st, 1, ("green", value))
    row = BEHAVIOURS[behaviour][value]
    kind = row["kind"]
    if kind == "expedition":
        refused(st, AutomaAction(1), Exception, "continent")
        apply(st, AutomaAction(1, "europe"))
        # card order: the space's reputation first (0 -> 3 passes space 2: +1 token), then
        # every token is discarded for VP
        assert s.vp - before["vp"] == 3 * row["vp_per_token"] and s.tokens == 0
        assert s.rep == 3 and st.expedition["europe"] == 1
        return
    refused(st, AutomaAction(1, "europe"), BadActionError)
    refused(st, Bank(1), NotYourTurnError, "automa")
    apply(st, AutomaAction(1))
    if kind == "embassy":
        assert s.tokens - before["tokens"] == row["tokens"]
    elif kind == "bank":
        assert s.coins - before["coins"] == 5 and st.first_player == 1
        assert s.tokens - before["tokens"] == row.get("tokens", 0) and s.seals - before["seals"] == row.get("seals", 0)
    elif kind == "academy":
        assert st.pending.kind == "choose_animal" and st.pending.reason == "academy"
        assert s.rep == row["reputation"]
    elif kind == "university":
        assert st.pending.kind == "choose_expert" and st.pending.reason == "university"
        assert s.tokens - before["tokens"] >= row.get("tokens", 0)
        assert s.seals - before["seals"] == row.get("seals", 0)
        assert s.rep == row.get("reputation", 0)


def test_automa_never_takes_a_sepultus_card_and_sets_aside_one_drawn():
    st, _ = new_game(("Human", "Bot"), automas=(1,), sepultus=True)
    from companion.engine import Card
    sep = len(st.cards)
    st.cards.append(Card(sep, None, "bones", ("reptile",), True, 3, 4))
    st.discarded_animals += [c for c in st.animal_display if c is not None]
    st.animal_display = [None] * len(st.animal_display)
    st.animal_display[0] = sep
    st.discarded_animals.remove(sep) if sep in st.discarded_animals else None
    apply(st, TakeDie(0, 0, 0, 0))
    apply(st, Embassy(0))
    hand(st, 1, ("green", 6))  # Carl von Linné 6: Academy
    apply(st, AutomaAction(1))
    p = st.pending
    assert p.kind == "choose_animal" and p.from_deck  # only a Sepultus card in the display: deck
    refused(st, ChooseAnimal(1, sep), CardUnavailableError)
    apply(st, DrawAnimal(1, None, "more bones", ("bird",), True, 2, 3))
    assert st.set_aside and st.pending.kind == "choose_animal"
    apply(st, DrawAnimal(1, "asia", "Tiger"))
    assert st.cards[-1].id in st.seats[1].animals


# ---------------------------------------------------------------- JSON


EXAMPLES = [
    StartGame((SeatConfig("A"), SeatConfig("B", "automa", "carl-von-linne", "l-astrolabe",
                                           ("asia", "africa", "america", "europe", "oceania"))), 1, True),
    TakeDie(0, 1, 2, 1), Embassy(0, Spend(coins=2, colour="red", colour_by="seal", seals=1)),
    Publish(0, 3, Spend(coins=1), 2, ((4, "bird"), (5, "aquatic")), (6,)),
    Research(1, ((1, "mammal"),)), RollDice(0, (("red", 3), ("blue", 6))), PlaceDice(1, (0, 1, 2, 3)),
    DrawAnimal(0, None, "x", ("bird",), True, 3, 4), University(0, "Safi Limbila", None, True),
]


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.TYPE)
def test_actions_round_trip_through_json_text(action):
    d = json.loads(json.dumps(action.to_json()))
    assert action_from_json(d) == action


def test_every_action_type_has_a_json_name():
    assert len(ACTION_TYPES) == 24  # + swap_cubes (issue 39)


@pytest.mark.parametrize("bad, match", [
    ({"type": "teleport"}, "unknown action type"),
    ({"type": "embassy"}, "missing field"),
    ({"type": "embassy", "seat": "0"}, "whole number"),
    ({"type": "embassy", "seat": 0, "spend": {"coins": 1, "gold": 2}}, "unknown field"),
    ({"type": "roll_dice", "seat": 0, "dice": [["red"]]}, "colour, value"),
    ([1, 2], "JSON object"),
])
def test_bad_action_json_is_refused(bad, match):
    with pytest.raises(BadActionError, match=match):
        action_from_json(bad)


def test_an_automa_keeps_its_animals_at_the_end_of_the_game():
    st, t = new_game(("Human", "Bot"), automas=(1,))
    bot_animals = list(st.seats[1].animals)
    assert bot_animals
    for _ in range(6):
        p = bank_turns(st, until=("reveal_round_token", "game_over", "reveal_expert", "reveal_animal"), table=t)
        if p.kind == "game_over":
            break
        t.run(stop=("take_die",))
    assert st.finished
    assert set(bot_animals) <= set(st.seats[1].animals)  # never discarded: its Scoring card counts them
    assert st.seats[0].animals == []
    from companion.engine import final_scores, score_inputs
    inp = score_inputs(st)[1]
    assert sum(inp.animals.values()) == len(st.seats[1].animals)
    breakdowns, ranking = final_scores(st)
    assert breakdowns[1].kind == "automa" and ranking.winners


def test_every_action_of_a_game_has_a_readable_log_line():
    from companion.engine import describe_action
    from companion.actions import actions_from_json
    import json as _json
    from pathlib import Path

    doc = _json.loads((Path(__file__).resolve().parents[2] / "samples/games/random-4-seats.json").read_text())
    from companion.engine import State
    st = State()
    lines = []
    for a in actions_from_json(doc["actions"]):
        lines.append(describe_action(st, a))
        apply(st, a)
    assert all(isinstance(x, str) and x and x != x.upper() for x in lines)
    assert any(" takes " in x and "gains" in x for x in lines)
    assert any("Publication of" in x for x in lines)
    assert lines[0].startswith("new game: ")
