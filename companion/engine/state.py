"""Game state: plain mutable data with a canonical JSON form.

``State`` is only changed by ``companion.engine.apply`` / ``apply_unchecked``. ``to_json()`` is
canonical (equal states give equal JSON, whatever path led to them) and ``from_json`` is its
inverse; ``copy()`` is a fast structural copy (no ``deepcopy``). The JSON form carries the game's
overridable board constants (``"board"``, as ``StartGame.board``), so ``from_json`` rebuilds the
same ``Board``.

Conventions: seats are numbered 0..n-1 clockwise; dice are ``(colour, value)`` tuples; animal
cards are numbered in the order they were revealed (``state.cards[id]``); experts are named.
The queue of what comes next (``state.tasks``, a stack whose top is the end of the list) is
engine-internal; read ``state.pending`` instead: a ``Pending`` built by ``pending_of`` (defined
here, beside the state it reads, so that ``State.pending`` needs nothing from the rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from companion.board_values import board_from_values, board_values
from companion.content.board import Board, default_board
from companion.engine.effects import refresh_effects

# --------------------------------------------------------------------------- cards


@dataclass(frozen=True, slots=True)
class Card:
    """An animal card or a Sepultus Creatura card as the table entered it.

    Animals: ``continent``, optional ``name``, ``categories`` = (class, diet, habitat, climate)
    or None while not entered yet. Sepultus: ``sepultus``, ``die`` (exact Academy value),
    ``cost`` (expedition value), ``categories`` = the categories it lists.
    """

    id: int
    continent: str | None
    name: str = ""
    categories: tuple[str, ...] | None = None
    sepultus: bool = False
    die: int | None = None
    cost: int | None = None

    def label(self) -> str:
        """The card as the table calls it: its name, or "Asia animal #3", counted from 1 like
        every screen (the card's id is 0-based)."""
        if self.sepultus:
            return self.name or f"Sepultus Creatura #{self.id + 1}"
        return self.name or f"{self.continent.capitalize()} animal #{self.id + 1}"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "continent": self.continent}
        if self.name:
            d["name"] = self.name
        if self.categories is not None:
            d["categories"] = list(self.categories)
        if self.sepultus:
            d["sepultus"] = True
            d["die"] = self.die
            d["cost"] = self.cost
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Card":
        cats = d.get("categories")
        return Card(d["id"], d.get("continent"), d.get("name", ""), tuple(cats) if cats is not None else None,
                    bool(d.get("sepultus", False)), d.get("die"), d.get("cost"))


# --------------------------------------------------------------------------- seat


class Seat:
    """One seat (human or automa)."""

    __slots__ = (
        "name", "kind", "behaviour", "scoring", "priority",
        "coins", "tokens", "seals", "vp", "rep",
        "slots", "rolled", "animals", "cubes", "published", "pub_cubes",
        "experts", "face_up", "used", "cubes_placed", "cubes_lost", "fx", "cube_tokens",
    )

    def __init__(self, name: str, kind: str = "human", behaviour: str | None = None,
                 scoring: str | None = None, priority: tuple[str, ...] | None = None) -> None:
        self.name = name
        self.kind = kind
        self.behaviour = behaviour
        self.scoring = scoring
        self.priority = priority
        self.coins = 0
        self.tokens = 0
        self.seals = 0
        self.vp = 0
        self.rep = 0  # position on the reputation track (0..length-1)
        self.slots: list[list[tuple[str, int]]] = [[], [], [], []]  # dice on the player board
        self.rolled: list[tuple[str, int]] = []  # rolled, not yet placed
        self.animals: list[int] = []  # cards under study, in order taken
        self.cubes: dict[int, list[str]] = {}  # card id -> categories carrying this seat's cube
        self.published: list[int] = []  # published (kept) cards
        self.pub_cubes: dict[str, int] = {}  # category -> cubes on the central board
        self.experts: list[str] = []  # every expert owned, in order taken
        self.face_up: list[str | None] = [None, None, None, None]  # active expert slots (humans)
        self.used: list[str] = []  # one-shot experts used (flipped)
        self.cubes_placed = 0
        self.cubes_lost = 0
        self.cube_tokens: dict[str, int] = {}  # category -> "5 cubes" tokens on its Publication space
        self.fx: Any = None  # derived: aggregated effects of the face-up experts (engine)

    @property
    def is_automa(self) -> bool:
        return self.kind == "automa"

    def dice_on_board(self) -> int:
        return sum(len(s) for s in self.slots)

    def covered(self) -> list[str]:
        up = set(self.face_up)
        used = set(self.used)
        return [e for e in self.experts if e not in up and e not in used]

    def copy(self) -> "Seat":
        s = Seat.__new__(Seat)
        s.name = self.name
        s.kind = self.kind
        s.behaviour = self.behaviour
        s.scoring = self.scoring
        s.priority = self.priority
        s.coins = self.coins
        s.tokens = self.tokens
        s.seals = self.seals
        s.vp = self.vp
        s.rep = self.rep
        s.slots = [list(x) for x in self.slots]
        s.rolled = list(self.rolled)
        s.animals = list(self.animals)
        s.cubes = {k: list(v) for k, v in self.cubes.items()}
        s.published = list(self.published)
        s.pub_cubes = dict(self.pub_cubes)
        s.experts = list(self.experts)
        s.face_up = list(self.face_up)
        s.used = list(self.used)
        s.cubes_placed = self.cubes_placed
        s.cubes_lost = self.cubes_lost
        s.cube_tokens = dict(self.cube_tokens)
        s.fx = self.fx  # immutable aggregate, shared
        return s

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name, "kind": self.kind,
            "coins": self.coins, "tokens": self.tokens, "seals": self.seals, "vp": self.vp, "rep": self.rep,
            "slots": [[list(d) for d in s] for s in self.slots],
            "rolled": [list(d) for d in self.rolled],
            "animals": list(self.animals),
            "cubes": {str(k): sorted(v) for k, v in sorted(self.cubes.items()) if v},
            "published": list(self.published),
            "pub_cubes": {k: v for k, v in sorted(self.pub_cubes.items()) if v},
            "experts": list(self.experts), "face_up": list(self.face_up), "used": list(self.used),
            "cubes_placed": self.cubes_placed, "cubes_lost": self.cubes_lost,
        }
        if self.cube_tokens:  # only once a token is used: older states' JSON is unchanged
            d["cube_tokens"] = {k: v for k, v in sorted(self.cube_tokens.items()) if v}
        if self.kind == "automa":
            d["behaviour"] = self.behaviour
            d["scoring"] = self.scoring
            d["priority"] = list(self.priority or ())
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Seat":
        s = Seat(d["name"], d["kind"], d.get("behaviour"), d.get("scoring"),
                 tuple(d["priority"]) if d.get("priority") else None)
        for k in ("coins", "tokens", "seals", "vp", "rep", "cubes_placed", "cubes_lost"):
            setattr(s, k, d[k])
        s.slots = [[(c, v) for c, v in sl] for sl in d["slots"]]
        s.rolled = [(c, v) for c, v in d["rolled"]]
        s.animals = list(d["animals"])
        s.cubes = {int(k): list(v) for k, v in d["cubes"].items()}
        s.published = list(d["published"])
        s.pub_cubes = dict(d["pub_cubes"])
        s.experts = list(d["experts"])
        s.face_up = list(d["face_up"])
        s.used = list(d["used"])
        s.cube_tokens = dict(d.get("cube_tokens", {}))
        return s

    def cubes_in_play(self) -> int:
        """Research cubes of this seat's colour out of its supply: on its animals and on the
        Publication spaces (5 fewer per "5 cubes" token)."""
        n = sum(self.pub_cubes.values()) - 5 * sum(self.cube_tokens.values())
        for v in self.cubes.values():
            n += len(v)
        return n


# --------------------------------------------------------------------------- state


class State:
    """The whole game. Build one with ``State()`` (before ``StartGame``) or ``replay(actions)``."""

    __slots__ = (
        "board", "seats", "sepultus", "first_player", "turn_start", "turn_seat", "round",
        "round_tokens", "dice_this_round", "bag", "central", "hand", "expedition", "bank_claimed",
        "expert_display", "animal_display", "cards", "experts_seen", "discarded_animals",
        "discarded_experts", "set_aside", "tasks", "deferred", "n_actions", "_counts",
    )

    def __init__(self, board: Board | None = None) -> None:
        self.seats: list[Seat] = []
        self.sepultus = False
        self.first_player = 0  # holder of the first-player token
        self.turn_start = 0  # first player when this round's turns began (turn order)
        self.turn_seat: int | None = None  # seat whose turn (or seal action) is under way
        self.round = 0  # 1..rounds once started
        self.round_tokens: list[str] = []  # effects revealed so far
        self.dice_this_round = 0
        self.hand: tuple[str, int] | None = None  # the die taken, before its action
        self.bank_claimed = False
        self.expert_display: list[str | None] = []
        self.animal_display: list[int | None] = []
        self.cards: list[Card] = []  # every animal/Sepultus card revealed, by id
        self.experts_seen: list[str] = []  # every expert turned up from the deck, in order
        self.discarded_animals: list[int] = []
        self.discarded_experts: list[str] = []
        self.set_aside: list[int] = []  # Sepultus cards an automa drew from the deck
        self.tasks: list[tuple] = [("start",)]
        self.deferred: list[tuple[int, str]] = []  # card bonuses earned off-turn: (seat, "expert"|"animal")
        self.n_actions = 0
        self._counts: tuple[int, dict[str | None, int]] = (0, {})  # derived cache, see card_counts()
        self.set_board(board if board is not None else default_board())

    def set_board(self, board: Board) -> None:
        """Play with ``board`` (before any die is drawn: ``StartGame`` sets the game's board)."""
        self.board: Board = board
        self.bag: dict[str, int] = {c: board.dice_per_colour for c in board.colours}  # dice in the bag
        self.central: dict[str, int] = {c: 0 for c in board.colours}  # dice on the central board
        self.expedition: dict[str, int] = {c: 0 for c in board.continents}  # spaces used this round

    # -- derived views

    @property
    def n(self) -> int:
        return len(self.seats)

    @property
    def finished(self) -> bool:
        return not self.tasks

    @property
    def pending(self):
        """What the game waits for next (a ``Pending``)."""
        return pending_of(self)

    def card_counts(self) -> dict[str | None, int]:
        """Cards revealed so far by continent (``None``: Sepultus cards). Cached and brought up
        to date from the cards appended since (cards are only ever appended; their continent
        never changes). Do not modify the dict."""
        n, counts = self._counts
        cards = self.cards
        if n != len(cards):
            if n > len(cards):
                n, counts = 0, {}
            counts = dict(counts)
            for c in cards[n:]:
                k = None if c.sepultus else c.continent
                counts[k] = counts.get(k, 0) + 1
            self._counts = (len(cards), counts)
        return counts

    def card(self, card_id: int) -> Card:
        return self.cards[card_id]

    def dice_on_boards(self) -> int:
        return sum(s.dice_on_board() for s in self.seats)

    # -- copy / JSON

    def copy(self) -> "State":
        s = State.__new__(State)
        s.board = self.board
        s.seats = [x.copy() for x in self.seats]
        s.sepultus = self.sepultus
        s.first_player = self.first_player
        s.turn_start = self.turn_start
        s.turn_seat = self.turn_seat
        s.round = self.round
        s.round_tokens = list(self.round_tokens)
        s.dice_this_round = self.dice_this_round
        s.bag = dict(self.bag)
        s.central = dict(self.central)
        s.hand = self.hand
        s.expedition = dict(self.expedition)
        s.bank_claimed = self.bank_claimed
        s.expert_display = list(self.expert_display)
        s.animal_display = list(self.animal_display)
        s.cards = list(self.cards)  # Card is immutable
        s.experts_seen = list(self.experts_seen)
        s.discarded_animals = list(self.discarded_animals)
        s.discarded_experts = list(self.discarded_experts)
        s.set_aside = list(self.set_aside)
        s.tasks = list(self.tasks)
        s.deferred = list(self.deferred)
        s.n_actions = self.n_actions
        s._counts = self._counts  # immutable once built
        return s

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "board": board_values(self.board),
            "seats": [x.to_json() for x in self.seats],
            "sepultus": self.sepultus,
            "first_player": self.first_player,
            "turn_start": self.turn_start,
            "turn_seat": self.turn_seat,
            "round": self.round,
            "round_tokens": list(self.round_tokens),
            "dice_this_round": self.dice_this_round,
            "bag": dict(self.bag),
            "central": dict(self.central),
            "hand": list(self.hand) if self.hand else None,
            "expedition": dict(self.expedition),
            "bank_claimed": self.bank_claimed,
            "expert_display": list(self.expert_display),
            "animal_display": list(self.animal_display),
            "cards": [c.to_json() for c in self.cards],
            "experts_seen": list(self.experts_seen),
            "discarded_animals": list(self.discarded_animals),
            "discarded_experts": list(self.discarded_experts),
            "set_aside": list(self.set_aside),
            "tasks": [list(t) for t in self.tasks],
            "deferred": [list(t) for t in self.deferred],
            "n_actions": self.n_actions,
        }

    @staticmethod
    def from_json(d: dict[str, Any], board: Board | None = None) -> "State":
        if board is None and d.get("board") is not None:
            board = board_from_values(d["board"])
        s = State(board)
        s.seats = [Seat.from_json(x) for x in d["seats"]]
        for k in ("sepultus", "first_player", "turn_start", "turn_seat", "round", "dice_this_round",
                  "bank_claimed", "n_actions"):
            setattr(s, k, d[k])
        s.round_tokens = list(d["round_tokens"])
        s.bag = dict(d["bag"])
        s.central = dict(d["central"])
        s.hand = tuple(d["hand"]) if d["hand"] else None
        s.expedition = dict(d["expedition"])
        s.expert_display = list(d["expert_display"])
        s.animal_display = list(d["animal_display"])
        s.cards = [Card.from_json(c) for c in d["cards"]]
        s.experts_seen = list(d["experts_seen"])
        s.discarded_animals = list(d["discarded_animals"])
        s.discarded_experts = list(d["discarded_experts"])
        s.set_aside = list(d["set_aside"])
        s.tasks = [tuple(t) for t in d["tasks"]]
        s.deferred = [tuple(t) for t in d["deferred"]]
        for seat in s.seats:
            refresh_effects(seat)
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # mutable


# --------------------------------------------------------------------------- pending


class Pending(NamedTuple):
    """What the game waits for.

    ``kind``: start_game | reveal_expert | reveal_animal | choose_animal | choose_expert |
    reveal_round_token | roll_dice | place_dice | take_die | action | research | seal_action |
    roll_die | game_over. ``seat``: who must act (None for table/chance inputs that belong to
    nobody). ``accepts``: the action type names accepted now (``set_categories`` is accepted at
    any time and not listed). ``reason`` (choices: start, round, reputation, academy,
    university), ``count`` (dice to roll), ``value``/``continent`` (research budget),
    ``from_deck`` (the display is empty: the card comes from the deck), ``die`` (the die in
    hand for ``action``)."""

    kind: str
    seat: int | None = None
    accepts: tuple[str, ...] = ()
    reason: str | None = None
    count: int | None = None
    value: int | None = None
    continent: str | None = None
    from_deck: bool = False
    die: tuple[str, int] | None = None

    def describe(self) -> str:
        who = f"seat {self.seat}" if self.seat is not None else "the table"
        return f"{self.kind} ({who})"


_HUMAN_ACTION_NAMES = ("embassy", "bank", "university", "academy", "expedition", "publish")


_tuple_new = tuple.__new__
_GAME_OVER = Pending("game_over")
_CONST_PENDING = {
    "start": Pending("start_game", accepts=("start_game",)),
    "reveal_expert": Pending("reveal_expert", accepts=("reveal_expert",)),
    "reveal_animal": Pending("reveal_animal", accepts=("reveal_animal",)),
    "round_token": Pending("reveal_round_token", accepts=("reveal_round_token",)),
}
_HUMAN_ACTION_ACCEPTS = _HUMAN_ACTION_NAMES + ("use_expert",)


def _own_turn(st: State, si: int) -> bool:
    """A step of ``si``'s own turn after its action (a one-shot expert may be used then)."""
    return st.turn_seat == si and st.seats[si].kind == "human"


def _p_choose_animal(st: State, t: tuple) -> Pending:
    deck = not _animal_display_has(st, t[1])
    acc = ("draw_animal",) if deck else ("choose_animal",)
    if _own_turn(st, t[1]):
        acc += ("use_expert",)
    return _tuple_new(Pending, ("choose_animal", t[1], acc, t[2], None, None, None, deck, None))


def _p_choose_expert(st: State, t: tuple) -> Pending:
    deck = st.expert_display.count(None) == len(st.expert_display)
    acc = ("choose_expert", "use_expert") if _own_turn(st, t[1]) else ("choose_expert",)
    return _tuple_new(Pending, ("choose_expert", t[1], acc, t[2], None, None, None, deck, None))


def _p_take_die(st: State, t: tuple) -> Pending:
    acc = ("take_die", "use_expert") if st.seats[t[1]].kind == "human" else ("take_die",)
    return _tuple_new(Pending, ("take_die", t[1], acc, None, None, None, None, False, None))


def _p_action(st: State, t: tuple) -> Pending:
    acc = _HUMAN_ACTION_ACCEPTS if st.seats[t[1]].kind == "human" else ("automa_action",)
    return _tuple_new(Pending, ("action", t[1], acc, None, None, None, None, False, st.hand))


_PENDING_OF = {
    "choose_animal": _p_choose_animal,
    "choose_expert": _p_choose_expert,
    "take_die": _p_take_die,
    "action": _p_action,
    "roll_dice": lambda st, t: _tuple_new(Pending, ("roll_dice", t[1], ("roll_dice",), None, st.dice_this_round,
                                                    None, None, False, None)),
    "place_dice": lambda st, t: _tuple_new(Pending, ("place_dice", t[1], ("place_dice",), None,
                                                     len(st.seats[t[1]].rolled), None, None, False, None)),
    "research": lambda st, t: _tuple_new(Pending, ("research", t[1], ("research", "use_expert"), None, None,
                                                   research_value(st, t), t[3], False, None)),
    "seal_offer": lambda st, t: _tuple_new(Pending, ("seal_action", t[1], ("seal_action", "pass"), None, None,
                                                     None, None, False, None)),
    "roll_die": lambda st, t: _tuple_new(Pending, ("roll_die", t[1], ("roll_die", "use_expert") if _own_turn(st, t[1])
                                                   else ("roll_die",), None, None, None, None, False, None)),
}


def pending_of(st: State) -> Pending:
    """What ``st`` waits for (see ``Pending``)."""
    tasks = st.tasks
    if not tasks:
        return _GAME_OVER
    t = tasks[-1]
    k = t[0]
    fn = _PENDING_OF.get(k)
    if fn is not None:
        return fn(st, t)
    p = _CONST_PENDING.get(k)
    if p is None:  # pragma: no cover - every waiting task is listed
        raise AssertionError(f"task {t!r} needs no input")
    return p


def _animal_display_has(st: State, si: int) -> bool:
    if st.seats[si].kind == "automa":
        cards = st.cards
        return any(c is not None and not cards[c].sepultus for c in st.animal_display)
    d = st.animal_display
    return d.count(None) != len(d)


def research_value(st: State, t: tuple) -> int:
    """The value of the research task ``t``: its base + the seat's expert effects now."""
    fx = st.seats[t[1]].fx
    return t[2] + fx.die_bonus.get(t[4], 0) + fx.exp_bonus.get(t[3], 0)
