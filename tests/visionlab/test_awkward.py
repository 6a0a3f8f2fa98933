"""The issue's awkward inputs through the whole reader: an error line or an empty read, never a
crash.  Uses the shipped model when models/ has it, else the classical fake model.  (Timing is
measured by ``python -m vision bench --awkward``, not asserted here: no timed unit tests.)"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from vision.__main__ import main
from visionlab.bench import write_awkward_inputs
from vision.reader import DiceReader
from vision_testutil import REPO, FakeDiceModel, make_scene

EXPECT = {  # name: "error" (an error line) or "read" (a read, possibly empty)
    "empty.jpg": "error",
    "text.jpg": "error",
    "one-pixel.png": "read",
    "huge-10000x10000.jpg": "read",
    "grey.png": "read",
    "four-channel.png": "read",
    "truncated.jpg": "read",
    "rotated-phone-exif6.jpg": "read",
    "no-dice-table.jpg": "read",
    "only-background-grey.png": "read",
}
EMPTY = {"one-pixel.png", "huge-10000x10000.jpg", "only-background-grey.png"}

SCENE = [("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4), ("green", 5), ("red", 6)]


def readers():
    out = [pytest.param(lambda: DiceReader(FakeDiceModel()), id="fake-model")]
    if (REPO / "models" / "dice_detector.onnx").exists():
        out.append(pytest.param(lambda: DiceReader.from_files(), id="shipped-model"))
    return out


@pytest.fixture(scope="module")
def awkward(tmp_path_factory) -> dict[str, Path]:
    img, _ = make_scene(SCENE)
    return write_awkward_inputs(tmp_path_factory.mktemp("awkward"), scene=img)


def test_the_generator_covers_the_issue_list(awkward) -> None:
    assert set(awkward) == set(EXPECT)


@pytest.mark.parametrize("make_reader", readers())
def test_awkward_inputs_never_crash(awkward, make_reader) -> None:
    reader = make_reader()
    for name, path in awkward.items():
        result = reader.read(path)
        if EXPECT[name] == "error":
            assert result.error, name
            assert result.dice == ()
        else:
            assert result.error is None, (name, result.error)
            if name in EMPTY:
                assert result.dice == (), name


def test_fake_model_reads_the_dice_in_the_variants(awkward) -> None:
    reader = DiceReader(FakeDiceModel())
    rotated = reader.read(awkward["rotated-phone-exif6.jpg"])
    assert rotated.image_size == (640, 480)  # upright: the EXIF rotation was applied
    assert [(d.colour, d.value) for d in rotated.dice] == SCENE
    truncated = reader.read(awkward["truncated.jpg"])
    assert any("truncated" in w for w in truncated.warnings)
    assert [(d.colour, d.value) for d in truncated.dice] == SCENE  # the dice are in the top rows


def test_awkward_inputs_through_the_cli(awkward) -> None:
    out, err = io.StringIO(), io.StringIO()
    names = [str(p) for p in awkward.values()]
    code = main(["read", *names, "--json"], reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["image"] for line in lines] == names
    for line, name in zip(lines, awkward):
        assert ("error" in line) == (EXPECT[name] == "error"), name
