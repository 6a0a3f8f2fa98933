"""Issue 39, item 4: coins gained on placing a die may raise that same die.

EN p.15, Eric's example: "He places a blue die worth 4 on his Reference Animal ... He spends 1
Coin to raise his die to a value of 5": the die is placed, then raised. Annex: "Gao Zhelan: Each
time you place a die on the Publication location, gain 3 Coins." / "Cathrin Holzhausen: Each
time you place a die in the Academy location, you gain 2 Coins." Those coins arrive when the
die is placed, so they may pay the coins that raise it (as the track coins an expedition's
reputation reaches already do).
"""

from companion.actions import Bank, Publish, Spend, TakeDie, University
from companion.errors import NotEnoughError
from companion.engine import die_options, publishable_types

from rulekit import animal, setup


def _gao_and_a_blue_1():
    """Seat 0 (1 coin) has Gao Zhelan face up, a European animal under study, a blue 1 in hand."""
    t = setup(experts=["Gao Zhelan"], display=[animal("europe", name="Ref")], picks=[1, 2, 0, 3],
              dice={0: [("red", 1), ("blue", 1), ("green", 1), ("green", 2)],
                    1: [("red", 2), ("blue", 2), ("purple", 3), ("green", 4)]})
    ref = t.card("Ref")
    assert ref in t.seat(0).animals, t.seat(0).animals
    t.do(TakeDie(0, 0, 0), University(0, "Gao Zhelan"))
    t.do(TakeDie(1, 1, 0), Bank(1))
    t.do(TakeDie(0, 0, 1))
    return t, ref


def test_gao_zhelans_coins_raise_the_die_placed_on_the_publication():
    t, ref = _gao_and_a_blue_1()
    s = t.seat(0)
    coins = s.coins
    assert coins == 1
    # 4 coins: 1 held + 3 from Gao Zhelan when the die is placed; value 1 + 4 = 5, Type III
    t.refuse(Publish(0, ref, Spend(coins=5)), NotEnoughError, "5 coin")
    t.do(Publish(0, ref, Spend(coins=4)))
    assert s.coins == coins + 3 - 4 and s.published == [ref]


def test_the_options_count_the_placement_coins():
    t, ref = _gao_and_a_blue_1()
    types = publishable_types(t.st, 0, ref)
    assert types[3] == Spend(coins=4) and 4 not in types  # value 6 would need 5 coins
    pubs = [o for o in die_options(t.st, 0) if o.kind == "publish" and o.target == ref]
    assert pubs and pubs[0].action.spend == Spend(coins=1)  # value 2: Type 0, one coin
