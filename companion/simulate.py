"""Simulator: seeded random legal games through the checked ``apply``, with invariant checks.

    python -m companion simulate --games N --seats K --seed S [--automas A] [--check] [--json]

Every action goes through the checked ``apply``. With ``--check`` (the default for the CLI)
the invariants are checked after every action: 20 dice conserved, no negative counts, animal
cards, experts and research cubes conserved. Prints games/s.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass

from companion.actions import SeatConfig, StartGame
from companion.engine import ChanceSource, RandomPlayer, State, apply, apply_unchecked, next_action


class InvariantError(AssertionError):
    """An invariant of the game state is broken (an engine bug)."""


_COUNTS = ("coins", "tokens", "seals", "vp", "rep", "cubes_placed", "cubes_lost")


def check_invariants(st: State) -> None:
    """Raise ``InvariantError`` if the state breaks a conservation rule."""
    b = st.board
    if not st.seats:
        return
    # dice: every die in exactly one place, values 1..6, no negative count
    count = dict(st.bag)
    for c, k in st.central.items():
        count[c] += k
    for c, k in st.bag.items():
        if k < 0 or st.central[c] < 0:
            raise InvariantError(f"negative dice count for {c}: bag {k}, central board {st.central[c]}")
    if st.hand is not None:
        c, v = st.hand
        count[c] += 1
        if not 1 <= v <= 6:
            raise InvariantError(f"die value {v} in hand")
    # a seal-action die being rolled is out of the central board but not yet in hand
    if st.tasks and st.tasks[-1][0] == "roll_die":
        count[st.tasks[-1][2]] += 1
    for s in st.seats:
        for sl in s.slots:
            for c, v in sl:
                count[c] += 1
                if not 1 <= v <= 6:
                    raise InvariantError(f"die value {v} on a board")
        for c, _ in s.rolled:
            count[c] += 1
    per = b.dice_per_colour
    for c in b.colours:
        if count[c] != per:
            raise InvariantError(f"{count[c]} {c} dice in the game, expected {per}")
    # counts, cubes, expert slots
    length = b.reputation_track_length
    cards = st.cards
    for i, s in enumerate(st.seats):
        if (s.coins < 0 or s.tokens < 0 or s.seals < 0 or s.vp < 0 or s.rep < 0 or s.cubes_placed < 0
                or s.cubes_lost < 0):
            k = next(k for k in _COUNTS if getattr(s, k) < 0)
            raise InvariantError(f"seat {i}: negative {k} ({getattr(s, k)})")
        if s.rep >= length:
            raise InvariantError(f"seat {i}: reputation {s.rep} beyond the track")
        on_cards = 0
        if s.cubes:
            animals = set(s.animals)
            for cid, cats in s.cubes.items():
                if cid not in animals:
                    raise InvariantError(f"seat {i}: cubes on card #{cid} which is not under study")
                n = len(cats)
                if n > 1 and (len(set(cats)) != n or cards[cid].sepultus):
                    raise InvariantError(f"seat {i}: too many cubes on card #{cid}")
                on_cards += n
        if s.cubes_placed != on_cards + sum(s.pub_cubes.values()) + s.cubes_lost:
            raise InvariantError(f"seat {i}: research cubes not conserved")
        # the supply: 30 cubes per colour, "5 cubes" tokens only over 5 published cubes each
        if s.cubes_in_play() > b.research_cubes_per_colour:
            raise InvariantError(f"seat {i}: {s.cubes_in_play()} research cubes in play, the box has "
                                 f"{b.research_cubes_per_colour}")
        if (sum(s.cube_tokens.values()) > b.cube_tokens_per_colour
                or any(s.pub_cubes.get(c, 0) < 5 * k for c, k in s.cube_tokens.items())):
            raise InvariantError(f"seat {i}: \"5 cubes\" tokens inconsistent")
        if s.kind == "human":
            up = [x for x in s.face_up if x is not None]
            owned = set(s.experts)
            if len(up) != len(set(up)) or not owned.issuperset(up) or not owned.issuperset(s.used):
                raise InvariantError(f"seat {i}: expert slots inconsistent")
    # cards: each revealed card in exactly one place
    places = [c for c in st.animal_display if c is not None]
    places += st.discarded_animals
    places += st.set_aside
    for s in st.seats:
        places += s.animals
        places += s.published
    n = len(cards)
    if len(places) != n or (n and (len(set(places)) != n or min(places) < 0 or max(places) >= n)):
        raise InvariantError("animal cards not conserved (each card must be in exactly one place)")
    # experts: each expert out of the deck in exactly one place
    experts = [x for x in st.expert_display if x is not None]
    experts += st.discarded_experts
    for s in st.seats:
        experts += s.experts
    seen = st.experts_seen
    if len(experts) != len(seen) or len(set(experts)) != len(experts) or set(experts) != set(seen):
        raise InvariantError("expert cards not conserved")


def seat_configs(seats: int, automas: int = 0, rng: random.Random | None = None) -> tuple[SeatConfig, ...]:
    from companion.content.vocab import CONTINENTS
    from companion.engine import BEHAVIOURS, SCORING_IDS

    rng = rng or random.Random(0)
    out = []
    for i in range(seats):
        if i >= seats - automas:
            pr = list(CONTINENTS)
            rng.shuffle(pr)
            out.append(SeatConfig(f"Automa {i}", "automa", rng.choice(list(BEHAVIOURS)), rng.choice(SCORING_IDS), tuple(pr)))
        else:
            out.append(SeatConfig(f"Player {i}"))
    return tuple(out)


@dataclass
class GameRecord:
    seed: int
    actions: list
    state: State


def play_game(seed: int, seats: int = 4, automas: int = 0, check: bool = True, checked_apply: bool = True,
              sepultus: bool = True, max_actions: int = 5000) -> GameRecord:
    """Play one seeded random game to the end; returns its action list and final state."""
    rng = random.Random(seed)
    first = rng.randrange(seats)
    start = StartGame(seat_configs(seats, automas, rng), first, sepultus)
    st = State()
    step = apply if checked_apply else apply_unchecked
    step(st, start)
    actions = [start]
    chance = ChanceSource(rng, unknown_categories=0.1)
    players = [RandomPlayer(rng) for _ in range(seats)]
    while st.tasks:
        a = next_action(st, chance, players)
        step(st, a)
        actions.append(a)
        if check:
            check_invariants(st)
        if len(actions) > max_actions:
            raise InvariantError(f"game {seed} did not end after {max_actions} actions")
    return GameRecord(seed, actions, st)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion simulate", description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    ap.add_argument("--automas", type=int, default=0, help="how many of the seats are automas (0-3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", dest="check", action="store_true", default=True,
                    help="check the invariants after every action (default)")
    ap.add_argument("--no-check", dest="check", action="store_false", help="skip the invariant checks")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be 1 or more")
    if not 0 <= args.automas <= min(3, args.seats):
        ap.error("--automas must be 0..3 and at most --seats")
    t0 = time.perf_counter()
    n_actions = 0
    for g in range(args.games):
        try:
            rec = play_game(args.seed + g, args.seats, args.automas, check=args.check)
        except InvariantError as exc:
            print(f"game seed {args.seed + g}: invariant broken: {exc}", file=sys.stderr)
            return 1
        n_actions += len(rec.actions)
    dt = time.perf_counter() - t0
    figures = {"games": args.games, "seats": args.seats, "automas": args.automas, "seed": args.seed,
               "checked": args.check, "actions": n_actions, "seconds": round(dt, 3),
               "games_per_s": round(args.games / dt, 1), "actions_per_game": round(n_actions / args.games, 1)}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.games} games, {args.seats} seats ({args.automas} automa), seed {args.seed}: "
              f"{n_actions / args.games:.0f} actions/game, {dt:.2f} s, {args.games / dt:.1f} games/s"
              + (" (invariants checked after every action)" if args.check else ""))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
