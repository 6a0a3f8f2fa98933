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
    """Aggregated permanent effects of a seat's face-up experts (the one interpreter). Never
    changed once built; built by ``effects_of``, one per content, its field dicts shared."""

    __slots__ = ("place", "exp_vp", "cube_coins", "die_bonus", "exp_bonus")

    def __init__(self) -> None:
        self.place: dict[str, tuple[int, int, int]] = {}  # location -> (coins, reputation, vp)
        self.exp_vp: dict[str, int] = {}  # continent -> vp when placing an expedition die there
        self.cube_coins: dict[int, int] = {}  # type -> coins per cube placed
        self.die_bonus: dict[str, int] = {}  # colour -> +value
        self.exp_bonus: dict[str, int] = {}  # continent -> +expedition value

    # an Fx is its own key in the cache by content (``_FX_BY_CONTENT``): its fields are the
    # shared dicts, so equal contents are the same five objects (no key tuple kept per content)
    def __hash__(self) -> int:
        return hash((id(self.place), id(self.exp_vp), id(self.cube_coins), id(self.die_bonus),
                     id(self.exp_bonus)))

    def __eq__(self, other) -> bool:
        return (other.__class__ is Fx and self.place is other.place and self.exp_vp is other.exp_vp
                and self.cube_coins is other.cube_coins and self.die_bonus is other.die_bonus
                and self.exp_bonus is other.exp_bonus)


NO_FX = Fx()


# Fx objects and their field mappings are shared by content (never changed once built): a
# seat's face-up experts are summed into fresh local dicts (short-lived), and only an aggregate
# never seen before leaves anything behind (an Fx, a field's dict and its key). A game's states, the
# copies kept for Undo and every page's replay then hold a few hundred shared objects in all; a
# cache by face-up combination (there are many more combinations than aggregates) kept one key
# and five dicts per combination, each made whenever the game first met it, long after the
# server's memory around it was given back (issue 40, docs/app.md).
_FIELDS: dict[tuple, dict] = {}  # a field's sorted items -> its shared dict
_FX_BY_CONTENT: dict[Fx, Fx] = {}  # each shared Fx, its own key (equal = the same five field dicts)
_LIMIT = 4096  # distinct aggregates kept (a game meets a few hundred); then both start again


def _shared_field(d: dict) -> dict:
    if not d:
        return NO_FX.place  # every empty field is this one dict
    return _FIELDS.setdefault(tuple(sorted(d.items())), d)


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
    if len(_FX_BY_CONTENT) >= _LIMIT:
        _FX_BY_CONTENT.clear()
        _FIELDS.clear()
    fx = Fx.__new__(Fx)
    fx.place, fx.exp_vp, fx.cube_coins, fx.die_bonus, fx.exp_bonus = [
        _shared_field(d) for d in (place, exp_vp, cube_coins, die_bonus, exp_bonus)]
    return _FX_BY_CONTENT.setdefault(fx, fx)


def refresh_effects(seat) -> None:
    """Recompute ``seat.fx`` from its face-up experts (automas never apply expert effects).
    ``seat``: a ``state.Seat`` (not imported: ``state`` imports this module)."""
    seat.fx = effects_of(seat.face_up) if seat.kind == "human" else NO_FX
