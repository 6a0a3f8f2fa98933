"""A solo game prepared with the view-model for the board's browser test, screenshots and the
tap benchmark: Ana (human) against an automa, played by a seeded player that prefers
publications and expeditions, stopped at the first turn of round ``round`` once some cubes are
published (so every part of the drawn board has something on it).

    from board_scene import prepare_board_game
    title = prepare_board_game(data_dir)        # writes <data_dir>/games/...
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

TITLE = "Board check"
NAMES = ["Aix galericulata", "Lemur catta", "Panthera leo", "Ursus arctos", "Vombatus ursinus", "Pteropus niger"]


def _turn(vm, rng) -> bool:
    """A turn that publishes when it can, else researches, else anything (as game_play does)."""
    step = vm.step
    has_cubes = any(vm.state.seats[step.seat].cubes.values())
    if not step.in_hand:
        spots = step.dice()
        rng.shuffle(spots)
        best = None
        for spot in spots:
            assert step.select_die(spot.owner, spot.slot, spot.index), vm.error
            kinds = {o.kind for o in step.options()}
            if "publish" in kinds and has_cubes:
                best = spot
                break
            if "expedition" in kinds and best is None:
                best = spot
        spot = best or spots[0]
        assert step.select_die(spot.owner, spot.slot, spot.index), vm.error
    opts = step.options()
    order = ("publish", "expedition") if has_cubes else ("expedition",)
    for kind in (*order, "academy", "university", "embassy", "bank"):
        pick = [o for o in opts if o.kind == kind]
        if pick:
            d = step.open(rng.choice(pick).index)
            if d.result()[0]:
                return d.confirm()
            step.close_draft()
    d = step.open(opts[0].index)
    return d.confirm()


def prepare_board_game(data_dir: Path, seed: int = 3, round_: int = 3, title: str = TITLE, dice_placed: int = 0):
    """Create the game in ``data_dir`` (as the app's data folder); returns (title, session
    actions count). Deterministic for a given seed. ``dice_placed``: play on into the round
    until at least that many dice are on the central board and Ana is to take a die."""
    from game_play import answer, solo_game

    s, vm = solo_game(data_dir, seed, title)
    rng = random.Random(seed)
    reached = False
    try:
        for _ in range(5000):
            st = vm.state
            step = vm.step
            if st.round >= round_ and step.kind == "turn" and not step.in_hand and st.seats[0].pub_cubes:
                if sum(st.central.values()) == 0:
                    reached = True
                if reached and sum(st.central.values()) >= dice_placed and step.seat == 0:
                    break
            if step.kind == "turn":
                assert _turn(vm, rng), vm.error
            else:
                answer(vm, rng, None, names=NAMES)
        else:
            raise AssertionError("the scene was not reached")
        return title, len(s.actions)
    finally:
        s.close()
