"""Write a fine-tuned classifier as ONNX without re-exporting it: its weights, BatchNorm folded
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
    """Write ``model`` into a copy of the ``shipped`` graph at ``out``; returns the largest
    difference between onnxruntime and torch on ``check_crops`` (uint8 [N,64,64,3]); raises when
    it is over 1e-3 or a weight has no place in the graph."""
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
    x = torch.from_numpy(np.ascontiguousarray(check_crops)).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        ref = [t.numpy() for t in model(x)]
    got = sess.run(None, {"crops": x.numpy()})
    diff = max(float(np.max(np.abs(a - b))) for a, b in zip(ref, got))
    if diff > 1e-3:
        raise RuntimeError(f"{out}: onnxruntime differs from torch by {diff}")
    return diff
