"""Issue 39, item 1: a new expert placed under an existing one.

EN p.10 University: "If you have no more empty slots you can cover an existing Expert card or
place it under an existing Expert card." (IT/FR the same.)
"""

from companion.actions import Academy, Bank, ChooseExpert, TakeDie, University, UseExpert
from companion.errors import ExpertSlotError, NotYourTurnError
from companion.engine import die_options

from rulekit import animal, setup

FOUR = ("Gao Zhelan", "Cathrin Holzhausen", "Fernanda Brito Pedroso", "Maddalena Rotella")


def _four_face_up(token="nothing"):
    """Round 2: seat 0 has four face-up experts (taken in round 1); the round token is
    revealed (``token``)."""
    t = setup(experts=list(FOUR) + ["Nargiz Tatilian", "Salvador Ortíz"],
              dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                    1: [("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)]})
    for i, name in enumerate(FOUR):
        t.do(TakeDie(0, 0, i), University(0, name))
        t.do(TakeDie(1, 1, i), Bank(1))
    assert t.seat(0).face_up == list(FOUR) and t.st.round == 2
    t.new_round(token=token, roll=False)
    return t


def test_a_new_expert_may_be_placed_under_an_existing_one():
    # "If you have no more empty slots you can cover an existing Expert card or place it
    # under an existing Expert card." (a free expert of the round token)
    t = _four_face_up("expert")
    s = t.seat(0)
    while t.p.kind == "choose_expert" and t.p.seat != 0:
        t.choose_first()
    assert t.p.kind == "choose_expert" and t.p.seat == 0
    name = next(x for x in t.st.expert_display if x is not None)
    t.refuse(ChooseExpert(0, name, 2, under=True), ExpertSlotError)  # under: no slot to name
    t.do(ChooseExpert(0, name, under=True))
    assert s.face_up == list(FOUR)  # all four stay active
    assert name in s.experts and name not in s.face_up and name not in s.used  # covered: owned, no effect


def test_university_offers_placing_under_beside_covering():
    t = _four_face_up()
    t.roll()
    if t.p.seat != 0:
        t.do(TakeDie(1, 1, 0), Bank(1))
    t.do(TakeDie(0, 0, 0))
    s = t.seat(0)
    name = next(x for x in t.st.expert_display if x is not None)
    opts = [o for o in die_options(t.st, 0) if o.kind == "university" and o.target == name]
    unders = [o for o in opts if o.action.under]
    covers = [o for o in opts if o.action.slot is not None]
    assert len(unders) == 1 and unders[0].action.slot is None and len(covers) == 4
    t.do(unders[0].action)
    assert s.face_up == list(FOUR) and name in s.experts


def test_placing_under_with_a_free_slot_is_refused():
    t = setup(experts=list(FOUR) + ["Nargiz Tatilian", "Salvador Ortíz"],
              dice={0: [("red", 1), ("red", 2), ("red", 3), ("red", 4)]})
    t.do(TakeDie(0, 0, 0))
    t.refuse(University(0, FOUR[0], under=True), ExpertSlotError, "free")
    opts = [o for o in die_options(t.st, 0) if o.kind == "university" and getattr(o.action, "under", False)]
    assert opts == []
