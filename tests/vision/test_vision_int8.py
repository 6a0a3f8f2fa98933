"""The detector's int8 twin (stop 71, rule I8): the reader reads it where it lies beside the
detector file it was made from, and never the twin of another detector file."""
import shutil

import numpy as np

from vision.model import DEFAULT_MODEL_DIR, DiceModel, ModelConfig, int8_twin
from vision.reader import DiceReader
from vision.runtime import create_runtime

SHIPPED = DEFAULT_MODEL_DIR / ModelConfig().detector_file


def _factory(path):
    return create_runtime(path, backend="onnxruntime", threads=1)


def test_the_shipped_detector_has_its_int8_twin_and_the_reader_reads_it():
    twin = int8_twin(SHIPPED)
    assert twin.is_file() and twin.name.startswith("dice_detector.int8.") and twin.stat().st_size < SHIPPED.stat().st_size
    assert DiceReader.from_files(threads=1).model.detector.path == twin
    fp32 = DiceModel.from_files(_factory, config=ModelConfig(int8_detector=False))
    assert fp32.detector.path == SHIPPED


def test_the_twin_is_named_after_its_detector_bytes(tmp_path):
    """A detector file written anew (another export, another table's learn) does not read with
    the twin of the file before it: the twin's name holds the detector's hash."""
    det = tmp_path / "dice_detector.onnx"
    shutil.copyfile(SHIPPED, det)
    shutil.copyfile(DEFAULT_MODEL_DIR / ModelConfig().classifier_file, tmp_path / "dice_classifier.onnx")
    assert DiceModel.from_files(_factory, tmp_path).detector.path == det          # no twin here: fp32
    shutil.copyfile(int8_twin(SHIPPED), int8_twin(det))
    assert int8_twin(det).name == int8_twin(SHIPPED).name
    assert DiceModel.from_files(_factory, tmp_path).detector.path == int8_twin(det)
    det.write_bytes(SHIPPED.read_bytes() + b"\0")                                  # another detector file
    assert int8_twin(det).name != int8_twin(SHIPPED).name and not int8_twin(det).is_file()


def test_the_twin_reads_the_detector_heatmap_closely():
    """int8 is not fp32: the heatmap moves by a few hundredths, its peaks stay (the reads: the
    bench, docs/vision-history.md, stop 71)."""
    rng = np.random.default_rng(0)
    x = np.full((1, 3, 384, 512), 0.45, np.float32)
    for _ in range(6):   # light squares with dark dots on a grey table
        cx, cy = rng.integers(40, 470), rng.integers(40, 340)
        x[0, :, cy - 14:cy + 14, cx - 14:cx + 14] = 0.95
        x[0, :, cy - 3:cy + 3, cx - 3:cx + 3] = 0.1
    a = _factory(str(SHIPPED)).run({"image": x})["heatmap"]
    b = _factory(str(int8_twin(SHIPPED))).run({"image": x})["heatmap"]
    assert a.shape == b.shape and float(np.abs(a - b).max()) < 0.1
