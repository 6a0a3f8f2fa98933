"""Refusal messages name seats and cards as the table knows them (rules audit N7)."""

from companion.actions import Academy, TakeDie
from companion.errors import CardUnavailableError, NotYourTurnError

from .helpers import hand, new_game, refused


def test_out_of_turn_names_both_players():
    st, _ = new_game(("Eric", "Zoe"))
    e = refused(st, TakeDie(1, 0, 0), NotYourTurnError)
    assert str(e) == "it is Eric's turn to take a die (seat 0), not Zoe's (seat 1)"


def test_a_card_not_in_the_display_is_named():
    st, _ = new_game(("Eric", "Zoe"))
    zoe_card = st.seats[1].animals[0]
    hand(st, 0, ("red", 3))
    e = refused(st, Academy(0, zoe_card), CardUnavailableError)
    assert str(e).startswith(st.cards[zoe_card].label()) and f"#{zoe_card}" in str(e)
    assert "card #99 is not in the animal display" == str(refused(st, Academy(0, 99), CardUnavailableError))
