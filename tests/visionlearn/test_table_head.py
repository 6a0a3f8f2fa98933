"""The table's heatmap head written into a copy of the shipped detector graph (build H, stop 58;
visionlearn.onnxout.write_table_detector_onnx): the shipped outputs are untouched, the fourth
output is the head's, and a head that sees what the shipped one sees changes no read."""
from __future__ import annotations

from functools import partial

import cv2
import numpy as np
import onnxruntime as ort
import torch

from vision.model import DEFAULT_MODEL_DIR, TABLE_HEATMAP, DiceModel, ModelConfig, letterbox
from vision.runtime import create_runtime
from visionlab.render.synth import render_indexed
from visionlab.train.nets import Detector
from visionlab.train.warmstart import load_onnx_weights
from visionlearn.detector import TableHead, trunk
from visionlearn.onnxout import write_table_detector_onnx

SHIPPED = DEFAULT_MODEL_DIR / "dice_detector.onnx"


def _scenes(n: int = 3) -> list[np.ndarray]:
    return [render_indexed(1234, i, "webcam")[0] for i in range(n)]


def test_the_shipped_outputs_stay_and_the_table_heatmap_is_the_heads(tmp_path):
    det = load_onnx_weights(Detector(), SHIPPED).eval()
    head = TableHead(det)
    with torch.no_grad():
        head.hm.bias += 1.0   # another head than the shipped one
    canvases = np.stack([letterbox(img, (512, 384))[0] for img in _scenes(2)])
    out = tmp_path / "table.onnx"
    assert write_table_detector_onnx(det, head, SHIPPED, out, canvases) < 1e-3
    table, shipped = (ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]) for p in (out, SHIPPED))
    x = canvases[:1].transpose(0, 3, 1, 2).astype(np.float32) / 255
    got = dict(zip([o.name for o in table.get_outputs()], table.run(None, {"image": x})))
    ref = dict(zip([o.name for o in shipped.get_outputs()], shipped.run(None, {"image": x})))
    assert set(got) == set(ref) | {TABLE_HEATMAP}
    for name in ref:
        assert np.abs(got[name] - ref[name]).max() <= 1e-6
    with torch.no_grad():
        mine = torch.sigmoid(head(trunk(det, canvases[:1]))).numpy()
    assert np.abs(got[TABLE_HEATMAP] - mine).max() < 1e-4
    assert np.abs(got[TABLE_HEATMAP] - got["heatmap"]).max() > 0.01   # the bias moved it


def test_a_table_heatmap_like_the_shipped_one_changes_no_read(tmp_path):
    det = load_onnx_weights(Detector(), SHIPPED).eval()
    out = tmp_path / "table.onnx"
    write_table_detector_onnx(det, TableHead(det), SHIPPED, out, np.stack([letterbox(_scenes(1)[0], (512, 384))[0]]))
    factory = partial(create_runtime, threads=1)
    shipped = DiceModel.from_files(factory)
    table = DiceModel.from_files(factory, config=ModelConfig(detector_file=str(out)))
    for img in _scenes(3) + [cv2.resize(_scenes(1)[0], (1600, 1200))]:
        assert table.read(img) == shipped.read(img)
