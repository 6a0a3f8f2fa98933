"""A narrower detector taught by the shipped one (knowledge distillation, torch on the CPU).

``python -m visionlab.train distill --out DIR [--minutes 60] [--channels 16 16 32 64 96 --head 16]
[--images DIR ...] [--image-share 0.2] [--init student.pt]``

The student starts from the shipped detector's weights, cut to its widths (``slice_init``: in each
group of channels that are added together, the channels whose filters carry the most weight), and
learns to give the shipped detector's outputs on every input: its heatmap logits (weighted where
the heatmap is warm), and its box size and offset where it sees a die. No labels are needed, so
each input is drawn afresh: our renderer's scenes (``visionlab.render.synth``, both styles, webcam
and larger frames, small dice) and the images of ``--images`` folders (the real photos' ``train``
split; Blender or Mitsuba training scenes where they have been rendered), seen as the reader sees them
(letterboxed) or as the finer pass does (a window of the photo at a larger scale), mirrored and
with photo effects. The bench domains no model trained on (LuxCore) are never an input.

``--init`` continues from an earlier run's ``student.pt`` (say, with Blender and Mitsuba scenes
added to its inputs; ``--image-share`` of the inputs come from the ``--images`` folders). A worker
process draws inputs, the trainer runs on one thread; the run is bounded by minutes and writes
``student.pt`` (the weights' moving average: a state dict, which ``python -m visionlab.train export
--detector`` takes, for a run stopped early), ``log.json`` and, at the end, ``dice_detector.onnx``
(export checked against torch).
"""
from __future__ import annotations

import json
import math
import multiprocessing as mp
import queue
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import torch

from vision.model import ModelConfig, letterbox, shrink

from .data import DET_SIZE
from .nets import Detector, detector_shape, from_state
from .train import Ema

PAD = ModelConfig().pad_value   # the letterbox's grey, where a window runs past the photo
STUDENT_CHANNELS = (16, 16, 32, 64, 96)
STUDENT_HEAD = 16
PEAK_WEIGHT = 90.0   # stop 61: build N (weights 1 and 10 only) kept the peaks at 0.8 of the teacher's

# (conv module, the group its input channels belong to, the group of its output channels); groups
# joined by an addition ("F1" = s1's output and m2's, "F2", "F3") share one choice of channels
_CONVS = (("s1.0", "rgb", "g0"), ("s1.1", "g0", "a1"), ("s1.2", "a1", "F1"), ("s2.0", "F1", "b1"),
          ("s2.1", "b1", "F2"), ("s3.0", "F2", "c1"), ("s3.1", "c1", "c2"), ("s3.2", "c2", "F3"),
          ("s4.0", "F3", "d1"), ("s4.1", "d1", "F4"), ("l4", "F4", "F3"), ("m3", "F3", "F2"),
          ("m2", "F2", "F1"), ("m1", "F1", "M1"), ("head", "M1", "H"))
_OUTPUTS = ("hm", "wh", "off")


@torch.no_grad()
def slice_init(teacher: Detector, channels=STUDENT_CHANNELS, head: int = STUDENT_HEAD) -> Detector:
    """A Detector of the given widths whose every weight is the teacher's, on the channels that
    weigh most in each group (each conv's output filters and the next convs' input weights, each
    conv's share normalised). BatchNorms are sliced with their convs."""
    student = Detector(channels=tuple(channels), head=head)
    tm, sm = dict(teacher.named_modules()), dict(student.named_modules())
    score: dict[str, torch.Tensor] = {}
    for name, gin, gout in _CONVS:
        w = tm[f"{name}.0"].weight
        bn = tm[f"{name}.1"]
        gain = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).abs()
        out_norm = w.flatten(1).norm(dim=1) * gain
        in_norm = w.transpose(0, 1).flatten(1).norm(dim=1)
        for g, v in ((gout, out_norm), (gin, in_norm)):
            if g != "rgb":
                score[g] = score.get(g, 0) + v / v.sum()
    for name in _OUTPUTS:
        v = tm[name].weight.transpose(0, 1).flatten(1).norm(dim=1)
        score["H"] = score["H"] + v / v.sum()
    width = {g: sm[f"{n}.0"].out_channels for n, _, g in _CONVS}
    keep = {"rgb": torch.arange(3)}
    for g, s in score.items():
        keep[g] = torch.sort(torch.argsort(s, descending=True)[:width[g]]).values
    for name, gin, gout in _CONVS:
        o, i = keep[gout], keep[gin]
        sm[f"{name}.0"].weight.copy_(tm[f"{name}.0"].weight[o][:, i])
        for attr in ("weight", "bias", "running_mean", "running_var"):
            getattr(sm[f"{name}.1"], attr).copy_(getattr(tm[f"{name}.1"], attr)[o])
    for name in _OUTPUTS:
        sm[name].weight.copy_(tm[name].weight[:, keep["H"]])
        sm[name].bias.copy_(tm[name].bias)
    return student


# ------------------------------------------------------------------ inputs

@dataclass(frozen=True)
class DistillInputs:
    seed: int = 0
    image_dirs: tuple[str, ...] = ()     # folders of photos or renders drawn from (the real train split,
                                         # Blender or Mitsuba training scenes); never a bench domain
    image_share: float = 0.2             # share of inputs drawn from those folders
    window_share: float = 0.4            # inputs that are a window of the photo at a larger scale
    small_share: float = 0.2             # synth scenes rendered larger, with small dice
    mirror: float = 0.3
    photo_share: float = 0.5
    sizes: tuple = ((640, 480), (640, 480), (800, 600), (960, 720), (1280, 720), (720, 960), (1024, 768),
                    (480, 640))
    small_sizes: tuple = ((1280, 960), (1600, 1200), (1200, 1600), (1920, 1080))

    def __post_init__(self):
        for name in ("image_share", "window_share", "small_share", "mirror", "photo_share"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in 0..1, not {getattr(self, name)!r}")


def _photo(img: np.ndarray, rng) -> np.ndarray:
    """Brightness, contrast, colour cast, blur, noise and JPEG, each drawn."""
    x = img.astype(np.float32)
    if rng.random() < 0.7:
        x = x * rng.uniform(0.7, 1.3) + rng.uniform(-25, 25)
        x = x * rng.uniform(0.88, 1.12, 3)[None, None, :]
    if rng.random() < 0.3:
        g = rng.uniform(0.7, 1.4)
        x = 255.0 * (np.clip(x, 0, 255) / 255.0) ** g
    if rng.random() < 0.3:
        s = rng.uniform(0.4, 1.6)
        x = cv2.GaussianBlur(x, (0, 0), s)
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 8), x.shape).astype(np.float32)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _window(img: np.ndarray, rng) -> np.ndarray:
    """A detector-sized window of ``img`` seen 1-3.5 times finer than its letterbox (the finer
    pass's tiles), padded where the photo ends."""
    W, H = DET_SIZE
    h, w = img.shape[:2]
    s = min(W / w, H / h) * math.exp(rng.uniform(0.0, math.log(3.5)))
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    big = shrink(img, (nw, nh))   # bilinear when it enlarges
    x0 = int(rng.integers(0, max(1, nw - W + 1)))
    y0 = int(rng.integers(0, max(1, nh - H + 1)))
    part = big[y0:y0 + H, x0:x0 + W]
    canvas = np.full((H, W, 3), PAD, np.uint8)
    canvas[:part.shape[0], :part.shape[1]] = part
    return canvas


def draw_input(opts: DistillInputs, index: int, images: list[np.ndarray]) -> np.ndarray:
    """Input ``index`` of a stream: a uint8 HxWx3 canvas of the detector's input size;
    ``images``: the ``image_dirs``' photos (``load_images``)."""
    from visionlab.render.synth.scene import SceneOptions, render_scene
    rng = np.random.default_rng([opts.seed, index, 7])
    if images and rng.random() < opts.image_share:
        img = images[int(rng.integers(len(images)))]
    else:
        small = rng.random() < opts.small_share
        sizes = opts.small_sizes if small else opts.sizes
        w, h = sizes[int(rng.integers(len(sizes)))]
        so = replace(SceneOptions(), width=w, height=h, style=("random", "classic")[int(rng.integers(2))],
                     steep_share=float(rng.choice((0.2, 0.5))), touching_rate=float(rng.choice((0.15, 0.4))),
                     distractor_rate=float(rng.choice((0.35, 0.7))), coloured_other_rate=float(rng.choice((0.0, 0.5))))
        if small:
            so = replace(so, die_px=(0.015, 0.05), min_dice=4)
        img = render_scene(rng, so)[0]
    if rng.random() < opts.photo_share:
        img = _photo(img, rng)
    if rng.random() < opts.window_share:
        canvas = _window(img, rng)
    else:
        canvas = letterbox(img, DET_SIZE, PAD)[0]
    if rng.random() < opts.mirror:
        canvas = np.ascontiguousarray(canvas[:, ::-1])
    return canvas


IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def load_images(opts: DistillInputs) -> list[np.ndarray]:
    """The images of ``opts.image_dirs`` (files of other kinds skipped)."""
    out = []
    for d in opts.image_dirs:
        for p in sorted(Path(d).iterdir()):
            img = cv2.imread(str(p), cv2.IMREAD_COLOR) if p.suffix.lower() in IMAGE_SUFFIXES else None
            if img is not None:
                out.append(img)
    return out


def _worker(opts: DistillInputs, start: int, step: int, q, stop) -> None:
    cv2.setNumThreads(1)
    images = load_images(opts)
    i = start
    while not stop.is_set():
        canvas = draw_input(opts, i, images)
        while not stop.is_set():
            try:
                q.put(canvas, timeout=0.5)
                break
            except queue.Full:
                continue
        i += step


# ------------------------------------------------------------------ training

def distill_loss(s_out, t_out) -> torch.Tensor:
    """The student's distance from the teacher: heatmap logits (squared; weighted 1 on the cold
    table, 10 where the teacher's heatmap is at least 0.01, and up to about 80 more at its peaks,
    as ``PEAK_WEIGHT`` x its square: the reader's thresholds and scores use the peaks; nothing
    where both are below -8), box size and offset (absolute, weighted by the teacher's heatmap)."""
    (sh, sw, so), (th, tw, to) = s_out, t_out
    tp = torch.sigmoid(th)
    floor = -8.0
    both_cold = (th < floor) & (sh < floor)
    wt = (1.0 + 9.0 * (tp >= 0.01).float() + PEAK_WEIGHT * tp * tp) * (~both_cold).float()
    hm = (wt * (sh - th.clamp(min=floor)) ** 2).sum() / wt.sum().clamp(min=1.0)
    norm = tp.sum().clamp(min=1.0)
    box = ((sw - tw).abs() * tp).sum() / norm + ((so - to).abs() * tp).sum() / norm
    return hm + box


@dataclass
class DistillConfig:
    out: Path
    minutes: float = 60.0
    batch: int = 8
    lr: float = 1e-3
    warmup: int = 100
    ema: float = 0.998
    buffer: int = 1500
    workers: int = 1
    threads: int = 1
    teacher: Path = Path(__file__).resolve().parents[2] / "models" / "dice_detector.onnx"
    channels: tuple = STUDENT_CHANNELS
    head: int = STUDENT_HEAD
    inputs: DistillInputs = field(default_factory=DistillInputs)
    val_count: int = 48
    log_every_s: float = 60.0
    init: Path | None = None             # a student.pt to continue from (its own widths) instead of the cut


def start_student(teacher: Detector, cfg: DistillConfig) -> Detector:
    """The student a run starts from: ``cfg.init``'s weights (a student.pt of an earlier run, at
    its own widths, which then override ``cfg.channels`` and ``cfg.head``), else the teacher cut
    to ``cfg.channels`` / ``cfg.head``."""
    if cfg.init is None:
        return slice_init(teacher, cfg.channels, cfg.head)
    try:
        return from_state(Detector, torch.load(cfg.init, map_location="cpu", weights_only=True))
    except Exception as exc:   # a missing, torn or foreign file: say which
        raise ValueError(f"cannot continue from {cfg.init}: {exc}") from exc


def distill(cfg: DistillConfig, log=print) -> dict:
    from .export import export_detector
    from .warmstart import detector_from_onnx
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.inputs.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    teacher = detector_from_onnx(cfg.teacher).eval()
    student = start_student(teacher, cfg).eval()   # BatchNorm statistics stay fixed
    ema = Ema(student, cfg.ema)
    opt = torch.optim.AdamW(student.parameters(), lr=cfg.lr, weight_decay=1e-5)
    val_opts = replace(cfg.inputs, seed=cfg.inputs.seed + 1_000_003)
    images = load_images(val_opts)
    val = torch.from_numpy(np.stack([draw_input(val_opts, i, images) for i in range(cfg.val_count)])
                           ).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        val_t = [teacher.forward_raw(val[i:i + 8]) for i in range(0, len(val), 8)]

    def val_loss(model):
        with torch.no_grad():
            return float(np.mean([distill_loss(model.forward_raw(val[i:i + 8]), t).item()
                                  for i, t in zip(range(0, len(val), 8), val_t)]))

    history = [{"step": 0, "minutes": 0.0, "val": val_loss(student)}]
    shape = detector_shape(student.state_dict())
    log(f"student {shape['channels']} head {shape['head']}: val {history[0]['val']:.4f} at the "
        + (f"start ({cfg.init})" if cfg.init else "slice"))
    ctx = mp.get_context("spawn")
    q, stop = ctx.Queue(maxsize=64), ctx.Event()
    procs = [ctx.Process(target=_worker, args=(cfg.inputs, w, cfg.workers, q, stop), daemon=True)
             for w in range(cfg.workers)]
    for p in procs:
        p.start()
    buf: list[np.ndarray] = []
    fresh: list[np.ndarray] = []
    gen = np.random.default_rng(cfg.inputs.seed)
    t0 = time.perf_counter()
    last_log, step, seen, losses = t0, 0, 0, []
    budget = cfg.minutes * 60
    try:
        while True:
            elapsed = time.perf_counter() - t0
            if elapsed >= budget:
                break
            while len(fresh) < cfg.batch:   # new inputs first; the buffer's replay fills the batch
                try:
                    item = q.get(timeout=0.01 if len(buf) >= cfg.batch else 5)
                except queue.Empty:
                    break
                fresh.append(item)
                seen += 1
            if len(buf) + len(fresh) < cfg.batch:
                continue
            take = fresh[:cfg.batch]
            fresh = fresh[cfg.batch:]
            buf.extend(take)
            if len(buf) > cfg.buffer:
                del buf[:len(buf) - cfg.buffer]
            while len(take) < cfg.batch:
                take.append(buf[int(gen.integers(len(buf)))])
            x = torch.from_numpy(np.stack(take)).permute(0, 3, 1, 2).float() / 255
            progress = elapsed / budget
            lr = cfg.lr * min(1.0, (step + 1) / cfg.warmup) * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * progress)))
            for g in opt.param_groups:
                g["lr"] = lr
            with torch.no_grad():
                t_out = teacher.forward_raw(x)
            loss = distill_loss(student.forward_raw(x), t_out)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            losses.append(loss.item())
            ema.update(student)
            if time.perf_counter() - last_log >= cfg.log_every_s:
                last_log = time.perf_counter()
                rec = {"step": step, "minutes": round((last_log - t0) / 60, 2), "seen": seen,
                       "train": round(float(np.mean(losses[-50:])), 5), "val": round(val_loss(ema.model), 5),
                       "lr": lr}
                history.append(rec)
                log(json.dumps(rec))
                torch.save(ema.model.state_dict(), out / "student.pt")
                (out / "log.json").write_text(json.dumps(history, indent=1))
    finally:
        stop.set()
        deadline = time.perf_counter() + 10
        while any(p.is_alive() for p in procs) and time.perf_counter() < deadline:
            try:
                q.get(timeout=0.1)   # drained, so that the workers' last puts return
            except queue.Empty:
                pass
        for p in procs:
            p.join(timeout=1)
            if p.is_alive():
                p.terminate()
    history.append({"step": step, "minutes": round((time.perf_counter() - t0) / 60, 2), "seen": seen,
                    "val": round(val_loss(ema.model), 5), "final": True})
    torch.save(ema.model.state_dict(), out / "student.pt")
    diff = export_detector(ema.model, out / "dice_detector.onnx")
    history[-1]["onnx_max_diff"] = diff
    (out / "log.json").write_text(json.dumps(history, indent=1))
    log(json.dumps(history[-1]))
    return history[-1]
