"""Helpers for the vision tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
REAL_DICE = REPO.parent / "shared" / "datasets" / "real-dice"


def build_tiny_classifier(path: Path, size: int = 32, seed: int = 0, dynamic_batch: bool = True) -> Path:
    """A tiny, deterministic ONNX crop classifier (Conv-Relu-Pool-Gemm-Softmax) built with the
    onnx helper API; the caller skips when ``onnx`` (a training extra) is missing."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    weights = [
        numpy_helper.from_array(rng.normal(size=(4, 3, 3, 3)).astype(np.float32), "W"),
        numpy_helper.from_array(rng.normal(size=(4,)).astype(np.float32), "B"),
        numpy_helper.from_array(rng.normal(size=(6, 4)).astype(np.float32) * 4, "G"),
    ]
    nodes = [
        helper.make_node("Conv", ["images", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "G"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    batch = "N" if dynamic_batch else 1
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [batch, 3, size, size])],
        [
            helper.make_tensor_value_info("probs", TensorProto.FLOAT, [batch, 6]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, 6]),
        ],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
