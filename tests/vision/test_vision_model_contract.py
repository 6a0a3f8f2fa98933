"""The reader on the model engineer's real DiceModel with injected fake runtimes: checks the
contract (docs/vision-model.md) and that boxes survive both transforms (the reader's working
copy and the model's letterbox) back to original pixels."""

from __future__ import annotations

import numpy as np
import pytest

model_mod = pytest.importorskip("vision.model")

from vision.config import ImageLimits  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.runtime import Runtime  # noqa: E402
from vision_testutil import FakeClassifier, detector_maps  # noqa: E402


class FakeDetector:
    """A detector 'seeing' dice at fixed places in its 384x288 input (stride 4)."""

    input_names = ["image"]
    input_shapes = [(1, 3, 288, 384)]
    output_names = ["heatmap", "wh", "offset"]

    def __init__(self, dice_in_input: list[tuple[float, float, float, float, float]]):
        self.dice = dice_in_input  # (cx, cy, w, h, score) in detector-input pixels
        self.seen: list[tuple] = []

    def run(self, feeds):
        x = feeds["image"]
        self.seen.append(x.shape)
        return detector_maps(self.dice, 384, 288)


def blue_fives() -> FakeClassifier:
    """A classifier that reads every crop as a blue 5, surely a die."""
    return FakeClassifier(value=5, colour=3, die=1.0)


def test_fakes_satisfy_the_runtime_protocol() -> None:
    assert isinstance(FakeDetector([]), Runtime) and isinstance(blue_fives(), Runtime)


def test_boxes_map_back_through_working_copy_and_letterbox() -> None:
    # original 1200x900 -> working copy 600x450 (work_max_side 600) -> letterbox 384x288 (x0.64)
    det = FakeDetector([(96.0, 72.0, 32.0, 32.0, 0.9), (200.0, 100.0, 16.0, 24.0, 0.8)])
    model = model_mod.DiceModel(det, blue_fives())
    image = np.full((900, 1200, 3), (200, 120, 40), np.uint8)
    result = DiceReader(model, limits=ImageLimits(work_max_side=600)).read(image)
    assert result.error is None and result.image_size == (1200, 900)
    assert det.seen == [(1, 3, 288, 384)]
    boxes = sorted(d.box for d in result.dice)
    # input px / 0.64 = working px; x2 = original px
    f = 2 / 0.64
    want = sorted([
        (round((96 - 16) * f), round((72 - 16) * f), round(32 * f), round(32 * f)),
        (round((200 - 8) * f), round((100 - 12) * f), round(16 * f), round(24 * f)),
    ])
    for got, exp in zip(boxes, want):
        assert max(abs(a - b) for a, b in zip(got, exp)) <= 2, (got, exp)
    for d in result.dice:
        assert (d.colour, d.value) == ("blue", 5)
        assert d.body_colour_lab is not None and d.body_colour_lab[2] < 0  # a blue body: b* < 0


def test_no_peaks_is_an_empty_read() -> None:
    model = model_mod.DiceModel(FakeDetector([]), blue_fives())
    result = DiceReader(model).read(np.zeros((480, 640, 3), np.uint8))
    assert result.ok and result.dice == ()


# --- faint candidates (ModelConfig.faint_peak_from; stop 49, docs/vision-history.md)

def _faint_read(peak: float, die: float, **config) -> list:
    """One die seen with detector peak ``peak`` by a classifier sure of a blue 5 with die
    probability ``die``."""
    det = FakeDetector([(192.0, 144.0, 40.0, 40.0, peak)])
    cfg = model_mod.ModelConfig(**config)
    return model_mod.DiceModel(det, FakeClassifier(value=5, colour=3, die=die), cfg).read(
        np.full((288, 384, 3), (200, 120, 40), np.uint8))


def test_a_weak_peak_the_classifier_is_sure_of_is_kept_as_a_faint_die() -> None:
    # the gate: sqrt(peak x die) >= min_det_score 0.65, i.e. peak >= 0.4225 with die 1.0
    strong = _faint_read(0.5, 0.97)
    assert len(strong) == 1 and not strong[0].faint and strong[0].det_score == pytest.approx((0.5 * 0.97) ** 0.5)
    faint = _faint_read(0.3, 0.97)
    assert len(faint) == 1 and faint[0].faint and faint[0].det_score == pytest.approx((0.3 * 0.97) ** 0.5)
    assert _faint_read(0.3, 0.94) == []                          # the classifier not sure enough
    assert _faint_read(0.19, 1.0, peak_threshold=0.1) == []      # the peak under faint_peak_from
    assert _faint_read(0.3, 0.97, faint_peak_from=None) == []    # off: the gate alone
    assert len(_faint_read(0.3, 0.9, faint_die_prob=0.85)) == 1  # the die probability from config


def test_faint_settings_are_checked() -> None:
    for bad in ({"faint_peak_from": 1.5}, {"faint_peak_from": -0.1}, {"faint_die_prob": 1.2}):
        with pytest.raises(ValueError, match="faint"):
            model_mod.ModelConfig(**bad)


def test_a_faint_die_is_read_but_never_sure() -> None:
    det = FakeDetector([(100.0, 100.0, 40.0, 40.0, 0.3), (260.0, 100.0, 40.0, 40.0, 0.9)])
    model = model_mod.DiceModel(det, FakeClassifier(value=5, colour=3, die=0.99))
    dice = DiceReader(model).read(np.full((288, 384, 3), (200, 120, 40), np.uint8)).dice
    assert [(d.faint, d.unsure) for d in sorted(dice, key=lambda d: d.box[0])] == [(True, True), (False, False)]
    # its confidence is computed as any read's (sure-looking), only the flag says it is faint
    assert min(d.confidence for d in dice) > 0.85


# --- a table profile's heatmap beside the shipped one (build H, stop 58)

class FakeTableDetector(FakeDetector):
    """The shipped maps of ``dice_in_input`` plus a table heatmap of ``table_dice``."""

    output_names = ["heatmap", "wh", "offset", model_mod.TABLE_HEATMAP]

    def __init__(self, dice_in_input, table_dice):
        super().__init__(dice_in_input)
        self.table = table_dice

    def run(self, feeds):
        out = dict(super().run(feeds))
        # the table heatmap's boxes come from the shipped size and offset maps: the same sizes
        both = detector_maps(self.dice + self.table, 384, 288)
        out["wh"], out["offset"] = both["wh"], both["offset"]
        out[model_mod.TABLE_HEATMAP] = detector_maps(self.table, 384, 288)["heatmap"]
        return out


def _table_read(table_peak: float, die: float, classifier_file: str | None = None) -> list:
    """A die the shipped heatmap sees (peak 0.9) and one only the table heatmap sees."""
    det = FakeTableDetector([(100.0, 100.0, 40.0, 40.0, 0.9)], [(260.0, 150.0, 40.0, 40.0, table_peak),
                                                                 (104.0, 98.0, 40.0, 40.0, 0.99)])
    cfg = model_mod.ModelConfig(**({"classifier_file": classifier_file} if classifier_file else {}))
    return model_mod.DiceModel(det, FakeClassifier(value=5, colour=3, die=die), cfg).read(
        np.full((288, 384, 3), (200, 120, 40), np.uint8))


def test_a_die_only_the_table_heatmap_finds_is_added_never_faint_and_never_sure():
    shipped_read = model_mod.DiceModel(FakeDetector([(100.0, 100.0, 40.0, 40.0, 0.9)]),
                                       FakeClassifier(value=5, colour=3, die=0.97)).read(
        np.full((288, 384, 3), (200, 120, 40), np.uint8))
    dice = _table_read(0.8, 0.97)
    assert len(dice) == 2 and dice[0] == shipped_read[0]       # the shipped die: the same read
    assert dice[1].box[0] > 200 and dice[1].faint              # the table's: found, never sure
    adapted = _table_read(0.8, 0.97, classifier_file="/profile/model/m-1/dice_classifier.onnx")
    assert len(adapted) == 2 and adapted[1].faint              # with a table's classifier too
    assert len(_table_read(0.3, 0.97)) == 1                    # under the floor: no faint table die
    assert len(_table_read(0.5, 0.5)) == 1                     # the gate as for any die
