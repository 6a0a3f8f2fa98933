"""Issue 16: a photo of 4 dice from the second renderer (Blender, ``visionlab.render.blender``) that the
shipped reader gets right needs no tap before Confirm; and the same for a photo of the third
renderer (Mitsuba, ``visionlab.render.mitsuba``; seed 9301, which no model trains on).

``samples/dice/pbr_4.jpg`` and ``mts_4.jpg`` are our own renders (their truth beside them); the
game is driven through the view-model with the real ``DiceReader`` on the shipped model files."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from companion.app.game.wizard_vm import HUMAN
from test_game_vm import advance_to, new_vm

REPO = Path(__file__).resolve().parents[3]
SAMPLES = [REPO / "samples" / "dice" / name for name in ("pbr_4.jpg", "mts_4.jpg")]
MODEL = REPO / "models" / "dice_detector.onnx"


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_a_rendered_photo_of_four_dice_needs_no_tap_before_confirm(game_dir, sample):
    from vision.reader import DiceReader

    truth = json.loads(sample.with_suffix(".json").read_text())["dice"]
    assert len(truth) == 4 and all(d["colour"] != "unknown" for d in truth)
    reader = DiceReader.from_files()
    vm, _ = new_vm(game_dir, [(HUMAN, "Ana"), (HUMAN, "Ben")], seed=8, reader=reader)
    step = advance_to(vm, "roll_dice", random.Random(8), reader=None)
    assert step.entry.count == 4
    assert step.read_photo(str(sample)), step.entry.message
    chips = step.entry.chips
    # the reader got it right: every die, its colour and value, nothing else
    assert Counter((c.colour, c.value) for c in chips) == Counter((d["colour"], d["value"]) for d in truth)
    # ... and sure of every die: no chip to confirm or correct, Confirm goes through at once
    assert not any(c.unsure for c in chips) and step.entry.selected is None
    assert step.entry.problem() is None
    n = vm.state.n_actions
    assert step.submit()
    assert vm.state.n_actions == n + 1 and vm.step.kind == "place_dice"
    rolled = vm.state.seats[step.seat].rolled
    assert Counter(tuple(d) for d in rolled) == Counter((d["colour"], d["value"]) for d in truth)
