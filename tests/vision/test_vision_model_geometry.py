"""vision.model pre/post-processing with fake runtimes (no model files, no torch)."""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.model import (DiceModel, Letterbox, ModelConfig, ModelMismatchError, RawDie,
                          body_colour_lab, crop_for_classifier, decode_detections, drop_same_read,
                          letterbox, nms, to_tensor)
from vision_testutil import FakeClassifier, detector_maps

IN_W, IN_H = 384, 288


class FakeDetector:
    """Puts one heatmap peak per given input-pixel box."""

    input_names = ["image"]
    input_shapes = [(1, 3, IN_H, IN_W)]
    output_names = ["heatmap", "wh", "offset"]

    def __init__(self, boxes_in, score=0.9):
        self.boxes_in, self.score, self.calls = boxes_in, score, []

    def run(self, feeds):
        x = feeds["image"]
        assert x.shape == (1, 3, IN_H, IN_W) and x.dtype == np.float32 and 0 <= x.min() and x.max() <= 1
        self.calls.append(x)
        peaks = [(x0 + w / 2, y0 + h / 2, w, h, self.score) for x0, y0, w, h in self.boxes_in]
        return detector_maps(peaks, IN_W, IN_H, wh_fill=1.0)


@given(st.integers(20, 5000), st.integers(20, 5000))
@settings(max_examples=60, deadline=None)
def test_letterbox_maps_boxes_back_exactly(w, h):
    img = np.zeros((min(h, 64), min(w, 64), 3), np.uint8)  # geometry only depends on the shape
    _, lb0 = letterbox(img, (IN_W, IN_H))
    lb = Letterbox(sx=lb0.sx, sy=lb0.sy, pad_x=0, pad_y=0, src_w=img.shape[1], src_h=img.shape[0])
    box = (img.shape[1] * 0.1, img.shape[0] * 0.2, img.shape[1] * 0.3, img.shape[0] * 0.4)
    back = lb.to_original(lb.to_input(box))
    assert back == pytest.approx(box, abs=1e-6)


def test_letterbox_keeps_aspect_and_pads_right_bottom():
    img = np.full((720, 1280, 3), 200, np.uint8)
    canvas, lb = letterbox(img, (IN_W, IN_H), pad_value=114)
    assert canvas.shape == (IN_H, IN_W, 3)
    assert lb.sx == pytest.approx(0.3) and lb.sy == pytest.approx(216 / 720)
    assert (canvas[:216] == 200).all() and (canvas[216:] == 114).all()
    assert lb.to_original((0, 0, 384, 216)) == pytest.approx((0, 0, 1280, 720))
    # clipping to the image
    assert lb.to_original((-10, 200, 30, 40)) == pytest.approx((0, 200 / lb.sy, 20 / lb.sx, 16 / lb.sy))


def test_to_tensor_layout():
    img = np.zeros((2, 3, 3), np.uint8)
    img[..., 0] = 255
    t = to_tensor(img)
    assert t.shape == (1, 3, 2, 3) and t.dtype == np.float32
    assert t[0, 0].min() == 1.0 and t[0, 1].max() == 0.0


def test_decode_finds_peaks_and_sizes():
    det = FakeDetector([(100, 40, 30, 34), (200.5, 150.25, 50, 44)])
    out = det.run({"image": np.zeros((1, 3, IN_H, IN_W), np.float32)})
    got = decode_detections(out["heatmap"], out["wh"], out["offset"], (IN_W, IN_H), ModelConfig())
    assert len(got) == 2
    boxes = sorted(b for b, _ in got)
    assert boxes[0] == pytest.approx((100, 40, 30, 34), abs=1e-4)
    assert boxes[1] == pytest.approx((200.5, 150.25, 50, 44), abs=1e-4)
    # below the threshold: nothing
    det.score = 0.05
    out = det.run({"image": np.zeros((1, 3, IN_H, IN_W), np.float32)})
    assert decode_detections(out["heatmap"], out["wh"], out["offset"], (IN_W, IN_H), ModelConfig()) == []


def test_nms_keeps_the_best_of_overlapping_boxes():
    boxes = [(0, 0, 10, 10), (1, 1, 10, 10), (50, 50, 10, 10)]
    assert nms(boxes, [0.5, 0.9, 0.7], 0.45) == [1, 2]


def _die(box, score, value, colour):
    vp = [0.01] * 6
    vp[value - 1] = 0.95
    cp = [0.01] * 6
    cp[colour] = 0.95
    return RawDie(box=box, det_score=score, value_probs=tuple(vp), colour_probs=tuple(cp),
                  body_colour_lab=(50.0, 0.0, 0.0))


def test_a_die_boxed_twice_with_the_same_read_is_reported_once():
    whole, top = (100.0, 100.0, 97.0, 98.0), (73.0, 84.0, 105.0, 88.0)      # IoU 0.43 (scene 189)
    beside = (200.0, 100.0, 97.0, 98.0)                                      # a touching twin: IoU 0
    dice = [_die(top, 0.78, 4, 2), _die(whole, 0.82, 4, 2), _die(beside, 0.9, 4, 2)]
    kept = drop_same_read(dice, 0.35)
    assert [d.box for d in kept] == [beside, whole]
    assert len(drop_same_read([_die(whole, 0.82, 4, 2), _die(top, 0.78, 5, 2)], 0.35)) == 2   # other value
    assert len(drop_same_read([_die(whole, 0.82, 4, 2), _die(top, 0.78, 4, 3)], 0.35)) == 2   # other colour
    assert [d.det_score for d in drop_same_read(dice, None)] == [0.9, 0.82, 0.78]   # all, best first
    with pytest.raises(ValueError, match="same_read_iou"):
        ModelConfig(same_read_iou=0)


def test_read_maps_boxes_back_to_the_original_image():
    img = np.full((720, 1280, 3), 90, np.uint8)
    # a die at x 400..520, y 300..410 in the original image
    box = (400.0, 300.0, 120.0, 110.0)
    lb = Letterbox(sx=0.3, sy=0.3, pad_x=0, pad_y=0, src_w=1280, src_h=720)
    det, cls = FakeDetector([lb.to_input(box)]), FakeClassifier(value=5, colour=2)
    model = DiceModel(det, cls)
    dice = model.read(img)
    assert len(dice) == 1
    d = dice[0]
    assert isinstance(d, RawDie)
    assert d.box == pytest.approx(box, abs=0.01)
    assert d.value == 5 and d.colour == "purple"
    assert d.det_score == pytest.approx(np.sqrt(0.9 * 0.95), abs=1e-6)
    assert len(d.value_probs) == 6 and len(d.colour_probs) == 6
    assert d.body_colour_lab[0] == pytest.approx(37.8, abs=1.5)  # grey 90 -> L ~ 38


def test_read_drops_what_the_classifier_rejects_and_empty_is_empty():
    img = np.zeros((480, 640, 3), np.uint8)
    model = DiceModel(FakeDetector([(10, 10, 30, 30)]), FakeClassifier(die=0.01))
    assert model.read(img) == []
    assert DiceModel(FakeDetector([]), FakeClassifier()).read(img) == []


def test_classifier_batches_follow_the_config():
    img = np.zeros((480, 640, 3), np.uint8)
    boxes = [(20 + 40 * i, 20 + 30 * (i % 3), 24, 24) for i in range(9)]
    cls = FakeClassifier()
    from dataclasses import replace
    model = DiceModel(FakeDetector(boxes), cls, replace(ModelConfig(), classifier_batch=4, classifier_tta=1))
    assert len(model.read(img)) == 9
    assert cls.batches == [4, 4, 1]
    # with test-time turns, a read classifies each chunk's first view, then the other three turns
    # of the boxes it can still keep (all of them here)
    cls = FakeClassifier()
    model = DiceModel(FakeDetector(boxes), cls, replace(ModelConfig(), classifier_batch=4, classifier_tta=4,
                                                                  classifier_views="turn"))
    assert len(model.read(img)) == 9
    assert cls.batches == [4, 12, 4, 12, 1, 3]
    # classify without a keep rule: each call carries the chunk at every turn
    cls.batches.clear()
    model.classify(img, boxes)
    assert cls.batches == [16, 16, 4]


def _reads(value_index):
    """Classifier outputs: value ``value_index + 1`` for each crop, colour 0, die 0.9."""
    n = len(value_index)
    v = np.zeros((n, 6), np.float32)
    v[np.arange(n), value_index] = 1.0
    c = np.zeros((n, 6), np.float32)
    c[:, 0] = 1.0
    return {"value_probs": v, "colour_probs": c, "die_prob": np.full((n, 1), 0.9, np.float32)}


class TurnSensitiveClassifier(FakeClassifier):
    """Value 1 when the crop's top-left quarter is brighter than its bottom-right, else 2."""

    def run(self, feeds):
        x = feeds["crops"]
        n, s = x.shape[0], x.shape[2]
        self.batches.append(n)
        tl = x[:, :, : s // 2, : s // 2].mean(axis=(1, 2, 3))
        br = x[:, :, s // 2:, s // 2:].mean(axis=(1, 2, 3))
        return _reads(np.where(tl > br + 0.1, 0, 1))


@pytest.mark.parametrize("tta, p_one", [(1, 1.0), (2, 0.5), (4, 0.25)])
def test_classifier_turns_are_averaged_per_die(tta, p_one):
    img = np.zeros((480, 640, 3), np.uint8)
    marked, plain = (100, 100, 100, 100), (400, 200, 100, 100)
    # a bright patch in the top-left of the first die's crop only
    img[80:130, 80:130] = 255
    model = DiceModel(FakeDetector([marked, plain]), TurnSensitiveClassifier(),
                      replace(ModelConfig(), classifier_tta=tta, classifier_views="turn"))
    vals, _, dies, _, _ = model.classify(img, [marked, plain])
    assert vals[0][:2] == pytest.approx([p_one, 1 - p_one])
    assert vals[1][:2] == pytest.approx([0.0, 1.0])
    assert dies == pytest.approx([0.9, 0.9])


class MirrorSensitiveClassifier(FakeClassifier):
    """Value 1 when the crop's left half is brighter than its right half, else 2; value 3 when
    its top half is brighter than its bottom half (checked first)."""

    def run(self, feeds):
        x = feeds["crops"]
        n, s = x.shape[0], x.shape[2]
        self.batches.append(n)
        left, right = x[:, :, :, : s // 2].mean(axis=(1, 2, 3)), x[:, :, :, s // 2:].mean(axis=(1, 2, 3))
        top, bottom = x[:, :, : s // 2].mean(axis=(1, 2, 3)), x[:, :, s // 2:].mean(axis=(1, 2, 3))
        idx = np.where(top > bottom + 0.1, 2, np.where(left > right + 0.1, 0, 1))
        return _reads(idx)


class BrightIsADieClassifier(FakeClassifier):
    """Die probability 0.95 for a crop brighter than mid-grey, else 0.01 (value 1, colour 0)."""

    def run(self, feeds):
        x = feeds["crops"]
        self.batches.append(len(x))
        out = _reads(np.zeros(len(x), int))
        out["die_prob"] = np.where(x.mean(axis=(1, 2, 3)) > 0.5, 0.95, 0.01).astype(np.float32)[:, None]
        return out


def test_a_read_gives_no_more_views_to_a_candidate_its_first_view_rules_out():
    img = np.zeros((480, 640, 3), np.uint8)
    lit, dark = (100, 100, 100, 100), (400, 200, 100, 100)
    img[60:250, 60:250] = 255
    _, lb = letterbox(img, (IN_W, IN_H))
    cls = BrightIsADieClassifier()
    # peak 0.5: a die needs a mean die probability of 0.845 (gate 0.65); the dark crop's first view
    # (0.01) leaves it at most (0.01 + 1) / 2
    model = DiceModel(FakeDetector([lb.to_input(lit), lb.to_input(dark)], score=0.5), cls,
                      replace(ModelConfig(), classifier_tta=2, classifier_views="mirror", turned_check_from=None))
    (die,) = model.read(img)
    assert die.box == pytest.approx(lit, abs=1)
    assert cls.batches == [2, 1]   # both first views, then the lit crop's mirror only
    # the kept die reads as with every view of both crops in one call
    cls.batches.clear()
    vals, cols, dies, _, _ = model.classify(img, [die.box, dark])
    assert cls.batches == [4]
    assert die.value_probs == tuple(float(v) for v in vals[0])
    assert die.det_score == pytest.approx(float(np.sqrt(0.5 * dies[0])))
    # what classify returns for a box it gave no more views: NaN
    vals, cols, dies, _, turned = model.classify(img, [die.box, dark], could_keep=lambda i, d: d > 0.8)
    assert np.isnan(vals[1]).all() and np.isnan(cols[1]).all() and np.isnan(dies[1]) and np.isnan(turned[1]).all()
    assert not np.isnan(vals[0]).any() and dies[0] == pytest.approx(0.95)


class PeaksDetector:
    """One heatmap peak per given (input-pixel box, peak score)."""

    input_names = ["image"]
    input_shapes = [(1, 3, IN_H, IN_W)]
    output_names = ["heatmap", "wh", "offset"]

    def __init__(self, boxes_scores):
        self.boxes_scores = boxes_scores

    def run(self, feeds):
        return detector_maps([(x + w / 2, y + h / 2, w, h, s) for (x, y, w, h), s in self.boxes_scores],
                             IN_W, IN_H, wh_fill=1.0)


class BrightShareClassifier(FakeClassifier):
    """Die probability 0.95 for a crop more than 40 % bright, else 0.01 (value 1, colour 0)."""

    def run(self, feeds):
        x = feeds["crops"]
        self.batches.append(len(x))
        out = _reads(np.zeros(len(x), int))
        out["die_prob"] = np.where((x.mean(axis=1) > 0.5).mean(axis=(1, 2)) > 0.4, 0.95, 0.01).astype(np.float32)[:, None]
        return out


@pytest.mark.parametrize("rounds", [0, 1, 2])
def test_a_box_found_to_be_no_die_no_longer_hides_the_dice_inside_it(rounds):
    """Two dice side by side inside a better-peaked box over both: NMS drops the two; the classifier
    finds the big box to be no die; selected again without it, the two are read (stop 68, rule S)."""
    img = np.zeros((480, 640, 3), np.uint8)
    a, b, both = (200, 200, 60, 60), (264, 200, 60, 60), (196, 186, 132, 88)
    img[200:260, 200:260] = 255
    img[200:260, 264:324] = 255
    _, lb = letterbox(img, (IN_W, IN_H))
    cls = BrightShareClassifier()
    model = DiceModel(PeaksDetector([(lb.to_input(both), 0.9), (lb.to_input(a), 0.8), (lb.to_input(b), 0.8)]), cls,
                      replace(ModelConfig(), reselect_rounds=rounds, turned_check_from=None))
    raws = model.read(img)
    if rounds == 0:
        assert raws == [] and cls.batches == [1, 1]   # the big box alone is classified (both views), and dropped
    else:
        assert np.allclose(sorted(r.box for r in raws), [a, b], atol=1)
        assert cls.batches == [1, 1, 2, 2]   # the big box; then both dice's first views and mirrors
    # detect (no classifier) keeps the big box alone, as NMS does
    assert np.allclose([c[0] for c in model.detect(img)], [both], atol=1)


def test_a_box_that_is_no_die_and_hides_nothing_is_not_selected_again(monkeypatch):
    img = np.zeros((480, 640, 3), np.uint8)
    img[200:260, 200:260] = 255
    _, lb = letterbox(img, (IN_W, IN_H))
    lit, dark = (200, 200, 60, 60), (400, 300, 60, 60)   # apart: neither box hides the other
    model = DiceModel(PeaksDetector([(lb.to_input(lit), 0.8), (lb.to_input(dark), 0.9)]), BrightShareClassifier(),
                      replace(ModelConfig(), turned_check_from=None))
    selections = []
    select = model._select
    monkeypatch.setattr(model, "_select", lambda raw, without=frozenset(): selections.append(without) or select(raw, without))
    (die,) = model.read(img)
    assert np.allclose(die.box, lit, atol=1)
    assert selections == [frozenset()]   # the dark box is no die, and it hid nothing


def test_reselect_rounds_must_be_a_count():
    with pytest.raises(ValueError, match="reselect_rounds"):
        ModelConfig(reselect_rounds=-1)


def _nms_as_a_loop(boxes, scores, iou, contained=1.01):
    """nms as written up to stop 68: the pair rule box by box (``suppressed_by``)."""
    from vision.boxes import suppressed_by

    keep = []
    for i in sorted(range(len(boxes)), key=lambda i: -scores[i]):
        if not any(suppressed_by(boxes[i], boxes[j], iou, contained) for j in keep):
            keep.append(i)
    return keep


def test_nms_keeps_what_the_pair_rule_keeps_box_by_box():
    rng = np.random.default_rng(68)
    for _ in range(400):
        n = int(rng.integers(0, 40))
        boxes = [tuple(float(v) for v in (rng.uniform(0, 100), rng.uniform(0, 100),
                                          0.0 if rng.random() < 0.05 else rng.uniform(1, 40), rng.uniform(1, 40)))
                 for _ in range(n)]
        if n > 1:
            boxes[1] = boxes[0]   # a box twice, and ties of scores
        scores = [float(rng.choice([0.5, rng.random()])) for _ in range(n)]
        for iou, contained in [(0.45, 0.75), (0.3, 1.01), (0.0, 0.5)]:
            assert nms(boxes, scores, iou, contained) == _nms_as_a_loop(boxes, scores, iou, contained)


def test_centres_in_is_the_pair_rule_for_every_pair():
    """``centres_in`` (the cross-pass merge, stop 69) against ``_centre_in`` pair by pair, boxes on
    a coarse grid so that centres fall on edges too."""
    from vision.boxes import _centre_in, centres_in

    rng = np.random.default_rng(69)
    for _ in range(300):
        n = int(rng.integers(0, 30))
        boxes = [tuple(float(v) for v in (rng.integers(0, 12) * 5, rng.integers(0, 12) * 5,
                                          rng.integers(0, 5) * 10, rng.integers(0, 5) * 10)) for _ in range(n)]
        ref = np.array([[_centre_in(a, b) for b in boxes] for a in boxes], bool).reshape(n, n)
        assert np.array_equal(centres_in(boxes), ref)
        if n:
            assert np.array_equal(centres_in(boxes[:1], boxes), ref[:1])


def test_classifier_mirror_views_keep_the_image_up():
    img = np.zeros((480, 640, 3), np.uint8)
    left_lit, top_lit = (100, 100, 100, 100), (400, 200, 100, 100)
    img[60:240, 80:150] = 255     # left part of the first die's crop, full height
    img[180:250, 380:490] = 255   # top part of the second die's crop
    cls = MirrorSensitiveClassifier()
    model = DiceModel(FakeDetector([left_lit, top_lit]), cls,
                      replace(ModelConfig(), classifier_tta=2, classifier_views="mirror"))
    vals, _, _, _, _ = model.classify(img, [left_lit, top_lit])
    # mirrored left-right: the lit side swaps, so the two views disagree and average to 1/2
    assert vals[0][:3] == pytest.approx([0.5, 0.5, 0.0])
    # the top stays the top in both views (a quarter turn would have moved it)
    assert vals[1][:3] == pytest.approx([0.0, 0.0, 1.0])
    assert cls.batches == [4]


def test_nadir_check_turns_only_the_crops_low_in_the_image_in_the_same_call():
    img = np.zeros((480, 640, 3), np.uint8)
    high, low = (100, 50, 100, 100), (400, 330, 100, 100)   # centres at y 100 and 380 (gate 288)
    img[40:95, 80:220] = 255      # top part of the high die's crop
    img[320:375, 380:520] = 255   # top part of the low die's crop
    cls = MirrorSensitiveClassifier()
    _, lb = letterbox(img, (IN_W, IN_H))
    model = DiceModel(FakeDetector([lb.to_input(high), lb.to_input(low)]), cls, replace(ModelConfig(), turned_check_from=0.6))
    raws = sorted(model.read(img), key=lambda r: r.box[1])
    assert [r.value for r in raws] == [3, 3]
    assert raws[0].turned_value_probs is None
    assert [r.centre_y_share for r in raws] == pytest.approx([100 / 480, 380 / 480], abs=0.01)
    # turned 180 degrees the lit part is at the bottom: no longer value 3
    assert int(np.argmax(raws[1].turned_value_probs)) + 1 != 3
    # the first view of both crops, then the mirrored views of both and the low one turned
    assert cls.batches == [2, 3]
    cls.batches.clear()
    vals, _, _, _, turned = model.classify(img, [high, low], [False, True])
    assert cls.batches == [5]   # without a keep rule: every view in one call
    assert np.isnan(turned[0]).all() and not np.isnan(turned[1]).any()
    assert vals[1][2] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="one flag per box"):
        model.classify(img, [high, low], [True])


def test_nadir_check_off_turns_nothing():
    img = np.zeros((480, 640, 3), np.uint8)
    cls = MirrorSensitiveClassifier()
    model = DiceModel(FakeDetector([(240, 198, 60, 60)]), cls, replace(ModelConfig(), turned_check_from=None))
    (r,) = model.read(img)
    assert r.turned_value_probs is None and cls.batches == [1, 1]
    with pytest.raises(ValueError, match="turned_check_from"):
        ModelConfig(turned_check_from=1.5)


def test_classifier_tta_must_be_one_to_four():
    with pytest.raises(ValueError, match="classifier_tta"):
        ModelConfig(classifier_tta=5)
    with pytest.raises(ValueError, match="classifier_views"):
        ModelConfig(classifier_views="flip")
    with pytest.raises(ValueError, match="mirror"):
        ModelConfig(classifier_views="mirror", classifier_tta=3)


def test_mismatched_models_raise_clear_errors():
    class Wrong(FakeDetector):
        input_names = ["input"]
    with pytest.raises(ModelMismatchError, match="image"):
        DiceModel(Wrong([]), FakeClassifier())

    class NoOffset(FakeDetector):
        output_names = ["heatmap", "wh"]
    with pytest.raises(ModelMismatchError, match="offset"):
        DiceModel(NoOffset([]), FakeClassifier())

    class HalfOpen(FakeDetector):
        input_shapes = [(1, 3, IN_H, None)]
    with pytest.raises(ModelMismatchError, match="fixed height and width, or both open"):
        DiceModel(HalfOpen([]), FakeClassifier())

    class Grey(FakeClassifier):
        input_shapes = [(None, 1, 64, 64)]
    with pytest.raises(ModelMismatchError, match="crops"):
        DiceModel(FakeDetector([]), Grey())


def test_bad_images_raise_value_errors():
    model = DiceModel(FakeDetector([]), FakeClassifier())
    for bad in (np.zeros((10, 10), np.uint8), np.zeros((10, 10, 4), np.uint8), np.zeros((10, 10, 3), np.float32)):
        with pytest.raises(ValueError, match="uint8 BGR"):
            model.read(bad)


def test_from_files_names_the_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="dice_detector.onnx"):
        DiceModel.from_files(lambda p: None, tmp_path)


def test_crop_replicates_outside_the_image_and_body_colour_skips_pips():
    img = np.zeros((100, 100, 3), np.uint8)
    img[:, :, 2] = 200  # red body
    crop = crop_for_classifier(img, (-20, -20, 40, 40), 64, 1.3)
    assert crop.shape == (64, 64, 3) and (crop[..., 2] == 200).all()
    # a red die face with white pips: the body colour stays red
    face = np.zeros((64, 64, 3), np.uint8)
    face[:] = (40, 35, 195)
    for cx, cy in ((26, 26), (38, 38), (32, 32)):
        face[cy - 3:cy + 3, cx - 3:cx + 3] = 255
    L, a, b = body_colour_lab(face)
    L0, a0, b0 = body_colour_lab(np.full((64, 64, 3), (40, 35, 195), np.uint8))
    assert (L, a, b) == pytest.approx((L0, a0, b0), abs=1.0)
    assert a > 40  # red


def test_letterbox_resizes_bilinear_down_to_half_and_averages_areas_below():
    import cv2
    from vision.model import LETTERBOX_AREA_BELOW
    img = np.random.default_rng(3).integers(0, 255, (480, 640, 3)).astype(np.uint8)
    canvas, lb = letterbox(img, (512, 384))          # x0.8: bilinear (v8)
    assert lb.sx == pytest.approx(0.8) and 0.8 >= LETTERBOX_AREA_BELOW
    assert np.array_equal(canvas, cv2.resize(img, (512, 384), interpolation=cv2.INTER_LINEAR))
    canvas, lb = letterbox(img, (160, 120))          # x0.25: area averaging (no aliasing)
    assert lb.sx < LETTERBOX_AREA_BELOW
    assert np.array_equal(canvas, cv2.resize(img, (160, 120), interpolation=cv2.INTER_AREA))


class OpenDetector(FakeDetector):
    """A detector whose input size is open: one peak per die given in the photo's pixels,
    wherever an input showing the whole photo from its top-left corner puts it (the first pass,
    the single finer-pass input); it records the shapes it is fed."""

    input_shapes = [(1, 3, None, None)]

    def __init__(self, boxes_photo, photo_w, photo_h):
        super().__init__([])
        self.boxes_photo, self.photo = boxes_photo, (photo_w, photo_h)

    def run(self, feeds):
        x = feeds["image"]
        h, w = x.shape[2:]
        assert h % 32 == 0 and w % 32 == 0
        self.calls.append(x.shape)
        # the input's scale: the first pass letterboxes, the finer pass is the photo resized
        s = min(w / self.photo[0], h / self.photo[1]) if len(self.calls) == 1 else self.scale
        peaks = [((x0 + bw / 2) * s, (y0 + bh / 2) * s, bw * s, bh * s, 0.9) for x0, y0, bw, bh in self.boxes_photo
                 if (x0 + bw / 2) * s < w and (y0 + bh / 2) * s < h]
        return detector_maps(peaks, w, h, wh_fill=1.0)


@pytest.mark.parametrize("config, fed", [
    (ModelConfig(), (512, 384)),
    (ModelConfig(detector_input=(640, 480)), (640, 480)),
])
def test_an_open_size_detector_is_fed_the_configured_input(config, fed):
    det = OpenDetector([(200.0, 150.0, 60.0, 60.0)], 640, 480)
    model = DiceModel(det, FakeClassifier(), config)
    assert model.resizable and model.input_size == fed
    found = model.detect(np.full((480, 640, 3), 90, np.uint8))
    assert [c[2:] for c in det.calls] == [(fed[1], fed[0])]
    assert len(found) == 1 and found[0][0] == pytest.approx((200.0, 150.0, 60.0, 60.0), abs=640 / fed[0] * 4)


def test_the_finer_pass_is_one_input_of_at_most_fine_max_px_with_an_open_size_detector():
    """ModelConfig.fine_max_px (stop 63): a large photo whose first pass finds small dice is seen
    again as ONE input, the photo resized as finely as the pixel budget allows (padded to a
    multiple of 32), its boxes mapped back to the photo's pixels."""
    W, H = 2016, 1512
    boxes = [(300.0, 400.0, 50.0, 50.0), (1500.0, 1100.0, 48.0, 52.0)]
    det = OpenDetector(boxes, W, H)
    model = DiceModel(det, FakeClassifier(), ModelConfig())
    assert model.single_fine()
    plan = model.fine_plan(W, H, [50 * 512 / W])
    scale = plan[0]
    assert scale > min(2 * 512 - 64, 2 * 384 - 64) / 1512       # finer than 2x2 tiles (0.466)
    w2, h2 = int(W * scale), int(H * scale)
    pw, ph = -(-w2 // 32) * 32, -(-h2 // 32) * 32
    assert pw * ph <= model.config.fine_max_px < (-(-int(W * scale * 1.02) // 32) * 32) * (-(-int(H * scale * 1.02) // 32) * 32)
    det.scale = w2 / W
    found = model.detect(np.full((H, W, 3), 90, np.uint8))
    assert [c[2:] for c in det.calls] == [(384, 512), (ph, pw)]
    got = sorted(b for b, _ in found)
    assert len(got) == 2 and all(g == pytest.approx(b, abs=4 / scale) for g, b in zip(got, sorted(boxes)))


def test_the_single_finer_input_runs_whatever_the_first_pass_found():
    """Stop 71, rule F: the reader's one finer input of a large photo is neither gated by the
    first pass's smallest candidate (``fine_below_px``) nor aimed at it (``fine_target_px``): a
    coarse box over two touching dice measures no die. It runs at the finest scale the pixels
    allow; the tiles (a fixed-size model, the table detector's learner) keep the gate and the aim."""
    W, H = 2016, 1512
    det = OpenDetector([(300.0, 400.0, 300.0, 300.0)], W, H)    # 76 px in the first pass
    model = DiceModel(det, FakeClassifier(), ModelConfig())
    finest = model.fine_plan(W, H, [])
    assert finest is not None and finest[0] == pytest.approx(0.508, abs=0.001)
    assert model.fine_plan(W, H, [76.0]) == finest == model.fine_plan(W, H, [12.0])
    assert model.fine_plan(W, H, [76.0], as_tiles=True) is None
    assert model.fine_plan(W, H, [12.0], as_tiles=True)[0] < finest[0]
    det.scale = int(W * finest[0]) / W
    model.detect(np.full((H, W, 3), 90, np.uint8))
    assert len(det.calls) == 2                                  # the first pass and the finer input
    off = DiceModel(OpenDetector([(300.0, 400.0, 300.0, 300.0)], W, H), FakeClassifier(),
                    ModelConfig(fine_below_px=None))
    assert off.fine_plan(W, H, []) is None
    assert DiceModel(det, FakeClassifier()).fine_plan(800, 600, []) is None   # shrunk by less than half
    # rule F2: between fine_always_at_most (0.3) and half (a 1280x720 frame, 0.4) the gate and the
    # aim stand: large candidates, no finer pass; a small one, the scale that shows it at 32 px
    assert model.fine_plan(1280, 720, [30.0]) is None
    assert model.fine_plan(1280, 720, [16.0])[0] == pytest.approx(0.4 * 32 / 16)
    assert model.fine_plan(1280, 720, []) is not None
    wide = DiceModel(det, FakeClassifier(), ModelConfig(fine_always_at_most=0.5))
    assert wide.fine_plan(1280, 720, [30.0]) == wide.fine_plan(1280, 720, [])


def test_tiles_where_the_input_size_is_fixed_or_fine_max_px_is_none():
    """A fixed-size model (an older table's adapted detector) and ``fine_max_px=None`` keep the
    2x2 tiles of the detector's input size."""
    W, H = 2016, 1512
    image = np.full((H, W, 3), 90, np.uint8)
    det = OpenDetector([(300.0, 400.0, 50.0, 50.0)], W, H)
    det.scale = 1.0
    model = DiceModel(det, FakeClassifier(), ModelConfig(fine_max_px=None))
    assert not model.single_fine()
    model.detect(image)
    assert [c[2:] for c in det.calls] == [(384, 512)] * 5

    class Fixed(FakeDetector):
        input_shapes = [(1, 3, 384, 512)]

        def run(self, feeds):
            self.calls.append(feeds["image"].shape)
            return detector_maps([(30.0, 40.0, 6.0, 6.0, 0.9)] if len(self.calls) == 1 else [], 512, 384, wh_fill=1.0)
    fixed = Fixed([])
    model = DiceModel(fixed, FakeClassifier())
    assert not model.resizable and not model.single_fine()
    model.detect(image)
    assert [c[2:] for c in fixed.calls] == [(384, 512)] * 5


@pytest.mark.parametrize("field, value, match", [
    ("detector_input", (500, 384), "multiples of 32"),
    ("detector_input", (512,), "multiples of 32"),
    ("fine_max_px", 512 * 384 - 1, "fine_max_px"),
])
def test_detector_sizes_are_checked(field, value, match):
    with pytest.raises(ValueError, match=match):
        ModelConfig(**{field: value})


def test_a_larger_input_keeps_as_many_candidates_per_its_area():
    """``max_candidates`` is per input of ``detector_input``'s area: the finer pass's single input
    of 1152x864 (5.06 such areas) keeps up to 6 x 60 peaks, so a crowded large photo loses none
    (stop 63: 4x4 mosaics of 68-72 dice lost dice at 60)."""
    cfg = ModelConfig()
    w, h = 1152, 864
    peaks = [(16.0 + 24 * (i % 45), 16.0 + 24 * (i // 45), 8.0, 8.0, 0.5 + i / 1000) for i in range(300)]
    maps = detector_maps(peaks, w, h, wh_fill=1.0)
    assert len(decode_detections(maps["heatmap"], maps["wh"], maps["offset"], (w, h), cfg)) == 300
    small = detector_maps([(16.0 + 24 * (i % 20), 16.0 + 24 * (i // 20), 8.0, 8.0, 0.5) for i in range(90)],
                          512, 384, wh_fill=1.0)
    assert len(decode_detections(small["heatmap"], small["wh"], small["offset"], (512, 384), cfg)) == 60


class TwoPassDetector(FakeDetector):
    """Open-size: the first call (the first pass) and the second (the finer pass's single input)
    each put the peaks given for them, in photo pixels, at their own scale."""

    input_shapes = [(1, 3, None, None)]

    def __init__(self, first, fine, photo_w, photo_h):
        super().__init__([])
        self.first, self.fine, self.photo = first, fine, (photo_w, photo_h)

    def run(self, feeds):
        x = feeds["image"]
        h, w = x.shape[2:]
        self.calls.append(x.shape)
        peaks = self.first if len(self.calls) == 1 else self.fine
        s = min(w / self.photo[0], h / self.photo[1]) if len(self.calls) == 1 else self.scale
        return detector_maps([((x0 + bw / 2) * s, (y0 + bh / 2) * s, bw * s, bh * s, p) for x0, y0, bw, bh, p in peaks],
                             w, h, wh_fill=1.0)


def test_one_die_boxed_by_both_passes_is_one_candidate():
    """Stop 63 (F3): a die both passes box, each box's centre inside the other (the first pass's
    box coarse, so NMS keeps both), is one candidate, the better peak's; a die beside it stays."""
    W, H = 2016, 1512
    image = np.full((H, W, 3), 90, np.uint8)

    def detect(first, fine):
        det = TwoPassDetector(first, fine, W, H)
        model = DiceModel(det, FakeClassifier())
        smallest = min(float(np.sqrt(b[2] * b[3])) * 512 / W for b in first)
        det.scale = int(W * model.fine_plan(W, H, [smallest])[0]) / W
        found = model.detect(image)
        assert len(det.calls) == 2
        return found

    coarse = (290.0, 390.0, 80.0, 76.0, 0.6)      # the first pass: a 20 px peak, box too large
    tight = (305.0, 402.0, 44.0, 46.0, 0.9)       # the finer pass: the die itself
    got = detect([coarse], [tight])
    assert len(got) == 1 and got[0][0] == pytest.approx(tight[:4], abs=3) and got[0][1] == pytest.approx(0.9)
    # the first pass's box wins where its peak is the better one
    got = detect([coarse[:4] + (0.95,)], [tight])
    assert len(got) == 1 and got[0][1] == pytest.approx(0.95)
    # two dice side by side, the first pass boxing the left one coarsely: two candidates, the
    # right die's centre is not in the left die's coarse box
    left, right = (300.0, 400.0, 48.0, 48.0, 0.9), (352.0, 400.0, 48.0, 48.0, 0.9)
    boxes = sorted(b for b, _ in detect([(288.0, 390.0, 70.0, 66.0, 0.6)], [left, right]))
    assert len(boxes) == 2 and boxes[0] == pytest.approx(left[:4], abs=3) and boxes[1] == pytest.approx(right[:4], abs=3)


def test_the_gate_and_the_first_pass_scale_are_written_once():
    """(stop 73) ``ModelConfig.gate`` is min_det_score squared; ``DiceModel.first_scale`` the scale of the letterbox."""
    from dataclasses import replace
    assert replace(ModelConfig(), min_det_score=0.5).gate == 0.25
    cfg = ModelConfig()
    assert cfg.lowest_kept_peak == min(cfg.gate, cfg.faint_peak_from)
    from vision.imaging import letterbox as imaging_letterbox
    assert imaging_letterbox is letterbox
    model = DiceModel(FakeDetector([]))
    assert model.first_scale(IN_W * 4, IN_H * 2) == 0.25 and model.first_scale(IN_W // 2, IN_H) == 1.0
