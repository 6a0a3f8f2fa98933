"""Coins, expedition tokens and royal seals as modifiers (DIGEST §1, EN p.8-9, 16), one seal
action per seat at the end of the round, categories entered late, and refusals that say what
the game waits for."""

import pytest

from companion.actions import (
    Academy, Bank, Embassy, Expedition, Pass, Publish, Research, RevealAnimal, RollDie, SealAction,
    SetCategories, Spend, TakeDie, action_from_json,
)
from companion.errors import (
    BadActionError, CardUnavailableError, ExpeditionError, NotEnoughError, NotYourTurnError,
    WrongColourError,
)

from rulekit import animal, eric_game, setup


def test_coins_any_number_beyond_6_any_action():
    t = setup(token="coins", dice={0: [("red", 6), ("red", 1), ("red", 2), ("red", 3)]})
    t.do(TakeDie(0, 0, 0))
    t.do(Bank(0, Spend(coins=4)))  # allowed even if useless
    assert t.seat(0).coins == 4 - 4 + 5


def test_negative_or_non_integer_spend_is_malformed():
    t = setup()
    t.do(TakeDie(0, 0, 0))
    t.refuse(Embassy(0, Spend(coins=-1)), BadActionError, "coins")
    t.refuse(Embassy(0, Spend(coins=1.5)), BadActionError, "coins")


def test_token_for_colour_and_tokens_for_value_add_up():
    display = [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Panda")]
    t = setup(display=display, picks=[1, 2, 0, 3], dice={0: [("red", 6), ("red", 1), ("red", 2), ("red", 3)]})
    t.do(TakeDie(0, 0, 0))
    # 1 token held, +1 from the first Asian space's reputation (passes space 2, audit #3):
    # colour change + 2 tokens for +4 needs 3
    t.refuse(Expedition(0, "asia", Spend(tokens=2, colour="purple")), NotEnoughError, "3 expedition token")
    t.refuse(Expedition(0, "asia", Spend(colour="purple", colour_by="seal")), BadActionError, "seal")
    t.refuse(Expedition(0, "asia", Spend(seals=1, colour="purple", colour_by="seal")), NotEnoughError, "seal")
    t.refuse(Expedition(0, "asia", Spend(colour="purple", colour_by="coin")), BadActionError, "colour_by")
    # colour by the held token, +2 by the token the space's reputation gives
    t.do(Expedition(0, "asia", Spend(tokens=1, colour="purple")))
    assert t.seat(0).tokens == 1 - 1 + 1 - 1 and t.p.value == 8


def test_colour_change_cannot_be_paid_by_the_expeditions_own_reputation_token():
    # the die must have the continent's colour to be placed: its token comes from what is held
    display = [animal("asia", "mammal", "carnivore", "arboreal", "cold", "Panda")]
    t = setup(display=display, picks=[1, 2, 0, 3], dice={0: [("red", 6), ("red", 1), ("red", 2), ("red", 3)]})
    t.do(TakeDie(0, 0, 0), Bank(0, Spend(colour="green")))  # spends the only token
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1))
    t.refuse(Expedition(0, "asia", Spend(colour="purple")), NotEnoughError, "token")


def test_colour_change_without_a_token_is_refused():
    display = [animal("africa", name="Gnu")]
    t = setup(display=display, picks=[1, 2, 3, 4], dice={0: [("red", 6), ("red", 1), ("red", 2), ("red", 3)]})
    t.do(TakeDie(0, 0, 0), Bank(0, Spend(colour="green")))  # legal, and spends the only token
    assert t.seat(0).tokens == 0
    t.do(TakeDie(1, 1, 0), Embassy(1))
    t.do(TakeDie(0, 0, 1))
    t.refuse(Academy(0, t.card("Gnu"), Spend(colour="yellow")), NotEnoughError, "token")


def test_seal_for_five_coins_in_any_action():
    t, c = eric_game()  # 5 coins, 1 seal, blue 4 in hand
    s = t.seat(0)
    t.refuse(Embassy(0, Spend(coins=11, seals_for_coins=1)), NotEnoughError, "coin")
    t.refuse(Embassy(0, Spend(seals_for_coins=2)), NotEnoughError, "seal")
    t.do(Embassy(0, Spend(seals_for_coins=1)))
    assert s.coins == 10 and s.seals == 0


def test_seal_plus_five_without_colour_change():
    t, c = eric_game()
    s = t.seat(0)
    tokens = s.tokens
    t.do(Embassy(0, Spend(seals=1)))  # 4 + 5 = 9 -> 3 tokens
    assert s.tokens == tokens + 3 and s.seals == 0


def test_seal_changes_colour_and_adds_five_at_the_academy():
    t, c = eric_game()
    s = t.seat(0)
    target = next(x for x in t.st.animal_display if x is not None and t.st.cards[x].continent == "oceania")
    t.refuse(Academy(0, target), WrongColourError, "green")
    t.do(Academy(0, target, Spend(seals=1, colour="green", colour_by="seal")))
    assert target in s.animals and s.seals == 0


def test_one_seal_action_per_seat_per_round_even_with_more_seals():
    from rulekit import eric_extra
    t, c = eric_game()
    t.do(Publish(0, c["aix"], Spend(coins=1), extra=eric_extra(c)))
    s = t.seat(0)
    assert s.seals == 2
    t.do(TakeDie(1, 1, 3), Embassy(1))
    assert t.p.kind == "seal_action" and t.p.seat == 0  # seat 1 has no seal: skipped
    colour = next(k for k, v in t.st.central.items() if v)
    t.do(SealAction(0, colour), RollDie(0, 2), Embassy(0))
    assert s.seals == 1
    assert t.st.round == 3 and t.p.kind == "reveal_expert"
    t.refuse(Pass(0), NotYourTurnError)


def test_categories_entered_late_block_research_until_known():
    display = [RevealAnimal("asia", "Mystery")]  # continent only
    t = setup(display=display, picks=[1, 2, 0, 3], dice={0: [("purple", 6), ("red", 1), ("red", 2), ("red", 3)]})
    mystery = t.card("Mystery")
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"))
    t.refuse(Research(0, ((mystery, "bird"),)), ExpeditionError, "categories")
    t.refuse(SetCategories(mystery, ("bird", "bird", "aquatic", "hot")), BadActionError, "type ii")
    t.do(SetCategories(mystery, ("bird", "omnivore", "aquatic", "hot")))
    t.refuse(SetCategories(mystery, ("bird", "omnivore", "aquatic", "hot")), BadActionError, "already")
    t.do(Research(0, ((mystery, "bird"), (mystery, "omnivore"))))
    assert sorted(t.seat(0).cubes[mystery]) == ["bird", "omnivore"]


def test_refusal_names_what_the_game_waits_for():
    t = setup(roll=False)
    err = t.refuse(TakeDie(0, 0, 0), NotYourTurnError)
    assert "roll" in str(err)
    t.roll()
    t.do(TakeDie(0, 0, 0))
    err = t.refuse(TakeDie(0, 0, 1), NotYourTurnError)
    assert "action" in str(err)


@pytest.mark.parametrize("bad", [{"type": "take_die", "seat": "0", "owner": 0, "slot": 0},
                                 {"type": "fly"}, {"type": "embassy"}, [1, 2],
                                 {"type": "embassy", "seat": 0, "spend": {"coins": 1, "gold": 2}}])
def test_malformed_actions_are_reported(bad):
    with pytest.raises(BadActionError):
        action_from_json(bad)


def test_taking_the_second_die_of_a_single_slot_is_refused():
    t = setup()
    from companion.errors import NoSuchDieError
    t.refuse(TakeDie(0, 1, 0, index=1), NoSuchDieError, "position")
    t.refuse(TakeDie(0, 5, 0), NoSuchDieError)


def test_research_of_a_card_not_owned_by_id():
    t = setup(display=[animal("asia", name="Panda")], picks=[1, 2, 0, 3],
              dice={0: [("purple", 6), ("red", 1), ("red", 2), ("red", 3)]})
    t.do(TakeDie(0, 0, 0), Expedition(0, "asia"))
    t.refuse(Research(0, ((999, "mammal"),)), CardUnavailableError, "#999")
