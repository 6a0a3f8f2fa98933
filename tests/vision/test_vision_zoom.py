"""Second looks at the finer pass's doubtful peaks (stop 72, rule Z: vision.zoom), with fake
runtimes: which peaks are looked at again, the windows' geometry, and a die the finer input
only hints at found in its window, mapped back to the photo's pixels."""
import numpy as np
import pytest

from vision import zoom
from vision.model import DiceModel, ModelConfig
from vision_testutil import FakeClassifier, detector_maps

GATE = 0.65 ** 2


def _heatmap(peaks, gw=64, gh=48):
    hm = np.zeros((1, 1, gh, gw), np.float32)
    for x, y, p in peaks:
        hm[0, 0, y, x] = p
    return hm


def test_seeds_are_the_doubtful_peaks_outside_strong_boxes_best_first():
    hm = _heatmap([(10, 10, 0.30), (40, 20, 0.15), (50, 40, 0.05), (20, 30, 0.60), (30, 5, 0.25), (31, 6, 0.1)])
    # the finer input at half the photo's scale: a cell is 8 photo px
    strong = [(220, 35, 30, 20)]   # holds the 0.25 peak at cell (30, 5): centre (244, 44)
    got = zoom.seeds(hm, (256, 192), 0.5, 0.5, 0.08, GATE, 128, 12, strong)
    assert got == [(84.0, 84.0), (324.0, 164.0)]            # 0.30, then 0.15; not 0.05, 0.60 or in the box
    assert zoom.seeds(hm, (256, 192), 0.5, 0.5, 0.08, GATE, 128, 1, strong) == [(84.0, 84.0)]   # at most zoom_max
    # one window a place: a peak a quarter window from a better one is left out
    near = _heatmap([(10, 10, 0.30), (12, 10, 0.29), (30, 10, 0.2)])
    assert zoom.seeds(near, (256, 192), 0.5, 0.5, 0.08, GATE, 128, 12, []) == [(84.0, 84.0), (244.0, 84.0)]


def test_windows_lie_inside_the_photo_at_twice_the_finer_scale_never_beyond_its_pixels():
    image = np.zeros((1512, 2016, 3), np.uint8)
    image[700:740, 1000:1040] = 255
    (canvas, (x0, y0, f, w, h)), (c2, (x1, y1, f2, w2, h2)) = zoom.windows(image, [(1020.0, 720.0), (5.0, 1500.0)],
                                                                          0.508, 128, 2.0, 114, 32)
    assert f == pytest.approx(1.0) and canvas.shape == (256, 256, 3) and (w, h) == (252, 252)   # 128 / 0.508 px
    assert x0 == 1020 - 126 and y0 == 720 - 126 and canvas[126 - 20 + 2, 126 - 20 + 2].tolist() == [255] * 3
    assert (x1, y1) == (0, 1512 - 252)                       # moved inside the photo
    # a 12 MP photo's finer input (0.254): the windows at twice that scale, 0.508
    (c3, (_, _, f3, w3, h3)), = zoom.windows(np.zeros((3024, 4032, 3), np.uint8), [(2000.0, 1500.0)], 0.254, 128, 2.0, 114, 32)
    assert f3 == pytest.approx(0.508) and c3.shape[0] % 32 == 0 and w3 == h3 == round(504 * 0.508)


def test_a_box_at_a_window_edge_inside_the_photo_is_cut():
    assert zoom.cut_by_window((0.5, 100, 30, 30), 10, 10, 1.0, 252, 252, 2016, 1512)
    assert not zoom.cut_by_window((0.5, 100, 30, 30), 0, 10, 1.0, 252, 252, 2016, 1512)      # the photo's edge
    assert zoom.cut_by_window((230, 100, 21.5, 30), 10, 10, 1.0, 252, 252, 2016, 1512)
    assert not zoom.cut_by_window((230, 100, 21.5, 30), 2016 - 252, 10, 1.0, 252, 252, 2016, 1512)
    assert not zoom.cut_by_window((100, 100, 30, 30), 10, 10, 1.0, 252, 252, 2016, 1512)


class BrightDetector:
    """An open-size detector that sees the bright pixels of its input as one die: faintly (peak
    ``faint``) in a large input, clearly (0.9) in a small one (a window); nothing in the first."""

    input_names = ["image"]
    input_shapes = [(1, 3, None, None)]
    output_names = ["heatmap", "wh", "offset"]

    def __init__(self, faint=0.15):
        self.faint, self.calls = faint, []

    def run(self, feeds):
        x = feeds["image"]
        h, w = x.shape[2:]
        self.calls.append((h, w))
        ys, xs = np.nonzero(x[0, 0] > 0.9)
        if len(self.calls) == 1 or len(ys) == 0:
            return detector_maps([], w, h)
        x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        p = self.faint if h * w > 300_000 else 0.9
        return detector_maps([((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, p)], w, h)


@pytest.mark.parametrize("zoom_from", [None, 0.08])
def test_a_die_the_finer_input_only_hints_at_is_found_in_its_window(zoom_from):
    image = np.full((1512, 2016, 3), 60, np.uint8)
    image[700:740, 1200:1240] = 255                      # a 40 px die, 20 px in the finer input
    det = BrightDetector()
    model = DiceModel(det, FakeClassifier(), ModelConfig(zoom_from=zoom_from))
    found = model.detect(image)
    if zoom_from is None:
        assert found == [] and len(det.calls) == 2      # the first pass and the finer input
        return
    assert len(det.calls) == 3 and det.calls[2] == (256, 256)
    (box, score), = found
    assert score == pytest.approx(0.9) and box == pytest.approx((1200, 700, 40, 40), abs=2)


def test_no_window_where_the_finer_input_sees_the_die_clearly_or_the_photo_is_not_shrunk_to_0_3():
    image = np.full((1512, 2016, 3), 60, np.uint8)
    image[700:740, 1200:1240] = 255
    det = BrightDetector(faint=0.9)
    assert len(DiceModel(det, FakeClassifier(), ModelConfig()).detect(image)) == 1 and len(det.calls) == 2
    frame = np.full((720, 1280, 3), 60, np.uint8)          # the first pass at 0.4: no finer input is always run
    frame[300:310, 600:610] = 255
    det = BrightDetector()
    DiceModel(det, FakeClassifier(), ModelConfig()).detect(frame)
    assert all(c != (256, 256) for c in det.calls)


def test_zoom_settings_are_checked():
    for bad in ({"zoom_from": 1.5}, {"zoom_max": -1}, {"zoom_window_px": 4}, {"zoom_factor": 0.5}):
        with pytest.raises(ValueError, match="zoom"):
            ModelConfig(**bad)
    ModelConfig(zoom_from=None, zoom_max=-1)   # off: the others are not used
