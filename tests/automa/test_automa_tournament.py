"""The reference player and the tournament (tiny runs: the real table is in README.md)."""

import random

import pytest

from companion.actions import SeatConfig
from automa.play import automa_seat, play, scores
from automa.reference import GreedyPlayer
from automa.tournament import main, monotonicity, run, table


def test_reference_player_is_seeded_and_legal():
    seats = [SeatConfig("Ref"), automa_seat("A", 1, 1, "europe asia america oceania africa")]
    a = play(seats, seed=4, human_factory=lambda rng, i: GreedyPlayer(rng))
    b = play(seats, seed=4, human_factory=lambda rng, i: GreedyPlayer(rng))
    assert [x.to_json() for x in a.actions] == [x.to_json() for x in b.actions]
    greedy = sum(scores(play(seats, seed=g, human_factory=lambda rng, i: GreedyPlayer(rng)))[0][0].total
                 for g in range(4))
    rnd = sum(scores(play(seats, seed=g))[0][0].total for g in range(4))
    assert greedy > rnd  # over a few tables the greedy bot outscores the random player


def test_tournament_rows_and_monotonicity_check():
    rows = run(1, 0)
    assert len(rows) == 9 and all(r.games == 1 for r in rows)
    text = table(rows)
    assert text.count("\n") == 10 and "★★★ Louis Jean-Marie Daubenton | ★★★ L'Astrolabe" in text
    # the check reports a row that is not above the easier one
    rows[1].automa = [rows[0].mean - 1]
    assert any("scoring ★★" in line for line in monotonicity(rows))


def test_tournament_cli_rejects_bad_games(capsys):
    with pytest.raises(SystemExit):
        main(["--games", "0"])
    assert "--games must be 1 or more" in capsys.readouterr().err
