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


#: the names the table's heatmap head takes in the detector graph (``write_table_detector_onnx``)
TABLE_PREFIX = "t."


def write_table_detector_onnx(det: torch.nn.Module, head: torch.nn.Module, shipped: Path, out: Path,
                              check_images: np.ndarray) -> float:
    """A copy of the ``shipped`` detector graph with the table's heatmap head (``head``:
    ``visionlearn.detector.TableHead``, BatchNorm folded) beside its own last block, over the
    same features, as a fourth output ``heatmap_table`` (``vision.model.TABLE_HEATMAP``); the
    shipped outputs are untouched. Returns the largest difference of ``heatmap_table`` between
    onnxruntime and torch on ``check_images`` (uint8 [N,H,W,3], one at a time); raises when it is
    over 1e-3, when the shipped heatmap moved, or when the graph is not the one expected."""
    import onnx
    from onnx import helper, numpy_helper

    from vision.model import TABLE_HEATMAP

    graph = onnx.load(str(shipped))
    g = graph.graph
    convs = {n.input[1]: n for n in g.node if n.op_type == "Conv"}
    head_conv, hm_conv = convs.get("m.head.0.weight"), convs.get("m.hm.weight")
    if head_conv is None or hm_conv is None:
        raise ValueError(f"{shipped}: no head and heatmap layers where the detector has them")
    weights = folded_weights(head.eval())
    if set(weights) != {"head.0", "hm"}:
        raise ValueError(f"the table head's layers are {sorted(weights)}, not head.0 and hm")
    p = TABLE_PREFIX
    for name, (w, b) in weights.items():
        g.initializer.extend([numpy_helper.from_array(w.astype(np.float32), f"{p}{name}.weight"),
                              numpy_helper.from_array(b.astype(np.float32), f"{p}{name}.bias")])

    def attrs(node) -> dict:
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}
    g.node.extend([
        helper.make_node("Conv", [head_conv.input[0], f"{p}head.0.weight", f"{p}head.0.bias"], [f"{p}head"],
                         name=f"{p}conv_head", **attrs(head_conv)),
        helper.make_node("Relu", [f"{p}head"], [f"{p}relu"], name=f"{p}relu_head"),
        helper.make_node("Conv", [f"{p}relu", f"{p}hm.weight", f"{p}hm.bias"], [f"{p}hm"], name=f"{p}conv_hm",
                         **attrs(hm_conv)),
        helper.make_node("Sigmoid", [f"{p}hm"], [TABLE_HEATMAP], name=f"{p}sigmoid"),
    ])
    shipped_out = next(o for o in g.output if o.name == "heatmap")
    extra = onnx.ValueInfoProto()
    extra.CopyFrom(shipped_out)
    extra.name = TABLE_HEATMAP
    g.output.append(extra)
    onnx.checker.check_model(graph)
    out = Path(out)
    onnx.save(graph, str(out))
    import onnxruntime as ort

    from .detector import trunk

    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    ref_sess = ort.InferenceSession(str(shipped), providers=["CPUExecutionProvider"])
    diff = 0.0
    for img in check_images:
        x = np.ascontiguousarray(img[None]).transpose(0, 3, 1, 2).astype(np.float32) / 255
        with torch.no_grad():
            ref = torch.sigmoid(head(trunk(det, img[None]))).numpy()
        got = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"image": x})))
        if float(np.max(np.abs(got["heatmap"] - ref_sess.run(["heatmap"], {"image": x})[0]))) > 1e-6:
            raise RuntimeError(f"{out}: the shipped heatmap is not the shipped detector's")
        diff = max(diff, float(np.max(np.abs(got[TABLE_HEATMAP] - ref))))
    if diff > 1e-3:
        raise RuntimeError(f"{out}: onnxruntime differs from torch by {diff}")
    return diff
