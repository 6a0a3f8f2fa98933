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


_FX_CACHE: dict[tuple, Fx] = {}  # face-up experts (slot order) -> their aggregate (Fx is never changed once built)


def refresh_effects(seat) -> None:
    """Recompute ``seat.fx`` from its face-up experts (automas never apply expert effects).
    ``seat``: a ``state.Seat`` (not imported: ``state`` imports this module)."""
    if seat.kind != "human":
        seat.fx = NO_FX
        return
    key = tuple(seat.face_up)
    fx = _FX_CACHE.get(key)
    if fx is None:
        if len(_FX_CACHE) >= 4096:
            _FX_CACHE.clear()
        fx = _FX_CACHE[key] = _build_fx([x for x in key if x is not None])
    seat.fx = fx


def _build_fx(names: list[str]) -> Fx:
    if not names:
        return NO_FX
    fx = Fx()
    for name in names:
        e = EXPERT[name]
        if e.duration != "permanent":
            continue
        tr, g = e.effect.trigger, e.effect.gain
        if tr.on == "place_die":
            if tr.location == "expedition":
                fx.exp_vp[tr.continent] = fx.exp_vp.get(tr.continent, 0) + g.vp
            else:
                c, r, v = fx.place.get(tr.location, (0, 0, 0))
                fx.place[tr.location] = (c + g.coins, r + g.reputation, v + g.vp)
        elif tr.on == "place_cube":
            fx.cube_coins[tr.type] = fx.cube_coins.get(tr.type, 0) + g.coins
        elif tr.on == "die_value":
            fx.die_bonus[tr.colour] = fx.die_bonus.get(tr.colour, 0) + g.value
        elif tr.on == "expedition_value":
            fx.exp_bonus[tr.continent] = fx.exp_bonus.get(tr.continent, 0) + g.value
    return fx
