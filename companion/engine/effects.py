"""The experts' permanent effects, aggregated per seat (``seat.fx``): the one interpreter of
the expert cards' effects, and ``EXPERT`` (the expert cards by name).

Below ``state``: ``State.from_json`` rebuilds every seat's ``fx`` with ``refresh_effects``. Reads
only the content (the expert cards); imports nothing else of the engine.
"""

from __future__ import annotations

from companion.content.experts import EXPERTS

EXPERT = {e.name: e for e in EXPERTS}


# --------------------------------------------------------------------------- expert effects


class Fx:
    """Aggregated permanent effects of a seat's face-up experts (the one interpreter)."""

    __slots__ = ("place", "exp_vp", "cube_coins", "die_bonus", "exp_bonus")

    def __init__(self) -> None:
        self.place: dict[str, tuple[int, int, int]] = {}  # location -> (coins, reputation, vp)
        self.exp_vp: dict[str, int] = {}  # continent -> vp when placing an expedition die there
        self.cube_coins: dict[int, int] = {}  # type -> coins per cube placed
        self.die_bonus: dict[str, int] = {}  # colour -> +value
        self.exp_bonus: dict[str, int] = {}  # continent -> +expedition value


NO_FX = Fx()
_EMPTY_FIELD: tuple[tuple, dict] = ((), NO_FX.place)  # every empty field is this one dict


# Fx objects and their field mappings are shared by content (never changed once built): a
# seat's face-up experts are summed into fresh local dicts (short-lived), and only an aggregate
# never seen before leaves anything behind (an Fx, its key, a field's dict). A game's states, the
# copies kept for Undo and every page's replay then hold a few hundred shared objects in all; a
# cache by face-up combination (there are many more combinations than aggregates) kept one key
# and five dicts per combination, each made whenever the game first met it, long after the
# server's memory around it was given back (issue 40, docs/app.md).
_FIELDS: dict[tuple, tuple[tuple, dict]] = {}  # a field's sorted items -> (that key, its shared dict)
_FX_BY_CONTENT: dict[tuple, Fx] = {}  # the five fields' keys -> their shared Fx
_LIMIT = 4096  # distinct aggregates kept (a game meets a few hundred); then both start again


def _shared_field(d: dict) -> tuple[tuple, dict]:
    if not d:
        return _EMPTY_FIELD
    items = tuple(sorted(d.items()))
    found = _FIELDS.get(items)
    if found is None:
        found = _FIELDS[items] = (items, d)
    return found


def effects_of(names) -> Fx:
    """The aggregate of the face-up experts ``names`` (``None`` for an empty slot): the shared
    ``Fx`` with that content (``NO_FX`` when no permanent effect applies)."""
    place: dict = {}
    exp_vp: dict = {}
    cube_coins: dict = {}
    die_bonus: dict = {}
    exp_bonus: dict = {}
    for name in names:
        if name is None:
            continue
        e = EXPERT[name]
        if e.duration != "permanent":
            continue
        tr, g = e.effect.trigger, e.effect.gain
        if tr.on == "place_die":
            if tr.location == "expedition":
                exp_vp[tr.continent] = exp_vp.get(tr.continent, 0) + g.vp
            else:
                c, r, v = place.get(tr.location, (0, 0, 0))
                place[tr.location] = (c + g.coins, r + g.reputation, v + g.vp)
        elif tr.on == "place_cube":
            cube_coins[tr.type] = cube_coins.get(tr.type, 0) + g.coins
        elif tr.on == "die_value":
            die_bonus[tr.colour] = die_bonus.get(tr.colour, 0) + g.value
        elif tr.on == "expedition_value":
            exp_bonus[tr.continent] = exp_bonus.get(tr.continent, 0) + g.value
    if not (place or exp_vp or cube_coins or die_bonus or exp_bonus):
        return NO_FX
    fields = [_shared_field(d) for d in (place, exp_vp, cube_coins, die_bonus, exp_bonus)]
    key = tuple(k for k, _ in fields)
    fx = _FX_BY_CONTENT.get(key)
    if fx is None:
        if len(_FX_BY_CONTENT) >= _LIMIT:
            _FX_BY_CONTENT.clear()
            _FIELDS.clear()
            fields = [_shared_field(d) for d in (place, exp_vp, cube_coins, die_bonus, exp_bonus)]
            key = tuple(k for k, _ in fields)
        fx = Fx.__new__(Fx)
        fx.place, fx.exp_vp, fx.cube_coins, fx.die_bonus, fx.exp_bonus = (d for _, d in fields)
        _FX_BY_CONTENT[key] = fx
    return fx


def refresh_effects(seat) -> None:
    """Recompute ``seat.fx`` from its face-up experts (automas never apply expert effects).
    ``seat``: a ``state.Seat`` (not imported: ``state`` imports this module)."""
    seat.fx = effects_of(seat.face_up) if seat.kind == "human" else NO_FX
