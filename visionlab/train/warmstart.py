"""Start training from shipped ONNX files: their weights put back into the torch networks.

The exported graphs have every BatchNorm folded into the convolution before it (weight W,
bias b). ``load_onnx_weights`` copies W into the convolution and makes the BatchNorm an exact
identity-plus-bias; ``recalibrate_batchnorm`` then gives each BatchNorm the per-channel mean and
variance of its input on real batches while keeping the eval-mode output the same: with
running mean m, running variance v, gamma = sqrt(v + eps) and beta = b + m,
``(x - m) / sqrt(v + eps) * gamma + beta = x + b``. Training in train mode (batch statistics)
then starts from the shipped network's outputs instead of a jolt.

Used when a model is fine-tuned from ``models/`` (the torch checkpoints are not kept).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn


def _onnx_weights(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """{torch module path: (weight, bias)} of every Conv and Gemm node of an exported network."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    out = {}
    for node in m.graph.node:
        if node.op_type not in ("Conv", "Gemm"):
            continue
        wname = node.input[1]
        if wname not in inits or not wname.startswith("m.") or not wname.endswith(".weight"):
            raise ValueError(f"{path}: {node.op_type} node with an unexpected weight {wname!r}")
        if node.op_type == "Gemm":
            attrs = {a.name: a.i for a in node.attribute}
            if attrs.get("transB", 0) != 1:
                raise ValueError(f"{path}: Gemm {wname} is not stored as torch's Linear (transB=1)")
        bias = inits[node.input[2]] if len(node.input) > 2 and node.input[2] in inits else None
        out[wname[2:-len(".weight")]] = (inits[wname], bias)
    return out


def load_onnx_weights(model: nn.Module, path: Path) -> nn.Module:
    """Copy an exported network's weights into ``model`` (same architecture). Every conv of a
    conv/BN pair gets the folded weight, its BatchNorm becomes identity + folded bias."""
    weights = _onnx_weights(Path(path))
    modules = dict(model.named_modules())
    done = set()
    for name, (w, b) in weights.items():
        mod = modules.get(name)
        if mod is None:
            raise ValueError(f"{path}: no module {name!r} in {type(model).__name__}")
        if tuple(mod.weight.shape) != w.shape:
            raise ValueError(f"{path}: {name} has shape {w.shape}, the network wants {tuple(mod.weight.shape)}")
        with torch.no_grad():
            mod.weight.copy_(torch.from_numpy(np.array(w)))
            if mod.bias is not None:
                mod.bias.copy_(torch.from_numpy(np.array(b)))
            else:
                # conv inside a cbr() block: "<block>.0" is the conv, "<block>.1" its BatchNorm
                parent, _, idx = name.rpartition(".")
                bn = modules.get(f"{parent}.{int(idx) + 1}")
                if not isinstance(bn, nn.BatchNorm2d):
                    raise ValueError(f"{path}: {name} has no bias and no BatchNorm after it")
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(np.array(b)))
                done.add(f"{parent}.{int(idx) + 1}")
        done.add(name)
    missing = [n for n, m in modules.items()
               if isinstance(m, (nn.Conv2d, nn.Linear, nn.BatchNorm2d)) and n not in done]
    if missing:
        raise ValueError(f"{path}: no weights for {missing}")
    return model


def detector_from_onnx(path: Path) -> nn.Module:
    """The torch Detector of an exported detector file, whatever its widths (the shipped one or
    a distilled narrower one), its weights loaded as ``load_onnx_weights`` does."""
    from .nets import Detector, detector_shape
    return load_onnx_weights(Detector(**detector_shape(_onnx_weights(Path(path)))), path)


@torch.no_grad()
def recalibrate_batchnorm(model: nn.Module, batches) -> nn.Module:
    """Give each BatchNorm the statistics of its input over ``batches`` (eval-mode forward
    passes of ``model.forward_raw``) without changing what the network computes in eval mode."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    sums = {id(m): None for m in bns}
    hooks = []

    def hook(mod, inp, _out):
        x = inp[0].double()
        s = (x.sum((0, 2, 3)), (x * x).sum((0, 2, 3)), x.numel() / x.shape[1])
        prev = sums[id(mod)]
        sums[id(mod)] = s if prev is None else (prev[0] + s[0], prev[1] + s[1], prev[2] + s[2])

    for m in bns:
        hooks.append(m.register_forward_hook(hook))
    was_training = model.training
    model.eval()
    try:
        for x in batches:
            model.forward_raw(x)
    finally:
        for h in hooks:
            h.remove()
    for m in bns:
        s = sums[id(m)]
        if s is None:
            continue
        mean = s[0] / s[2]
        var = (s[1] / s[2] - mean * mean).clamp(min=1e-6)
        # current eval map: x -> (x - rm) / sqrt(rv + eps) * g + beta; keep it while moving rm, rv
        scale = m.weight.double() / torch.sqrt(m.running_var.double() + m.eps)
        shift = m.bias.double() - m.running_mean.double() * scale
        new_g = torch.sqrt(var + m.eps) * scale
        m.running_mean.copy_(mean.to(m.running_mean.dtype))
        m.running_var.copy_(var.to(m.running_var.dtype))
        m.weight.copy_(new_g.to(m.weight.dtype))
        m.bias.copy_((shift + mean * scale).to(m.bias.dtype))
    model.train(was_training)
    return model
