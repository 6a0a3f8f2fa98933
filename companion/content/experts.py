"""The 55 experts of the EN annex, loaded from ``companion/data/experts.json`` and validated at import.

Each expert's effect is data: a ``Trigger`` (when) and a ``Gain`` (what), read by one small
interpreter in the engine (and by ``companion.scoring`` for the end-game ones). The only kinds
(docs/contracts-engine.md):

=========  ====================================================================  ==========================
duration   trigger                                                               gain
=========  ====================================================================  ==========================
permanent  on=place_die, location in university/embassy/bank/academy/publication  coins | reputation | vp
permanent  on=place_die, location=expedition, continent=C                         vp
permanent  on=place_cube, type=1..4 (per cube placed on that type)                coins
permanent  on=die_value, colour=K (die of that colour, after colour changes)      value (+1)
permanent  on=expedition_value, continent=C                                       value (+2)
oneshot    on=use                                                                 coins | reputation
endgame    on=end_game                                                            cubes(category, count)
                                                                                  | vp_per(token|seal|coin_pair|
                                                                                    expert|reputation_space), vp
=========  ====================================================================  ==========================

``Trigger``/``Gain`` are frozen dataclasses whose attribute names are the JSON keys
(``e.effect.trigger.on``, ``e.effect.gain.coins``); absent keys read as ``None`` (trigger) or
``0``/``None`` (gain). They also answer ``x["key"]`` and ``x.get("key")`` like the JSON dict,
and ``to_json()`` gives the dict back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Iterable

from companion.content.vocab import (
    CATEGORIES,
    COLOURS,
    CONTINENTS,
    ContentError,
    did_you_mean,
    name_key,
)

DURATIONS = ("permanent", "oneshot", "endgame")
PLACE_DIE_LOCATIONS = ("university", "embassy", "bank", "academy", "publication")
VP_PER_KINDS = ("token", "seal", "coin_pair", "expert", "reputation_space")
EXPERTS_PER_CONTINENT = 11


class _DictLike:
    """``x["key"]`` / ``x.get(key)`` over the JSON form, for code that prefers dicts."""

    def to_json(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.to_json()

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)


@dataclass(frozen=True)
class Trigger(_DictLike):
    on: str
    location: str | None = None
    continent: str | None = None
    type: int | None = None
    colour: str | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"on": self.on}
        for k in ("location", "continent", "type", "colour"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        return d


@dataclass(frozen=True)
class CubeGain(_DictLike):
    category: str
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "count": self.count}


@dataclass(frozen=True)
class Gain(_DictLike):
    coins: int = 0
    reputation: int = 0
    vp: int = 0
    value: int = 0
    cubes: CubeGain | None = None
    vp_per: str | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for k in ("coins", "reputation", "value"):
            if getattr(self, k):
                d[k] = getattr(self, k)
        if self.cubes is not None:
            d["cubes"] = self.cubes.to_json()
        if self.vp_per is not None:
            d["vp_per"] = self.vp_per
        if self.vp or self.vp_per is not None:
            d["vp"] = self.vp
        return d


@dataclass(frozen=True)
class Effect(_DictLike):
    trigger: Trigger
    gain: Gain

    def to_json(self) -> dict[str, Any]:
        return {"trigger": self.trigger.to_json(), "gain": self.gain.to_json()}


@dataclass(frozen=True)
class Expert:
    name: str
    continent: str
    duration: str  # "permanent" | "oneshot" | "endgame"
    text: str
    effect: Effect

    @property
    def key(self) -> str:
        """Normalised name (no accents, case, spaces or punctuation) used for look-ups."""
        return name_key(self.name)

    @property
    def trigger(self) -> Trigger:
        return self.effect.trigger

    @property
    def gain(self) -> Gain:
        return self.effect.gain

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "continent": self.continent,
            "duration": self.duration,
            "text": self.text,
            "effect": self.effect.to_json(),
        }

    def __str__(self) -> str:
        return self.name


# --------------------------------------------------------------------------- parsing


def _int(where: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ContentError(f"{where}: expected an integer {lo}..{hi}, got {v!r}")
    return v


def _choice(where: str, v: Any, choices: Iterable[str]) -> str:
    choices = tuple(choices)
    if v not in choices:
        raise ContentError(
            f"{where}: unknown value {v!r}{did_you_mean(str(v), choices)}; expected one of {', '.join(choices)}"
        )
    return v


def _keys(where: str, d: Any, required: set[str], optional: set[str] = frozenset()) -> None:
    if not isinstance(d, dict):
        raise ContentError(f"{where}: expected an object, got {type(d).__name__}")
    missing = required - d.keys()
    if missing:
        raise ContentError(f"{where}: missing {', '.join(sorted(missing))}")
    extra = d.keys() - required - optional
    if extra:
        raise ContentError(f"{where}: unexpected key(s) {', '.join(sorted(extra))}")


def parse_effect(where: str, duration: str, d: Any) -> Effect:
    """Parse and validate one effect against the table in the module docstring."""
    _keys(where, d, {"trigger", "gain"})
    t, g = d["trigger"], d["gain"]
    tw, gw = f"{where}.trigger", f"{where}.gain"
    _keys(tw, t, {"on"}, {"location", "continent", "type", "colour"})
    if not isinstance(g, dict) or len(g) == 0:
        raise ContentError(f"{gw}: expected a non-empty object")
    on = t["on"]

    def single_gain(allowed: dict[str, tuple[int, int]]) -> Gain:
        if len(g) != 1 or next(iter(g)) not in allowed:
            raise ContentError(f"{gw}: a {duration} {on!r} effect gains exactly one of {', '.join(allowed)}; got {g!r}")
        (k, v), = g.items()
        return Gain(**{k: _int(f"{gw}.{k}", v, *allowed[k])})

    if duration == "permanent":
        _choice(f"{tw}.on", on, ("place_die", "place_cube", "die_value", "expedition_value"))
        if on == "place_die":
            loc = _choice(f"{tw}.location", t.get("location"), PLACE_DIE_LOCATIONS + ("expedition",))
            if loc == "expedition":
                _keys(tw, t, {"on", "location", "continent"})
                trig = Trigger(on, location=loc, continent=_choice(f"{tw}.continent", t["continent"], CONTINENTS))
                return Effect(trig, single_gain({"vp": (1, 20)}))
            _keys(tw, t, {"on", "location"})
            return Effect(Trigger(on, location=loc), single_gain({"coins": (1, 20), "reputation": (1, 20), "vp": (1, 20)}))
        if on == "place_cube":
            _keys(tw, t, {"on", "type"})
            return Effect(Trigger(on, type=_int(f"{tw}.type", t["type"], 1, 4)), single_gain({"coins": (1, 20)}))
        if on == "die_value":
            _keys(tw, t, {"on", "colour"})
            return Effect(Trigger(on, colour=_choice(f"{tw}.colour", t["colour"], COLOURS)), single_gain({"value": (1, 1)}))
        _keys(tw, t, {"on", "continent"})  # expedition_value
        trig = Trigger(on, continent=_choice(f"{tw}.continent", t["continent"], CONTINENTS))
        return Effect(trig, single_gain({"value": (2, 2)}))
    if duration == "oneshot":
        _keys(tw, t, {"on"})
        _choice(f"{tw}.on", on, ("use",))
        return Effect(Trigger(on), single_gain({"coins": (1, 20), "reputation": (1, 20)}))
    # endgame
    _keys(tw, t, {"on"})
    _choice(f"{tw}.on", on, ("end_game",))
    if "cubes" in g:
        _keys(gw, g, {"cubes"})
        c = g["cubes"]
        _keys(f"{gw}.cubes", c, {"category", "count"})
        cat = _choice(f"{gw}.cubes.category", c["category"], CATEGORIES)
        return Effect(Trigger(on), Gain(cubes=CubeGain(cat, _int(f"{gw}.cubes.count", c["count"], 1, 10))))
    _keys(gw, g, {"vp_per", "vp"})
    per = _choice(f"{gw}.vp_per", g["vp_per"], VP_PER_KINDS)
    return Effect(Trigger(on), Gain(vp_per=per, vp=_int(f"{gw}.vp", g["vp"], 1, 10)))


def parse_expert(where: str, d: Any) -> Expert:
    _keys(where, d, {"name", "continent", "duration", "text", "effect"})
    name = d["name"]
    if not isinstance(name, str) or not name.strip():
        raise ContentError(f"{where}.name: expected a non-empty string")
    where = f"{where} ({name})"
    if not isinstance(d["text"], str) or not d["text"].strip():
        raise ContentError(f"{where}.text: expected the annex sentence")
    continent = _choice(f"{where}.continent", d["continent"], CONTINENTS)
    duration = _choice(f"{where}.duration", d["duration"], DURATIONS)
    return Expert(name, continent, duration, d["text"], parse_effect(f"{where}.effect", duration, d["effect"]))


def parse_experts(data: Any, source: str = "experts.json") -> tuple[Expert, ...]:
    """Validate the whole list: 55 entries, 11 per continent, unique names, known kinds."""
    if not isinstance(data, list):
        raise ContentError(f"{source}: expected a list of experts")
    experts = tuple(parse_expert(f"{source}[{i}]", d) for i, d in enumerate(data))
    seen: dict[str, str] = {}
    for e in experts:
        if e.key in seen:
            raise ContentError(f"{source}: duplicate expert name {e.name!r} (same as {seen[e.key]!r})")
        seen[e.key] = e.name
    for c in CONTINENTS:
        n = sum(1 for e in experts if e.continent == c)
        if n != EXPERTS_PER_CONTINENT:
            raise ContentError(f"{source}: {c} has {n} experts, expected {EXPERTS_PER_CONTINENT}")
    if len(experts) != EXPERTS_PER_CONTINENT * len(CONTINENTS):
        raise ContentError(f"{source}: {len(experts)} experts, expected 55")  # pragma: no cover - implied
    return experts


def _load() -> tuple[Expert, ...]:
    text = resources.files("companion").joinpath("data/experts.json").read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContentError(f"experts.json: not valid JSON ({exc})") from None
    return parse_experts(data)


EXPERTS: tuple[Expert, ...] = _load()
_BY_KEY: dict[str, Expert] = {e.key: e for e in EXPERTS}


def expert_by_name(name: str) -> Expert:
    """The expert called ``name``, forgiving accents, case, spaces and punctuation.

    Raises ``KeyError`` whose message names close matches (``str(err)`` and ``err.args[0]``).
    """
    if isinstance(name, str):
        found = _BY_KEY.get(name_key(name))
        if found is not None:
            return found
    hint = did_you_mean(str(name), (e.name for e in EXPERTS))
    raise KeyError(f"unknown expert {name!r}{hint}")


def experts_of(continent: str) -> tuple[Expert, ...]:
    """The 11 experts of a continent, in annex order."""
    if continent not in CONTINENTS:
        raise KeyError(f"unknown continent {continent!r}{did_you_mean(continent, CONTINENTS)}")
    return tuple(e for e in EXPERTS if e.continent == continent)
