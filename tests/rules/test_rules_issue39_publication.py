"""Issue 39, item 3: a publication starts at the highest type the die can publish.

EN p.15 (FR the same): "Starting with the Category of the highest Type you can publish, you
**must** take the corresponding Research cube from your Reference Animal." The die's value
(after coins, seals, experts) fixes that type; raising the die is the only choice.
Eric's table (rulekit.eric_game): blue 4 in hand, Aix galericulata carries bird (I), omnivore
(II) and aquatic (III) cubes.
"""

from companion.actions import Publish, Spend
from companion.errors import DieValueError, PublicationError
from companion.engine import apply_unchecked, preview_publication, publishable_types

from rulekit import eric_game


def test_a_publication_below_the_highest_type_is_refused():
    t, c = eric_game()
    s = t.seat(0)
    # "Starting with the Category of the highest Type you can publish, you must take the
    # corresponding Research cube": the blue 4 publishes from Type II, not from Type I or 0
    t.refuse(Publish(0, c["aix"], up_to=1), PublicationError, "Type II")
    t.refuse(Publish(0, c["aix"], up_to=0), PublicationError, "Type II")
    # one coin more: the die is worth 5, Type III, so up_to=2 is refused then too
    t.refuse(Publish(0, c["aix"], Spend(coins=1), up_to=2), PublicationError, "Type III")
    # above the die: still the die-value refusal
    t.refuse(Publish(0, c["aix"], up_to=3), DieValueError, "5")
    # exactly the highest type, or no up_to: accepted, the Type II omnivore cube must go
    vp = s.vp
    t.do(Publish(0, c["aix"], up_to=2))
    assert s.pub_cubes == {"omnivore": 1, "bird": 1} and s.vp == vp + 3 + 2 + 1


def test_publishable_types_offer_only_the_type_each_spend_starts_at():
    t, c = eric_game()
    types = publishable_types(t.st, 0, c["aix"])
    # blue 4: Type II without a spend; III with 1 coin, IV with 2; never I or 0
    assert set(types) == {2, 3, 4}
    assert types[2] == Spend() and types[3].coins == 1 and types[4].coins == 2
    for typ, sp in types.items():
        # each spend starts the publication exactly at its type: up_to=typ is accepted,
        # one type lower is refused
        preview_publication(t.st, Publish(0, c["aix"], sp, up_to=typ))
        t.refuse(Publish(0, c["aix"], sp, up_to=typ - 1), PublicationError, "Type " + ("I", "II", "III", "IV")[typ - 1])


def test_an_old_log_publishing_below_the_highest_type_still_replays():
    # logs written before the fix replay unchecked exactly as they were played
    t, c = eric_game()
    st = t.st.copy()
    apply_unchecked(st, Publish(0, c["aix"], up_to=1))
    s = st.seats[0]
    assert s.pub_cubes == {"bird": 1} and s.published == [c["aix"]]
