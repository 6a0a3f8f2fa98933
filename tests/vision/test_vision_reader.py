"""DiceReader plumbing with an injected fake model (no trained model needed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.config import DEFAULT_READER, ImageLimits, ReaderConfig
from vision.reader import DiceReader, ReadResult, decide
from vision_testutil import FakeDiceModel, FakeRawDie, make_scene

ALL = [("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4), ("green", 5), ("red", 6), ("blue", 1), ("green", 6)]


def as_tuples(result: ReadResult) -> list[tuple]:
    return [(d.colour, d.value, list(d.box)) for d in result.dice]


def truth_tuples(truth: list[dict]) -> list[tuple]:
    return [(t["colour"], t["value"], t["box"]) for t in truth]


class ScriptedModel:
    """Returns fixed raw dice (boxes in the pixels of the image it is given)."""

    def __init__(self, raws):
        self.raws = raws
        self.seen_shapes: list[tuple] = []

    def read(self, image_bgr):
        self.seen_shapes.append(image_bgr.shape)
        return list(self.raws)


def raw(box=(10, 10, 20, 20), det=0.9, value=3, vp=0.97, colour=0, cp=0.98, lab=(50.0, 0.0, 0.0)):
    value_probs = [(1 - vp) / 5] * 6
    value_probs[value - 1] = vp
    colour_probs = [(1 - cp) / 5] * 6
    colour_probs[colour] = cp
    return FakeRawDie(tuple(map(float, box)), det, tuple(value_probs), tuple(colour_probs), lab)


def test_reads_a_drawn_scene_from_an_array() -> None:
    img, truth = make_scene(ALL)
    result = DiceReader(FakeDiceModel()).read(img)
    assert result.ok and result.error is None
    assert as_tuples(result) == truth_tuples(truth)
    assert all(not d.unsure and 0.9 <= d.confidence <= 1 for d in result.dice)
    assert result.image_size == (640, 480)
    assert result.ms >= 0


def test_reads_from_path_and_bytes_alike(tmp_path: Path) -> None:
    img, truth = make_scene(ALL[:4])
    ok, buf = cv2.imencode(".png", img)
    p = tmp_path / "scene.png"
    p.write_bytes(buf.tobytes())
    reader = DiceReader(FakeDiceModel())
    assert as_tuples(reader.read(p)) == truth_tuples(truth)
    assert as_tuples(reader.read(str(p))) == truth_tuples(truth)
    assert as_tuples(reader.read(buf.tobytes())) == truth_tuples(truth)


def test_boxes_are_in_original_pixels_when_the_image_is_downscaled() -> None:
    img, truth = make_scene(ALL[:3], size=(320, 240), die=30)
    big = cv2.resize(img, (3200, 2400), interpolation=cv2.INTER_NEAREST)  # 10x
    model = FakeDiceModel()
    result = DiceReader(model, limits=ImageLimits(work_max_side=1280)).read(big)
    assert result.image_size == (3200, 2400)
    for d, t in zip(result.dice, truth):
        expected = [10 * v for v in t["box"]]
        assert d.colour == t["colour"] and d.value == t["value"]
        assert all(isinstance(v, int) for v in d.box)
        assert np.abs(np.array(d.box) - expected).max() <= 5  # one working pixel = 2.5 px


def test_nothing_found_is_an_empty_result_not_an_error() -> None:
    background = np.full((480, 640, 3), 128, np.uint8)
    result = DiceReader(FakeDiceModel()).read(background)
    assert result.ok and result.dice == ()


def test_tiny_image_is_an_empty_read_without_calling_the_model() -> None:
    model = FakeDiceModel()
    result = DiceReader(model).read(np.zeros((1, 1, 3), np.uint8))
    assert result.ok and result.dice == () and model.calls == 0


def test_unreadable_input_is_an_error_result(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hello")
    result = DiceReader(FakeDiceModel()).read(p)
    assert not result.ok and result.dice == ()
    assert result.error == "not an image (unrecognised file format)"
    assert result.to_json("notes.txt") == {"image": "notes.txt", "error": result.error}


def test_other_colour_becomes_unknown_and_unsure() -> None:
    reader = DiceReader(ScriptedModel([raw(colour=5, cp=0.99)]))
    (d,) = reader.read(np.zeros((100, 100, 3), np.uint8)).dice
    assert d.colour == "unknown" and d.unsure


@pytest.mark.parametrize(
    "vp,cp,det,unsure",
    [(0.99, 0.99, 0.9, False), (0.6, 0.99, 0.9, True), (0.99, 0.5, 0.9, True), (0.99, 0.99, 0.2, True)],
)
def test_unsure_follows_the_configured_threshold(vp, cp, det, unsure) -> None:
    die = decide(raw(vp=vp, cp=cp, det=det), (0, 0, 1, 1))
    assert die.unsure is unsure
    assert 0.0 <= die.confidence <= 1.0
    expected = vp * cp * min(1.0, det / DEFAULT_READER.det_confident_at)
    assert die.confidence == pytest.approx(expected)


def _turned(value: int, p: float) -> tuple[float, ...]:
    probs = [(1 - p) / 5] * 6
    probs[value - 1] = p
    return tuple(probs)


@pytest.mark.parametrize(
    "turned, factor",
    [
        (None, 1.0),                # not checked (the die lies high in the image)
        (_turned(3, 0.97), 1.0),    # the turned crop reads the same value, less sure of it
        (_turned(5, 0.6), 1.0),     # another value, but below turned_doubt_from
        (_turned(5, 0.99), 0.01),   # another value, sure of it, not surer by the margin: doubt
    ],
)
def test_a_turned_view_that_reads_another_value_makes_the_read_doubtful(turned, factor) -> None:
    r = dataclasses.replace(raw(value=3, vp=0.98, cp=0.99, det=0.9), turned_value_probs=turned)
    die = decide(r, (0, 0, 1, 1))
    assert die.value == 3
    assert die.value_confidence == pytest.approx(0.98 * factor)
    assert die.confidence == pytest.approx(0.98 * factor * 0.99)
    assert die.unsure is (factor < 1)


def test_a_much_surer_turned_view_gives_the_value_but_never_a_sure_read() -> None:
    r = dataclasses.replace(raw(value=3, vp=0.6, cp=0.99, det=0.9), turned_value_probs=_turned(5, 0.95))
    die = decide(r, (0, 0, 1, 1))
    assert die.value == 5
    assert die.value_confidence == pytest.approx(0.95 * (1 - 0.6))
    assert die.unsure
    # not surer by the margin: the upright view's value stays, in doubt
    r = dataclasses.replace(raw(value=3, vp=0.8, cp=0.99, det=0.9), turned_value_probs=_turned(5, 0.95))
    die = decide(r, (0, 0, 1, 1))
    assert die.value == 3 and die.value_confidence == pytest.approx(0.8 * 0.05)
    assert decide(r, (0, 0, 1, 1), ReaderConfig(turned_swap_margin=0.1)).value == 5


def test_turned_doubt_low_limits_the_doubt_but_not_the_swap() -> None:
    cfg = ReaderConfig(turned_doubt_low=0.8)
    doubted = dataclasses.replace(raw(value=3, vp=0.98, cp=0.99, det=0.9), turned_value_probs=_turned(5, 0.99))
    # in the band above turned_doubt_low the contradiction no longer doubts the read ...
    assert not decide(dataclasses.replace(doubted, centre_y_share=0.75), (0, 0, 1, 1), cfg).unsure
    # ... at or below it, it does, as it does wherever the height is not known
    for y in (0.8, 0.95, None):
        assert decide(dataclasses.replace(doubted, centre_y_share=y), (0, 0, 1, 1), cfg).unsure
    # the swap acts in the whole turned band
    swapped = dataclasses.replace(raw(value=3, vp=0.6, cp=0.99, det=0.9), turned_value_probs=_turned(5, 0.95),
                                  centre_y_share=0.75)
    die = decide(swapped, (0, 0, 1, 1), cfg)
    assert die.value == 5 and die.unsure
    # without the setting the height changes nothing
    off = ReaderConfig(turned_doubt_low=None)
    assert decide(dataclasses.replace(doubted, centre_y_share=0.75), (0, 0, 1, 1), off).unsure


def test_a_turned_view_that_agrees_lifts_the_value_only_when_set() -> None:
    cfg = ReaderConfig(turned_agreement_lifts=True)
    agrees = dataclasses.replace(raw(value=3, vp=0.8, cp=0.99, det=0.9), turned_value_probs=_turned(3, 0.97))
    die = decide(agrees, (0, 0, 1, 1), cfg)
    assert die.value == 3 and die.value_confidence == pytest.approx(0.97) and not die.unsure
    # off: the upright view's probability, as always
    assert decide(agrees, (0, 0, 1, 1), ReaderConfig(turned_agreement_lifts=False)).value_confidence == pytest.approx(0.8)
    # a less sure turned view never lowers an agreeing read
    weaker = dataclasses.replace(agrees, turned_value_probs=_turned(3, 0.5))
    assert decide(weaker, (0, 0, 1, 1), cfg).value_confidence == pytest.approx(0.8)
    # a turned view that reads another value still doubts or swaps, never lifts
    other = dataclasses.replace(raw(value=3, vp=0.98, cp=0.99, det=0.9), turned_value_probs=_turned(5, 0.99))
    assert decide(other, (0, 0, 1, 1), cfg).unsure
    # a die the nadir check did not look at is not touched
    assert decide(raw(value=3, vp=0.8, cp=0.99, det=0.9), (0, 0, 1, 1), cfg).value_confidence == pytest.approx(0.8)


def test_turned_doubt_threshold_comes_from_config() -> None:
    r = dataclasses.replace(raw(value=3, vp=0.98, cp=0.99, det=0.9), turned_value_probs=_turned(5, 0.65))
    assert not decide(r, (0, 0, 1, 1)).unsure
    assert decide(r, (0, 0, 1, 1), ReaderConfig(turned_doubt_from=0.6)).unsure


def test_bad_turned_probabilities_are_a_clear_error() -> None:
    r = dataclasses.replace(raw(), turned_value_probs=(0.5, 0.5))
    with pytest.raises(ValueError, match="turned value"):
        decide(r, (0, 0, 1, 1))


def test_threshold_comes_from_config() -> None:
    r = raw(vp=0.8, cp=1.0, det=1.0)
    assert decide(r, (0, 0, 1, 1), ReaderConfig(unsure_below=0.9)).unsure
    assert not decide(r, (0, 0, 1, 1), ReaderConfig(unsure_below=0.7)).unsure


def test_bad_model_output_is_a_clear_error() -> None:
    bad = FakeRawDie((0, 0, 5, 5), 0.9, (0.5, 0.5), (1, 0, 0, 0, 0, 0), (50, 0, 0))
    with pytest.raises(ValueError, match="2 value probabilities, expected 6"):
        decide(bad, (0, 0, 5, 5))


def test_duplicates_and_degenerate_boxes_are_dropped() -> None:
    raws = [
        raw(box=(10, 10, 40, 40), vp=0.9),
        raw(box=(12, 11, 40, 40), vp=0.99, value=4),  # the same die, read again, more confident
        raw(box=(60, 10, 0, 40)),  # no width
        raw(box=(500, 500, 30, 30)),  # outside a 100x100 image
        raw(box=(float("nan"), 0, 10, 10)),
    ]
    result = DiceReader(ScriptedModel(raws)).read(np.zeros((100, 100, 3), np.uint8))
    assert [(d.value, d.box) for d in result.dice] == [(4, (12, 11, 40, 40))]


def test_two_overlapping_reads_of_one_colour_are_both_unsure() -> None:
    # boxes (10,10,40,40) and (30,10,40,40): IoU 20*40 / (2*1600 - 800) = 1/3
    pair = [raw(box=(10, 10, 40, 40), value=6, vp=0.99, colour=4, cp=0.99),
            raw(box=(30, 10, 40, 40), value=3, vp=0.99, colour=4, cp=0.99)]
    apart = raw(box=(120, 10, 40, 40), value=2, vp=0.99, colour=4, cp=0.99)
    img = np.zeros((100, 200, 3), np.uint8)
    dice = DiceReader(ScriptedModel(pair + [apart])).read(img).dice
    assert [(d.value, d.unsure) for d in dice] == [(6, True), (3, True), (2, False)]
    assert all(d.confidence == pytest.approx(0.99 * 0.99) for d in dice)   # only the flag changes
    # another colour: two dice one behind the other, not one die boxed twice
    other = [pair[0], dataclasses.replace(pair[1], colour_probs=raw(colour=1, cp=0.99).colour_probs)]
    assert not any(d.unsure for d in DiceReader(ScriptedModel(other)).read(img).dice)
    # the threshold comes from config (1/3 is under 0.35); None turns it off
    for limit in (0.35, None):
        cfg = ReaderConfig(same_colour_unsure_iou=limit)
        assert not any(d.unsure for d in DiceReader(ScriptedModel(pair), cfg).read(img).dice)


def test_a_faint_die_never_changes_another_read() -> None:
    # a faint box over a read die of its colour is that die boxed twice: dropped, the read stays sure
    sure = raw(box=(10, 10, 40, 40), value=6, vp=0.99, colour=4, cp=0.99)
    faint_twin = dataclasses.replace(raw(box=(30, 10, 40, 40), value=5, vp=0.99, colour=4, cp=0.99), faint=True)
    img = np.zeros((100, 200, 3), np.uint8)
    dice = DiceReader(ScriptedModel([faint_twin, sure])).read(img).dice
    assert [(d.value, d.unsure, d.faint) for d in dice] == [(6, False, False)]
    # a faint duplicate never wins over a read, even when it looks surer
    dup = dataclasses.replace(raw(box=(11, 10, 40, 40), value=2, vp=0.999, colour=4, cp=0.999), faint=True)
    assert [(d.value, d.faint) for d in DiceReader(ScriptedModel([dup, sure])).read(img).dice] == [(6, False)]
    # of another colour it is another die (one behind the other): kept, unsure, the read unchanged
    other = dataclasses.replace(faint_twin, colour_probs=raw(colour=1, cp=0.99).colour_probs)
    dice = DiceReader(ScriptedModel([other, sure])).read(img).dice
    assert sorted((d.value, d.unsure, d.faint) for d in dice) == [(5, True, True), (6, False, False)]
    # apart from every read: kept, unsure whatever its confidence
    alone = dataclasses.replace(raw(box=(120, 10, 40, 40), vp=0.999, cp=0.999), faint=True)
    (d,) = DiceReader(ScriptedModel([alone])).read(img).dice
    assert d.faint and d.unsure and d.confidence > 0.99 and d.to_json()["unsure"] is True


def test_boxes_are_clipped_to_the_image() -> None:
    result = DiceReader(ScriptedModel([raw(box=(-5, 90, 20, 30))])).read(np.zeros((100, 100, 3), np.uint8))
    assert result.dice[0].box == (0, 90, 15, 10)


def test_reading_order_is_rows_then_left_to_right() -> None:
    raws = [raw(box=(70, 52, 20, 20), value=4), raw(box=(10, 10, 20, 20), value=1),
            raw(box=(10, 55, 20, 20), value=3), raw(box=(40, 14, 20, 20), value=2)]
    result = DiceReader(ScriptedModel(raws)).read(np.zeros((100, 100, 3), np.uint8))
    assert [d.value for d in result.dice] == [1, 2, 3, 4]


def test_json_contract_keys_and_types() -> None:
    img, truth = make_scene(ALL[:2])
    out = DiceReader(FakeDiceModel()).read(img).to_json("a.png")
    assert set(out) == {"image", "dice", "ms"}
    for d in out["dice"]:
        assert set(d) == {"colour", "value", "box", "confidence", "unsure"}
        assert d["colour"] in {"red", "yellow", "purple", "blue", "green", "unknown"}
        assert d["value"] in range(1, 7)
        assert len(d["box"]) == 4 and all(type(v) is int for v in d["box"])
        assert 0.0 <= d["confidence"] <= 1.0 and type(d["unsure"]) is bool


def test_model_sees_the_working_image_only() -> None:
    model = ScriptedModel([])
    DiceReader(model).read(np.zeros((5000, 2500, 3), np.uint8))
    assert model.seen_shapes == [(2048, 1024, 3)]   # ImageLimits.work_max_side 2048 (issue 38; 4096 before)


def test_ms_is_measured_with_the_injected_clock() -> None:
    ticks = iter([10.0, 10.25])
    reader = DiceReader(ScriptedModel([]), clock=lambda: next(ticks))
    assert reader.read(np.zeros((50, 50, 3), np.uint8)).ms == pytest.approx(250.0)


def test_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_READER.unsure_below = 0.1  # type: ignore[misc]
