"""Per-table colour calibration: fixes a colour cast that breaks the uncalibrated decision."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.calibration import Calibration, CalibrationError, samples_from_dice
from vision.config import DEFAULT_READER, default_calibration_path, user_data_dir
from vision.reader import DiceReader
from vision_testutil import FakeDiceModel, apply_cast, bgr_to_lab, make_scene, NOMINAL_BGR

COLOURS = ["red", "yellow", "purple", "blue", "green"]
TABLE = [("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4), ("green", 5),
         ("purple", 6), ("red", 2), ("blue", 3), ("yellow", 4), ("green", 1), ("purple", 5)]


def calibrate_under(cast) -> Calibration:
    img, _ = make_scene([(c, 3) for c in COLOURS], seed=7)
    dice = DiceReader(FakeDiceModel()).read(apply_cast(img, cast) if cast else img).dice
    return Calibration.from_samples(samples_from_dice(dice, colours=COLOURS))


@pytest.mark.parametrize("cast", [(0.55, 0.9, 1.3), (1.35, 1.0, 0.6)], ids=["warm-lamp", "cold-daylight"])
def test_calibration_fixes_a_cast_that_breaks_the_uncalibrated_decision(cast) -> None:
    img, truth = make_scene(TABLE, seed=3)
    lit = apply_cast(img, cast)
    plain = DiceReader(FakeDiceModel()).read(lit)
    want = [(t["colour"], t["value"]) for t in truth]
    got_plain = [(d.colour, d.value) for d in plain.dice]
    assert len(got_plain) == len(want)
    assert got_plain != want, "the cast must break the uncalibrated colour decision for this test to mean anything"

    calibrated = DiceReader(FakeDiceModel(), calibration=calibrate_under(cast)).read(lit)
    assert [(d.colour, d.value) for d in calibrated.dice] == want
    # The fake model's confidence tops out at 0.96 and a strong cast leaves the calibrated
    # colour vote at 0.92-0.96: sure at the 0.90 bar this test was written for. The shipped
    # default bar (0.95, chosen for the real model) may flag some of them, which is the
    # cautious side; the point here is that calibration makes them confident, not wrong.
    assert all(d.confidence >= 0.90 for d in calibrated.dice)
    relaxed = replace(DEFAULT_READER, unsure_below=0.90)
    again = DiceReader(FakeDiceModel(), config=relaxed, calibration=calibrate_under(cast)).read(lit)
    assert [(d.colour, d.value) for d in again.dice] == want and not any(d.unsure for d in again.dice)


def test_calibration_does_not_hurt_under_neutral_light() -> None:
    img, truth = make_scene(TABLE, seed=4)
    result = DiceReader(FakeDiceModel(), calibration=calibrate_under(None)).read(img)
    assert [(d.colour, d.value) for d in result.dice] == [(t["colour"], t["value"]) for t in truth]


def test_far_from_every_calibrated_colour_gives_no_vote() -> None:
    cal = Calibration.from_samples({"red": [bgr_to_lab(NOMINAL_BGR["red"])]})
    model = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5])
    assert np.array_equal(cal.adjust(model, (95.0, 0.0, 0.0)), model)  # white: no vote
    assert np.array_equal(cal.adjust(model, None), model)


def test_uncalibrated_colours_keep_the_model_share() -> None:
    cal = Calibration.from_samples({"red": [(50.0, 70.0, 50.0)], "purple": [(35.0, 45.0, -25.0)]})
    model = np.array([0.30, 0.20, 0.30, 0.0, 0.0, 0.20])  # red, yellow, purple, blue, green, other
    out = cal.adjust(model, (50.0, 70.0, 50.0))
    assert out.sum() == pytest.approx(1.0)
    assert out[1] >= 0.20  # yellow, not calibrated: keeps (at least) the model's share
    assert out[0] > 0.7  # red: the calibration's clear vote
    assert out[2] < 0.01  # purple: far from this die
    assert out[5] < 0.01  # close to one of the user's dice: not "other"


def test_samples_from_a_row_in_the_given_order() -> None:
    img, _ = make_scene([(c, 2) for c in ["blue", "red", "green"]])
    dice = DiceReader(FakeDiceModel()).read(img).dice
    s = samples_from_dice(dice, colours=["blue", "red", "green"])
    assert set(s) == {"blue", "red", "green"}
    assert s["red"][0][1] > 40  # red has a large positive a*
    with pytest.raises(CalibrationError, match="found 3 dice but 2 colours"):
        samples_from_dice(dice, colours=["blue", "red"])
    with pytest.raises(CalibrationError, match="unknown dice colour 'pink'"):
        samples_from_dice(dice, colours=["blue", "pink", "red"])
    with pytest.raises(CalibrationError, match="once"):
        samples_from_dice(dice, colours=["blue", "blue", "red"])
    assert len(samples_from_dice(dice, colour="green")["green"]) == 3
    with pytest.raises(CalibrationError, match="no dice"):
        samples_from_dice([], colour="green")


def test_round_trip_merge_and_storage(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path / "profile"))
    assert user_data_dir() == tmp_path / "profile"
    path = default_calibration_path()
    assert Calibration.load_optional(path) is None
    first = Calibration.from_samples({"red": [(50, 60, 40)], "blue": [(40, -10, -40), (42, -12, -38)]})
    first.save(path)
    loaded = Calibration.load(path)
    assert loaded.centroids == first.centroids and loaded.counts == {"red": 1, "blue": 2}
    newer = Calibration.from_samples({"red": [(55, 65, 45)]})
    merged = loaded.merged_with(newer)
    assert merged.centroids["red"] == (55.0, 65.0, 45.0) and merged.centroids["blue"] == loaded.centroids["blue"]
    data = json.loads(path.read_text())
    assert data["format"] == "encyclopedia-dice-calibration" and data["version"] == 1


@pytest.mark.parametrize(
    "content,match",
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something else"}', "not a dice calibration file"),
        ('{"format": "encyclopedia-dice-calibration", "version": 99, "colours": {}}', "version 99"),
        ('{"format": "encyclopedia-dice-calibration", "version": 1, "colours": {"pink": {"lab": [1,2,3]}}}', "pink"),
        ('{"format": "encyclopedia-dice-calibration", "version": 1, "colours": {"red": {"lab": [1,2]}}}', "3"),
        ('{"format": "encyclopedia-dice-calibration", "version": 1, "colours": {"red": {"lab": [500,2,3]}}}', "range"),
    ],
)
def test_bad_calibration_files_are_specific_errors(tmp_path: Path, content: str, match: str) -> None:
    p = tmp_path / "cal.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match=match):
        Calibration.load(p)


def test_distance_weights_lightness_down() -> None:
    cal = Calibration.from_samples({"red": [(50, 60, 40)]})
    darker = cal.distances((30, 60, 40), DEFAULT_READER)["red"]
    shifted = cal.distances((50, 60, 20), DEFAULT_READER)["red"]
    assert darker == pytest.approx(20 * DEFAULT_READER.calibration_lightness_weight)
    assert shifted == pytest.approx(20.0)
