"""The detector's int8 twin (stop 71, rule I8; docs/vision.md, "Speed").

onnxruntime's static quantization of a detector file: QDQ nodes, weights int8 per output
channel, activations uint8, ranges by MinMax over calibration inputs (the detector inputs the
reader makes of some photos: the first pass's letterboxed view, the finer pass's view of a large
photo). The twin is written beside its source, named after the source's bytes
(``vision.model.int8_twin``), where ``DiceModel.from_files`` finds it. About twice as fast on a
CPU with int8 dot products; the fp32 file stays (the table's learner and the recipes start from
it).

    python -m visionlab.train quantize [--detector models/dice_detector.onnx]

makes the shipped twin from training-generator scenes (``calibration_images``: ``vision.synth``
of v21's training seeds, both styles, and large scenes; no LuxCore, no real photo). The table's
learner (``visionlearn.detector``) calls ``quantize_detector`` on an adapted detector with its own
table inputs.
"""
from __future__ import annotations

import os
import tempfile
from functools import partial
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from vision.model import DETECTOR_INPUT, DiceModel, ModelConfig, int8_twin, to_tensor
from vision.runtime import create_runtime

#: calibration scenes of the shipped twin: (seed, style, count) of 640x480-ish training scenes, and
#: of large (2016x1512 to 4032x3024) scenes; v21's classifier trained on seeds 31500-31505
CALIBRATION_SCENES = ((31500, "classic", 24), (31501, "random", 24))
CALIBRATION_LARGE = ((31502, "classic", 4), (31503, "random", 4))


def calibration_images(scenes: Sequence[tuple[int, str, int]] = CALIBRATION_SCENES,
                       large: Sequence[tuple[int, str, int]] = CALIBRATION_LARGE) -> list[np.ndarray]:
    """The training generator's scenes the shipped twin is calibrated on (BGR images)."""
    from dataclasses import replace

    from visionlab.bench.large import large_scene
    from visionlab.render.synth import SceneOptions
    from visionlab.render.synth.generate import render_indexed

    out = [render_indexed(seed, i, "train", replace(SceneOptions(), style=style))[0]
           for seed, style, n in scenes for i in range(n)]
    out += [large_scene(seed, i, style=style)[0] for seed, style, n in large for i in range(n)]
    return out


def reader_inputs(detector: str | Path, images: Iterable[np.ndarray]) -> list[np.ndarray]:
    """The detector inputs (float32 NCHW) the reader feeds the fp32 ``detector`` reading ``images``."""
    model = DiceModel(create_runtime(str(detector), threads=1), None, ModelConfig(int8_detector=False))
    feeds: list[np.ndarray] = []
    run = model.detector.run

    def record(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        feeds.append(np.array(inputs[DETECTOR_INPUT], np.float32))
        return run(inputs)
    model.detector.run = record
    for image in images:
        model.detect(image)
    return feeds


def canvases(images: Iterable[np.ndarray]) -> list[np.ndarray]:
    """Detector inputs already cut (uint8 HxWx3 canvases, as the table's learner keeps them)."""
    return [to_tensor(c) for c in images]


def quantize_detector(src: str | Path, feeds: Sequence[np.ndarray], out: str | Path | None = None) -> Path:
    """Write the int8 twin of the detector file ``src`` (default ``int8_twin(src)``), calibrated
    on ``feeds`` (float32 [1,3,H,W] inputs, H and W multiples of 32); returns its path. The file
    appears whole or not at all."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    src = Path(src)
    out = Path(out) if out is not None else int8_twin(src)
    if not feeds:
        raise ValueError("no calibration input to quantize the detector with")

    class Feeds(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            x = next(self._it, None)
            return None if x is None else {DETECTOR_INPUT: np.asarray(x, np.float32)}

    with tempfile.TemporaryDirectory(prefix="quantize-") as tmp:
        pre, q = Path(tmp) / "pre.onnx", Path(tmp) / "q.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(q), Feeds(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        part = out.with_name(out.name + ".part")
        part.write_bytes(q.read_bytes())
        os.replace(part, out)
    return out


def main(argv: Sequence[str] | None = None, log=partial(print, flush=True)) -> int:
    import argparse

    from vision.model import DEFAULT_MODEL_DIR

    p = argparse.ArgumentParser(prog="python -m visionlab.train quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("--detector", type=Path, default=DEFAULT_MODEL_DIR / ModelConfig().detector_file)
    a = p.parse_args(argv)
    images = calibration_images()
    feeds = reader_inputs(a.detector, images)
    out = quantize_detector(a.detector, feeds)
    for stale in a.detector.parent.glob(f"{a.detector.stem}.int8.*.onnx"):
        if stale != out:
            stale.unlink()
            log(f"removed {stale.name} (the twin of an earlier detector file)")
    log(f"{out} ({out.stat().st_size / 1e6:.2f} MB) from {a.detector.name}, calibrated on {len(feeds)} detector "
        f"inputs of {len(images)} training-generator scenes")
    return 0
