import pytest

from companion.content.board import shipped_board
from companion.content.experts import EXPERTS, expert_by_name as X, experts_of
from companion.scoring import (
    AutomaScoreInput,
    HumanScoreInput,
    ScoreBreakdown,
    ScoreInputError,
    best_wildcard_spread,
    final_ranking,
    score,
    score_automa,
    score_human,
)

B = shipped_board()


def human(**kw):
    kw.setdefault("name", "P")
    return HumanScoreInput(**kw)


def test_jeremie_worked_example_is_188():
    # DIGEST §1 "Final": 72 + hot 5 (5) + carnivore 8 (17) + reptile 10 (28)
    # + Oceania 6 animals + 6 experts (40) + 6 seals (24) + 4 coins (2) = 188
    oceania = experts_of("oceania")
    # six Oceania experts, none of which is an active end-game one (so only the continent counts)
    six = [e for e in oceania if e.duration != "endgame"][:6]
    assert len(six) == 6
    inp = HumanScoreInput("Jeremie", vp=72, cubes={"hot": 5, "carnivore": 8, "reptile": 10},
                          published={"oceania": 6}, experts=[(e, True) for e in six], seals=6, coins=4)
    b = score_human(inp, B)
    assert b.total == 188
    assert b.vp_of("track") == 72
    assert b.vp_of("category:hot") == 5
    assert b.vp_of("category:carnivore") == 17
    assert b.vp_of("category:reptile") == 28
    assert b.vp_of("continent:oceania") == 40
    assert b.vp_of("seals") == 24 and b.vp_of("coins") == 2 and b.vp_of("tokens") == 0
    assert sum(i.vp for i in b.items) == b.total
    assert b.kind == "human" and b.published_animals == 6


@pytest.mark.parametrize("n,vp", [(3, 0), (4, 3), (12, 40), (13, 45), (14, 50)])
def test_collection_table_edges_for_cubes_and_continents(n, vp):
    assert score_human(human(cubes={"bird": n}), B).vp_of("category:bird") == vp
    assert score_human(human(published={"asia": n}), B).vp_of("continent:asia") == vp


def test_inactive_expert_still_counts_in_its_continent_only():
    fernanda = X("Fernanda Brito Pedroso")  # America, end game: +2 mammal cubes
    inactive = score_human(human(cubes={"mammal": 2}, published={"america": 3}, experts=[(fernanda, False)]), B)
    assert inactive.vp_of("category:mammal") == 0  # 2 cubes only
    assert inactive.vp_of("continent:america") == 3  # 3 animals + 1 expert = 4
    active = score_human(human(cubes={"mammal": 2}, published={"america": 3}, experts=[(fernanda, True)]), B)
    assert active.vp_of("category:mammal") == 3  # 2 + 2 = 4 cubes
    assert active.vp_of("continent:america") == 3


@pytest.mark.parametrize("name,cat", [(e.name, e.gain.cubes.category) for e in EXPERTS if e.gain.cubes])
def test_each_cube_expert_adds_two_to_its_category(name, cat):
    b = score_human(human(cubes={cat: 3}, experts=[(X(name), True)]), B)
    assert b.vp_of(f"category:{cat}") == 5  # 3 + 2 = 5 cubes → 5 VP


def test_cube_expert_alone_makes_a_collection_of_two():
    assert score_human(human(experts=[(X("Lotte Paulsen"), True)]), B).vp_of("category:bird") == 0


@pytest.mark.parametrize("expert,fields,extra", [
    ("Nargiz Tatilian", {"tokens": 3}, 3),          # +1 per token
    ("Vlad Koulechov", {"seals": 2}, 2),            # +1 per seal
    ("Pora Paniu", {"coins": 7}, 3),                # +1 per 2 coins (7 → 3)
    ("Ankshu Ragavan", {"reputation": 9}, 9),       # +1 per reputation space
    ("N'Kogolo Bakumi", {}, 1),                     # +1 per expert owned (itself)
])
def test_vp_per_experts_only_when_active(expert, fields, extra):
    e = X(expert)
    on = score_human(human(experts=[(e, True)], **fields), B)
    off = score_human(human(experts=[(e, False)], **fields), B)
    assert on.total - off.total == extra
    assert on.vp_of(f"expert:{e.name}") == extra
    assert off.vp_of(f"expert:{e.name}") == 0


def test_nkogolo_counts_every_owned_expert_face_up_or_not():
    owned = [(X("N'Kogolo Bakumi"), True), (X("Safi Limbila"), False), (X("Rogério Luz"), False), (X("Gao Zhelan"), True)]
    assert score_human(human(experts=owned), B).vp_of("expert:N'Kogolo Bakumi") == 4


def test_end_game_extras():
    b = score_human(human(seals=3, coins=9, tokens=5), B)
    assert (b.vp_of("seals"), b.vp_of("coins"), b.vp_of("tokens")) == (12, 4, 5)
    assert b.total == 21


def test_wildcard_pushes_a_three_to_four():
    # Asia 3 animals, Europe 6: one wildcard → Asia 4 (+3) beats Europe 7 (+4)? 8→12 is +4: check both
    b = score_human(human(published={"asia": 3, "europe": 6}, sepultus=1), B)
    # Asia 3→4: 0→3 (+3); Europe 6→7: 8→12 (+4) → Europe is better
    assert b.wildcards == {"europe": 1} and b.total == 12
    b = score_human(human(published={"asia": 3, "europe": 4}, sepultus=1), B)
    # Asia 3→4: +3; Europe 4→5: +2 → Asia
    assert b.wildcards == {"asia": 1} and b.vp_of("continent:asia") == 3 and b.total == 6
    assert "1 Sepultus" in [i for i in b.items if i.category_key == "continent:asia"][0].detail


def test_wildcards_search_is_exact():
    # two wildcards: Asia 2 → 4 (+3) or Europe 7 → 9 (12 → 22, +10): Europe
    assert best_wildcard_spread({"asia": 2, "europe": 7}, 2, B) == {"europe": 2}
    # compare exhaustively against brute force on a grid of positions
    import itertools
    for a, e, s in itertools.product(range(0, 8), range(0, 8), range(0, 5)):
        base = {"asia": a, "europe": e, "oceania": 3}
        spread = best_wildcard_spread(base, s, B)
        assert sum(spread.values()) == s
        got = sum(B.collection_vp(base.get(c, 0) + spread.get(c, 0)) for c in B.continents)
        best = max(
            sum(B.collection_vp(base.get(c, 0) + w) for c, w in zip(B.continents, ws))
            for ws in itertools.product(range(s + 1), repeat=5) if sum(ws) == s
        )
        assert got == best, (base, s, spread)


def test_wildcards_where_one_at_a_time_would_fail():
    # Asia 2, Europe 1, two wildcards: any single wildcard gains 0 VP, so choosing them one at a
    # time could scatter them; both on Asia make 4 cards = 3 VP.
    b = score_human(human(published={"asia": 2, "europe": 1}, sepultus=2), B)
    assert b.wildcards == {"asia": 2} and b.total == 3
    assert b.vp_of("continent:asia") == 3 and b.vp_of("continent:europe") == 0


def test_wildcards_with_no_continent_cards_form_their_own_collection():
    b = score_human(human(sepultus=4), B)
    assert b.total == 3 and sum(b.wildcards.values()) == 4
    assert b.published_animals == 4


def test_breakdown_items_sum_and_json():
    b = score_human(human(vp=10, cubes={"hot": 4}, published={"asia": 1}, experts=[(X("Gangesh Mukerji"), True)]), B)
    assert sum(i.vp for i in b.items) == b.total
    j = b.to_json()
    assert j["total"] == b.total and {"key", "label", "vp", "detail"} <= set(j["items"][0])
    assert b.by_key()["category:hot"] == 8  # 4 + 2 cubes = 6 → 8


@pytest.mark.parametrize("kw,needle", [
    ({"cubes": {"reptil": 1}}, "unknown category 'reptil' (did you mean 'reptile'?)"),
    ({"published": {"antarctica": 1}}, "unknown continent 'antarctica'"),
    ({"coins": -1}, "cannot be negative"),
    ({"seals": 1.5}, "whole number"),
    ({"experts": [(X("Safi Limbila"), True), ("safi limbila", False)]}, "listed twice"),
    ({"experts": [("Nobody Here", True)]}, "unknown expert"),
    ({"experts": [(X("Safi Limbila"), "yes")]}, "true or false"),
])
def test_bad_human_input(kw, needle):
    with pytest.raises(ScoreInputError) as ei:
        human(**kw)
    assert needle in str(ei.value)


# ----------------------------------------------------------------------------- automa

AUTOMA_EXPERTS = [X("Gao Zhelan"), X("Kedar Ghale"), X("Piaar Jhari"),  # 3 Asia
                  X("Adamu Ashenafi"), X("Safi Limbila"),                # 2 Africa
                  X("Mathias Hass")]                                     # 1 Europe


def automa(card):
    return AutomaScoreInput("Bot", card, vp=40, animals={"asia": 4, "europe": 2},
                            experts=AUTOMA_EXPERTS, coins=7, tokens=2, seals=1)


@pytest.mark.parametrize("card,groups,coins,tokens,seals,total", [
    # continents: Asia (4+3)*4 = 28, Europe (2+1)*2 = 6, Africa (0+2)*0 = 0 → 34
    ("la-boudeuse", 3 * 3 + 2 * 2 + 1 * 1, 3, 2 * 2, 4, 40 + 34 + 14 + 3 + 4 + 4),
    ("hms-resolution", 3 * 4 + 2 * 3 + 1 * 2, 3, 2 * 3, 5, 40 + 34 + 20 + 3 + 6 + 5),
    ("l-astrolabe", 3 * 5 + 2 * 4 + 1 * 3, 7, 2 * 4, 6, 40 + 34 + 26 + 7 + 8 + 6),
])
def test_automa_scoring_cards(card, groups, coins, tokens, seals, total):
    b = score_automa(automa(card), B)
    assert b.total == total
    assert b.vp_of("continent:asia") == 28 and b.vp_of("continent:europe") == 6
    assert b.vp_of("continent:africa") == 0
    assert sum(b.vp_of(f"expert_group:{i}") for i in (1, 2, 3)) == groups
    assert (b.vp_of("coins"), b.vp_of("tokens"), b.vp_of("seals")) == (coins, tokens, seals)
    assert b.kind == "automa" and b.scoring_card == card and b.published_animals == 6
    assert score(automa(card), B) == b
    assert total == {"la-boudeuse": 99, "hms-resolution": 108, "l-astrolabe": 121}[card]  # by hand


def test_automa_only_three_largest_expert_groups():
    experts = [X("Gao Zhelan"), X("Kedar Ghale"), X("Adamu Ashenafi"), X("Safi Limbila"),
               X("Mathias Hass"), X("Mathieu Aubert"), X("Phoebe Burke")]  # 2,2,2 and 1
    b = score_automa(AutomaScoreInput("Bot", "la-boudeuse", experts=experts), B)
    assert sum(b.vp_of(f"expert_group:{i}") for i in (1, 2, 3, 4)) == 2 * 3 + 2 * 2 + 2 * 1
    assert b.vp_of("expert_group:4") == 0


def test_bad_automa_input():
    with pytest.raises(ScoreInputError, match="unknown scoring card 'la-boudeze'"):
        AutomaScoreInput("Bot", "la-boudeze")
    with pytest.raises(ScoreInputError, match="cannot be negative"):
        AutomaScoreInput("Bot", "l-astrolabe", tokens=-2)


# ----------------------------------------------------------------------------- ranking


def bd(name, total, published=0, kind="human"):
    return ScoreBreakdown(name, kind, total, (), published_animals=published)


def test_ranking_by_total():
    r = final_ranking([(bd("A", 100), 3), (bd("B", 120), 1), (bd("C", 90), 9)])
    assert [b.name for b in r.order] == ["B", "A", "C"]
    assert r.winners == ("B",) and r.tie_break_note is None and r.places == (1, 2, 3)


def test_tie_break_most_published_animals():
    r = final_ranking([(bd("A", 120), 7), (bd("B", 120), 9), (bd("C", 80), 12)])
    assert r.winners == ("B",)
    assert [b.name for b in r.order] == ["B", "A", "C"] and r.places == (1, 2, 3)
    assert "B published the most animals" in r.tie_break_note


def test_tie_still_equal_is_shared():
    r = final_ranking([(bd("A", 120), 7), (bd("B", 120), 7), (bd("C", 120), 5)])
    assert r.winners == ("A", "B")
    assert r.places == (1, 1, 3)
    assert "shared" in r.tie_break_note


def test_ranking_accepts_breakdowns_alone_and_uses_their_count():
    h = score_human(human(name="Human", vp=50, published={"asia": 2}), B)
    # automa: 49 + Asia (1 animal + 0 experts) x 1 animal = 50: a tie on total
    a = score_automa(AutomaScoreInput("Bot", "la-boudeuse", vp=49, animals={"asia": 1}), B)
    assert h.total == a.total == 50
    r = final_ranking([a, h])
    assert r.winners == ("Human",)  # 2 published animals against the automa's 1 animal card
    a3 = score_automa(AutomaScoreInput("Bot", "la-boudeuse", vp=46, animals={"asia": 2}), B)
    assert a3.total == 50 and final_ranking([h, a3]).winners == ("Human", "Bot")


def test_ranking_empty_refused():
    with pytest.raises(ScoreInputError):
        final_ranking([])
