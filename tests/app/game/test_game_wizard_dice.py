"""New game wizard and dice entry view-models."""

from __future__ import annotations

import random

from companion.app.game.dice_vm import DiceEntry
from companion.app.game.texts import GameText, load_game_table
from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, setup_steps
from companion.engine import replay
from companion.store import GameStore
from game_play import FakeDie, FakeRead

T = GameText()


def test_wizard_defaults_make_a_solo_game(game_dir):
    w = NewGameVM(T, random.Random(1))
    assert [s.kind for s in w.seats] == [HUMAN, AUTOMA] and w.problems() == []
    s = w.create(GameStore(game_dir))
    st = s.state
    assert st.seats[1].kind == "automa" and sorted(st.seats[1].priority) == sorted(st.board.continents)
    assert st.pending.kind == "reveal_expert"
    steps = setup_steps(st, T)
    assert any("Player 1: 1 coin and " in x for x in steps) and any("Automa: 2 coins and " in x for x in steps)
    assert any("Behavior card Carl von Linné · 1/3" in x for x in steps)


def test_wizard_limits_and_engine_checks():
    w = NewGameVM(T, random.Random(2))
    assert w.add_seat(AUTOMA) and w.add_seat(AUTOMA)
    assert not w.add_seat(HUMAN) and "at most 4" in w.error
    assert not w.set_kind(0, AUTOMA) and "at most 3 automas" in w.error
    assert len({tuple(s.priority) for s in w.seats if s.kind == AUTOMA}) == 3  # shuffled apart
    w.set_name(2, "Automa")
    assert "two seats are called 'Automa'" in w.problems()[0]
    w.set_name(2, "  ")
    assert "needs a name" in w.problems()[0]
    assert w.remove_seat(3) and w.remove_seat(2)
    assert not w.remove_seat(1) and "at least 2" in w.error
    assert w.problems() == []
    assert w.create is not None


def test_wizard_priorities_entered_from_the_table():
    w = NewGameVM(T, random.Random(3))
    assert w.set_priority_text(1, "blue purple red yellow green")
    assert w.seats[1].priority == ["europe", "asia", "america", "africa", "oceania"] and w.seats[1].priority_entered
    assert not w.set_priority_text(1, "europe europe asia africa america") and "repeated europe" in w.error
    w.move_priority(1, "oceania", -1)
    assert w.seats[1].priority[3] == "oceania"
    w.first_player = 1
    w.sepultus = True
    a = w.start_action()
    st = replay([a])
    assert st.first_player == 1 and st.sepultus and st.seats[1].priority[3] == "oceania"


def test_dice_entry_by_hand():
    e = DiceEntry("Ana", 4, {"red": 1, "yellow": 4, "purple": 4, "blue": 4, "green": 4}, T)
    assert e.add("red", 6)
    assert not e.add("red", 2) and "only 1 red" in e.message
    assert not e.add("pink", 2) and not e.add("blue", 7)
    for c in ("blue", "green", "yellow"):
        assert e.add(c, 3)
    assert not e.add("purple", 1) and "draws 4 dice" in e.message
    assert e.problem() is None
    assert not e.set_colour(1, "red")  # the bag has no second red
    assert e.set_colour(1, "purple") and e.set_value(1, 5)
    assert e.action(0).dice == (("red", 6), ("purple", 5), ("green", 3), ("yellow", 3))
    e.remove(0)
    assert "1 entered" not in (e.problem() or "") and "3 entered" in e.problem()
def test_game_string_tables_hold_the_same_keys():
    en = load_game_table("en")
    for lang in ("fr", "it"):
        other = load_game_table(lang)
        assert set(other) == set(en), f"{lang}: missing {sorted(set(en) - set(other))[:5]}, extra {sorted(set(other) - set(en))[:5]}"
        for k, v in en.items():
            import string

            names = {f[1] for f in string.Formatter().parse(v) if f[1]}
            assert names == {f[1] for f in string.Formatter().parse(other[k]) if f[1]}, (lang, k)


def test_a_photo_with_more_reads_than_dice_keeps_the_game_dice_when_they_fit():
    bag = {"red": 4, "yellow": 4, "purple": 4, "blue": 4, "green": 4}
    e = DiceEntry("Ana", 4, bag, T)
    art = [FakeDie("unknown", 5, unsure=True, confidence=0.5)] * 50   # a dotted cloth read as white dice
    assert e.load_read(FakeRead([FakeDie("red", 3), FakeDie("blue", 6), FakeDie("green", 1), *art]))
    assert [(c.colour, c.value) for c in e.chips] == [("red", 3), ("blue", 6), ("green", 1)]
    assert not e.message_is_error and "50 reads that are not game dice" in e.message and "1 missing" in e.message
    assert "4 entered" not in (e.problem() or "") and "3 entered" in e.problem()


def test_a_photo_with_too_many_game_dice_is_still_refused_and_changes_nothing():
    bag = {"red": 4, "yellow": 4, "purple": 4, "blue": 4, "green": 4}
    e = DiceEntry("Ana", 4, bag, T)
    assert e.add("red", 2)
    five = [FakeDie(c, v) for c, v in (("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4), ("green", 5))]
    unknown = FakeDie("unknown", 6, unsure=True, confidence=0.5)
    assert not e.load_read(FakeRead([*five, unknown]))
    assert e.message_is_error and "photograph only this seat's dice" in e.message
    assert [(c.colour, c.value) for c in e.chips] == [("red", 2)]
    assert not e.load_read(FakeRead([unknown] * 5))   # nothing but unknown reads
    assert e.message_is_error and [(c.colour, c.value) for c in e.chips] == [("red", 2)]


def test_the_unsure_message_follows_the_confirmations():
    """Issue 41, item 5: "3 unsure" stayed on screen after the three were confirmed."""
    bag = {"red": 4, "yellow": 4, "purple": 4, "blue": 4, "green": 4}
    e = DiceEntry("Ana", 5, bag, T)
    reads = [FakeDie("red", 3, unsure=True, confidence=0.6), FakeDie("blue", 6, unsure=True, confidence=0.6),
             FakeDie("green", 1), FakeDie("yellow", 2, unsure=True, confidence=0.5)]
    assert e.load_read(FakeRead(reads))
    assert "3 unsure" in e.message and "1 missing" in e.message
    e.confirm_chip(0)
    assert "2 unsure" in e.message
    e.set_value(1, 5)  # a correction settles it too
    assert "1 unsure" in e.message
    e.set_colour(3, "purple")
    assert "unsure" not in e.message and "1 missing" in e.message
    assert e.add("red", 4)
    assert e.message is None or ("unsure" not in e.message and "missing" not in e.message)
    assert not e.add("red", 5)  # a refusal is said, then the read's summary again once it is fixed
    assert e.message_is_error and "unsure" not in e.message
    e.clear()
    assert e.message is None


def test_a_selected_unsure_die_keeps_its_unsure_border():
    """Issue 41, item 5: selecting an unsure die replaced its amber border with the selection's."""
    import flet as ft

    from companion.app.game.widgets import die_chip

    def borders(c):
        out = []
        while c is not None:
            b = getattr(c, "border", None)
            if b is not None:
                out.append(b.top.color)
            c = getattr(c, "content", None)
        return out

    assert ft.Colors.AMBER in borders(die_chip("red", 3, "red 3 (unsure)", selected=True, unsure=True))
    assert ft.Colors.ON_SURFACE in borders(die_chip("red", 3, "red 3 (unsure)", selected=True, unsure=True))
    assert borders(die_chip("red", 3, "red 3", selected=True)) == [ft.Colors.ON_SURFACE]
    assert borders(die_chip("red", 3, "red 3", unsure=True)) == [ft.Colors.AMBER]
    assert borders(die_chip("red", 3, "red 3")) == []


def test_the_wizard_reorders_seats_and_the_game_plays_in_that_order(game_dir):
    """Issue 41, item 9: the turn order can be set in the wizard; the first player follows its seat."""
    w = NewGameVM(T, random.Random(4))
    assert w.add_seat(HUMAN)  # Player 1, Automa, Player 2
    w.set_name(2, "Carl")
    w.first_player = 1  # the automa starts
    assert w.move_seat(2, -1)
    assert [s.name for s in w.seats] == ["Player 1", "Carl", "Automa"] and w.first_player == 2
    assert w.move_seat(0, +1)
    assert [s.name for s in w.seats] == ["Carl", "Player 1", "Automa"] and w.first_player == 2
    before = [s.name for s in w.seats]
    assert not w.move_seat(0, -1) and w.error == "Seat 1 already plays first"
    assert not w.move_seat(2, +1) and w.error == "Seat 3 already plays last"
    assert [s.name for s in w.seats] == before
    import pytest
    with pytest.raises(ValueError):
        w.move_seat(5, 1)
    st = w.create(GameStore(game_dir)).state
    assert [s.name for s in st.seats] == ["Carl", "Player 1", "Automa"] and st.first_player == 2
    assert st.seats[2].kind == "automa" and sorted(st.seats[2].priority) == sorted(st.board.continents)


def test_an_automa_seat_is_never_called_a_player():
    """Issue 41, item 9: the seat's heading said "Giocatore 2" / "Joueur 2" over an automa."""
    for lang, player in (("en", "Player"), ("fr", "Joueur"), ("it", "Giocatore")):
        t = GameText(lang)
        w = NewGameVM(t, random.Random(5))
        assert w.add_seat(AUTOMA)
        for i, s in enumerate(w.seats):
            title = w.seat_title(i)
            assert str(i + 1) in title
            if s.kind == AUTOMA:
                assert player not in title and player not in s.name, (lang, title, s.name)
                assert t("g.wiz.automa") in title
            else:
                assert t("g.wiz.human") in title


def test_a_colour_said_of_several_dice_agrees_with_them_in_french_and_italian():
    """Issue 41 (b): "il ne reste que 2 dés rouge" / "restano solo 2 dadi rosso" were slips."""
    words = {}
    for lang in ("en", "fr", "it"):
        e = DiceEntry("Ana", 4, {"red": 2, "yellow": 4, "purple": 4, "blue": 4, "green": 1}, GameText(lang))
        assert e.add("red", 6) and e.add("red", 5) and not e.add("red", 2)
        words[lang, 2] = e.message
        assert e.add("green", 1) and not e.add("green", 3)
        words[lang, 1] = e.message
    assert words["en", 2] == "only 2 red dice are left in the bag"
    assert words["fr", 2] == "il ne reste que 2 dés rouges dans le sac"
    assert words["fr", 1] == "il ne reste que 1 dé vert dans le sac"
    assert words["it", 2] == "nel sacchetto restano solo 2 dadi rossi"
    assert words["it", 1] == "nel sacchetto resta solo 1 dado verde"
    fr, it = GameText("fr"), GameText("it")
    assert [fr.dice_colour("yellow", n) for n in (0, 1, 3)] == ["jaune", "jaune", "jaunes"]  # French: 0 is singular
    assert [it.dice_colour("yellow", n) for n in (0, 1, 3)] == ["gialli", "giallo", "gialli"]
    assert it.dice_colour("blue", 3) == "blu" and fr.dice_colour("blue", 3) == "bleus"


def test_board_words_agree_in_french_and_italian():
    """Issue 41 (b): a count of expedition spaces, a space's state (une case, una casella:
    feminine) and an unnamed card of a continent ("animale dell'Africa")."""
    fr, it = GameText("fr"), GameText("it")
    assert fr("g.bd.track_info", continent="Asie", used=1, n=4) == "Asie : 1 case occupée sur 4"
    assert fr("g.bd.track_info", continent="Asie", used=2, n=4) == "Asie : 2 cases occupées sur 4"
    assert it("g.bd.track_info", continent="Asia", used=1, n=4) == "Asia: 1 casella occupata su 4"
    assert it("g.bd.track_info", continent="Asia", used=0, n=4) == "Asia: 0 caselle occupate su 4"
    assert it("g.bd.space_free") == "libera" and it("g.bd.space_used").startswith("occupata")
    assert fr("g.bd.space_used").startswith("occupée")
    assert it("g.card.unnamed", continent=it.continent("africa"), n=3) == "animale dell'Africa n.3"
    assert fr("g.res.rep", a=2, b=5) == "réputation de 2 à 5" and fr("g.dice.bad_value", value=7) == "un dé affiche de 1 à 6, pas 7"
    space = dict(continent="Asie", n=2, bonus=1, rep=2, state="libre")
    assert fr("g.bd.space_info", **space).startswith("Expédition en Asie, case 2")
    assert it("g.bd.space_info", **{**space, "continent": "Asia"}).startswith("Spedizione in Asia, casella 2")
    assert fr("g.wiz.scoring") == "Carte Scoring"  # the French rulebook's name
