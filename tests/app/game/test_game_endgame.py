"""Issue 17, item 5: the end of the game at a glance. Each seat's points by source add up to its
final score; the score track over the rounds is what replaying the action log gives; the
charts draw on a phone in EN/FR/IT (no display)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import flet as ft
import pytest
from control_tree import find_controls
from game_play import play_to_end
from test_game_card_names import new_vm
from test_game_views import texts

from companion.engine import queries
from companion.actions import RevealRoundToken
from companion.app.game.endgame_view import endgame_controls
from companion.app.game.endgame_vm import SOURCES, points_by_source, source_of, track_by_round
from companion.app.game.texts import GameText
from companion.app.game.vm import GameVM, LocalCatalogue
from companion.app.game.wizard_vm import AUTOMA, HUMAN
from companion.content.board import shipped_board
from companion.content.experts import experts_of
from companion.engine import replay
from companion.scoring import HumanScoreInput, score_human
from companion.session import GameSession
from companion.store import GameStore

SAMPLE = Path(__file__).resolve().parents[3] / "samples" / "saves" / "finished-4-seats-automa.json"


def test_the_rulebook_final_example_by_source():
    """DIGEST §1: Jeremie 72 + hot 5 + carnivore 17 + reptile 28 + Oceania 40 + 6 seals 24 + 4
    coins 2 = 188."""
    six = [e for e in experts_of("oceania") if e.duration != "endgame"][:6]
    b = score_human(HumanScoreInput("Jeremie", vp=72, cubes={"hot": 5, "carnivore": 8, "reptile": 10},
                                    published={"oceania": 6}, experts=[(e, True) for e in six], seals=6, coins=4),
                    shipped_board())
    (p,) = points_by_source([b], ["Jeremie"])
    assert dict(p.parts) == {"track": 72, "collections": 90, "experts": 0, "seals": 24, "coins": 2, "tokens": 0}
    assert p.total == 188 and p.fraction == 1.0 and p.winner


def test_every_scoring_item_has_a_source():
    assert [source_of(k) for k in ("track", "category:hot", "continent:asia", "expert:Pora Paniu", "expert_group:2",
                                   "seals", "coins", "tokens", "something:new")] == \
        ["track", "collections", "collections", "experts", "experts", "seals", "coins", "tokens", "other"]


def check_endgame(vm):
    """The charts' data against the final scoring and against replaying the log."""
    st = vm.state
    breakdowns, ranking = vm.step.scores()
    eg = vm.step.at_a_glance()
    actions = vm.session.actions
    # points by source: the parts of each seat add up to its final score, source by source
    for b, p in zip(breakdowns, eg.points):
        assert p.name == b.name and p.total == b.total == sum(v for _, v in p.parts)
        assert [s for s, _ in p.parts] == list(SOURCES)  # nothing fell into "other"
        by_key = b.by_key()
        for src in SOURCES:
            assert p.vp(src) == sum(v for k, v in by_key.items() if source_of(k) == src)
        assert p.winner == (b.name in ranking.winners)
    assert max(p.fraction for p in eg.points) == 1.0
    # the track: rounds 1..6, the last value is the track of the final scoring
    tr = eg.track
    assert tr.finished and tr.rounds == tuple(range(1, st.board.rounds + 1))
    assert tr.names == tuple(s.name for s in st.seats)
    for i, b in enumerate(breakdowns):
        assert tr.vp[i][-1] == b.vp_of("track") == st.seats[i].vp
        assert sum(tr.gained(i)) == tr.vp[i][-1] and min(tr.gained(i)) >= 0
    # ... and each round's value is the track just before the next round's token is revealed
    starts = [k for k, a in enumerate(actions) if isinstance(a, RevealRoundToken)]
    assert len(starts) == st.board.rounds
    for r, k in enumerate(starts[1:], start=1):
        before = replay(actions[:k], st.board)
        assert before.round == r + 1
        assert tuple(s.vp for s in before.seats) == tuple(row[r - 1] for row in tr.vp)
    # a game under way: the rounds so far, the last one "now"
    part = track_by_round(actions[:starts[2] + 1], st.board)
    assert not part.finished and part.rounds == (1, 2, 3)
    assert [row[:2] for row in part.vp] == [row[:2] for row in tr.vp]
    return eg


@pytest.mark.parametrize("seats", [((HUMAN, "Ana"), (AUTOMA, "Robot")), ((HUMAN, "Ana"), (HUMAN, "Ben"), (AUTOMA, "Robot"))])
def test_charts_of_a_whole_game_played_on_the_screens(game_dir, seats):
    vm = new_vm(game_dir, seats=seats, seed=len(seats))
    play_to_end(vm, random.Random(len(seats)))
    eg = check_endgame(vm)
    assert any(p.vp("collections") for p in eg.points) and any(p.vp("track") for p in eg.points)


def test_charts_of_the_sample_four_seat_game(game_dir):
    store = GameStore(game_dir)
    session = GameSession.import_game(store, json.loads(SAMPLE.read_text(encoding="utf-8")))
    vm = GameVM(session, GameText(), LocalCatalogue(game_dir / "catalogue.json"))
    assert vm.step.kind == "game_over"
    eg = check_endgame(vm)
    assert [p.total for p in eg.points] == [81, 109, 77, 300]
    assert eg.track.vp[3] == (20, 30, 60, 70, 80, 88)


@pytest.mark.parametrize("lang,words", [("en", ("Where the points come from", "Collections", "R6", "300 VP")),
                                        ("fr", ("D'où viennent les points", "Sceaux royaux", "M6", "300 PV")),
                                        ("it", ("Da dove vengono i punti", "Segnalini Spedizione", "R6", "300 PV"))])
def test_charts_drawn_on_a_phone_in_each_language(game_dir, lang, words):
    store = GameStore(game_dir)
    session = GameSession.import_game(store, json.loads(SAMPLE.read_text(encoding="utf-8")))
    vm = GameVM(session, GameText(lang), LocalCatalogue(game_dir / "catalogue.json"))
    controls = endgame_controls(vm.step.at_a_glance(), GameText(lang), phone=True)
    shown = " ".join(texts(ft.Column(controls)))
    for w in words:
        assert w in shown, (w, shown[:400])
    # fixed widths fit a 390 px phone (bars and columns otherwise share the card's width)
    widths = [sum(x.width for x in c.controls) for c in find_controls(controls, ft.Row)
              if all(getattr(x, "width", None) for x in c.controls)]
    assert widths and max(widths) <= 390 - 2 * 14 - 2 * 16


def test_the_track_chart_gives_each_seat_its_board_colour(game_dir):
    """Issue 41, item 3: one colour per seat everywhere; the end-game chart used its own list,
    with the first two seats' colours swapped against the board's."""
    from companion.app.game.board_vm import seat_boards

    store = GameStore(game_dir)
    session = GameSession.import_game(store, json.loads(SAMPLE.read_text(encoding="utf-8")))
    vm = GameVM(session, GameText(), LocalCatalogue(game_dir / "catalogue.json"))
    eg = vm.step.at_a_glance()
    board_colours = [b.colour for b in seat_boards(vm.state, GameText())]
    assert len(set(board_colours)) == len(board_colours) == 4
    assert [eg.track.colour(i) for i in range(len(eg.track.names))] == board_colours
    column = ft.Column(endgame_controls(eg, GameText(), phone=False))
    colours = [(str(c.tooltip).split(":")[0], c.bgcolor) for c in find_controls(column, ft.Container)
               if c.tooltip and any(str(c.tooltip).startswith(n + ":") for n in eg.track.names)]
    assert colours
    by_name = dict(colours)
    assert [by_name[n] for n in eg.track.names] == board_colours
