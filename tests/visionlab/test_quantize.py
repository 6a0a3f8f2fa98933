"""visionlab.train.quantize: the detector's int8 twin (stop 71, rule I8)."""
import shutil

import numpy as np
import pytest

from vision.boxes import _iou
from vision.model import DEFAULT_MODEL_DIR, DiceModel, ModelConfig, int8_twin, letterbox
from vision.runtime import create_runtime
from visionlab.bench.large import large_scene
from visionlab.render.synth import render_indexed
from visionlab.train.quantize import canvases, quantize_detector, reader_inputs

SHIPPED = DEFAULT_MODEL_DIR / ModelConfig().detector_file


def test_the_reader_inputs_are_the_first_pass_and_the_finer_input_of_a_large_photo():
    small = render_indexed(31500, 0, "webcam")[0]
    large = large_scene(31502, 0, size=(2016, 1512))[0]
    feeds = reader_inputs(SHIPPED, [small, large])
    assert [f.shape for f in feeds] == [(1, 3, 384, 512), (1, 3, 384, 512), (1, 3, 768, 1024)]
    assert all(f.dtype == np.float32 and 0 <= f.min() and f.max() <= 1 for f in feeds)


def test_a_detector_quantized_beside_itself_is_read_by_the_reader(tmp_path):
    det = tmp_path / "dice_detector.onnx"
    shutil.copyfile(SHIPPED, det)
    shutil.copyfile(DEFAULT_MODEL_DIR / ModelConfig().classifier_file, tmp_path / "dice_classifier.onnx")
    images = [render_indexed(31500, i, "webcam")[0] for i in range(3)]
    out = quantize_detector(det, canvases(letterbox(im, (512, 384))[0] for im in images))
    assert out == int8_twin(det) and out.is_file() and not list(tmp_path.glob("*.part"))
    model = DiceModel.from_files(lambda p: create_runtime(p, threads=1), tmp_path)
    assert model.detector.path == out
    # the twin finds the dice the fp32 file finds on a scene it was not calibrated on
    scene = render_indexed(31500, 7, "webcam")[0]
    fp32 = DiceModel.from_files(lambda p: create_runtime(p, threads=1), tmp_path, ModelConfig(int8_detector=False))
    a, b = [sorted(box for box, _ in m.detect(scene)) for m in (fp32, model)]
    assert len(a) == len(b) and all(max(_iou(x, y) for y in b) > 0.8 for x in a)


def test_no_calibration_input_is_an_error_and_writes_nothing(tmp_path):
    det = tmp_path / "dice_detector.onnx"
    shutil.copyfile(SHIPPED, det)
    with pytest.raises(ValueError, match="no calibration input"):
        quantize_detector(det, [])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dice_detector.onnx"]
