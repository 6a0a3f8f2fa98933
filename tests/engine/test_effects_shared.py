"""The experts' aggregated effects (``seat.fx``) are right and shared by content (issue 40: a
cache by face-up combination kept a key and five dicts per combination a long game met)."""

import random

from companion.engine import effects
from companion.engine.effects import EXPERT, NO_FX, effects_of

PERMANENT = [n for n, e in EXPERT.items() if e.duration == "permanent"]
OTHER = [n for n, e in EXPERT.items() if e.duration != "permanent"]


def reference(names) -> dict:
    """The five aggregates summed plainly, one expert at a time."""
    out = {"place": {}, "exp_vp": {}, "cube_coins": {}, "die_bonus": {}, "exp_bonus": {}}
    for name in names:
        if name is None or EXPERT[name].duration != "permanent":
            continue
        tr, g = EXPERT[name].effect.trigger, EXPERT[name].effect.gain
        if tr.on == "place_die" and tr.location == "expedition":
            out["exp_vp"][tr.continent] = out["exp_vp"].get(tr.continent, 0) + g.vp
        elif tr.on == "place_die":
            c, r, v = out["place"].get(tr.location, (0, 0, 0))
            out["place"][tr.location] = (c + g.coins, r + g.reputation, v + g.vp)
        elif tr.on == "place_cube":
            out["cube_coins"][tr.type] = out["cube_coins"].get(tr.type, 0) + g.coins
        elif tr.on == "die_value":
            out["die_bonus"][tr.colour] = out["die_bonus"].get(tr.colour, 0) + g.value
        elif tr.on == "expedition_value":
            out["exp_bonus"][tr.continent] = out["exp_bonus"].get(tr.continent, 0) + g.value
    return out


def as_dicts(fx) -> dict:
    return {f: dict(getattr(fx, f)) for f in effects.Fx.__slots__}


def random_face_up(rng: random.Random) -> list:
    names = rng.sample(list(EXPERT), rng.randint(0, 4))
    return names + [None] * (4 - len(names))


def test_the_aggregate_is_the_sum_of_the_permanent_experts():
    rng = random.Random(40)
    for _ in range(500):
        face_up = random_face_up(rng)
        assert as_dicts(effects_of(face_up)) == reference(face_up), face_up


def test_no_permanent_effect_is_no_fx():
    assert effects_of([None] * 4) is NO_FX
    assert effects_of(OTHER[:3] + [None]) is NO_FX


def test_equal_aggregates_are_one_object_whatever_the_order_or_the_other_experts():
    a, b = PERMANENT[0], PERMANENT[5]
    one = effects_of([a, b, None, None])
    assert effects_of([None, b, a, None]) is one
    assert effects_of([b, OTHER[0], a, OTHER[1]]) is one
    assert effects_of([a, None, None, None]) is not one


def test_equal_fields_are_one_dict_across_aggregates():
    red = next(n for n in PERMANENT if EXPERT[n].effect.trigger.on == "die_value")
    cube = next(n for n in PERMANENT if EXPERT[n].effect.trigger.on == "place_cube")
    alone, with_cube = effects_of([red, None, None, None]), effects_of([red, cube, None, None])
    assert alone is not with_cube
    assert alone.die_bonus is with_cube.die_bonus
    assert alone.exp_vp is with_cube.exp_vp is NO_FX.place  # every empty field is one dict


def test_meeting_known_aggregates_again_keeps_nothing_more():
    rng = random.Random(41)
    combos = [random_face_up(rng) for _ in range(300)]
    for c in combos:
        effects_of(c)
    kept = (len(effects._FX_BY_CONTENT), len(effects._FIELDS))
    for c in combos:
        effects_of(list(reversed(c)))
    assert (len(effects._FX_BY_CONTENT), len(effects._FIELDS)) == kept


def test_the_caches_start_again_past_their_limit_and_stay_right(monkeypatch):
    monkeypatch.setattr(effects, "_LIMIT", 5)
    monkeypatch.setattr(effects, "_FX_BY_CONTENT", {})
    monkeypatch.setattr(effects, "_FIELDS", {})
    rng = random.Random(42)
    for _ in range(200):
        face_up = random_face_up(rng)
        assert as_dicts(effects_of(face_up)) == reference(face_up)
        assert len(effects._FX_BY_CONTENT) <= 5


def test_an_automa_seat_never_has_effects():
    class SeatStub:
        face_up = PERMANENT[:4]
        kind = "automa"

    seat = SeatStub()
    effects.refresh_effects(seat)
    assert seat.fx is NO_FX
