"""Write a fine-tuned classifier or detector as ONNX without re-exporting it: its weights, BatchNorm folded
into each convolution, replace the initializers of a copy of the shipped graph (same nodes, same
names, so it reads exactly as fast as the shipped file and through both runtimes). The result is
checked against torch with onnxruntime before it is used."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch


def folded_weights(model: torch.nn.Module) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{module path: (weight, bias)} of every Conv (its BatchNorm, in eval mode, folded in) and
    Linear of ``model``."""
    modules = dict(model.named_modules())
    out = {}
    with torch.no_grad():
        for name, mod in modules.items():
            if isinstance(mod, torch.nn.Linear):
                out[name] = (mod.weight.double().numpy(), mod.bias.double().numpy())
            elif isinstance(mod, torch.nn.Conv2d):
                w = mod.weight.double()
                b = mod.bias.double() if mod.bias is not None else torch.zeros(w.shape[0], dtype=torch.float64)
                parent, _, idx = name.rpartition(".")
                bn = modules.get(f"{parent}.{int(idx) + 1}") if idx.isdigit() else None
                if isinstance(bn, torch.nn.BatchNorm2d):
                    scale = bn.weight.double() / torch.sqrt(bn.running_var.double() + bn.eps)
                    w = w * scale.view(-1, 1, 1, 1)
                    b = (b - bn.running_mean.double()) * scale + bn.bias.double()
                out[name] = (w.numpy(), b.numpy())
    return out


def write_classifier_onnx(model: torch.nn.Module, shipped: Path, out: Path, check_crops: np.ndarray) -> float:
    """Write ``model`` into a copy of the ``shipped`` classifier graph at ``out``; returns the
    largest difference between onnxruntime and torch on ``check_crops`` (uint8 [N,64,64,3]);
    raises when it is over 1e-3 or a weight has no place in the graph."""
    return write_onnx(model, shipped, out, check_crops, "crops")


def write_detector_onnx(model: torch.nn.Module, shipped: Path, out: Path, check_images: np.ndarray) -> float:
    """``write_classifier_onnx`` for the detector; ``check_images``: uint8 [N,H,W,3] detector
    inputs, run one at a time (the graph's batch is 1)."""
    return max(write_onnx(model, shipped, out, check_images[i:i + 1], "image") for i in range(len(check_images)))


def write_onnx(model: torch.nn.Module, shipped: Path, out: Path, check: np.ndarray, input_name: str) -> float:
    """Write ``model`` into a copy of the ``shipped`` graph at ``out`` (every Conv and Gemm's
    weight and bias replaced by the model's, BatchNorm folded); returns the largest difference
    between onnxruntime and torch on ``check`` (uint8 NHWC, fed as ``input_name``; relative to the
    output where it is over 1); raises when it is over 1e-3 or a weight has no place in the graph."""
    import onnx
    from onnx import numpy_helper

    model = model.eval()
    graph = onnx.load(str(shipped))
    weights = folded_weights(model)
    inits = {i.name: i for i in graph.graph.initializer}
    placed = set()
    for node in graph.graph.node:
        if node.op_type not in ("Conv", "Gemm"):
            continue
        wname = node.input[1]
        name = wname[2:-len(".weight")] if wname.startswith("m.") and wname.endswith(".weight") else None
        if name not in weights or len(node.input) < 3 or node.input[2] not in inits:
            raise ValueError(f"{shipped}: {node.op_type} {wname!r} does not match the network")
        w, b = weights[name]
        for iname, arr in ((wname, w), (node.input[2], b)):
            old = inits[iname]
            if tuple(old.dims) != arr.shape:
                raise ValueError(f"{shipped}: {iname} has shape {tuple(old.dims)}, the network {arr.shape}")
            old.CopyFrom(numpy_helper.from_array(arr.astype(np.float32), iname))
        placed.add(name)
    missing = sorted(set(weights) - placed)
    if missing:
        raise ValueError(f"{shipped}: no place in the graph for {missing}")
    out = Path(out)
    onnx.save(graph, str(out))
    import onnxruntime as ort

    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    x = torch.from_numpy(np.ascontiguousarray(check)).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        ref = [t.numpy() for t in model(x)]
    got = sess.run(None, {input_name: x.numpy()})
    # relative where the output is over 1 (the detector's box sizes are pixels: 1e-3 of 100 px is
    # float32 rounding); absolute below (the probabilities)
    diff = max(float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(a)))) for a, b in zip(ref, got))
    if diff > 1e-3:
        raise RuntimeError(f"{out}: onnxruntime differs from torch by {diff}")
    return diff
