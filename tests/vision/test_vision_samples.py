"""The shipped model on our own renders in samples/dice/, on both runtimes.  Skips cleanly while
models/ or samples/dice/ is missing.  (On the real photos, read with the benchmark's dataset
reader: tests/visionlab/test_real_photos.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.reader import DiceReader
from vision_testutil import REPO, make_scene

MODELS = REPO / "models"
SAMPLES = REPO / "samples" / "dice"

needs_model = pytest.mark.skipif(
    not (MODELS / "dice_detector.onnx").exists(), reason="the trained model is not in models/ yet"
)


def sample_pairs() -> list[tuple[Path, Path]]:
    """(image, expected-read JSON) pairs: samples/dice/NAME.json next to NAME.<jpg|png>."""
    pairs = []
    for js in sorted(SAMPLES.glob("*.json")) if SAMPLES.is_dir() else []:
        for ext in (".jpg", ".png", ".jpeg"):
            img = js.with_suffix(ext)
            if img.exists():
                pairs.append((img, js))
                break
    return pairs


def expected_dice(js: Path) -> list[dict]:
    data = json.loads(js.read_text())
    return data["dice"] if isinstance(data, dict) else data


@pytest.fixture(scope="module")
def readers() -> dict[str, DiceReader]:
    return {b: DiceReader.from_files(backend=b) for b in ("onnxruntime", "opencv")}


def _iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    u = aw * ah + bw * bh - ix * iy
    return ix * iy / u if u else 0.0


@needs_model
@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
def test_samples_read_as_expected(readers, backend: str) -> None:
    pairs = sample_pairs()
    if not pairs:
        pytest.skip("samples/dice/ is not there yet")
    for img, js in pairs:
        result = readers[backend].read(img)
        assert result.error is None, (img.name, result.error)
        want = expected_dice(js)
        got = [d.to_json() for d in result.dice]
        # every expected die is read with its colour and value, at its place, and nothing else
        assert len(got) == len(want), (img.name, got, want)
        unmatched = list(got)
        for w in want:
            best = max(unmatched, key=lambda g: _iou(g["box"], w["box"]), default=None)
            assert best is not None and _iou(best["box"], w["box"]) >= 0.5, (img.name, w, got)
            assert (best["colour"], best["value"]) == (w["colour"], w["value"]), (img.name, w, best)
            unmatched.remove(best)


def _same_reads(a, b) -> None:
    assert a.error == b.error
    assert len(a.dice) == len(b.dice)
    for x, y in zip(a.dice, b.dice):
        assert (x.colour, x.value, x.unsure) == (y.colour, y.value, y.unsure)
        assert max(abs(p - q) for p, q in zip(x.box, y.box)) <= 1
        assert abs(x.confidence - y.confidence) < 0.01


@needs_model
def test_onnxruntime_and_opencv_give_the_same_reads(readers, tmp_path: Path) -> None:
    images: list = [img for img, _ in sample_pairs()]
    scene, _ = make_scene([("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4), ("green", 5), ("red", 6)])
    images.append(scene)
    assert images
    for img in images:
        _same_reads(readers["onnxruntime"].read(img), readers["opencv"].read(img))
