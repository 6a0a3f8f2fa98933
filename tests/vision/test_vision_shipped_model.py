"""The committed ONNX models: signature, size, and the samples in samples/dice read right.
(The shipped model on lab renders and the trainer's hard crops: tests/visionlab/test_shipped_model_lab.py.)"""
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


def test_a_read_classifies_fewer_views_and_reads_the_same(model):
    """A read gives the other views only to candidates the first view leaves a chance (stop 68); its
    dice are exactly those of every view of every candidate in one call."""
    counted = []

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def run(self, feeds):
            counted.append(len(feeds[CLASSIFIER_INPUT]))
            return self.inner.run(feeds)

    one_call = DiceModel(model.detector, Counting(model.classifier), model.config)
    one_call.classify = lambda image, boxes, turned=None, could_keep=None: DiceModel.classify(
        one_call, image, boxes, turned)
    staged = DiceModel(model.detector, Counting(model.classifier), model.config)
    fewer = 0
    for path in SAMPLE_FILES:
        img = cv2.imread(str(path.parent / json.loads(path.read_text())["image"]))
        counted.clear()
        expected = one_call.read(img)
        views_one = sum(counted)
        counted.clear()
        assert staged.read(img) == expected, path.name
        assert sum(counted) <= views_one
        fewer += sum(counted) < views_one
    assert fewer >= 1   # samples/dice/no_dice.jpg: 4 candidates, none a die after its first view


def test_empty_table_reads_nothing(model):
    # a plain grey image and a wood-like gradient: no dice
    assert model.read(np.full((480, 640, 3), 128, np.uint8)) == []
