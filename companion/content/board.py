"""Board constants of Encyclopedia: ``companion/data/board.json`` → a frozen ``Board``.

Every number of DIGEST §1 (confirmed) and §2 (printed only as images: unverified defaults)
lives in that one file; the engine and scoring read them only from a ``Board``. Unverified keys
are listed in the file's ``"unverified"``; a player corrects them once from their own box with
``<user data dir>/board.json`` — a JSON object holding some of those keys, e.g.::

    {"starting_coins": [0, 1, 2, 3], "research_vp": {"1": 0, "2": 1, "3": 3, "4": 6}}

The override is validated like the shipped file; an unknown key, a confirmed key, a bad value or
a broken file raises ``BoardConfigError`` naming the file and the key. Keys starting with ``_``
are comments. Nothing is ever silently ignored.

``load_board(override_path=None)`` reads the shipped file plus the override (``override_path``,
else ``<user data dir>/board.json`` when it exists; pass ``use_user_file=False`` to get the
shipped defaults only). ``default_board()`` is ``load_board()`` cached (``default_board.cache_clear()``
after changing the user file or ``$ENCYCLOPEDIA_DATA_DIR``).

Mappings in a ``Board`` are read-only (``types.MappingProxyType``); a ``Board`` copies and
pickles as itself / from its JSON.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from companion.content import vocab
from companion.content.paths import user_file
from companion.content.vocab import ContentError, did_you_mean

OVERRIDE_FILE_NAME = "board.json"


class BoardConfigError(ContentError):
    """The shipped board.json or a user override is invalid; the message names the key."""


@dataclass(frozen=True)
class AutomaScoringCard:
    """One automa scoring card (DIGEST §6)."""

    id: str  # "la-boudeuse" | "hms-resolution" | "l-astrolabe"
    name: str
    stars: int
    expert_groups_vp: tuple[int, ...]  # VP per expert for the largest, 2nd, 3rd continent group
    coins_per_vp: int  # 2 → 1 VP per 2 coins; 1 → 1 VP per coin
    vp_per_token: int
    vp_per_seal: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "stars": self.stars,
            "expert_groups_vp": list(self.expert_groups_vp),
            "coins_per_vp": self.coins_per_vp,
            "vp_per_token": self.vp_per_token,
            "vp_per_seal": self.vp_per_seal,
        }


# ----------------------------------------------------------------------------- validators
# Each takes (where, json value) and returns the Python value, or raises BoardConfigError.

_Err = BoardConfigError


def _int(lo: int = 0, hi: int = 10_000) -> Callable[[str, Any], int]:
    def check(where: str, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise _Err(f"{where}: expected an integer {lo}..{hi}, got {v!r}")
        return v

    return check


def _list(where: str, v: Any, n: int | None = None, min_len: int = 1) -> list:
    if not isinstance(v, list):
        raise _Err(f"{where}: expected a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        raise _Err(f"{where}: expected {n} entries, got {len(v)}")
    if len(v) < min_len:
        raise _Err(f"{where}: expected at least {min_len} entries, got {len(v)}")
    return v


def _obj(where: str, v: Any) -> dict:
    if not isinstance(v, dict):
        raise _Err(f"{where}: expected an object, got {type(v).__name__}")
    return v


def _int_key(where: str, k: str, lo: int, hi: int) -> int:
    try:
        i = int(k)
    except (TypeError, ValueError):
        raise _Err(f"{where}: key {k!r} is not an integer") from None
    if str(i) != str(k).strip() or not lo <= i <= hi:
        raise _Err(f"{where}: key {k!r} must be an integer {lo}..{hi}")
    return i


def _words(expected: tuple[str, ...]) -> Callable[[str, Any], tuple[str, ...]]:
    def check(where: str, v: Any) -> tuple[str, ...]:
        v = _list(where, v)
        if tuple(v) != expected:
            raise _Err(f"{where}: must be {list(expected)} (the names the whole app uses), got {v!r}")
        return expected

    return check


def _continent_of_colour(where: str, v: Any) -> Mapping[str, str]:
    v = _obj(where, v)
    if v != vocab.CONTINENT_OF_COLOUR:
        raise _Err(f"{where}: must be {vocab.CONTINENT_OF_COLOUR} (confirmed by the expert annex), got {v!r}")
    return MappingProxyType(dict(v))


def _categories_by_type(where: str, v: Any) -> Mapping[int, tuple[str, ...]]:
    v = _obj(where, v)
    got = {_int_key(where, k, 1, 4): tuple(_list(f"{where}.{k}", x)) for k, x in v.items()}
    if got != vocab.CATEGORIES_BY_TYPE:
        raise _Err(f"{where}: must be {vocab.CATEGORIES_BY_TYPE} (the names the whole app uses)")
    return MappingProxyType(got)


_GAIN_KINDS = ("coins", "reputation", "vp", "tokens", "seals", "expert", "animal")


def _gain(where: str, v: Any) -> Mapping[str, int]:
    v = _obj(where, v)
    out = {}
    for k, x in v.items():
        if k not in _GAIN_KINDS:
            raise _Err(f"{where}: unknown gain {k!r}{did_you_mean(k, _GAIN_KINDS)}; expected one of {', '.join(_GAIN_KINDS)}")
        out[k] = _int(1, 100)(f"{where}.{k}", x)
    return MappingProxyType(out)


def _slot_effects(where: str, v: Any) -> tuple[Mapping[str, int], ...]:
    v = _list(where, v, n=4)
    return tuple(_gain(f"{where}[{i}]", x) for i, x in enumerate(v))


def _int_tuple(n: int | None = None, lo: int = 0, hi: int = 1000, increasing: bool = False):
    def check(where: str, v: Any) -> tuple[int, ...]:
        v = _list(where, v, n=n)
        out = tuple(_int(lo, hi)(f"{where}[{i}]", x) for i, x in enumerate(v))
        if increasing and any(b <= a for a, b in zip(out, out[1:])):
            raise _Err(f"{where}: values must increase, got {list(out)}")
        return out

    return check


def _int_map(keys: range, lo: int = 0, hi: int = 1000, nondecreasing: bool = False):
    def check(where: str, v: Any) -> Mapping[int, int]:
        v = _obj(where, v)
        out = {_int_key(where, k, keys.start, keys.stop - 1): _int(lo, hi)(f"{where}.{k}", x) for k, x in v.items()}
        missing = [k for k in keys if k not in out]
        if missing:
            raise _Err(f"{where}: missing key(s) {', '.join(map(str, missing))}")
        if nondecreasing:
            vals = [out[k] for k in keys]
            if any(b < a for a, b in zip(vals, vals[1:])):
                raise _Err(f"{where}: values must not decrease from one key to the next, got {vals}")
        return MappingProxyType(dict(sorted(out.items())))

    return check


def _threshold_table(lo_result: int, hi_result: int):
    """[[min die value, result], ...] with increasing thresholds and non-decreasing results."""

    def check(where: str, v: Any) -> tuple[tuple[int, int], ...]:
        v = _list(where, v)
        rows = []
        for i, row in enumerate(v):
            row = _list(f"{where}[{i}]", row, n=2)
            rows.append((_int(0, 30)(f"{where}[{i}][0]", row[0]), _int(lo_result, hi_result)(f"{where}[{i}][1]", row[1])))
        if any(b[0] <= a[0] or b[1] < a[1] for a, b in zip(rows, rows[1:])):
            raise _Err(f"{where}: thresholds must increase and results must not decrease, got {v!r}")
        return tuple(rows)

    return check


def _expedition_spaces(where: str, v: Any) -> tuple[tuple[int, int], ...]:
    v = _list(where, v)
    out = []
    for i, row in enumerate(v):
        row = _list(f"{where}[{i}]", row, n=2)
        out.append((_int(0, 15)(f"{where}[{i}][0]", row[0]), _int(0, 20)(f"{where}[{i}][1]", row[1])))
    return tuple(out)


def _reputation_bonuses(where: str, v: Any) -> Mapping[int, Mapping[str, int]]:
    v = _obj(where, v)
    out = {_int_key(where, k, 1, 99): _gain(f"{where}.{k}", x) for k, x in v.items()}
    return MappingProxyType(dict(sorted(out.items())))


def _round_token_counts(where: str, v: Any) -> Mapping[str, int]:
    v = _obj(where, v)
    out = {}
    for k, x in v.items():
        if k not in _ROUND_TOKEN_EFFECTS:
            raise _Err(f"{where}: unknown round-token effect {k!r}{did_you_mean(k, _ROUND_TOKEN_EFFECTS)}")
        out[k] = _int(0, 12)(f"{where}.{k}", x)
    return MappingProxyType(out)


_ROUND_TOKEN_EFFECTS = ("token", "coins", "expert", "animal", "extra_die", "nothing")


def _automa_cards(where: str, v: Any) -> Mapping[str, AutomaScoringCard]:
    v = _obj(where, v)
    out = {}
    for cid, c in v.items():
        w = f"{where}.{cid}"
        c = _obj(w, c)
        need = {"name", "stars", "expert_groups_vp", "coins_per_vp", "vp_per_token", "vp_per_seal"}
        if c.keys() != need:
            raise _Err(f"{w}: expected exactly the keys {', '.join(sorted(need))}")
        if not isinstance(c["name"], str) or not c["name"]:
            raise _Err(f"{w}.name: expected the card's name")
        out[cid] = AutomaScoringCard(
            id=cid,
            name=c["name"],
            stars=_int(1, 3)(f"{w}.stars", c["stars"]),
            expert_groups_vp=_int_tuple(n=3, hi=50)(f"{w}.expert_groups_vp", c["expert_groups_vp"]),
            coins_per_vp=_int(1, 10)(f"{w}.coins_per_vp", c["coins_per_vp"]),
            vp_per_token=_int(0, 50)(f"{w}.vp_per_token", c["vp_per_token"]),
            vp_per_seal=_int(0, 50)(f"{w}.vp_per_seal", c["vp_per_seal"]),
        )
    return MappingProxyType(out)


_VALIDATORS: dict[str, Callable[[str, Any], Any]] = {
    "rounds": _int(1, 20),
    "min_seats": _int(1, 4),
    "max_seats": _int(1, 8),
    "max_automas": _int(0, 8),
    "colours": _words(vocab.COLOURS),
    "continents": _words(vocab.CONTINENTS),
    "continent_of_colour": _continent_of_colour,
    "categories_by_type": _categories_by_type,
    "dice_per_colour": _int(1, 20),
    "dice_per_seat": _int(1, 10),
    "extra_die": _int(0, 5),
    "slot_effects": _slot_effects,
    "starting_coins": _int_tuple(lo=0, hi=50),
    "starting_tokens": _int(0, 20),
    "starting_animals": _int(0, 10),
    "expert_display_size": _int(1, 20),
    "animal_display_size": _int_map(range(2, 5), lo=1, hi=20),
    "max_face_up_experts": _int(1, 20),
    "embassy_tokens_table": _threshold_table(0, 20),
    "academy_reputation_table": _threshold_table(0, 20),
    "bank_coins": _int(0, 50),
    "coin_value": _int(1, 10),
    "token_expedition_bonus": _int(0, 20),
    "seal_coins": _int(0, 50),
    "seal_value": _int(0, 50),
    "research_cost": _int_map(range(1, 5), lo=1, hi=100),
    "research_vp": _int_map(range(1, 5), lo=0, hi=100, nondecreasing=True),
    "publish_max_type_table": _threshold_table(0, 4),
    "publication_vp": _int_map(range(0, 5), lo=0, hi=100),
    "publish_seals": _int(0, 10),
    "expedition_spaces": _expedition_spaces,
    "reputation_track_length": _int(2, 100),
    "reputation_bonuses": _reputation_bonuses,
    "collection_min": _int(1, 20),
    "collection_table": _int_tuple(lo=0, hi=1000, increasing=True),
    "collection_step": _int(0, 100),
    "end_vp_per_seal": _int(0, 50),
    "end_coins_per_vp": _int(1, 50),
    "end_vp_per_token": _int(0, 50),
    "round_token_effects": _words(_ROUND_TOKEN_EFFECTS),
    "round_token_counts": _round_token_counts,
    "round_token_coins": _int(0, 50),
    "round_token_tokens": _int(0, 50),
    "animals_per_continent": _int(1, 100),
    "sepultus_cards": _int(0, 50),
    "research_cubes_per_colour": _int(1, 1000),
    "cube_tokens_per_colour": _int(0, 100),
    "automa_scoring_cards": _automa_cards,
}


def _to_json(v: Any) -> Any:
    if isinstance(v, AutomaScoringCard):
        return v.to_json()
    if isinstance(v, Mapping):
        return {str(k): _to_json(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_to_json(x) for x in v]
    return v


def _lookup_threshold(table: tuple[tuple[int, int], ...], value: int, below: Any) -> Any:
    result = below
    for threshold, r in table:
        if value >= threshold:
            result = r
    return result


@dataclass(frozen=True)
class Board:
    """All board constants. Field names are fixed by docs/contracts-engine.md."""

    rounds: int
    min_seats: int
    max_seats: int
    max_automas: int
    colours: tuple[str, ...]
    continents: tuple[str, ...]
    continent_of_colour: Mapping[str, str]
    colour_of_continent: Mapping[str, str]
    categories_by_type: Mapping[int, tuple[str, ...]]
    categories: tuple[str, ...]
    type_of_category: Mapping[str, int]
    dice_per_colour: int
    dice_per_seat: int
    extra_die: int
    slot_effects: tuple[Mapping[str, int], ...]
    starting_coins: tuple[int, ...]
    starting_tokens: int
    starting_animals: int
    expert_display_size: int
    animal_display_size: Mapping[int, int]
    max_face_up_experts: int
    embassy_tokens_table: tuple[tuple[int, int], ...]
    academy_reputation_table: tuple[tuple[int, int], ...]
    bank_coins: int
    coin_value: int
    token_expedition_bonus: int
    seal_coins: int
    seal_value: int
    research_cost: Mapping[int, int]
    research_vp: Mapping[int, int]
    publish_max_type_table: tuple[tuple[int, int], ...]
    publication_vp: Mapping[int, int]
    publish_seals: int
    expedition_spaces: tuple[tuple[int, int], ...]
    reputation_track_length: int
    reputation_bonuses: Mapping[int, Mapping[str, int]]
    collection_min: int
    collection_table: tuple[int, ...]
    collection_step: int
    end_vp_per_seal: int
    end_coins_per_vp: int
    end_vp_per_token: int
    round_token_effects: tuple[str, ...]
    round_token_counts: Mapping[str, int]
    round_token_coins: int
    round_token_tokens: int
    animals_per_continent: int
    sepultus_cards: int
    research_cubes_per_colour: int  # 120 wooden cubes, 4 colours (EN content)
    cube_tokens_per_colour: int  # 28 "5 cubes" tokens, 4 colours (EN content)
    automa_scoring_cards: Mapping[str, AutomaScoringCard]
    #: keys the rulebook texts do not establish (DIGEST §2)
    unverified: frozenset[str] = field(default=frozenset())
    #: keys a user override file changed
    overridden: frozenset[str] = field(default=frozenset())

    # -- rules as functions of a die value / a count

    def embassy_tokens(self, value: int) -> int:
        """Expedition tokens for an Embassy die of ``value`` (1-2 → 1, 3-4 → 2, 5+ → 3)."""
        return _lookup_threshold(self.embassy_tokens_table, value, 0)

    def academy_reputation(self, value: int) -> int:
        """Reputation for an Academy die of ``value`` (1-2 → 1, 3-4 → 2, 5+ → 3)."""
        return _lookup_threshold(self.academy_reputation_table, value, 0)

    def publish_max_type(self, value: int) -> int | None:
        """Highest type a Publication die of ``value`` may publish: None (<2), 0 (2) ... 4 (6+)."""
        return _lookup_threshold(self.publish_max_type_table, value, None)

    def collection_vp(self, n: int) -> int:
        """VP of a collection of ``n`` elements: 0 below 4, 3 5 8 12 17 22 28 35 40, then +5 each."""
        if n < self.collection_min:
            return 0
        i = n - self.collection_min
        if i < len(self.collection_table):
            return self.collection_table[i]
        return self.collection_table[-1] + self.collection_step * (i - len(self.collection_table) + 1)

    def round_token_pool(self) -> tuple[str, ...]:
        """All round tokens in the box (12 by default: 2 of each effect)."""
        return tuple(e for e in self.round_token_effects for _ in range(self.round_token_counts.get(e, 0)))

    def starting_coins_for(self, seat_index: int) -> int:
        """Starting coins of the seat at 0-based position ``seat_index`` in turn order."""
        return self.starting_coins[seat_index]

    def is_unverified(self, key: str) -> bool:
        return key in self.unverified

    def to_json(self) -> dict[str, Any]:
        """The constants in the JSON shape of board.json's ``"constants"`` (derived fields left out)."""
        return {k: _to_json(getattr(self, k)) for k in _VALIDATORS}

    # -- immutable: copying returns the same object; pickling rebuilds it from its JSON

    def __copy__(self) -> "Board":
        return self

    def __deepcopy__(self, memo: dict) -> "Board":
        return self

    def __reduce__(self):
        return (_board_from_pickle, (self.to_json(), sorted(self.unverified), sorted(self.overridden)))


def _board_from_pickle(constants: dict, unverified: list, overridden: list) -> Board:
    return _build(constants, frozenset(unverified), frozenset(overridden), "pickled board")


def _build(constants: dict[str, Any], unverified: frozenset[str], overridden: frozenset[str], source: str) -> Board:
    missing = [k for k in _VALIDATORS if k not in constants]
    if missing:
        raise BoardConfigError(f"{source}: missing constant(s) {', '.join(missing)}")
    values = {k: _VALIDATORS[k](f"{source}: {k}", constants[k]) for k in _VALIDATORS}
    values["colour_of_continent"] = MappingProxyType({c: k for k, c in values["continent_of_colour"].items()})
    values["categories"] = tuple(c for t in sorted(values["categories_by_type"]) for c in values["categories_by_type"][t])
    values["type_of_category"] = MappingProxyType(
        {c: t for t, cs in values["categories_by_type"].items() for c in cs}
    )
    _check_whole(values, source)
    names = {f.name for f in fields(Board)}
    return Board(**{k: v for k, v in values.items() if k in names}, unverified=unverified, overridden=overridden)


def _check_whole(v: dict[str, Any], source: str) -> None:
    """Consistency between keys (so an override cannot break the rest)."""
    if not v["min_seats"] <= v["max_seats"]:
        raise BoardConfigError(f"{source}: min_seats must not exceed max_seats")
    if len(v["starting_coins"]) != v["max_seats"]:
        raise BoardConfigError(
            f"{source}: starting_coins: expected one entry per seat ({v['max_seats']}), got {len(v['starting_coins'])}"
        )
    if set(v["animal_display_size"]) != set(range(v["min_seats"], v["max_seats"] + 1)):
        raise BoardConfigError(f"{source}: animal_display_size: expected one entry per seat count {v['min_seats']}..{v['max_seats']}")
    if len(v["expedition_spaces"]) < 1:
        raise BoardConfigError(f"{source}: expedition_spaces: at least one space per continent")
    for pos in v["reputation_bonuses"]:
        if pos >= v["reputation_track_length"]:
            raise BoardConfigError(
                f"{source}: reputation_bonuses: space {pos} is beyond the track (spaces 0..{v['reputation_track_length'] - 1})"
            )
    counts = v["round_token_counts"]
    if set(counts) != set(v["round_token_effects"]):
        miss = sorted(set(v["round_token_effects"]) - set(counts))
        raise BoardConfigError(f"{source}: round_token_counts: missing effect(s) {', '.join(miss)}")
    if sum(counts.values()) < v["rounds"]:
        raise BoardConfigError(f"{source}: round_token_counts: {sum(counts.values())} tokens cannot cover {v['rounds']} rounds")
    if v["dice_per_colour"] * len(v["colours"]) < v["max_seats"] * (v["dice_per_seat"] + v["extra_die"]):
        raise BoardConfigError(f"{source}: dice_per_colour: too few dice for {v['max_seats']} seats")
    if v["collection_table"][0] <= 0 and v["collection_min"] > 0:
        pass  # a 0-VP first step is odd but legal
    if set(v["automa_scoring_cards"]) != {"la-boudeuse", "hms-resolution", "l-astrolabe"}:
        raise BoardConfigError(f"{source}: automa_scoring_cards: expected la-boudeuse, hms-resolution and l-astrolabe")


def _read_json(path: Path | str, what: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BoardConfigError(f"{path}: {what} not found") from None
    except OSError as exc:
        raise BoardConfigError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise BoardConfigError(f"{path}: {what} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardConfigError(f"{path}: {what} is not valid JSON (line {exc.lineno}: {exc.msg})") from None


@functools.lru_cache(maxsize=1)
def _shipped() -> tuple[dict[str, Any], frozenset[str]]:
    text = resources.files("companion").joinpath("data/board.json").read_text(encoding="utf-8")
    data = json.loads(text)
    unverified = data.get("unverified", [])
    unknown = [k for k in unverified if k not in _VALIDATORS]
    if unknown:
        raise BoardConfigError(f"board.json: 'unverified' names unknown key(s) {', '.join(unknown)}")
    extra = [k for k in data["constants"] if k not in _VALIDATORS]
    if extra:
        raise BoardConfigError(f"board.json: unknown constant(s) {', '.join(extra)}")
    return data["constants"], frozenset(unverified)


def shipped_unverified_keys() -> frozenset[str]:
    """The keys a user override may change."""
    return _shipped()[1]


def parse_override(data: Any, source: str) -> dict[str, Any]:
    """Check an override object's keys (values are checked when the board is built)."""
    if not isinstance(data, dict):
        raise BoardConfigError(f"{source}: expected a JSON object of board constants, got {type(data).__name__}")
    unverified = shipped_unverified_keys()
    out = {}
    for k, v in data.items():
        if isinstance(k, str) and k.startswith("_"):
            continue  # comment
        if k not in _VALIDATORS:
            raise BoardConfigError(
                f"{source}: {k}: unknown board constant{did_you_mean(k, _VALIDATORS)}; "
                f"can be overridden: {', '.join(sorted(unverified))}"
            )
        if k not in unverified:
            raise BoardConfigError(
                f"{source}: {k}: this value is printed in the rulebook (DIGEST §1) and cannot be overridden; "
                f"can be overridden: {', '.join(sorted(unverified))}"
            )
        out[k] = v
    return out


def load_board(override_path: Path | str | None = None, *, use_user_file: bool = True) -> Board:
    """The shipped constants with a user override applied.

    ``override_path``: an override file to apply (must exist). Without it, ``<user data
    dir>/board.json`` is applied when it exists and ``use_user_file`` is true.
    """
    path: Path | None = None
    if override_path is not None:
        path = Path(override_path)
    elif use_user_file:
        candidate = user_file(OVERRIDE_FILE_NAME)
        if candidate.exists():
            path = candidate
    if path is None:
        return board_with_override({}, "board.json")
    return board_with_override(_read_json(path, "board override"), str(path))


def board_with_override(override: Any, source: str = "override") -> Board:
    """The shipped constants with ``override`` (an object of overridable constants) applied.

    Same validation as an override file (``BoardConfigError`` naming ``source`` and the key).
    ``Board.overridden`` lists the keys whose value differs from the shipped one.
    """
    constants, unverified = _shipped()
    checked = parse_override(override, source)
    merged = dict(constants)
    merged.update(checked)
    changed = frozenset(k for k, v in checked.items() if v != constants[k])
    return _build(merged, unverified, changed, source)


@functools.lru_cache(maxsize=1)
def default_board() -> Board:
    """``load_board()`` cached: the board this user plays with (shipped values + their override)."""
    return load_board()


def shipped_board() -> Board:
    """The shipped defaults only, ignoring any user override (tests and reference checks)."""
    return load_board(use_user_file=False)
