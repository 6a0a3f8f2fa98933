"""The training stream's per-scene arrays (visionlab.train.stream, visionlab.train.data.det_targets):
no torch needed."""
import numpy as np
import pytest

from visionlab.train.data import DET_SIZE, MAX_OBJECTS, STRIDE, WH_SCALE, det_targets, label_detector_box
from visionlab.render.synth.scene import DieTruth
from visionlab.render.synth.generate import render_indexed
from visionlab.train.stream import KIND_DETECTOR, KIND_NEGATIVE, KIND_TRUTH, StreamOptions, scene_sample, scene_setup

GH, GW = DET_SIZE[1] // STRIDE, DET_SIZE[0] // STRIDE


def test_a_detector_box_is_labelled_by_its_best_die():
    whole = DieTruth("blue", 3, (100.0, 100.0, 40.0, 40.0), (105.0, 100.0, 30.0, 30.0), False, 1.0)
    cut = DieTruth("red", 6, (0.0, 0.0, 20.0, 40.0), (0.0, 0.0, 15.0, 30.0), True, 0.5)
    assert label_detector_box((102.0, 101.0, 40.0, 40.0), [cut, whole]) == (2, 3, 1)   # blue 3
    assert label_detector_box((300.0, 300.0, 40.0, 40.0), [cut, whole]) == (-1, -1, 0)  # on no die
    assert label_detector_box((300.0, 300.0, 40.0, 40.0), []) == (-1, -1, 0)
    assert label_detector_box((120.0, 100.0, 40.0, 40.0), [whole]) is None             # IoU 0.33: between
    assert label_detector_box((0.0, 0.0, 20.0, 40.0), [cut]) is None                   # partly out of frame


def test_det_targets_put_a_peak_size_and_offset_at_each_box_centre():
    boxes = [np.array([[40.0, 20.0, 24.0, 16.0], [200.0, 100.0, 2.0, 30.0]], np.float32), np.zeros((0, 4), np.float32)]
    hm, ind, wh, off, mask = det_targets(boxes, GH, GW)
    assert hm.shape == (2, 1, GH, GW) and ind.shape == (2, MAX_OBJECTS) and wh.shape == (2, MAX_OBJECTS, 2)
    # the second box is thinner than MIN_BOX: no target; the second image has none
    assert mask[0].sum() == 1 and mask[1].sum() == 0 and hm[1].max() == 0
    cx, cy = (40 + 12) / STRIDE, (20 + 8) / STRIDE
    iy, ix = divmod(int(ind[0, 0]), GW)
    assert (ix, iy) == (int(cx), int(cy)) and hm[0, 0, iy, ix] == 1.0
    assert np.allclose(off[0, 0], (cx - ix, cy - iy))
    assert np.allclose(np.exp(wh[0, 0]) * WH_SCALE, (24, 16))
    assert (hm[0, 0] == 1.0).sum() == 1          # one peak, a Gaussian around it
    assert 0 < hm[0, 0, iy, ix + 1] < 1


def test_det_targets_keep_at_most_max_objects():
    many = np.array([[x * 5.0, y * 5.0, 4.0, 4.0] for x in range(10) for y in range(10)], np.float32)
    _, _, _, _, mask = det_targets([many], GH, GW)
    assert mask.sum() == MAX_OBJECTS


class _FakeDetector:
    """Proposes the first die's box exactly and one box far from every die."""

    def __init__(self, truths_of):
        self.truths_of = truths_of

    def detect(self, img):
        t = self.truths_of(img)
        return [(t.box, 0.9), ((0.0, 0.0, 3.0, 3.0), 0.4)] if t is not None else [((0.0, 0.0, 3.0, 3.0), 0.4)]


def _sample(index, detector=None, opts=StreamOptions()):
    return scene_sample(31, index, detector, opts)


def test_scene_sample_arrays_are_consistent():
    s = _sample(0)
    assert s["image"].shape == (DET_SIZE[1], DET_SIZE[0], 3) and s["image"].dtype == np.uint8
    assert s["hm"].shape == (GH, GW) and s["hm"].dtype == np.float16
    assert s["mask"].dtype == bool and s["mask"].sum() == (s["hm"] == 1).sum()
    n = len(s["crops"])
    assert s["crops"].shape == (n, 64, 64, 3)
    assert all(len(s[k]) == n for k in ("value", "colour", "die", "kind"))
    die = s["die"] == 1
    assert (s["kind"][die] == KIND_TRUTH).all() and (s["kind"][~die] == KIND_NEGATIVE).all()
    assert (s["value"][~die] == -1).all() and (s["colour"][~die] == -1).all()
    assert ((s["value"] >= -1) & (s["value"] <= 5)).all()


def test_scene_sample_is_reproducible_and_depends_on_the_index():
    a, b, c = _sample(2), _sample(2), _sample(3)
    for k in ("image", "hm", "crops", "value", "colour"):
        assert np.array_equal(a[k], b[k])
    assert not np.array_equal(a["image"], c["image"])


def _centres(s):
    """Box centres (detector-input pixels) rebuilt from the targets: (cell + offset) x stride."""
    out = []
    for i, (ox, oy) in zip(s["ind"][s["mask"]], s["off"][s["mask"]]):
        iy, ix = divmod(int(i), GW)
        out.append(((ix + ox) * STRIDE, (iy + oy) * STRIDE))
    return sorted(out)


def test_mirrored_scene_keeps_its_targets_on_the_dice():
    for index in range(4):
        m, p = _sample(index, opts=StreamOptions(mirror=1.0)), _sample(index, opts=StreamOptions(mirror=0.0))
        if not p["mask"].any():
            continue
        assert np.array_equal(m["image"], p["image"][:, ::-1])
        flipped = sorted((DET_SIZE[0] - x, y) for x, y in _centres(p))
        assert np.allclose(_centres(m), flipped, atol=1e-3)
        assert np.allclose(sorted(map(tuple, m["wh"][m["mask"]])), sorted(map(tuple, p["wh"][p["mask"]])))
        return
    pytest.fail("no scene with dice among the first four")


class _Proposals:
    """A stand-in detector that proposes the boxes it is given."""

    def __init__(self, boxes):
        self.boxes = boxes

    def detect(self, img):
        return [(b, 0.9) for b in self.boxes]


def test_detector_boxes_become_labelled_crops():
    for index in range(6):
        plain = _sample(index, _Proposals([]))
        sizes, base, _ = scene_setup(31, index)
        _, truths, _ = render_indexed(31, index, sizes, base)
        whole = [t for t in truths if not t.partial]
        if not whole:
            continue
        far = (0.0, 0.0, 3.0, 3.0)
        if any(t.box[0] < 6 and t.box[1] < 6 for t in truths):
            continue
        s = _sample(index, _Proposals([whole[0].box, far]))
        assert (plain["kind"] == KIND_DETECTOR).sum() == 0
        det = s["kind"] == KIND_DETECTOR
        assert list(s["die"][det]) == [1, 0]
        assert list(s["value"][det]) == [whole[0].value - 1, -1]
        assert s["colour"][det][1] == -1 and s["colour"][det][0] >= 0
        # the rest of the sample is the plain one
        assert np.array_equal(s["crops"][~det], plain["crops"])
        return
    pytest.fail("no scene with a whole die among the first six")


def test_a_classifier_only_sample_has_the_same_crops_and_no_detector_arrays():
    for index in range(4):
        sizes, base, _ = scene_setup(31, index)
        _, truths, _ = render_indexed(31, index, sizes, base)
        boxes = [t.box for t in truths if not t.partial][:2]
        full = scene_sample(31, index, _Proposals(boxes))
        crops_only = scene_sample(31, index, _Proposals(boxes), detector_targets=False)
        assert not {"image", "hm", "ind", "wh", "off", "mask"} & crops_only.keys()
        assert crops_only["dice"] == full["dice"]
        for k in ("crops", "value", "colour", "die", "kind"):   # the jittered detector crops too
            assert np.array_equal(crops_only[k], full[k])
