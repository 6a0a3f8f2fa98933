"""The shipped model on the real photos when ../shared is present, read with the benchmark's dataset
reader (moved from tests/vision/test_vision_samples.py).  Skips cleanly while models/ is missing."""

from __future__ import annotations

import pytest

from vision.reader import DiceReader
from vision_testutil import REAL_DICE, REPO
from visionlab.bench import match_by_centre, read_yolo_labels, real_splits

MODELS = REPO / "models"

needs_model = pytest.mark.skipif(
    not (MODELS / "dice_detector.onnx").exists(), reason="the trained model is not in models/ yet"
)


@pytest.fixture(scope="module")
def readers() -> dict[str, DiceReader]:
    return {b: DiceReader.from_files(backend=b) for b in ("onnxruntime",)}


@needs_model
def test_real_photos_value_reading_when_present(readers) -> None:
    """A small smoke check on the real photos (the full figures come from the benchmark)."""
    if not REAL_DICE.is_dir():
        pytest.skip("../shared/datasets/real-dice is absent (a fresh clone has no ../shared)")
    pairs = real_splits(REAL_DICE).get("matteo-white/valid", [])[:20]
    if not pairs:
        pytest.skip("no matteo-white/valid split")
    labels_total = matched = right = 0
    for img, lab in pairs:
        result = readers["onnxruntime"].read(img)
        assert result.error is None
        labels = read_yolo_labels(lab, *result.image_size)
        pairs_ = match_by_centre([d.box for d in result.dice], [(x, y) for _, x, y in labels])
        labels_total += len(labels)
        matched += len(pairs_)
        right += sum(result.dice[i].value == labels[j][0] for i, j in pairs_)
    assert labels_total > 0
    # loose floors: catches a broken pipeline (boxes in the wrong frame, values off by one),
    # not a benchmark
    assert matched / labels_total >= 0.8
    assert right / max(matched, 1) >= 0.8
