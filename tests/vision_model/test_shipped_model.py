"""The committed ONNX models: signature, size, and the samples in samples/dice read right."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.model import (CLASSIFIER_INPUT, CLASSIFIER_OUTPUTS, DEFAULT_MODEL_DIR, DETECTOR_INPUT,
                          DETECTOR_OUTPUTS, DiceModel, _iou)
from vision.runtime import create_runtime

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "dice"
SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))


@pytest.fixture(scope="module")
def model():
    return DiceModel.from_files(lambda p: create_runtime(p, backend="onnxruntime", threads=1))


def test_model_files_exist_and_are_small():
    files = [DEFAULT_MODEL_DIR / "dice_detector.onnx", DEFAULT_MODEL_DIR / "dice_classifier.onnx"]
    assert all(f.is_file() for f in files)
    assert sum(f.stat().st_size for f in files) <= 5 * 1024 * 1024


def test_model_signatures(model):
    assert model.detector.input_names == [DETECTOR_INPUT]
    assert set(DETECTOR_OUTPUTS) <= set(model.detector.output_names)
    assert model.classifier.input_names == [CLASSIFIER_INPUT]
    assert set(CLASSIFIER_OUTPUTS) <= set(model.classifier.output_names)
    assert model.input_size == (512, 384) and model.crop_size == 64   # v8 (v1-v7: 384 x 288)


def test_there_are_samples_including_one_without_dice():
    assert len(SAMPLE_FILES) >= 4
    docs = [json.loads(f.read_text()) for f in SAMPLE_FILES]
    assert any(d["dice"] == [] for d in docs)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=[f.stem for f in SAMPLE_FILES])
def test_shipped_model_reads_the_samples_right(model, path):
    doc = json.loads(path.read_text())
    img = cv2.imread(str(path.parent / doc["image"]))
    assert img is not None
    preds = model.read(img)
    expected = doc["dice"]
    assert len(preds) == len(expected), [(p.box, p.value, p.colour) for p in preds]
    used = set()
    for e in expected:
        i = max(range(len(preds)), key=lambda k: _iou(preds[k].box, e["box"]))
        assert i not in used and _iou(preds[i].box, e["box"]) >= 0.5
        used.add(i)
        p = preds[i]
        colour = "unknown" if p.colour == "other" else p.colour
        assert (colour, p.value) == (e["colour"], e["value"])
        assert abs(sum(p.value_probs) - 1) < 1e-3 and abs(sum(p.colour_probs) - 1) < 1e-3


def test_empty_table_reads_nothing(model):
    # a plain grey image and a wood-like gradient: no dice
    assert model.read(np.full((480, 640, 3), 128, np.uint8)) == []


def test_hard_crops_label_the_shipped_models_candidates(tmp_path):
    from vision.train.hard import build_hard_crops
    a = build_hard_crops(tmp_path / "hard.npz", seed=2002, count=2, log=lambda s: None)
    n = len(a["crops"])
    assert n > 0 and a["crops"].shape == (n, 64, 64, 3) and a["crops"].dtype == np.uint8
    assert all(len(a[k]) == n for k in ("value", "colour", "die", "hard"))
    dice = a["die"] == 1
    # die crops carry a value 0..5 and colour 0..5; not-a-die crops carry neither
    assert ((a["value"][dice] >= 0) & (a["value"][dice] <= 5)).all() and (a["colour"][dice] >= 0).all()
    assert (a["value"][~dice] == -1).all() and (a["colour"][~dice] == -1).all()
    only = build_hard_crops(tmp_path / "only.npz", seed=2002, count=2, hard_only=True, log=lambda s: None)
    assert len(only["crops"]) == int(a["hard"].sum()) and only["hard"].all()
    build_hard_crops(tmp_path / "all.npz", seed=2002, count=2, hard_only_out=tmp_path / "both.npz", log=lambda s: None)
    both = np.load(tmp_path / "both.npz")
    assert np.array_equal(both["crops"], only["crops"]) and np.array_equal(both["value"], only["value"])
    with pytest.raises(ValueError, match="count"):
        build_hard_crops(tmp_path / "x.npz", seed=2002, count=0)


def test_nadir_check_doubts_a_side_face_read_as_the_top():
    """Tuning scene 919191/543: a camera looking almost straight down; the green 5 near the
    bottom edge shows a side face (3) above its top face. Both upright views read 3; the crop
    turned 180 degrees reads 5, so the read must not be sure (without the check: v9 a sure 3 at
    0.957, v14 a 3 at 0.934)."""
    from dataclasses import replace

    from vision.reader import DiceReader
    from vision.synth import render_indexed

    img, truths, _ = render_indexed(919191, 543, "webcam")
    (truth,) = [t for t in truths if t.value == 5 and t.colour == "green" and t.box[1] > 600]
    shipped = DiceModel.from_files(lambda p: create_runtime(p, backend="onnxruntime", threads=1))
    default = shipped.config.turned_check_from
    assert default is not None   # the check is on by default
    reads = {}
    for check in (None, default):
        shipped.config = replace(shipped.config, turned_check_from=check)
        dice = DiceReader(shipped).read(img).dice
        die = max(dice, key=lambda d: _iou(d.box, truth.box))
        assert _iou(die.box, truth.box) > 0.5
        reads[check] = die
    # without the check the model reads the side face (v9-v13 sure of it, v14 already unsure);
    # with it (the default) the read is unsure and doubted below that
    assert reads[None].value == 3
    assert reads[default].unsure and reads[default].confidence < reads[None].confidence
