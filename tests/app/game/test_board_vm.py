"""The drawn board's view-model (companion/app/game/board_vm.py) against the engine's state, on
random games through the checked engine, without a display; and its Flet drawing."""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib import resources

import flet as ft
import pytest
from control_tree import find_controls

from companion.actions import Embassy, Expedition, SealAction
from companion.app.game import board_vm as bv
from companion.app.game.texts import GameText
from companion.engine import EXPERT, State
from companion.simulate import play_game

GAMES = [play_game(seed, seats=2 + seed % 3, automas=seed % 2) for seed in (11, 12, 13, 14)]


def snapshots(every: int = 23):
    """(state, actions so far, placements) at many points of the random games."""
    for rec in GAMES:
        st = State()
        placed: list = []
        for i, a in enumerate(rec.actions):
            placed = bv._step(st, placed, a)
            if i % every == 0 or isinstance(a, (SealAction, Expedition)):
                yield st, rec.actions[: i + 1], placed


def test_placements_account_for_every_die_on_the_central_board():
    n = seals = 0
    for st, _, placed in snapshots(every=1):
        assert bv.placements_agree(st, placed), (placed, st.central, st.expedition)
        n += 1
    for rec in GAMES:
        seals += sum(isinstance(a, SealAction) for a in rec.actions)
    assert n > 1000 and seals > 0  # seal actions (dice taken back) were met


def test_a_die_goes_where_its_action_put_it():
    for rec in GAMES:
        st = State()
        placed: list = []
        for a in rec.actions:
            hand = st.hand
            space = st.expedition.get(a.continent) if isinstance(a, Expedition) else None
            placed = bv._step(st, placed, a)
            if not any(st.central.values()):
                assert placed == []  # the round's last die: every die went back to the bag
                continue
            if isinstance(a, Embassy):
                assert placed[-1] == bv.Placement("embassy", a.seat, hand)
            if isinstance(a, Expedition):
                assert placed[-1] == bv.Placement("expedition", a.seat, hand, a.continent, space)


def test_the_cache_follows_confirms_and_undos():
    rec = GAMES[1]
    cache = bv.PlacementCache()
    for n in (5, 60, 61, 140, 90, 91, 250, 30, len(rec.actions) - 3):
        acts = tuple(rec.actions[:n])
        assert cache.get(acts) == bv.round_placements(acts), n
    # an undo then another action object at the same length: replayed, not taken from the cache
    from companion.actions import action_from_json

    acts = tuple(rec.actions[:120])
    cache.get(acts)
    other = tuple(rec.actions[:119]) + (action_from_json(rec.actions[119].to_json()),)
    cache._placed = ["stale"]
    assert cache.get(other) == bv.round_placements(other)


def test_the_central_board_is_the_engine_state():
    gt = GameText("en")
    met = Counter()
    for st, _, placed in snapshots():
        if not st.seats:
            continue
        b = bv.central_board(st, placed, gt)
        # six locations, dice per location = the placements, dice in all = the engine's central board
        assert [x.key for x in b.locations] + [b.expedition.key] == [k for k in bv.LOCATIONS if k != "expedition"] + ["expedition"]
        dice = Counter(d.colour for loc in (*b.locations, b.expedition) for d in loc.dice)
        assert dice == Counter({c: k for c, k in st.central.items() if k})
        met["dice"] += sum(dice.values())
        # expedition tracks: the board's spaces, used = the engine's count, dice on used spaces only
        for tr in b.tracks:
            assert [(s.rep, s.bonus) for s in tr.spaces] == list(st.board.expedition_spaces)
            assert [s.used for s in tr.spaces] == [i < st.expedition[tr.continent] for i in range(len(tr.spaces))]
            for s in tr.spaces:
                if s.die is not None:
                    assert s.used
                    met["track dice"] += 1
        # publication grid: categories x types, each seat's cubes
        assert [(r.type, [c.category for c in r.cells]) for r in b.publication] == \
            [(t, list(st.board.categories_by_type[t])) for t in (1, 2, 3, 4)]
        for r in b.publication:
            for c in r.cells:
                want = {i: s.pub_cubes.get(c.category, 0) for i, s in enumerate(st.seats) if s.pub_cubes.get(c.category, 0)}
                assert {x.seat: x.n for x in c.cubes} == want
                met["cubes"] += sum(want.values())
        # reputation: every seat's marker on its space, the bonus spaces of the board
        assert len(b.reputation) == st.board.reputation_track_length
        for sp in b.reputation:
            assert set(sp.seats) == {i for i, s in enumerate(st.seats) if s.rep == sp.index}
            assert dict(sp.bonus) == dict(st.board.reputation_bonuses.get(sp.index, {}))
        # rounds: the tokens revealed, in order
        assert [r.token for r in b.rounds if r.token] == st.round_tokens
        assert [r.round for r in b.rounds if r.current] == ([st.round] if st.round else [])
        # displays: slot order, continent colour
        assert [None if t.empty else t.text for t in b.experts] == list(st.expert_display)
        for t in b.experts:
            if not t.empty:
                assert t.colour == bv.CONTINENT_COLOUR[EXPERT[t.text].continent]
        assert len(b.animals) == len(st.animal_display)
        for t, cid in zip(b.animals, st.animal_display):
            assert t.empty == (cid is None)
            if cid is not None:
                assert t.continent == st.cards[cid].continent
                assert t.colour == bv.CONTINENT_COLOUR.get(st.cards[cid].continent, "unknown")
    assert met["dice"] and met["track dice"] and met["cubes"]


def test_seat_boards_are_the_engine_state():
    gt = GameText("en")
    states = Counter()
    for st, _, _ in snapshots():
        for sb in bv.seat_boards(st, gt):
            s = st.seats[sb.seat]
            assert {x.key: x.value for x in sb.stats} == {"coins": s.coins, "tokens": s.tokens, "seals": s.seals,
                                                            "vp": s.vp, "rep": s.rep}
            w = lambda n, one: f"{n} {one if n == 1 else one + 's'}"  # noqa: E731  (issue 41, item 15: 1 token)
            assert sb.stats_info == (f"{s.name}: {w(s.coins, 'coin')} · {w(s.tokens, 'token')} · {w(s.seals, 'seal')} · "
                                     f"{s.vp} VP · reputation {s.rep}")
            assert [[(d.colour, d.value) for d in sl.dice] for sl in sb.slots] == [list(x) for x in s.slots]
            assert [x.tile.continent for x in sb.study] == [st.cards[c].continent for c in s.animals]
            for x, cid in zip(sb.study, s.animals):
                on = {c.category for c in x.cubes if c.on}
                if s.kind == "automa":
                    assert x.cubes == ()
                else:
                    assert len(x.cubes) == 4
                    assert on == set(s.cubes.get(cid, ())), (on, s.cubes.get(cid))
            assert sum(c.published for c in sb.columns) == len(s.published)
            for col in sb.columns:
                assert col.published == sum(st.cards[c].continent == col.continent for c in s.published)
                assert [m.name for m in col.experts] == [n for n in s.experts if EXPERT[n].continent == col.continent]
                for m in col.experts:
                    want = ("held" if s.kind == "automa" else "flipped" if m.name in s.used
                            else "face_up" if m.name in s.face_up else "covered")
                    assert m.state == want
                    states[m.state] += 1
    assert states["face_up"] and states["covered"] and states["held"]


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_every_line_in_french_and_italian(lang):
    """Every key the board uses exists in the three tables, and a French / Italian board shows
    no English line (names and the experts' effect texts apart)."""
    tables = {x: json.loads(resources.files("companion.app.game").joinpath("i18n", f"{x}.json").read_text("utf-8"))
              for x in ("en", "fr", "it")}
    assert {k for k in tables["en"] if k.startswith(("g.bd.", "g.sb."))} == \
        {k for k in tables[lang] if k.startswith(("g.bd.", "g.sb."))}
    st, _, placed = next(x for x in snapshots() if x[0].round >= 3 and sum(x[0].central.values()) >= 3)
    en, other = GameText("en"), GameText(lang)
    b_en, b = bv.central_board(st, placed, en), bv.central_board(st, placed, other)
    pairs = [(x.info, y.info) for x, y in zip(b_en.locations, b.locations)]
    pairs += [(x.info, y.info) for tx, ty in zip(b_en.tracks, b.tracks) for x, y in zip(tx.spaces, ty.spaces)]
    pairs += [(x.info, y.info) for rx, ry in zip(b_en.publication, b.publication) for x, y in zip(rx.cells, ry.cells)]
    pairs += [(x.info, y.info) for x, y in zip(b_en.reputation, b.reputation)]
    pairs += [(x.info, y.info) for x, y in zip(b_en.rounds, b.rounds)]
    for s_en, s in zip(bv.seat_boards(st, en), bv.seat_boards(st, other)):
        pairs += [(s_en.stats_info, s.stats_info)] + [(x.info, y.info) for x, y in zip(s_en.slots, s.slots)]
        pairs += [(x.info, y.info) for x, y in zip(s_en.columns, s.columns)]
    assert pairs and all(a != b for a, b in pairs), [p for p in pairs if p[0] == p[1]]


def test_the_boards_draw_as_flet_controls_with_their_names():
    """Phone and desktop widths: the drawn controls carry every info line as a Semantics label."""
    from companion.app.game.board_view import central_board_view, seat_board_view

    gt = GameText("en")
    st, _, placed = next(x for x in snapshots() if x[0].round >= 2 and sum(x[0].central.values()) >= 2)
    b = bv.central_board(st, placed, gt)
    shown: list[str] = []
    for width in (366, 430):
        drawn = [central_board_view(b, gt, shown.append, width)]
        drawn += [seat_board_view(sb, gt, shown.append, width) for sb in bv.seat_boards(st, gt)]
        labels = [c.label for c in find_controls(drawn, ft.Semantics) if c.label]
        want = [x.info for x in b.locations] + [s.info for t in b.tracks for s in t.spaces]
        want += [c.info for r in b.publication for c in r.cells] + [r.info for r in b.reputation]
        want += [t.info for t in b.experts + b.animals] + [sb.stats_info for sb in bv.seat_boards(st, gt)]
        assert set(want) <= set(labels), set(want) - set(labels)
        dice = sum(1 for x in labels if re.match(r"^\w+ \d+, placed by ", x))
        assert dice == sum(st.central.values())


@pytest.mark.parametrize("lang,continent,types", [
    ("en", "Continent", ("Type I", "Type II", "Type III", "Type IV")),
    ("fr", "Continent", ("Type I", "Type II", "Type III", "Type IV")),
    ("it", "Continente", ("Tipo I", "Tipo II", "Tipo III", "Tipo IV")),
])
def test_publication_speaks_the_boards_language(lang, continent, types):
    """Issue 41, item 10: Type I-IV plus "Continent", as the board prints them, never "Type 0"
    ... "Type 4" (the publication grid, a card's cubes, the publish draft's chips and preview)."""
    gt = GameText(lang)
    assert [gt.pub_type(t) for t in range(5)] == [continent, *types]
    st, _, placed = next(x for x in snapshots() if x[0].round >= 3)
    board = bv.central_board(st, placed, gt)
    rows = {r.type: r for r in board.publication}
    if 0 in rows:
        assert rows[0].text.startswith(continent + " · ")
        assert all(c.info.startswith(continent + " · ") for c in rows[0].cells)
    for t in range(1, 5):
        if t in rows:
            assert rows[t].text.startswith(("", "I", "II", "III", "IV")[t] + " · ")
            assert all(c.info.startswith(types[t - 1] + " · ") for c in rows[t].cells)
    shown = " ".join([r.text for r in board.publication] + [c.info for r in board.publication for c in r.cells])
    shown += " ".join(c.info for s in bv.seat_boards(st, gt) for tile in s.study for c in tile.cubes)
    shown += " ".join(gt("g.draft.pv_type", t=gt.pub_type(t), vp=3) for t in range(5))
    assert not re.search(r"\b(Type|Tipo) [0-9]", shown), shown
    assert not re.search(r"(^|· )0 ·", shown), shown


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_the_central_boards_location_names_fit_a_phone(lang):
    """"Pubblicazione" beside its icon was cut to "Pubblicazio…" on a 390 px phone: a narrow
    location box puts its icon beside the dice and gives its name the whole width."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from text_fit import problems

    from companion.app.game.board_view import central_board_view

    gt = GameText(lang)
    st, _, placed = next(x for x in snapshots() if x[0].round >= 2 and sum(x[0].central.values()) >= 2)
    drawn = central_board_view(bv.central_board(st, placed, gt), gt, lambda info: None, 366)  # a 390 px phone
    assert problems(drawn, 366) == []
