"""Train both networks on a stream of freshly rendered scenes (for a GPU machine).

Worker processes render scenes (``stream.scene_sample``, one seed per worker) and put them on a
queue; the main process keeps the newest ``det_capacity`` scenes and ``cls_capacity`` crops in
ring buffers on the training device and alternates a detector step and a classifier step on
random batches from them, so the GPU never waits for a disk and every scene is seen a bounded
number of times (``max_reuse``). Both networks can start from ONNX files (``warmstart``) or
from torch checkpoints. The learning rate follows a warm-up and a cosine over the run, whose
length is the first reached of ``steps`` and ``minutes``; an exponential moving average of the
weights is kept and saved beside the raw weights. ``--classifier-only`` trains the classifier
alone; fixed crop sets (real photos, other renderers' scenes: JPEG mosaics of ``real-mosaic``)
fill a set share of every classifier batch.

    python -m visionlab.train online --out runs/v6 --minutes 8.5 --workers 14 --device cuda \\
        --det-init models/dice_detector.onnx --cls-init models/dice_classifier.onnx

Saves ``det.pt``, ``cls.pt``, ``det_ema.pt``, ``cls_ema.pt`` (state dicts for
``python -m visionlab.train export``) and ``log.json`` in ``out``, every ``save_every`` minutes
and at the end.
"""
from __future__ import annotations

import json
import math
import multiprocessing as mp
import queue
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from .data import CROP, DET_SIZE, MAX_OBJECTS, STRIDE
from .nets import Detector
from .stream import StreamOptions, scene_sample
from .train import Ema, init_classifier, classifier_loss, detector_loss, load_init


@dataclass
class OnlineConfig:
    out: Path
    minutes: float = 8.5
    steps: int = 10 ** 9
    device: str = "cuda"
    workers: int = 14
    seed: int = 7000                   # worker w renders dataset seed + w
    det_init: Path | None = None       # .onnx or .pt
    cls_init: Path | None = None
    det_lr: float = 1e-3
    cls_lr: float = 1e-3
    det_batch: int = 64
    cls_batch: int = 512
    det_capacity: int = 60000          # scenes kept on the device
    cls_capacity: int = 1500000        # crops kept on the device
    min_scenes: int = 256              # training starts when this many scenes arrived
    max_reuse: float = 12.0            # at most this many draws per arrived scene / crop (each net)
    warmup: float = 0.03               # share of the run with a rising learning rate
    ema_decay: float = 0.999
    real: Path | None = None           # real-photo crops: a mosaic .jpg of 64 px crops + labels .npz
    real_share: float = 0.06           # share of each classifier batch taken from the real crops
    domain: Path | None = None         # crops of other renderers' scenes (domain-cache), a mosaic like real
    domain_share: float = 0.0          # share of each classifier batch taken from them
    train_detector: bool = True        # False: the classifier alone (no detector buffer, steps or files)
    cls_width: float | None = None     # classifier width (a narrower cls_init .pt is widened to it)
    upright: bool = True               # no quarter turns in the crops' augmentation (train.classifier_loss)
    photo_aug: bool = False            # lost resolution, blur, noise, contrast curve (train._augment_photo)
    save_raw: bool = True              # False: save the moving average alone (fewer files to fetch)
    mining_model: Path | None = None   # model dir whose detector cuts crops in the workers
    save_every: float = 2.0            # minutes
    log_every: int = 200               # steps
    stream: StreamOptions = field(default_factory=StreamOptions)


# ------------------------------------------------------------------ workers

def _worker(wid: int, cfg: OnlineConfig, q, stop):
    import cv2
    cv2.setNumThreads(1)
    det = None
    if cfg.mining_model is not None:
        from vision.model import DiceModel, ModelConfig
        from vision.runtime import create_runtime
        det = DiceModel(create_runtime(str(Path(cfg.mining_model) / ModelConfig().detector_file), threads=1))
    parent = mp.parent_process()   # a trainer killed by a signal never sets ``stop``: end with it

    def running():
        return not stop.is_set() and (parent is None or parent.is_alive())
    i = 0
    while running():
        s = scene_sample(cfg.seed + wid, i, det, cfg.stream, detector_targets=cfg.train_detector)
        i += 1
        while running():
            try:
                q.put(s, timeout=0.5)
                break
            except queue.Full:
                continue
    # scenes still in the queue's buffer are not needed: do not wait at exit to write them into a
    # pipe nobody may read any more (a killed trainer's)
    q.cancel_join_thread()


class _Receiver(threading.Thread):
    """Moves samples from the worker queue into a local deque (keeps the main loop unblocked)."""

    def __init__(self, q):
        super().__init__(daemon=True)
        self.q, self.items, self.alive = q, deque(), True

    def run(self):
        while self.alive:
            try:
                self.items.append(self.q.get(timeout=0.5))
            except queue.Empty:
                continue
            except (EOFError, OSError):
                return

    def take(self, n):
        out = []
        while self.items and len(out) < n:
            out.append(self.items.popleft())
        return out


# ------------------------------------------------------------------ buffers

class _Ring:
    """Fixed-size tensors on the device, written round-robin; ``sample`` draws uniformly."""

    def __init__(self, capacity, specs, device):
        self.cap, self.n, self.pos, self.device = capacity, 0, 0, device
        self.t = {k: torch.zeros((capacity, *shape), dtype=dt, device=device) for k, (shape, dt) in specs.items()}

    def add(self, arrays: dict):
        m = len(next(iter(arrays.values())))
        if m == 0:
            return
        if m > self.cap:
            arrays = {k: v[-self.cap:] for k, v in arrays.items()}
            m = self.cap
        idx = (torch.arange(m, device=self.device) + self.pos) % self.cap
        for k, v in arrays.items():
            self.t[k][idx] = torch.as_tensor(v).to(self.device, non_blocking=True)
        self.pos = (self.pos + m) % self.cap
        self.n = min(self.cap, self.n + m)

    def sample(self, k, gen):
        idx = torch.randint(0, self.n, (k,), device=self.device, generator=gen)
        return {name: t[idx] for name, t in self.t.items()}


def load_real_mosaic(path: Path):
    """(crops [N,64,64,3] uint8, value, colour, die) from a mosaic JPEG of 64 px crops, row
    major, 100 a row, and the labels file beside it (``<stem>_labels.npz``)."""
    import cv2
    img = cv2.imread(str(path))
    if img is None:
        raise FileNotFoundError(f"cannot read the real-crop mosaic {path}")
    lab = np.load(Path(path).with_name(Path(path).stem + "_labels.npz"))
    n = len(lab["value"])
    cols = img.shape[1] // CROP
    crops = np.stack([img[(i // cols) * CROP:(i // cols + 1) * CROP, (i % cols) * CROP:(i % cols + 1) * CROP]
                      for i in range(n)])
    return crops, lab["value"], lab["colour"], lab["die"]


def save_real_mosaic(path: Path, crops, value, colour, die, cols: int = 100, quality: int = 93):
    """The inverse of ``load_real_mosaic`` (JPEG: small enough to send to a training machine)."""
    import cv2
    n = len(crops)
    rows = (n + cols - 1) // cols
    m = np.zeros((rows * CROP, cols * CROP, 3), np.uint8)
    for i in range(n):
        r, c = divmod(i, cols)
        m[r * CROP:(r + 1) * CROP, c * CROP:(c + 1) * CROP] = crops[i]
    cv2.imwrite(str(path), m, [cv2.IMWRITE_JPEG_QUALITY, quality])
    np.savez(Path(path).with_name(Path(path).stem + "_labels.npz"), value=np.asarray(value, np.int8),
             colour=np.asarray(colour, np.int8), die=np.asarray(die, np.int8))


# ------------------------------------------------------------------ training pieces

def _lr_factor(progress, warmup):
    if progress < warmup:
        return 0.05 + 0.95 * progress / warmup
    p = (progress - warmup) / max(1e-9, 1 - warmup)
    return 0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(1.0, p)))


def _cpu_state(model):
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


# ------------------------------------------------------------------ the loop

def train_online(cfg: OnlineConfig, log=print) -> dict:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    # spawned, not forked: a child forked from a process whose OpenMP / OpenCV thread pools already
    # ran (torch training earlier in the same process, as in the test suite) can hang in its first
    # threaded call, and no scene ever arrives
    ctx = mp.get_context("spawn")
    q = ctx.Queue(maxsize=max(64, 16 * cfg.workers))
    stop = ctx.Event()
    procs = [ctx.Process(target=_worker, args=(w, cfg, q, stop), daemon=True) for w in range(cfg.workers)]
    for p in procs:
        p.start()
    recv = _Receiver(q)
    recv.start()
    t_start = time.time()
    try:
        return _train(cfg, out, recv, t_start, log)
    finally:
        stop.set()
        recv.alive = False
        for p in procs:
            p.join(timeout=3)
            if p.is_alive():
                p.terminate()


def _train(cfg, out, recv, t_start, log):
    dev = torch.device(cfg.device)
    torch.manual_seed(cfg.seed)
    if dev.type == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    gen = torch.Generator(device=dev).manual_seed(cfg.seed)
    H, W = DET_SIZE[1], DET_SIZE[0]
    gh, gw, K = H // STRIDE, W // STRIDE, MAX_OBJECTS
    det_buf = None
    if cfg.train_detector:
        det_buf = _Ring(cfg.det_capacity, {"image": ((H, W, 3), torch.uint8), "hm": ((gh, gw), torch.float16),
                                           "ind": ((K,), torch.int32), "wh": ((K, 2), torch.float32),
                                           "off": ((K, 2), torch.float32), "mask": ((K,), torch.bool)}, dev)
    cls_buf = _Ring(cfg.cls_capacity, {"crops": ((CROP, CROP, 3), torch.uint8), "value": ((), torch.int8),
                                       "colour": ((), torch.int8), "die": ((), torch.int8)}, dev)
    fixed = []   # (name, crops on the device, crops per batch): real photos, other renderers
    for name, path, share in (("real", cfg.real, cfg.real_share), ("domain", cfg.domain, cfg.domain_share)):
        k = int(round(share * cfg.cls_batch)) if path is not None else 0
        if k:
            rc, rv, rco, rd = load_real_mosaic(path)
            fixed.append((name, {"crops": torch.from_numpy(rc).to(dev), "value": torch.from_numpy(rv).to(dev),
                                 "colour": torch.from_numpy(rco).to(dev), "die": torch.from_numpy(rd).to(dev)}, k))
            log(f"{name} crops: {len(rc)}, {k} per batch")
    n_fixed = sum(k for _, _, k in fixed)
    if n_fixed >= cfg.cls_batch:
        raise ValueError(f"real_share + domain_share leave no rendered crops in a batch of {cfg.cls_batch}")
    stats = {"scenes": 0, "crops": 0, "dice": 0, "kinds": [0, 0, 0]}

    def ingest(max_items=10 ** 9):
        items = recv.take(max_items)
        if not items:
            return 0
        if det_buf is not None:
            det_buf.add({k: np.stack([s[k] for s in items]) for k in ("image", "hm", "ind", "wh", "off", "mask")})
        cls_buf.add({k: np.concatenate([s[k] for s in items]) for k in ("crops", "value", "colour", "die")})
        stats["scenes"] += len(items)
        stats["crops"] += sum(len(s["crops"]) for s in items)
        stats["dice"] += sum(s["dice"] for s in items)
        for s in items:
            for k, c in enumerate(np.bincount(s["kind"], minlength=3)[:3]):
                stats["kinds"][k] += int(c)
        return len(items)

    while stats["scenes"] < cfg.min_scenes:
        if not ingest():
            time.sleep(0.05)
        if time.time() - t_start > 600:
            raise RuntimeError("no training scenes arrived from the workers in 10 minutes")
    log(f"first {stats['scenes']} scenes after {time.time() - t_start:.1f}s")

    calib_cls = [cls_buf.t["crops"][i:i + 256].permute(0, 3, 1, 2).float().div(255).cpu()
                 for i in range(0, min(cls_buf.n, 1024), 256)]
    det = det_ema = det_opt = None
    if det_buf is not None:
        calib_det = [det_buf.t["image"][i:i + 32].permute(0, 3, 1, 2).float().div(255).cpu()
                     for i in range(0, min(det_buf.n, 128), 32)]
        det = load_init(Detector(), cfg.det_init, lambda: calib_det).to(dev).train()
        det_ema = Ema(det, cfg.ema_decay)
        det_opt = torch.optim.AdamW(det.parameters(), lr=cfg.det_lr, weight_decay=1e-4)
    cls = init_classifier(cfg.cls_init, lambda: calib_cls, cfg.cls_width, cfg.seed).to(dev).train()
    cls_ema = Ema(cls, cfg.ema_decay)
    cls_opt = torch.optim.AdamW(cls.parameters(), lr=cfg.cls_lr, weight_decay=1e-4)
    t0 = time.time()
    # what is left of the run's minutes once the first scenes are in (at least a second: a run
    # whose minutes went on waiting for scenes ends at once, saved, rather than never)
    budget = max(1.0, cfg.minutes * 60 - (t0 - t_start))
    step = det_draws = cls_draws = 0
    hist = []
    run = {"det_loss": 0.0, "det_parts": np.zeros(3), "cls_loss": 0.0, "cls_acc": 0.0, "n": 0}
    last_save = time.time()
    nets = [("cls", cls), ("cls_ema", cls_ema.model)]
    if det is not None:
        nets += [("det", det), ("det_ema", det_ema.model)]

    def save(tag):
        for name, m in nets:
            if cfg.save_raw or name.endswith("_ema"):
                torch.save(_cpu_state(m), out / f"{name}.pt")
        info = {"tag": tag, "steps": step, "seconds": round(time.time() - t_start, 1), "stats": stats,
                "config": {k: str(v) for k, v in asdict(cfg).items()}, "history": hist}
        (out / "log.json").write_text(json.dumps(info, indent=1))

    while True:
        progress = max(step / cfg.steps, (time.time() - t0) / budget)
        if progress >= 1:
            break
        ingest(256)
        f = _lr_factor(progress, cfg.warmup)
        for g in det_opt.param_groups if det_opt else ():
            g["lr"] = cfg.det_lr * f
        for g in cls_opt.param_groups:
            g["lr"] = cfg.cls_lr * f
        did = False
        if det is not None and det_draws < cfg.max_reuse * stats["scenes"]:
            loss, parts = detector_loss(det, det_buf.sample(cfg.det_batch, gen), gen)
            det_opt.zero_grad(set_to_none=True)
            loss.backward()
            det_opt.step()
            det_ema.update(det)
            det_draws += cfg.det_batch
            run["det_loss"] += loss.item()
            run["det_parts"] += parts
            did = True
        if cls_draws < cfg.max_reuse * stats["crops"]:
            batch = cls_buf.sample(cfg.cls_batch - n_fixed, gen)
            for _name, crops, k in fixed:
                ri = torch.randint(0, len(crops["value"]), (k,), device=dev, generator=gen)
                batch = {key: torch.cat([batch[key], crops[key][ri]]) for key in batch}
            loss, (_, labelled, both) = classifier_loss(cls, batch, gen, cfg.upright, cfg.photo_aug)
            acc = both / max(1, labelled)
            cls_opt.zero_grad(set_to_none=True)
            loss.backward()
            cls_opt.step()
            cls_ema.update(cls)
            cls_draws += cfg.cls_batch - n_fixed
            run["cls_loss"] += loss.item()
            run["cls_acc"] += acc
            did = True
        if not did:
            time.sleep(0.01)
            continue
        step += 1
        run["n"] += 1
        if step % cfg.log_every == 0:
            n = run["n"]
            h = {"step": step, "s": round(time.time() - t_start, 1), "lr_factor": round(f, 3),
                 "scenes": stats["scenes"], "det_buf": det_buf.n if det_buf else 0, "cls_buf": cls_buf.n,
                 "det_reuse": round(det_draws / max(1, stats["scenes"]), 2),
                 "cls_reuse": round(cls_draws / max(1, stats["crops"]), 2),
                 "det_loss": round(run["det_loss"] / n, 4), "det_parts": [round(p / n, 4) for p in run["det_parts"]],
                 "cls_loss": round(run["cls_loss"] / n, 4), "cls_acc": round(run["cls_acc"] / n, 4)}
            hist.append(h)
            log(json.dumps(h))
            run = {"det_loss": 0.0, "det_parts": np.zeros(3), "cls_loss": 0.0, "cls_acc": 0.0, "n": 0}
        if time.time() - last_save > cfg.save_every * 60:
            save("periodic")
            last_save = time.time()
    save("final")
    log(f"done: {step} steps, {stats['scenes']} scenes, {stats['crops']} crops, {time.time() - t_start:.0f}s; saved in {out}")
    return {"steps": step, "stats": stats}
