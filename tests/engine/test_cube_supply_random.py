"""Random games with a small research-cube supply (issue 39, item 5): the supply, the "5 cubes"
swap and the refusals are exercised by the seeded random players with invariants after every
action (the box's 30 cubes per colour are rarely all in play in a random game)."""

import dataclasses
import random

from companion.actions import Research, StartGame, SwapCubes
from companion.engine import ChanceSource, RandomPlayer, State, apply, cubes_left, next_action
from companion.simulate import check_invariants, seat_configs


def test_random_games_with_six_cubes_per_colour_swap_and_keep_the_supply():
    swaps = researches = empty = 0
    for seed in range(12):
        rng = random.Random(seed)
        st = State()
        apply(st, StartGame(seat_configs(3, 0, rng), 0, False))
        st.board = dataclasses.replace(st.board, research_cubes_per_colour=6)
        chance = ChanceSource(rng)
        players = [RandomPlayer(rng) for _ in range(3)]
        n = 0
        while st.tasks and n < 5000:
            a = next_action(st, chance, players)
            apply(st, a)
            n += 1
            check_invariants(st)
            swaps += isinstance(a, SwapCubes)
            researches += isinstance(a, Research) and bool(a.cubes)
            for s in st.seats:
                assert cubes_left(st, s) >= 0
                empty += cubes_left(st, s) == 0
        assert not st.tasks
    assert researches > 0 and empty > 0  # the supply ran out in play (swaps happen when a space holds 5)
