"""Every input the game can receive, as small frozen value objects.

Decisions of a player (take a die, the six actions, card choices, seal actions) and chance
events (dice rolled, cards revealed, round token turned over) are all actions: a game is fully
described by its ordered action list (docs/engine.md lists them with the pending kinds that
accept each).

``action.to_json()`` gives a dict with a ``"type"`` key; fields left at their default value are
left out, so a saved log stays small and old logs stay readable when a field with a default is
added. ``action_from_json(d)`` is the inverse and raises ``BadActionError`` naming the problem.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Mapping

from companion.board_values import current_board_values
from companion.errors import BadActionError

# --------------------------------------------------------------------------- value objects


@dataclass(frozen=True, slots=True)
class Spend:
    """What a seat discards during one action to change its die.

    - ``coins``: +1 value each (any action).
    - ``tokens``: expedition tokens for +2 expedition value each (Expedition only).
    - ``seals``: royal seals for +5 value each (any action); one of them may also change the
      colour (``colour_by="seal"``).
    - ``seals_for_coins``: royal seals exchanged for 5 coins each (the coins are available to
      ``coins`` in the same action).
    - ``colour``: the colour the die counts as for this action; when it differs from the die,
      ``colour_by`` says what pays for the change: ``"token"`` (1 expedition token, the default)
      or ``"seal"`` (needs ``seals >= 1``).
    """

    coins: int = 0
    tokens: int = 0
    seals: int = 0
    seals_for_coins: int = 0
    colour: str | None = None
    colour_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _compact(self)

    @property
    def empty(self) -> bool:
        return self == NO_SPEND


NO_SPEND = Spend()


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """One seat at set-up. Seats are listed clockwise.

    Automa seats need ``behaviour`` (``carl-von-linne`` | ``abraham-trembley`` |
    ``louis-jean-marie-daubenton``), ``scoring`` (``la-boudeuse`` | ``hms-resolution`` |
    ``l-astrolabe``) and ``priority``: the five continents, highest priority first.
    """

    name: str
    kind: str = "human"
    behaviour: str | None = None
    scoring: str | None = None
    priority: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return _compact(self)


# --------------------------------------------------------------------------- actions


class Action:
    """Base of every action (for isinstance checks)."""

    __slots__ = ()
    TYPE = ""

    def to_json(self) -> dict[str, Any]:
        d = _compact(self)
        d["type"] = self.TYPE
        return d


@dataclass(frozen=True, slots=True)
class StartGame(Action):
    """Set up a game: seats clockwise, who holds the first-player token, Sepultus cards in play.

    ``board``: the board constants the game is played with, part of the record so that a saved
    game replays identically whatever the user's "check your box" values become later. It is a
    JSON object of overridable constants (``companion.board_values``), applied on top of the
    shipped ``board.json``; by default every overridable constant of ``default_board()`` at the
    moment the action is built (so a JSON ``start_game`` without ``"board"``, written before the
    field existed, is read with the user's current board, as it always was). ``board=None``:
    keep the ``Board`` the ``State`` was created with (tests and tools with a hand-made board;
    such a record replays only with that same board given to ``replay``)."""

    seats: tuple[SeatConfig, ...]
    first_player: int = 0
    sepultus: bool = False
    board: Mapping[str, Any] | None = field(default_factory=current_board_values, hash=False)
    TYPE = "start_game"


@dataclass(frozen=True, slots=True)
class RevealExpert(Action):
    """Chance: the next expert card turned face up into the University display."""

    name: str
    TYPE = "reveal_expert"


@dataclass(frozen=True, slots=True)
class RevealAnimal(Action):
    """Chance: the next animal card turned face up into the Academy display.

    An animal: ``continent`` (+ optional ``name``; ``categories`` = (class, diet, habitat,
    climate), may be entered later with ``SetCategories``). A Sepultus Creatura card:
    ``sepultus=True``, ``die`` (the exact die value to take it), ``cost`` (its expedition value)
    and ``categories`` (those it lists, at least one)."""

    continent: str | None = None
    name: str = ""
    categories: tuple[str, ...] | None = None
    sepultus: bool = False
    die: int | None = None
    cost: int | None = None
    TYPE = "reveal_animal"


@dataclass(frozen=True, slots=True)
class DrawAnimal(Action):
    """Chance + choice: the display is empty, so ``seat`` takes the top card of the deck (same
    card fields as ``RevealAnimal``)."""

    seat: int
    continent: str | None = None
    name: str = ""
    categories: tuple[str, ...] | None = None
    sepultus: bool = False
    die: int | None = None
    cost: int | None = None
    TYPE = "draw_animal"


@dataclass(frozen=True, slots=True)
class SetCategories(Action):
    """Enter the four categories (class, diet, habitat, climate) of an animal card revealed
    without them. Accepted at any time while they are unknown."""

    card: int
    categories: tuple[str, ...]
    TYPE = "set_categories"


@dataclass(frozen=True, slots=True)
class SwapCubes(Action):
    """Replace 5 of the seat's cubes on the Publication space of ``category`` with a "5 cubes"
    token, freeing them for research (EN "5 CUBES" TOKENS: "you can always free some up").
    Accepted at any time (it changes no score)."""

    seat: int
    category: str
    TYPE = "swap_cubes"


@dataclass(frozen=True, slots=True)
class RevealRoundToken(Action):
    """Chance: the round token turned over (``token coins expert animal extra_die nothing``)."""

    effect: str
    TYPE = "reveal_round_token"


@dataclass(frozen=True, slots=True)
class RollDice(Action):
    """Chance: ``seat`` draws its dice from the bag and rolls them: ((colour, value), ...)."""

    seat: int
    dice: tuple[tuple[str, int], ...]
    TYPE = "roll_dice"


@dataclass(frozen=True, slots=True)
class PlaceDice(Action):
    """A human places its rolled dice: ``slots[i]`` is the board slot (0-3, left to right) of
    the i-th rolled die. Automa dice are placed by the engine (lowest left)."""

    seat: int
    slots: tuple[int, ...]
    TYPE = "place_dice"


@dataclass(frozen=True, slots=True)
class TakeDie(Action):
    """Start of a turn: ``seat`` takes the die at ``owner``'s ``slot`` (``index`` within the
    slot when two dice share it). An opponent's die gives the owner that slot's effect."""

    seat: int
    owner: int
    slot: int
    index: int = 0
    TYPE = "take_die"


@dataclass(frozen=True, slots=True)
class UseExpert(Action):
    """Use a face-up one-shot expert during your own turn (5 coins / 3 reputation), then flip it."""

    seat: int
    name: str
    TYPE = "use_expert"


@dataclass(frozen=True, slots=True)
class ChooseAnimal(Action):
    """Take animal card ``card`` from the display (starting draft, round token, reputation
    bonus, an automa's Academy)."""

    seat: int
    card: int
    TYPE = "choose_animal"


@dataclass(frozen=True, slots=True)
class ChooseExpert(Action):
    """Take expert ``name`` (from the display, or the top of the deck when it is empty).
    Humans put it in face-up ``slot`` (0-3; None = the first free one; a taken slot is covered,
    allowed only when all are taken), or, for a one-shot expert, ``use_now``, or ``under``
    an existing expert (only when all slots are taken; no slot named: it has no effect, it
    counts in its continent's collection; EN University, issue 39)."""

    seat: int
    name: str
    slot: int | None = None
    use_now: bool = False
    under: bool = False
    TYPE = "choose_expert"


@dataclass(frozen=True, slots=True)
class Embassy(Action):
    seat: int
    spend: Spend = NO_SPEND
    TYPE = "embassy"


@dataclass(frozen=True, slots=True)
class Bank(Action):
    seat: int
    spend: Spend = NO_SPEND
    TYPE = "bank"


@dataclass(frozen=True, slots=True)
class University(Action):
    seat: int
    name: str
    slot: int | None = None
    use_now: bool = False
    spend: Spend = NO_SPEND
    under: bool = False  # placed under an existing expert (as ChooseExpert.under)
    TYPE = "university"


@dataclass(frozen=True, slots=True)
class Academy(Action):
    seat: int
    card: int
    spend: Spend = NO_SPEND
    TYPE = "academy"


@dataclass(frozen=True, slots=True)
class Expedition(Action):
    """Place the die on the leftmost free space of ``continent``; the value (with every spend
    declared here) is then spent by the following ``Research``."""

    seat: int
    continent: str
    spend: Spend = NO_SPEND
    TYPE = "expedition"


@dataclass(frozen=True, slots=True)
class Research(Action):
    """The research of the expedition just placed: ((card, category), ...) one cube each."""

    seat: int
    cubes: tuple[tuple[int, str], ...] = ()
    TYPE = "research"


@dataclass(frozen=True, slots=True)
class Publish(Action):
    """Publication with ``reference`` (DIGEST §4). ``up_to``: highest type to publish (None =
    the highest the die allows). ``extra``: optional cubes from other animals ((card,
    category), ...), each of a category the reference publishes. ``keep``: other animals of the
    reference's continent (or Sepultus cards) kept without giving a cube."""

    seat: int
    reference: int
    spend: Spend = NO_SPEND
    up_to: int | None = None
    extra: tuple[tuple[int, str], ...] = ()
    keep: tuple[int, ...] = ()
    TYPE = "publish"


@dataclass(frozen=True, slots=True)
class AutomaAction(Action):
    """An automa's action with the die it took: the engine reads the Behavior card row of the
    die's value and applies the card's gains. ``continent``: for an Expedition row, where the
    die goes (None only when every continent is full). Cards it gains are chosen next with
    ``ChooseAnimal``/``ChooseExpert``/``DrawAnimal``."""

    seat: int
    continent: str | None = None
    TYPE = "automa_action"


@dataclass(frozen=True, slots=True)
class SealAction(Action):
    """End of round: discard a royal seal to take a ``colour`` die from the central board."""

    seat: int
    colour: str
    TYPE = "seal_action"


@dataclass(frozen=True, slots=True)
class RollDie(Action):
    """Chance: the value rolled for the die of a seal action."""

    seat: int
    value: int
    TYPE = "roll_die"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """End of round: no seal action for this seat."""

    seat: int
    TYPE = "pass"


ACTION_TYPES: dict[str, type] = {
    c.TYPE: c
    for c in (
        StartGame, RevealExpert, RevealAnimal, DrawAnimal, SetCategories, SwapCubes, RevealRoundToken,
        RollDice, PlaceDice, TakeDie, UseExpert, ChooseAnimal, ChooseExpert, Embassy, Bank,
        University, Academy, Expedition, Research, Publish, AutomaAction, SealAction, RollDie, Pass,
    )
}

# --------------------------------------------------------------------------- JSON

# field kinds, for parsing and for the cheap type check of the checked ``apply``
_KIND: dict[str, str] = {
    "seat": "int", "owner": "int", "slot": "int", "index": "int", "card": "int", "reference": "int",
    "value": "int", "first_player": "int",
    "name": "str", "effect": "str", "colour": "str", "category": "str",
    "continent": "ostr", "up_to": "oint", "die": "oint", "cost": "oint",
    "sepultus": "bool", "use_now": "bool", "under": "bool",
    "categories": "ostrs", "dice": "dice", "slots": "ints", "keep": "ints",
    "cubes": "pairs", "extra": "pairs", "spend": "spend", "seats": "seats", "board": "oobject",
}
# fields whose kind depends on the class
_KIND_BY_CLASS = {(ChooseExpert, "slot"): "oint", (University, "slot"): "oint",
                  (SetCategories, "categories"): "strs"}


def _compact(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if v == f.default:
            continue
        out[f.name] = _jsonable(v)
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, (Spend, SeatConfig)):
        return v.to_json()
    if isinstance(v, (tuple, list)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def _is_int(v: Any) -> bool:
    return type(v) is int


def _parse(kind: str, v: Any, where: str) -> Any:
    if kind == "int":
        if not _is_int(v):
            raise BadActionError("json.not_int", where=where, got=v)
        return v
    if kind == "oint":
        return None if v is None else _parse("int", v, where)
    if kind == "str":
        if not isinstance(v, str):
            raise BadActionError("json.not_text", where=where, got=v)
        return v
    if kind == "ostr":
        return None if v is None else _parse("str", v, where)
    if kind == "bool":
        if not isinstance(v, bool):
            raise BadActionError("json.not_bool", where=where, got=v)
        return v
    if kind in ("strs", "ostrs"):
        if v is None and kind == "ostrs":
            return None
        if not isinstance(v, (list, tuple)):
            raise BadActionError("json.not_words", where=where, got=v)
        return tuple(_parse("str", x, where) for x in v)
    if kind == "ints":
        if not isinstance(v, (list, tuple)):
            raise BadActionError("json.not_numbers", where=where, got=v)
        return tuple(_parse("int", x, where) for x in v)
    if kind == "dice":
        if not isinstance(v, (list, tuple)):
            raise BadActionError("json.not_dice", where=where, got=v)
        out = []
        for x in v:
            if not isinstance(x, (list, tuple)) or len(x) != 2:
                raise BadActionError("json.not_die", where=where, got=x)
            out.append((_parse("str", x[0], where), _parse("int", x[1], where)))
        return tuple(out)
    if kind == "pairs":
        if not isinstance(v, (list, tuple)):
            raise BadActionError("json.not_pairs", where=where, got=v)
        out = []
        for x in v:
            if not isinstance(x, (list, tuple)) or len(x) != 2:
                raise BadActionError("json.not_pair", where=where, got=x)
            out.append((_parse("int", x[0], where), _parse("str", x[1], where)))
        return tuple(out)
    if kind == "spend":
        if isinstance(v, Spend):
            return v
        if not isinstance(v, dict):
            raise BadActionError("json.not_object", where=where, got=v)
        return _build(Spend, v, where)
    if kind == "oobject":
        if v is None:
            return None
        if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
            raise BadActionError("json.not_object_or_null", where=where, got=v)
        return v
    if kind == "seats":
        if not isinstance(v, (list, tuple)):
            raise BadActionError("json.not_seats", where=where, got=v)
        return tuple(x if isinstance(x, SeatConfig) else _build(SeatConfig, x, where) for x in v)
    raise AssertionError(kind)


_SUB_KIND = {
    (Spend, "coins"): "int", (Spend, "tokens"): "int", (Spend, "seals"): "int",
    (Spend, "seals_for_coins"): "int", (Spend, "colour"): "ostr", (Spend, "colour_by"): "ostr",
    (SeatConfig, "name"): "str", (SeatConfig, "kind"): "str", (SeatConfig, "behaviour"): "ostr",
    (SeatConfig, "scoring"): "ostr", (SeatConfig, "priority"): "ostrs",
}


def _kind_of(cls: type, name: str) -> str:
    return _SUB_KIND.get((cls, name)) or _KIND_BY_CLASS.get((cls, name)) or _KIND[name]


def _build(cls: type, d: Any, where: str) -> Any:
    if not isinstance(d, dict):
        raise BadActionError("json.not_object", where=where, got=d)
    names = {f.name for f in fields(cls)}
    unknown = [k for k in d if k not in names and k != "type"]
    if unknown:
        raise BadActionError("json.unknown_fields", where=where, fields=[repr(k) for k in unknown])
    kwargs = {}
    for f in fields(cls):
        if f.name in d:
            kwargs[f.name] = _parse(_kind_of(cls, f.name), d[f.name], f"{where}.{f.name}")
        elif f.default is MISSING and f.default_factory is MISSING:
            raise BadActionError("json.missing_field", where=where, field=f.name)
    return cls(**kwargs)


def action_from_json(d: Any) -> Action:
    """The action a ``to_json()`` dict describes; ``BadActionError`` if it describes none."""
    if not isinstance(d, dict):
        raise BadActionError("json.action_not_object", type=type(d).__name__)
    t = d.get("type")
    cls = ACTION_TYPES.get(t) if isinstance(t, str) else None
    if cls is None:
        raise BadActionError("json.unknown_type", got=t, known=sorted(ACTION_TYPES))
    return _build(cls, d, t)


_CHECKERS: dict[type, Any] = {}


def _check_spend(v: Any) -> None:
    if type(v) is not Spend:
        raise BadActionError("json.not_spend", got=v)
    for sf in ("coins", "tokens", "seals", "seals_for_coins"):
        x = getattr(v, sf)
        if type(x) is not int or x < 0:
            raise BadActionError("json.spend_count", field=sf, got=x)
    for sf in ("colour", "colour_by"):
        x = getattr(v, sf)
        if x is not None and type(x) is not str:
            raise BadActionError("json.spend_text", field=sf, got=x)


def _slow(cls: type, name: str, kind: str, v: Any) -> None:
    """The full parser, for its error message (raises BadActionError)."""
    _parse(kind, v, f"{cls.TYPE}.{name}")
    raise BadActionError("json.wrong_shape", where=f"{cls.TYPE}.{name}", got=v)


def _check_seat(x: Any, where: str) -> None:
    """The specific error for a malformed ``SeatConfig`` (raises BadActionError)."""
    if type(x) is not SeatConfig:
        raise BadActionError("json.not_seat", where=where, got=x)
    if type(x.name) is not str:
        raise BadActionError("json.not_text", where=f"{where}.name", got=x.name)
    if type(x.kind) is not str:
        raise BadActionError("json.not_text", where=f"{where}.kind", got=x.kind)
    for k in ("behaviour", "scoring"):
        v = getattr(x, k)
        if v is not None and type(v) is not str:
            raise BadActionError("json.not_text", where=f"{where}.{k}", got=v)
    p = x.priority
    if p is not None and (type(p) is not tuple or any(type(c) is not str for c in p)):
        raise BadActionError("json.not_priority", where=f"{where}.priority", got=p)


def _compile_checker(cls: type):
    """A small function checking the field types of ``cls`` (generated once per class): plain
    type tests inline, the full parser only to word the error when one fails."""
    lines = ["def check(a):"]
    add = lines.append
    for f in fields(cls):
        name, kind = f.name, _kind_of(cls, f.name)
        slow = f"_slow(cls, {name!r}, {kind!r}, v)"
        add(f"    v = a.{name}")
        ind = "    "
        if kind[0] == "o":  # optional: None is fine
            add("    if v is not None:")
            ind = "        "
            kind = kind[1:] if kind not in ("ostrs",) else "strs"
        if kind in _SIMPLE:
            add(f"{ind}if type(v) is not {_SIMPLE[kind].__name__}: {slow}")
        elif kind in ("ints", "strs"):
            t = "int" if kind == "ints" else "str"
            add(f"{ind}if type(v) is not tuple: {slow}")
            add(f"{ind}for x in v:")
            add(f"{ind}    if type(x) is not {t}: {slow}")
        elif kind in ("dice", "pairs"):
            t0, t1 = ("str", "int") if kind == "dice" else ("int", "str")
            add(f"{ind}if type(v) is not tuple: {slow}")
            add(f"{ind}for x in v:")
            add(f"{ind}    if type(x) is not tuple or len(x) != 2 or type(x[0]) is not {t0} or type(x[1]) is not {t1}: {slow}")
        elif kind == "spend":
            add(f"{ind}if v is not NO_SPEND and not (type(v) is Spend and type(v.coins) is int and v.coins >= 0"
                " and type(v.tokens) is int and v.tokens >= 0 and type(v.seals) is int and v.seals >= 0"
                " and type(v.seals_for_coins) is int and v.seals_for_coins >= 0"
                " and (v.colour is None or type(v.colour) is str) and (v.colour_by is None or type(v.colour_by) is str)):"
                " _check_spend(v)")
        elif kind == "seats":
            add(f"{ind}if type(v) is not tuple: {slow}")
            add(f"{ind}for i, x in enumerate(v):")
            add(f"{ind}    _check_seat(x, f'{cls.TYPE}.{name}[{{i}}]')")
        elif kind == "object":
            add(f"{ind}if type(v) is not dict: {slow}")
            add(f"{ind}for x in v:")
            add(f"{ind}    if type(x) is not str: {slow}")
        else:  # pragma: no cover - every kind is listed above
            raise AssertionError(kind)
    ns = {"cls": cls, "_slow": _slow, "_check_spend": _check_spend, "_check_seat": _check_seat, "NO_SPEND": NO_SPEND,
          "Spend": Spend, "int": int, "str": str, "bool": bool, "tuple": tuple, "dict": dict, "len": len,
          "enumerate": enumerate}
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the dataclass fields only
    return ns["check"]


_SIMPLE = {"int": int, "str": str, "bool": bool}


def checker_for(cls: type):
    """The field-type checker of an action class (raises ``BadActionError`` naming the field)."""
    chk = _CHECKERS.get(cls)
    if chk is None:
        chk = _CHECKERS[cls] = _compile_checker(cls)
    return chk


def check_fields(action: Action) -> None:
    """Cheap type check of a constructed action (the checked ``apply`` runs the same checker)."""
    checker_for(type(action))(action)


def actions_to_json(actions) -> list[dict[str, Any]]:
    return [a.to_json() for a in actions]


def actions_from_json(items) -> list[Action]:
    if not isinstance(items, list):
        raise BadActionError("json.not_action_list")
    return [action_from_json(x) for x in items]


__all__ = [
    "Spend", "NO_SPEND", "SeatConfig", "Action", "ACTION_TYPES", "action_from_json", "check_fields", "checker_for",
    "actions_to_json", "actions_from_json",
    *(c.__name__ for c in ACTION_TYPES.values()),
]
