"""What the drawn central board and the seats' boards show: plain data from the engine's state.

No Flet here. ``central_board(state, placements, gt)`` and ``seat_boards(state, gt)`` turn the
engine's ``State`` into small frozen records (a location with its dice, a track space with its
bonus and die, a cell of the publication grid with each seat's cubes, a reputation space with
its markers, a round with its token, a display tile in its continent's colour, a seat's board),
each with a short ``text`` to draw and an ``info`` line that says what it is (shown when it is
tapped, and its accessible name). ``companion/app/game/board_view.py`` draws them.

Nothing is stored twice: every number is read from the state. The one thing the state does not
hold is WHICH die went to which location this round (it keeps the dice on the central board as
counts per colour, and the expedition spaces used per continent); ``round_placements(actions)``
reads it from the game's own action list (the save file) by replaying it, and
``PlacementCache`` keeps the replay between two taps. Decisions: docs/app-game.md, "The board
and the seats".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from companion.actions import (
    Academy, Action, AutomaAction, Bank, Embassy, Expedition, Publish, SealAction, University,
)
from companion.engine import EXPERT, State, apply_unchecked, behaviour_row

#: die colour of each continent (the board's fixed pairing, DIGEST §1)
CONTINENT_COLOUR = {"america": "red", "africa": "yellow", "asia": "purple", "europe": "blue", "oceania": "green"}
#: the seats' marker colours (reputation markers, published cubes): none is a die colour
SEAT_COLOURS = ("#EF6C00", "#00897B", "#D81B60", "#6D4C41")
#: the six locations in the board's reading order; "expedition" is drawn as the five tracks
LOCATIONS = ("university", "embassy", "bank", "academy", "expedition", "publish")
TYPE_ROMAN = ("0", "I", "II", "III", "IV")
#: a round token's effect -> the icon name drawn for it (Flet ``Icons`` member)
TOKEN_ICON = {"token": "EXPLORE", "coins": "MONETIZATION_ON", "expert": "SCHOOL", "animal": "PETS",
              "extra_die": "CASINO", "nothing": "BLOCK"}
_HUMAN_LOC = {Embassy: "embassy", Bank: "bank", University: "university", Academy: "academy", Publish: "publish"}


# --------------------------------------------------------------------------- placements


@dataclass(frozen=True, slots=True)
class Placement:
    """A die on the central board this round: where, whose action, which face."""

    location: str  # one of LOCATIONS
    seat: int
    die: tuple[str, int]  # as rolled (a colour changed by a token or seal is not the die's face)
    continent: str | None = None  # expedition only
    space: int | None = None  # expedition: the space (0 = leftmost); None when every space was full


def _location_of(st: State, a: Action) -> Placement | None:
    """The placement ``a`` makes in ``st`` (before it is applied), or None."""
    if st.hand is None:
        return None
    die = (st.hand[0], st.hand[1])
    loc = _HUMAN_LOC.get(type(a))
    if loc is not None:
        return Placement(loc, a.seat, die)
    if isinstance(a, Expedition):
        return Placement("expedition", a.seat, die, a.continent, st.expedition.get(a.continent))
    if isinstance(a, AutomaAction):
        kind = behaviour_row(st.seats[a.seat].behaviour, st.hand[1])["kind"]
        if kind == "expedition":
            space = st.expedition.get(a.continent) if a.continent is not None else None
            return Placement("expedition", a.seat, die, a.continent, space)
        return Placement(kind, a.seat, die)
    return None


def _take_back(placed: list[Placement], colour: str) -> None:
    """A seal action takes a die of ``colour`` from the central board. The engine does not say
    which: the latest one outside the expedition tracks (whose spaces stay used), else the latest."""
    for wanted in (lambda p: p.location != "expedition", lambda p: True):
        for i in range(len(placed) - 1, -1, -1):
            if placed[i].die[0] == colour and wanted(placed[i]):
                del placed[i]
                return


def _step(st: State, placed: list[Placement], a: Action) -> list[Placement]:
    p = _location_of(st, a)
    if isinstance(a, SealAction):
        _take_back(placed, a.colour)
    apply_unchecked(st, a)
    if p is not None:
        placed.append(p)
    if placed and not any(st.central.values()):
        placed = []  # end of round: every die went back to the bag
    return placed


def round_placements(actions: Sequence[Action]) -> list[Placement]:
    """The dice on the central board now, with where each went (replaying ``actions``)."""
    st = State()
    placed: list[Placement] = []
    for a in actions:
        placed = _step(st, placed, a)
    return placed


class PlacementCache:
    """``round_placements`` kept between calls: when the game only grew since the last call
    (a confirmed step) only the new actions are replayed; after an undo, everything."""

    def __init__(self):
        self._actions: tuple = ()
        self._state: State | None = None
        self._placed: list[Placement] = []

    def get(self, actions: Sequence[Action]) -> list[Placement]:
        actions = tuple(actions)
        n = len(self._actions)
        grew = self._state is not None and len(actions) >= n and (n == 0 or actions[n - 1] is self._actions[-1])
        if not grew:
            self._state, self._placed, n = State(), [], 0
        for a in actions[n:]:
            self._placed = _step(self._state, self._placed, a)
        self._actions = actions
        return list(self._placed)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class DieMark:
    colour: str
    value: int
    seat: int
    info: str


@dataclass(frozen=True)
class LocationView:
    key: str
    name: str
    dice: tuple[DieMark, ...]
    info: str
    note: str = ""  # e.g. the Bank's first-player token already taken


@dataclass(frozen=True)
class SpaceView:
    continent: str
    index: int
    rep: int
    bonus: int
    used: bool
    die: DieMark | None
    text: str
    info: str


@dataclass(frozen=True)
class TrackView:
    continent: str
    colour: str
    name: str
    spaces: tuple[SpaceView, ...]
    info: str


@dataclass(frozen=True)
class CubeCount:
    seat: int
    n: int


@dataclass(frozen=True)
class PubCell:
    type: int
    category: str
    name: str
    cubes: tuple[CubeCount, ...]  # seats with at least one cube
    info: str


@dataclass(frozen=True)
class PubRow:
    type: int
    text: str  # "I · 2 VP"
    cells: tuple[PubCell, ...]


@dataclass(frozen=True)
class RepSpace:
    index: int
    bonus: tuple[tuple[str, int], ...]  # the space's gains (kind, n); () for none
    seats: tuple[int, ...]  # markers on it
    info: str


@dataclass(frozen=True)
class RoundView:
    round: int
    token: str | None  # the revealed effect, None while not revealed
    current: bool
    info: str


@dataclass(frozen=True)
class Tile:
    """A card of a display or of a seat: its continent's colour (``None``: Sepultus), a label."""

    slot: int
    text: str
    continent: str | None
    colour: str  # a die colour name (CONTINENT_COLOUR) or "unknown" for Sepultus / an empty slot
    empty: bool
    info: str


@dataclass(frozen=True)
class CentralBoard:
    locations: tuple[LocationView, ...]  # the five locations other than the expedition
    expedition: LocationView
    tracks: tuple[TrackView, ...]
    publication: tuple[PubRow, ...]
    reputation: tuple[RepSpace, ...]
    rounds: tuple[RoundView, ...]
    experts: tuple[Tile, ...]
    animals: tuple[Tile, ...]
    seats: tuple[tuple[str, str], ...]  # (name, marker colour) for the legend


@dataclass(frozen=True)
class Stat:
    key: str  # coins / tokens / seals / vp / rep
    value: int
    info: str


@dataclass(frozen=True)
class SlotView:
    index: int
    effect: str
    dice: tuple[DieMark, ...]
    info: str


@dataclass(frozen=True)
class CubeCell:
    type: int
    category: str | None
    on: bool
    info: str


@dataclass(frozen=True)
class StudyTile:
    tile: Tile
    cubes: tuple[CubeCell, ...]  # types I..IV


@dataclass(frozen=True)
class ExpertMark:
    name: str
    state: str  # face_up / covered / flipped (humans); held (an automa's)
    info: str


@dataclass(frozen=True)
class ContinentColumn:
    continent: str | None  # None: Sepultus cards
    colour: str
    name: str
    published: int
    experts: tuple[ExpertMark, ...]
    info: str


@dataclass(frozen=True)
class SeatBoard:
    seat: int
    name: str
    title: str
    colour: str
    automa: bool
    first: bool
    active: bool
    stats: tuple[Stat, ...]
    stats_info: str  # all five numbers in one line (the accessible name of the row)
    slots: tuple[SlotView, ...]
    hand: DieMark | None
    study: tuple[StudyTile, ...]  # an automa's animals carry no cubes: ``cubes`` is () for them
    columns: tuple[ContinentColumn, ...]
    info: str = ""
    extra: dict = field(default_factory=dict, compare=False)


# --------------------------------------------------------------------------- builders


def gain_text(gt, gain) -> str:
    items = gain.items() if hasattr(gain, "items") else gain
    return ", ".join(gt(f"g.bd.gain.{k}", n=v) for k, v in items) or gt("g.gift.nothing")


def _die(gt, st: State, p: Placement) -> DieMark:
    return DieMark(p.die[0], p.die[1], p.seat, gt("g.bd.die_by", die=gt.die(p.die), name=st.seats[p.seat].name))


def card_label(gt, st: State, cid: int) -> str:
    c = st.cards[cid]
    if c.sepultus:
        return c.name or gt("g.card.sepultus", n=cid + 1)
    cont = gt.continent(c.continent)
    return gt("g.card.named", name=c.name, continent=cont) if c.name else gt("g.card.unnamed", continent=cont, n=cid + 1)


def _card_tile(gt, st: State, cid: int, slot: int) -> Tile:
    c = st.cards[cid]
    label = c.name or (gt("g.card.sepultus", n=cid + 1) if c.sepultus else gt("g.bd.animal_n", n=cid + 1))
    cats = ", ".join(gt.category(x) for x in c.categories) if c.categories else gt("g.bd.no_categories")
    if c.sepultus:
        cats = gt("g.bd.sepultus_info", die=c.die, cost=c.cost, cats=cats)
    return Tile(slot, label, c.continent, CONTINENT_COLOUR.get(c.continent, "unknown"), False,
                gt("g.bd.card_info", card=card_label(gt, st, cid), cats=cats))


def _empty_tile(gt, display: str, slot: int) -> Tile:
    return Tile(slot, "", None, "unknown", True, gt("g.bd.display_tile", display=gt(display), n=slot + 1, what=gt("g.sb.slot_empty")))


def _expert_tile(gt, name: str | None, slot: int) -> Tile:
    if name is None:
        return _empty_tile(gt, "g.bd.expert_display", slot)
    e = EXPERT[name]
    what = gt("g.bd.expert_info", name=name, continent=gt.continent(e.continent), text=e.text)
    return Tile(slot, name, e.continent, CONTINENT_COLOUR[e.continent], False,
                gt("g.bd.display_tile", display=gt("g.bd.expert_display"), n=slot + 1, what=what))


def central_board(st: State, placements: Sequence[Placement], gt) -> CentralBoard:
    """The central board as the table has it now."""
    b = st.board
    by_loc: dict[str, list[DieMark]] = {k: [] for k in LOCATIONS}
    on_space: dict[tuple[str, int], DieMark] = {}
    for p in placements:
        mark = _die(gt, st, p)
        by_loc[p.location].append(mark)
        if p.location == "expedition" and p.continent is not None and p.space is not None:
            on_space[(p.continent, p.space)] = mark

    def location(key: str) -> LocationView:
        dice = tuple(by_loc[key])
        name = gt(f"g.loc.{key}")
        what = "; ".join(d.info for d in dice) if dice else gt("g.bd.no_die")
        note = gt("g.bd.bank_taken") if key == "bank" and st.bank_claimed else ""
        info = gt("g.bd.loc_info", location=name, n=len(dice), dice=what) + (f" ({note})" if note else "")
        return LocationView(key, name, dice, info, note)

    tracks = []
    for c in b.continents:
        spaces = []
        used = st.expedition.get(c, 0)
        for i, (rep, bonus) in enumerate(b.expedition_spaces):
            die = on_space.get((c, i))
            state = die.info if die else (gt("g.bd.space_used") if i < used else gt("g.bd.space_free"))
            spaces.append(SpaceView(c, i, rep, bonus, i < used, die, f"+{bonus}",
                                    gt("g.bd.space_info", continent=gt.continent(c), n=i + 1, bonus=bonus, rep=rep, state=state)))
        tracks.append(TrackView(c, CONTINENT_COLOUR[c], gt.continent(c), tuple(spaces),
                                gt("g.bd.track_info", continent=gt.continent(c), used=used, n=len(b.expedition_spaces))))

    names = [s.name for s in st.seats]
    rows = []
    for t in sorted(b.categories_by_type):
        cells = []
        for cat in b.categories_by_type[t]:
            cubes = tuple(CubeCount(i, s.pub_cubes.get(cat, 0)) for i, s in enumerate(st.seats) if s.pub_cubes.get(cat, 0))
            who = ", ".join(gt("g.bd.cubes_of", name=names[c.seat], n=c.n) for c in cubes) or gt("g.bd.no_cube")
            cells.append(PubCell(t, cat, gt.category(cat), cubes,
                                 gt("g.bd.pub_info", t=gt.pub_type(t), category=gt.category(cat), vp=b.publication_vp[t], cubes=who)))
        rows.append(PubRow(t, gt("g.bd.pub_row", t=gt.pub_type_short(t), vp=b.publication_vp[t]), tuple(cells)))

    rep = []
    for i in range(b.reputation_track_length):
        bonus = tuple(b.reputation_bonuses.get(i, {}).items())
        on = tuple(si for si, s in enumerate(st.seats) if s.rep == i)
        info = gt("g.bd.rep_info", n=i)
        if bonus:
            info += " · " + gt("g.bd.rep_bonus", gain=gain_text(gt, bonus))
        if on:
            info += " · " + ", ".join(names[si] for si in on)
        rep.append(RepSpace(i, bonus, on, info))

    rounds = []
    for r in range(1, b.rounds + 1):
        token = st.round_tokens[r - 1] if r <= len(st.round_tokens) else None
        what = gt.token(token) if token else gt("g.bd.not_revealed")
        info = gt("g.bd.round_info", n=r, token=what) + (" · " + gt("g.bd.round_now") if r == st.round else "")
        rounds.append(RoundView(r, token, r == st.round, info))

    experts = tuple(_expert_tile(gt, n, k) for k, n in enumerate(st.expert_display))
    animals = []
    for k, cid in enumerate(st.animal_display):
        if cid is None:
            animals.append(_empty_tile(gt, "g.bd.animal_display", k))
            continue
        t = _card_tile(gt, st, cid, k)
        animals.append(Tile(k, t.text, t.continent, t.colour, False,
                            gt("g.bd.display_tile", display=gt("g.bd.animal_display"), n=k + 1, what=t.info)))
    return CentralBoard(
        locations=tuple(location(k) for k in LOCATIONS if k != "expedition"),
        expedition=location("expedition"), tracks=tuple(tracks), publication=tuple(rows),
        reputation=tuple(rep), rounds=tuple(rounds), experts=experts, animals=tuple(animals),
        seats=tuple((s.name, SEAT_COLOURS[i % len(SEAT_COLOURS)]) for i, s in enumerate(st.seats)),
    )


def seat_board(st: State, si: int, gt, active: bool = False) -> SeatBoard:
    b = st.board
    s = st.seats[si]
    values = {"coins": s.coins, "tokens": s.tokens, "seals": s.seals, "vp": s.vp, "rep": s.rep}
    stats = tuple(Stat(k, v, gt(f"g.sb.{k}", n=v)) for k, v in values.items())
    stats_info = gt("g.sb.stats", name=s.name, **values)
    slots = []
    for k, dice in enumerate(s.slots):
        effect = gt.gift(b.slot_effects[k])
        marks = tuple(DieMark(c, v, si, gt("g.sb.die", name=s.name, slot=k + 1, die=gt.die((c, v)))) for c, v in dice)
        what = ", ".join(gt.die(d) for d in dice) or gt("g.bd.no_die")
        slots.append(SlotView(k, effect, marks, gt("g.sb.slot_info", name=s.name, slot=k + 1, what=effect, dice=what)))
    hand = None
    if st.hand is not None and st.turn_seat == si:
        hand = DieMark(st.hand[0], st.hand[1], si, gt("g.sb.in_hand", die=gt.die(st.hand)))
    study = []
    for k, cid in enumerate(s.animals):
        c = st.cards[cid]
        on = set(s.cubes.get(cid, ()))
        cells = []
        for t in (1, 2, 3, 4) if s.kind != "automa" else ():
            if c.sepultus:
                cat = next((x for x in on if b.type_of_category.get(x) == t), None)
            else:
                cat = c.categories[t - 1] if c.categories else None
            name = gt.category(cat) if cat else gt("g.bd.unknown_category")
            has = cat in on if cat else False
            cells.append(CubeCell(t, cat, has, gt("g.sb.cube_on" if has else "g.sb.cube_off", t=gt.pub_type(t), category=name)))
        tile = _card_tile(gt, st, cid, k)
        cubes = ", ".join(gt.category(x) for x in sorted(on, key=lambda x: b.type_of_category.get(x, 9))) or gt("g.bd.no_cube")
        what = tile.info + (" · " + gt("g.sb.cubes", cubes=cubes) if s.kind != "automa" else "")
        tile = Tile(tile.slot, tile.text, tile.continent, tile.colour, False, gt("g.sb.animal", name=s.name, what=what))
        study.append(StudyTile(tile, tuple(cells)))
    columns = []
    up, used = set(x for x in s.face_up if x), set(s.used)
    conts: list[str | None] = list(b.continents)
    if any(st.cards[c].continent is None for c in s.published):
        conts.append(None)
    for cont in conts:
        pub = [c for c in s.published if st.cards[c].continent == cont]
        marks = []
        for n in s.experts:
            if EXPERT[n].continent != cont:
                continue
            state = "held" if s.kind == "automa" else "flipped" if n in used else "face_up" if n in up else "covered"
            marks.append(ExpertMark(n, state, gt("g.sb.expert", name=n, state=gt(f"g.sb.state.{state}"))))
        cname = gt.continent(cont)
        pub_names = ", ".join(card_label(gt, st, c) for c in pub) or "—"
        exp_names = ", ".join(m.info for m in marks) or "—"
        columns.append(ContinentColumn(cont, CONTINENT_COLOUR.get(cont, "unknown"), cname, len(pub), tuple(marks),
                                       gt("g.sb.column_info", continent=cname, n=len(pub), cards=pub_names,
                                          k=len(marks), experts=exp_names)))
    bits = [s.name]
    if s.kind == "automa":
        bits.append(gt("g.wiz.automa"))
    if st.first_player == si:
        bits.append(gt("g.res.first_player"))
    return SeatBoard(si, s.name, " · ".join(bits), SEAT_COLOURS[si % len(SEAT_COLOURS)], s.kind == "automa",
                     st.first_player == si, active, stats, stats_info, tuple(slots), hand, tuple(study), tuple(columns))


def seat_boards(st: State, gt, active: int | None = None) -> list[SeatBoard]:
    return [seat_board(st, i, gt, active == i) for i in range(len(st.seats))]


def placements_agree(st: State, placements: Sequence[Placement]) -> bool:
    """The placements account for exactly the dice the engine has on the central board, and no
    expedition space holds a die the engine does not count as used."""
    if Counter(p.die[0] for p in placements) != Counter({c: k for c, k in st.central.items() if k}):
        return False
    for p in placements:
        if p.location == "expedition" and p.space is not None and p.space >= st.expedition.get(p.continent, 0):
            return False
    return True
