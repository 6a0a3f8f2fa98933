"""Export the networks to ONNX (opset 18, dynamo exporter) and check onnxruntime against torch."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from .data import DET_SIZE

DET_INPUT = (DET_SIZE[1], DET_SIZE[0])  # height, width
CROP = 64


class _Wrap(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)


def export_detector(model, path: Path) -> float:
    """The detector as ONNX whose input's height and width are open (``open_input_size``),
    checked against torch at the training size and at another (416x320)."""
    model = model.eval()
    x = torch.rand(1, 3, *DET_INPUT)
    torch.onnx.export(_Wrap(model).eval(), (x,), str(path), dynamo=True, opset_version=18,
                      input_names=["image"], output_names=["heatmap", "wh", "offset"], external_data=False)
    open_input_size(path)
    small = torch.rand(1, 3, 320, 416)
    return max(_compare(model, path, {"image": x}), _compare(model, path, {"image": small}))


def open_input_size(path: Path) -> None:
    """Rewrite the detector graph at ``path`` with its input's height and width open (the
    reader chooses them: ``vision.model.ModelConfig.detector_input`` and ``fine_max_px``):
    the network is convolutions, ReLU and 2x upsampling by scale, so only the declared shapes
    change; the outputs' last two sides become the input's over 4."""
    import onnx

    graph = onnx.load(str(path))
    g = graph.graph
    dims = g.input[0].type.tensor_type.shape.dim
    for d, name in ((dims[2], "height"), (dims[3], "width")):
        d.ClearField("dim_value")
        d.dim_param = name
    del g.value_info[:]           # the shapes inferred at the export size
    for out in g.output:
        for d, name in zip(out.type.tensor_type.shape.dim[2:], ("height_4", "width_4")):
            d.ClearField("dim_value")
            d.dim_param = name
    onnx.checker.check_model(graph)
    onnx.save(graph, str(path))


def export_classifier(model, path: Path) -> float:
    model = model.eval()
    x = torch.rand(5, 3, CROP, CROP)
    n = torch.export.Dim("n", min=1, max=1024)
    torch.onnx.export(_Wrap(model).eval(), (x,), str(path), dynamo=True, opset_version=18,
                      input_names=["crops"], output_names=["value_probs", "colour_probs", "die_prob"],
                      dynamic_shapes=({0: n},), external_data=False)
    return _compare(model, path, {"crops": x})


def _compare(model, path, feeds) -> float:
    import onnxruntime as ort
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        ref = [t.numpy() for t in model(*[torch.from_numpy(v.numpy()) for v in feeds.values()])]
    got = sess.run(None, {k: v.numpy() for k, v in feeds.items()})
    diff = max(float(np.max(np.abs(a - b))) for a, b in zip(ref, got))
    if diff > 1e-3:
        raise RuntimeError(f"{path}: onnxruntime differs from torch by {diff}")
    return diff
