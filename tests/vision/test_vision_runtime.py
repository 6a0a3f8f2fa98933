from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.runtime import (
    ModelLoadError,
    OnnxRuntime,
    OpenCVRuntime,
    Runtime,
    RuntimeInputError,
    create_runtime,
    read_onnx_signature,
)

from vision_testutil import build_tiny_classifier


@pytest.mark.parametrize("backend", ["onnxruntime", "opencv", "auto"])
def test_missing_model_fails_fast(tmp_path: Path, backend: str) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        create_runtime(tmp_path / "nope.onnx", backend)


@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
@pytest.mark.parametrize(
    "content,reason",
    [(b"", "empty"), (b"hello, this is text\n", "not a valid ONNX"), (b"\x3a\x05ab", "truncated")],
)
def test_corrupt_model_fails_fast(tmp_path: Path, backend: str, content: bytes, reason: str) -> None:
    p = tmp_path / "bad.onnx"
    p.write_bytes(content)
    with pytest.raises(ModelLoadError, match=reason):
        create_runtime(p, backend)


def test_directory_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="directory"):
        create_runtime(tmp_path)


def test_unknown_backend() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        create_runtime("x.onnx", "tensorrt")


def test_truncated_real_model_fails_fast(tiny_onnx: Path, tmp_path: Path) -> None:
    data = tiny_onnx.read_bytes()
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(data[: len(data) // 2])
    for backend in ("onnxruntime", "opencv"):
        with pytest.raises(ModelLoadError):
            create_runtime(cut, backend)


def test_signature_read_without_onnx_package(tiny_onnx: Path) -> None:
    sig = read_onnx_signature(tiny_onnx)
    assert [t.name for t in sig.inputs] == ["images"]  # initializers are not inputs
    assert sig.inputs[0].shape == (None, 3, 32, 32)
    assert sig.inputs[0].elem_type == 1
    assert [t.name for t in sig.outputs] == ["probs", "logits"]


@pytest.mark.parametrize("cls", [OnnxRuntime, OpenCVRuntime])
def test_runtime_reports_model_signature(tiny_onnx: Path, cls: type) -> None:
    rt = cls(tiny_onnx)
    assert isinstance(rt, Runtime)
    assert rt.input_names == ["images"]
    assert rt.input_shapes == [(None, 3, 32, 32)]
    assert rt.output_names == ["probs", "logits"]


def test_both_backends_agree_on_batches(tiny_onnx: Path) -> None:
    x = np.random.default_rng(1).random((5, 3, 32, 32), dtype=np.float32)
    a = create_runtime(tiny_onnx, "onnxruntime").run({"images": x})
    b = create_runtime(tiny_onnx, "opencv").run({"images": x})
    assert set(a) == set(b) == {"probs", "logits"}
    for k in a:
        assert a[k].shape == b[k].shape
        np.testing.assert_allclose(a[k], b[k], atol=1e-4)
    np.testing.assert_allclose(a["probs"].sum(axis=1), 1.0, atol=1e-5)


def test_opencv_fixed_batch_model_runs_one_at_a_time_only_when_dynamic(tmp_path: Path) -> None:
    fixed = build_tiny_classifier(tmp_path / "fixed.onnx", dynamic_batch=False)
    rt = OpenCVRuntime(fixed)
    assert rt.input_shapes == [(1, 3, 32, 32)]
    one = rt.run({"images": np.zeros((1, 3, 32, 32), np.float32)})
    assert one["probs"].shape == (1, 6)
    with pytest.raises(RuntimeInputError, match="axis 0 must be 1"):
        rt.run({"images": np.zeros((2, 3, 32, 32), np.float32)})


@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
def test_bad_inputs_are_rejected_clearly(tiny_onnx: Path, backend: str) -> None:
    rt = create_runtime(tiny_onnx, backend)
    with pytest.raises(RuntimeInputError, match="missing"):
        rt.run({"pixels": np.zeros((1, 3, 32, 32), np.float32)})
    with pytest.raises(RuntimeInputError, match="rank 4"):
        rt.run({"images": np.zeros((3, 32, 32), np.float32)})
    with pytest.raises(RuntimeInputError, match="axis 3 must be 32"):
        rt.run({"images": np.zeros((1, 3, 32, 31), np.float32)})
    # other numeric dtypes are converted to the model's float32
    out = rt.run({"images": np.zeros((1, 3, 32, 32), np.uint8)})
    assert out["probs"].dtype == np.float32


def test_threads_must_be_positive(tiny_onnx: Path) -> None:
    with pytest.raises(ValueError):
        OnnxRuntime(tiny_onnx, threads=0)
