"""The difficulty dial, measured: each of the nine automas against the fixed reference player.

    python -m automa tournament --games N --seed S [--markdown]

For game g (seed S+g) every combination plays the SAME table: the same automa priority order,
the same first player (alternating), the same chance stream seed, against ``ReferencePlayer``
(``automa/reference.py``) seeded the same way — so the nine rows differ only by their cards.
Prints, per combination, the automa's mean final score, its standard deviation, the reference
player's mean and standard deviation, and the automa's win rate (a shared first place counts
one half); then whether the table is monotone (see ``monotonicity``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass

from companion.actions import SeatConfig

from .content import BEHAVIORS, SCORING_CARDS, Priority, all_combinations
from .play import play, scores
from .reference import ReferencePlayer


@dataclass
class Row:
    behaviour: str
    scoring: str
    b_stars: int
    s_stars: int
    automa: list
    reference: list
    wins: float

    @property
    def games(self) -> int:
        return len(self.automa)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.automa)

    @property
    def sd(self) -> float:
        return statistics.stdev(self.automa) if len(self.automa) > 1 else 0.0

    @property
    def ref_mean(self) -> float:
        return statistics.fmean(self.reference)

    @property
    def ref_sd(self) -> float:
        return statistics.stdev(self.reference) if len(self.reference) > 1 else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


def run(games: int, seed: int, progress=None) -> list[Row]:
    if games < 1:
        raise ValueError("--games must be 1 or more")
    rows = []
    for b, s in all_combinations():
        row = Row(b.name, s.name, b.stars, s.stars, [], [], 0.0)
        for g in range(games):
            gs = seed + g
            pr = Priority.shuffled(random.Random(gs * 7919 + 1))
            seats = [SeatConfig("Reference"), SeatConfig("Automa", "automa", b.key, s.key, pr.order)]
            res = play(seats, seed=gs, first_player=g % 2,
                       human_factory=lambda rng, i: ReferencePlayer(rng))
            breakdowns, ranking = scores(res)
            ref, aut = breakdowns[0], breakdowns[1]
            row.automa.append(aut.total)
            row.reference.append(ref.total)
            winners = set(ranking.winners)
            if "Automa" in winners:
                row.wins += 1.0 / len(winners)
        rows.append(row)
        if progress:
            progress(row)
    return rows


def stars(n: int) -> str:
    return "★" * n


def table(rows: list[Row]) -> str:
    lines = [
        "| Behavior | Scoring | automa mean | automa sd | reference mean | reference sd | automa win rate |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(f"| {stars(r.b_stars)} {r.behaviour} | {stars(r.s_stars)} {r.scoring} | {r.mean:.1f} | "
                     f"{r.sd:.1f} | {r.ref_mean:.1f} | {r.ref_sd:.1f} | {100 * r.win_rate:.0f}% |")
    return "\n".join(lines)


def monotonicity(rows: list[Row]) -> list[str]:
    """Where a harder card (more stars, the other card fixed) does NOT give a higher mean score,
    or gives a LOWER win rate (equal win rates pass: they saturate at 0% and 100%)."""
    by = {(r.b_stars, r.s_stars): r for r in rows}
    out = []
    pairs = []
    for b in (1, 2, 3):
        for s in (1, 2):
            pairs.append((f"{stars(b)} behaviour: scoring {stars(s + 1)}", f"{stars(s)}", by[(b, s)], by[(b, s + 1)]))
    for s in (1, 2, 3):
        for b in (1, 2):
            pairs.append((f"{stars(s)} scoring: behaviour {stars(b + 1)}", f"{stars(b)}", by[(b, s)], by[(b + 1, s)]))
    for what, easier, lo, hi in pairs:
        if hi.mean <= lo.mean:
            out.append(f"{what} ({hi.mean:.1f}) not above {easier} ({lo.mean:.1f})")
        if hi.win_rate < lo.win_rate:
            out.append(f"{what} wins {100 * hi.win_rate:.0f}%, less than {easier} ({100 * lo.win_rate:.0f}%)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m automa tournament", description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=40, help="games per combination (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be 1 or more")
    t0 = time.perf_counter()
    prog = None if args.quiet else (lambda r: print(f"  {r.behaviour} / {r.scoring}: {r.mean:.1f}", file=sys.stderr))
    rows = run(args.games, args.seed, prog)
    print(f"{args.games} games per automa against the reference player (seed {args.seed}, "
          f"{time.perf_counter() - t0:.0f} s)\n")
    print(table(rows))
    bad = monotonicity(rows)
    print()
    if bad:
        print("Not monotone (mean automa score, or win rate):")
        for line in bad:
            print("  - " + line)
    else:
        print("Monotone: every harder card (the other fixed) gives a higher mean automa score "
              "and a win rate at least as high.")
    return 0


__all__ = ["run", "table", "monotonicity", "main", "BEHAVIORS", "SCORING_CARDS"]
