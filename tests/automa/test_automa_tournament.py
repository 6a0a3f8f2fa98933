"""The reference player and the tournament (tiny runs: the real table is in README.md)."""

import pytest

from companion.actions import SeatConfig
from automa.play import automa_seat, play, scores
from automa.reference import GreedyPlayer, ReferencePlayer, estimate
from automa.tournament import main, monotonicity, run, table


def test_reference_player_is_seeded_and_legal():
    seats = [SeatConfig("Ref"), automa_seat("A", 1, 1, "europe asia america oceania africa")]
    a = play(seats, seed=4, human_factory=lambda rng, i: ReferencePlayer(rng))
    b = play(seats, seed=4, human_factory=lambda rng, i: ReferencePlayer(rng))
    assert [x.to_json() for x in a.actions] == [x.to_json() for x in b.actions]
    assert GreedyPlayer is ReferencePlayer  # the old name still imports


def test_reference_player_plays_for_the_scoring():
    """It researches, publishes and keeps sets: on a few tables it publishes several animals with
    their cubes and scores far above the random player (who almost never publishes)."""
    seats = [SeatConfig("Ref"), automa_seat("A", 2, 2, "asia europe oceania america africa")]
    ref, rnd = [], []
    for g in range(2):
        res = play(seats, seed=g, human_factory=lambda rng, i: ReferencePlayer(rng))
        s = res.state.seats[0]
        assert len(s.published) >= 3 and sum(s.pub_cubes.values()) >= 4
        assert s.animals == []  # nothing left under study (it would be discarded)
        ref.append(scores(res)[0][0].total)
        rnd.append(scores(play(seats, seed=g))[0][0].total)
    assert min(ref) > max(rnd) + 40


def test_estimate_is_the_final_score_once_the_game_is_over():
    """With no turn left, the estimate values nothing under way: it is the scoring itself."""
    seats = [SeatConfig("Ref"), automa_seat("A", 1, 3, "america africa asia europe oceania")]
    res = play(seats, seed=3, human_factory=lambda rng, i: ReferencePlayer(rng))
    assert not res.state.tasks
    s = res.state.seats[0]
    # (the estimate puts Sepultus wildcards on its largest continent set, an approximation: this
    # table has none published)
    assert not any(res.state.cards[c].sepultus for c in s.published)
    assert estimate(res.state, 0) == scores(res)[0][0].total


def test_tournament_rows_and_monotonicity_check():
    rows = run(1, 0)
    assert len(rows) == 9 and all(r.games == 1 for r in rows)
    text = table(rows)
    assert text.count("\n") == 10 and "★★★ Louis Jean-Marie Daubenton | ★★★ L'Astrolabe" in text
    # the check reports a row that is not above the easier one
    rows[1].automa = [rows[0].mean - 1]
    assert any("scoring ★★" in line and "not above" in line for line in monotonicity(rows))
    # and a harder card that wins less often
    rows[1].automa = [rows[0].mean + 1]
    rows[0].wins, rows[1].wins = 1.0, 0.0
    assert any("scoring ★★ wins 0%, less than ★ (100%)" in line for line in monotonicity(rows))


def test_tournament_cli_rejects_bad_games(capsys):
    with pytest.raises(SystemExit):
        main(["--games", "0"])
    assert "--games must be 1 or more" in capsys.readouterr().err
