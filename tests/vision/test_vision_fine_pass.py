"""The finer pass (issue 38 item 6, docs/vision.md "Small dice in a large photo") with a fake
detector that, like the shipped one, misses dice drawn too small in its input: it answers where
the input shows a bright square of at least MIN_SEEN px, nowhere else."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.config import ImageLimits
from vision.model import DiceModel, ModelConfig, shrink
from vision.reader import DiceReader
from vision_testutil import FakeClassifier, detector_maps

IN_W, IN_H = 512, 384
MIN_SEEN = 16.0   # input px: smaller squares are not seen (the shipped detector's weakness, docs/vision.md)


class BlobDetector:
    """Finds bright squares in its 512x384 input (connected components above grey 200)."""

    input_names = ["image"]
    input_shapes = [(1, 3, IN_H, IN_W)]
    output_names = ["heatmap", "wh", "offset"]

    def __init__(self, faint_from: float | None = None) -> None:
        self.calls = 0
        self.faint_from = faint_from   # squares this large but under MIN_SEEN: a faint peak (0.3)

    def run(self, feeds):
        self.calls += 1
        x = feeds["image"]
        assert x.shape == (1, 3, IN_H, IN_W)
        grey = (x[0].mean(axis=0) * 255 > 200).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(grey)
        faint = MIN_SEEN if self.faint_from is None else self.faint_from
        seen = [(x0, y0, w, h) for x0, y0, w, h, _area in stats[1:n] if min(w, h) >= faint]
        return detector_maps([(x0 + w / 2, y0 + h / 2, w, h, 0.9 if min(w, h) >= MIN_SEEN else 0.3)
                              for x0, y0, w, h in seen], IN_W, IN_H)


def squares(width: int, height: int, side: int, places: list[tuple[int, int]]) -> np.ndarray:
    img = np.full((height, width, 3), 60, np.uint8)
    for x, y in places:
        img[y:y + side, x:x + side] = 255
    return img


PLACES = [(300, 280), (1500, 900), (2000, 1480), (3700, 2700), (900, 2500), (2900, 300)]


def model(config: ModelConfig | None = None) -> DiceModel:
    return DiceModel(BlobDetector(), FakeClassifier(value=3, colour=3, die=1.0), config)  # blue threes


def test_the_finer_pass_finds_small_dice_the_first_pass_misses() -> None:
    # 100 px squares in a 4032x3024 photo: 12.7 px in the first pass's input, 23 px in the finer one
    img = squares(4032, 3024, 100, PLACES)
    old = model(ModelConfig(fine_below_px=None))
    assert old.read(img) == []                       # what the reader did before the finer pass
    new = model()
    dice = new.read(img)
    assert new.detector.calls == 5                   # the first pass + 2 x 2 tiles
    found = sorted((round(d.box[0]), round(d.box[1])) for d in dice)
    assert len(found) == len(PLACES)
    for (x, y), d in zip(sorted(PLACES), sorted(dice, key=lambda d: (round(d.box[0]), round(d.box[1])))):
        bx, by, bw, bh = d.box
        assert abs(bx - x) <= 6 and abs(by - y) <= 6 and abs(bw - 100) <= 10 and abs(bh - 100) <= 10


def test_a_die_across_a_tile_seam_is_found_once() -> None:
    # the 2 x 2 tiles of a 4032x3024 photo at scale 0.2328 meet around x = 1924..2199, y = 1374..1649
    img = squares(4032, 3024, 100, [(1990, 1450)])
    dice = model().read(img)
    assert len(dice) == 1
    assert abs(dice[0].box[0] - 1990) <= 6 and abs(dice[0].box[1] - 1450) <= 6


def test_no_finer_pass_on_a_webcam_photo() -> None:
    # a 640x480 photo is seen at 0.8 in the first pass: no finer view is worth a pass
    img = squares(640, 480, 12, [(100, 100), (400, 300)])
    m = model()
    assert m.read(img) == [] and m.detector.calls == 1
    assert m.fine_plan(640, 480, []) is None
    img = squares(640, 480, 40, [(100, 100), (400, 300)])
    m = model()
    assert len(m.read(img)) == 2 and m.detector.calls == 1
    assert m.read(img) == model(ModelConfig(fine_below_px=None)).read(img)


def test_no_finer_pass_where_the_first_pass_sees_dice_large_enough() -> None:
    img = squares(4032, 3024, 300, PLACES[:3])       # 38 px in the first pass's input
    m = model()
    assert len(m.read(img)) == 3 and m.detector.calls == 1
    assert m.fine_plan(4032, 3024, [38.0]) is None
    assert m.fine_plan(4032, 3024, [12.0]) == pytest.approx((0.2328, 2, 2), abs=1e-4)


def test_faint_small_candidates_plan_the_finer_pass_beside_a_large_false_one() -> None:
    # stop 65, rule G: a 600 px square (a printed disc: 76 px, peak 0.9 in the first pass) and
    # 100 px dice seen faintly (12.7 px, peak 0.3, under the gate's 0.42). The plan counted only
    # the candidates over the gate, so no finer pass ran and the dice were lost; it counts every
    # candidate the reader may keep (peak >= faint_peak_from), so the finer pass runs.
    img = squares(4032, 3024, 100, PLACES)
    img[1700:2300, 2300:2900] = 255
    def faint_model(config: ModelConfig | None = None) -> DiceModel:
        # die probability 0.9: under faint_die_prob, so no faint candidate is kept as a die
        return DiceModel(BlobDetector(faint_from=8), FakeClassifier(value=3, colour=3, die=0.9), config)
    first_only = faint_model(ModelConfig(fine_below_px=None))
    assert len(first_only.read(img)) == 1             # the large square alone
    m = faint_model()
    dice = m.read(img)
    assert m.detector.calls == 5                      # the first pass + 2 x 2 tiles
    assert len(dice) == len(PLACES) + 1 and not any(d.faint for d in dice)
    # without faint candidates (faint_peak_from None) the plan counts those over the gate, as before
    off = faint_model(ModelConfig(faint_peak_from=None))
    assert len(off.read(img)) == 1 and off.detector.calls == 1


def test_the_finer_pass_keeps_faint_candidates_as_faint_dice() -> None:
    # stop 65, rule H: 60 px dice in a 4032x3024 photo are 7.6 px in the first pass (not seen) and
    # 14 px in the finer one, seen faintly (peak 0.3, under the gate's 0.42). The finer pass kept
    # only candidates over the gate, so they were lost; it keeps them from faint_peak_from, as the
    # first pass does, and the reader keeps them as faint dice (never sure).
    img = squares(4032, 3024, 60, PLACES)
    m = DiceModel(BlobDetector(faint_from=8), FakeClassifier(value=3, colour=3, die=1.0))
    dice = m.read(img)
    assert m.detector.calls == 5                      # the first pass + 2 x 2 tiles
    assert len(dice) == len(PLACES) and all(d.faint for d in dice)
    off = DiceModel(BlobDetector(faint_from=8), FakeClassifier(value=3, colour=3, die=1.0),
                    ModelConfig(faint_peak_from=None))
    assert off.read(img) == [] and off.detector.calls == 5   # without faint candidates: the gate only


def test_the_finer_scale_follows_the_smallest_die() -> None:
    m = model()
    scale, nx, ny = m.fine_plan(4032, 3024, [18.0])  # 18 px -> 32 px wanted: 1.78 x the first scale
    assert scale == pytest.approx(512 / 4032 * 32 / 18) and (nx, ny) == (2, 2)
    assert m.fine_plan(4032, 3024, [19.5]) == (pytest.approx(512 / 4032 * 32 / 19.5), 2, 2)
    portrait = m.fine_plan(3024, 4032, [])
    assert portrait is not None and portrait[1] * portrait[2] <= 4
    assert model(ModelConfig(fine_max_tiles=1)).fine_plan(4032, 3024, []) is None   # no finer view fits


def test_the_reader_reads_a_large_photo_and_bad_inputs_stay_answered() -> None:
    reader = DiceReader(model())
    ok, buf = cv2.imencode(".jpg", squares(4032, 3024, 100, PLACES), [cv2.IMWRITE_JPEG_QUALITY, 90])
    result = reader.read(buf.tobytes())
    assert result.ok and len(result.dice) == len(PLACES)
    assert reader.read(np.zeros((1, 20000, 3), np.uint8)).dice == ()          # too thin: empty read
    assert reader.read(b"not an image").error is not None
    # a thin strip still larger than ImageLimits.min_side goes through both passes without harm
    strip = DiceReader(model(), limits=ImageLimits(work_max_side=20000))
    result = strip.read(np.full((20, 20000, 3), 60, np.uint8))
    assert result.ok and result.dice == ()


@pytest.mark.parametrize("bad", [dict(fine_below_px=0), dict(fine_target_px=0), dict(fine_min_gain=1.0),
                                 dict(fine_max_tiles=0), dict(fine_overlap_px=-1), dict(fine_max_first_scale=0),
                                 dict(fine_max_first_scale=1.5)])
def test_bad_fine_settings_are_refused(bad) -> None:
    with pytest.raises(ValueError):
        ModelConfig(**bad)


def test_shrink_is_the_old_resize_up_to_full_hd() -> None:
    rng = np.random.default_rng(3)
    img = rng.integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
    for size, interp in (((512, 288), cv2.INTER_AREA), ((1280, 720), cv2.INTER_LINEAR),
                         ((160, 90), cv2.INTER_AREA)):
        assert np.array_equal(shrink(img, size), cv2.resize(img, size, interpolation=interp))
    big = cv2.GaussianBlur(rng.integers(0, 255, (3024, 4032, 3), dtype=np.uint8), (0, 0), 6)
    direct = cv2.resize(big, (512, 384), interpolation=cv2.INTER_AREA).astype(int)
    assert np.abs(shrink(big, (512, 384)).astype(int) - direct).max() <= 2     # the same picture
    assert replace(ModelConfig(), fine_below_px=None).fine_below_px is None


class OpenDetector(BlobDetector):
    """A detector whose input size is open (the shipped file since stop 64): one finer input."""

    input_shapes = [(1, 3, None, None)]


@pytest.mark.parametrize("on", [False, True])
def test_a_first_pass_box_merged_away_no_longer_hides_dice(on: bool) -> None:
    """Stop 68, rule T (far-777302 photo 8): a coarse first-pass box over three dice, merged into the
    finer pass's box of one of them, made NMS drop the finer boxes of the other two."""
    from vision.model import _Candidates

    m = DiceModel(OpenDetector(), FakeClassifier(), ModelConfig(merged_hide_nothing=on))
    assert m.single_fine()
    big, d1, d2, d3 = (996, 1293, 79, 83), (1019, 1294, 49, 50), (992, 1316, 39, 44), (1022, 1333, 47, 48)
    raw = _Candidates([big, d1, d2, d3], [0.72, 0.85, 0.70, 0.65], [False] * 4, 1, 2016, 1512)
    assert m._select(raw) == ([1, 2, 3] if on else [1])
