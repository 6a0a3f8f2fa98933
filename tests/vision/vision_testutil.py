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


# ------------------------------------------------------------------------------------------
# A drawn dice scene and a classical fake model, for plumbing tests without the trained model.
# ------------------------------------------------------------------------------------------

import cv2  # noqa: E402
from dataclasses import dataclass  # noqa: E402

NOMINAL_BGR = {
    "red": (40, 40, 200),
    "yellow": (40, 210, 230),
    "purple": (140, 50, 120),
    "blue": (190, 110, 30),
    "green": (60, 160, 50),
}
COLOUR_ORDER = ("red", "yellow", "purple", "blue", "green", "other")

# pip centres on a unit face, per value (opposite faces sum to 7 on a real die)
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}


def bgr_to_lab(bgr) -> tuple[float, float, float]:
    px = np.asarray(bgr, np.float32).reshape(1, 1, 3) / 255.0
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0]
    return float(lab[0]), float(lab[1]), float(lab[2])


def draw_die(img: np.ndarray, x: int, y: int, size: int, colour_bgr, value: int) -> None:
    cv2.rectangle(img, (x, y), (x + size - 1, y + size - 1), tuple(int(c) for c in colour_bgr), -1)
    r = max(2, size // 10)
    for px, py in PIPS[value]:
        cv2.circle(img, (x + int(px * size), y + int(py * size)), r, (250, 250, 250), -1)


def apply_cast(img: np.ndarray, gains=(0.55, 0.9, 1.3)) -> np.ndarray:
    """A strong warm light / white-balance cast: per-channel gains on B, G, R."""
    out = img.astype(np.float32) * np.asarray(gains, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def make_scene(
    dice: list[tuple[str, int]],
    size: tuple[int, int] = (640, 480),
    die: int = 60,
    seed: int = 0,
    background: int = 128,
) -> tuple[np.ndarray, list[dict]]:
    """Dice in rows on a grey, slightly noisy table. Returns (BGR image, truth list)."""
    w, h = size
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), background, np.uint8)
    img = np.clip(img.astype(np.int16) + rng.integers(-4, 5, img.shape), 0, 255).astype(np.uint8)
    truth = []
    gap = die // 2
    per_row = max(1, (w - gap) // (die + gap))
    for i, (colour, value) in enumerate(dice):
        row, col = divmod(i, per_row)
        x = gap + col * (die + gap)
        y = gap + row * (die + gap)
        draw_die(img, x, y, die, NOMINAL_BGR[colour], value)
        truth.append({"colour": colour, "value": value, "box": [x, y, die, die]})
    return img, truth


@dataclass(frozen=True)
class FakeRawDie:
    box: tuple[float, float, float, float]
    det_score: float
    value_probs: tuple[float, ...]
    colour_probs: tuple[float, ...]
    body_colour_lab: tuple[float, float, float]
    turned_value_probs: tuple[float, ...] | None = None
    centre_y_share: float | None = None
    faint: bool = False


class FakeDiceModel:
    """Classical stand-in for vision.model.DiceModel: saturated blobs are dice, white blobs
    inside are pips; colour by nearest nominal Lab (a model trained under neutral light)."""

    def __init__(self, det_score: float = 0.95, other_beyond: float = 60.0, temperature: float = 4.0):
        self.det_score = det_score
        self.other_beyond = other_beyond
        self.temperature = temperature
        self.nominal = {c: np.array(bgr_to_lab(v)) for c, v in NOMINAL_BGR.items()}
        self.calls = 0

    def read(self, image_bgr: np.ndarray) -> list[FakeRawDie]:
        assert image_bgr.dtype == np.uint8 and image_bgr.ndim == 3 and image_bgr.shape[2] == 3
        self.calls += 1
        lab_img = cv2.cvtColor(image_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
        # the table is the median colour of the border; a die (body and pips) differs from it
        border = np.concatenate([lab_img[0], lab_img[-1], lab_img[:, 0], lab_img[:, -1]])
        table = np.median(border, axis=0)
        blob = (np.linalg.norm(lab_img - table, axis=2) > 20).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(blob, connectivity=8)
        out = []
        for i in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[i])
            if area < 64 or w < 8 or h < 8:
                continue
            inside = labels[y : y + h, x : x + w] == i
            lab_roi = lab_img[y : y + h, x : x + w]
            body_lab = np.median(lab_roi[inside], axis=0)
            # pips: lighter than the body, far from its colour, above half-way to the lightest
            light = lab_roi[..., 0]
            half = body_lab[0] + 0.5 * (float(light[inside].max()) - body_lab[0])
            pip = inside & (np.linalg.norm(lab_roi - body_lab, axis=2) > 25) & (light > half)
            pip = cv2.morphologyEx(pip.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
            m, _, pst, _ = cv2.connectedComponentsWithStats(pip, connectivity=8)
            pips = sum(1 for j in range(1, m) if pst[j, 4] >= max(3, 0.004 * area))
            pip = pip.astype(bool)
            if 1 <= pips <= 6:
                value_probs = tuple(0.96 if v == pips else 0.008 for v in range(1, 7))
            else:
                value_probs = tuple([1 / 6] * 6)
            lab = lab_roi[inside & ~pip].mean(axis=0)
            d = np.array([np.linalg.norm(lab - self.nominal[c]) for c in COLOUR_ORDER[:5]])
            logits = list(-d / self.temperature) + [-(self.other_beyond / self.temperature)]
            logits = np.array(logits) - max(logits)
            p = np.exp(logits)
            p /= p.sum()
            out.append(
                FakeRawDie(
                    box=(float(x), float(y), float(w), float(h)),
                    det_score=self.det_score,
                    value_probs=value_probs,
                    colour_probs=tuple(float(v) for v in p),
                    body_colour_lab=(float(lab[0]), float(lab[1]), float(lab[2])),
                )
            )
        return out


# ------------------------------------------------------------------------------------------
# Fake runtimes for vision.model.DiceModel (the Runtime protocol of vision.runtime): no model
# files, the outputs of docs/vision-model.md's contract made by hand.
# ------------------------------------------------------------------------------------------


def detector_maps(peaks, in_w: int, in_h: int, wh_fill: float = 0.0) -> dict[str, np.ndarray]:
    """A detector's outputs (heatmap, wh, offset at stride 4) for an ``in_w`` x ``in_h`` input
    with one heatmap peak per ``(cx, cy, w, h, score)`` given in input pixels: its box size and
    its centre's offset within the cell; ``wh`` is ``wh_fill`` elsewhere."""
    gw, gh = in_w // 4, in_h // 4
    hm = np.zeros((1, 1, gh, gw), np.float32)
    wh = np.full((1, 2, gh, gw), wh_fill, np.float32)
    off = np.zeros((1, 2, gh, gw), np.float32)
    for cx, cy, w, h, score in peaks:
        gx, gy = int(cx // 4), int(cy // 4)
        hm[0, 0, gy, gx] = score
        wh[0, :, gy, gx] = (w, h)
        off[0, :, gy, gx] = (cx / 4 - gx, cy / 4 - gy)
    return {"heatmap": hm, "wh": wh, "offset": off}


class FakeClassifier:
    """A crop classifier that reads every 64 px crop as ``value`` (1 to 6) of colour
    ``COLOUR_ORDER[colour]``, a die with probability ``die``; it keeps the size of each batch."""

    input_names = ["crops"]
    input_shapes = [(None, 3, 64, 64)]
    output_names = ["value_probs", "colour_probs", "die_prob"]

    def __init__(self, value=3, colour=1, die=0.95):
        self.value, self.colour, self.die, self.batches = value, colour, die, []

    def run(self, feeds):
        n = feeds["crops"].shape[0]
        assert feeds["crops"].shape[1:] == (3, 64, 64)
        self.batches.append(n)
        v = np.full((n, 6), 0.01, np.float32)
        v[:, self.value - 1] = 0.95
        c = np.full((n, 6), 0.01, np.float32)
        c[:, self.colour] = 0.95
        return {"value_probs": v, "colour_probs": c, "die_prob": np.full((n, 1), self.die, np.float32)}
