"""Training loops for the detector and the classifier (torch, CPU-friendly)."""
from __future__ import annotations

import copy
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from .data import DET_SIZE, STRIDE, det_targets, load_cache, mirror_half
from .nets import Classifier, Detector, classifier_width, focal_loss, from_state, widen_classifier


class Ema:
    """Exponential moving average of a network's weights (and BatchNorm statistics)."""

    def __init__(self, model, decay):
        self.decay = decay
        self.model = copy.deepcopy(model).eval()   # same shape (a widened network too)

    @torch.no_grad()
    def update(self, model):
        src, dst = model.state_dict(), self.model.state_dict()
        fl = [k for k, v in dst.items() if v.dtype.is_floating_point]
        torch._foreach_lerp_([dst[k] for k in fl], [src[k] for k in fl], 1 - self.decay)
        for k, v in dst.items():
            if not v.dtype.is_floating_point:
                v.copy_(src[k])


def load_init(model, init: Path | None, calib_batches):
    """Start ``model`` from a torch checkpoint (.pt) or a shipped ONNX file (.onnx: weights put
    back and BatchNorm statistics measured on ``calib_batches()``, see warmstart.py)."""
    if init is None:
        return model
    init = Path(init)
    if init.suffix == ".onnx":
        from .warmstart import load_onnx_weights, recalibrate_batchnorm
        load_onnx_weights(model, init)
        recalibrate_batchnorm(model, calib_batches())
    else:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    return model


def init_classifier(init: Path | None, calib_batches, width: float | None, seed: int) -> Classifier:
    """The classifier to train: ``init``'s (a .pt of any width, or an .onnx of width 1), widened
    to ``width`` when that is wider; a new one of ``width`` without ``init``."""
    if init is None:
        return Classifier(width or 1.0)
    if Path(init).suffix == ".onnx":
        model = load_init(Classifier(), init, calib_batches)   # the shipped networks are width 1
    else:
        model = from_state(Classifier, torch.load(init, map_location="cpu"))
    if width is not None and width != classifier_width(model.state_dict()):
        model = widen_classifier(model, width, seed=seed)
    return model


def _ema_path(out: Path) -> Path:
    out = Path(out)
    return out.with_name(out.stem + "_ema" + out.suffix)


def _save_epoch(model, ema, out: Path) -> None:
    """The epoch-end save: the weights to ``out``, their moving average (if any) beside it."""
    torch.save(model.state_dict(), out)
    if ema:
        torch.save(ema.model.state_dict(), _ema_path(out))


def _gather(feat, ind):
    n, c = feat.shape[:2]
    f = feat.reshape(n, c, -1).permute(0, 2, 1)
    return f.gather(1, ind.unsqueeze(2).expand(-1, -1, c))


def _augment_colour(x, gen):
    """Per-image channel gains, overall gain and offset (on ``x``'s device; ``gen`` too)."""
    n, dev = x.shape[0], x.device
    gain = (torch.empty(n, 3, 1, 1, device=dev).uniform_(0.85, 1.15, generator=gen)
            * torch.empty(n, 1, 1, 1, device=dev).uniform_(0.75, 1.2, generator=gen))
    return (x * gain + torch.empty(n, 1, 1, 1, device=dev).uniform_(-0.05, 0.05, generator=gen)).clamp(0, 1)


def detector_loss(model, batch: dict, gen):
    """Focal heatmap loss + L1 on log size and offset at the dice centres. ``batch``: image
    uint8 [N,H,W,3] and the ``data.det_targets`` arrays as tensors (heatmap [N,gh,gw] or
    [N,1,gh,gw], ind, wh, off, mask). Returns (loss, (heatmap, size, offset) as floats)."""
    x = _augment_colour(batch["image"].permute(0, 3, 1, 2).float() / 255, gen)
    hm, wh, off = model.forward_raw(x)
    l_hm = focal_loss(hm, batch["hm"].float().reshape(hm.shape))
    ind = batch["ind"].long()
    m = batch["mask"].float().unsqueeze(2)
    npos = m.sum().clamp(min=1)
    l_wh = (torch.abs(_gather(wh, ind) - batch["wh"]) * m).sum() / npos
    l_off = (torch.abs(torch.sigmoid(_gather(off, ind)) - batch["off"]) * m).sum() / npos
    return l_hm + l_wh + l_off, (l_hm.item(), l_wh.item(), l_off.item())


def _epochs_run(epochs: int, stop_after: int | None) -> int:
    if stop_after is None:
        return epochs
    if not 1 <= stop_after <= epochs:
        raise ValueError(f"stop_after must be between 1 and epochs ({epochs}), not {stop_after}")
    return stop_after


def train_detector(caches, epochs, out: Path, seed=0, batch=16, lr=3e-3, init: Path | None = None, log=print,
                   mirror=False, ema_decay: float | None = None, stop_after: int | None = None):
    """Saves the weights to ``out`` after every epoch; with ``ema_decay`` also their moving
    average to ``<out stem>_ema.pt``. ``stop_after``: end after that many epochs, the learning
    rate still following the schedule of ``epochs`` (a run cut short, reproducibly)."""
    run_epochs = _epochs_run(epochs, stop_after)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    data = [load_cache(c) for c in caches]
    index = [(d, i) for d, cache in enumerate(data) for i in range(len(cache["det_boxes"]))]

    def calib():
        imgs = np.stack([data[d]["det_images"][i] for d, i in index[:: max(1, len(index) // 128)][:128]])
        x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255
        return [x[k:k + 32] for k in range(0, len(x), 32)]
    model = load_init(Detector(), init, calib)
    ema = Ema(model, ema_decay) if ema_decay else None
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(index) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps), pct_start=0.1)
    rng = np.random.default_rng(seed)
    gh, gw = DET_SIZE[1] // STRIDE, DET_SIZE[0] // STRIDE
    step = 0
    t0 = time.time()
    for ep in range(run_epochs):
        model.train()
        perm = rng.permutation(len(index))
        tot = 0.0
        for bi in range(len(index) // batch):
            sel = [index[j] for j in perm[bi * batch:(bi + 1) * batch]]
            imgs = np.stack([data[d]["det_images"][i] for d, i in sel])
            boxes = [data[d]["det_boxes"][i] for d, i in sel]
            if mirror:
                imgs, boxes = mirror_half(imgs, boxes, rng)
            hm_t, ind, wh_t, off_t, mask = det_targets(boxes, gh, gw)
            loss, parts = detector_loss(model, {"image": torch.from_numpy(imgs), "hm": torch.from_numpy(hm_t),
                                                "ind": torch.from_numpy(ind), "wh": torch.from_numpy(wh_t),
                                                "off": torch.from_numpy(off_t), "mask": torch.from_numpy(mask)}, gen)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if ema:
                ema.update(model)
            step += 1
            tot += loss.item()
            if step % 50 == 0:
                log(f"det ep {ep} step {step}/{steps} loss {tot / (bi + 1):.4f} (hm {parts[0]:.3f} wh {parts[1]:.3f} off {parts[2]:.3f}) {time.time() - t0:.0f}s")
        _save_epoch(model, ema, out)
        log(f"det epoch {ep} done, mean loss {tot / max(1, len(index) // batch):.4f}, saved {out}")
    return model


def _blur(x, sigma: float):
    """Gaussian blur of a batch [N,3,S,S] with one sigma (separable, replicated border)."""
    r = max(1, int(round(2.5 * sigma)))
    t = torch.arange(-r, r + 1, dtype=x.dtype, device=x.device)
    k = torch.exp(-(t ** 2) / (2 * sigma ** 2))
    k = k / k.sum()
    c = x.shape[1]
    x = F.pad(x, (r, r, r, r), mode="replicate")
    x = F.conv2d(x, k.view(1, 1, 1, -1).repeat(c, 1, 1, 1), groups=c)
    return F.conv2d(x, k.view(1, 1, -1, 1).repeat(c, 1, 1, 1), groups=c)


def _augment_photo(x, gen):
    """Photo faults the renderers may not show (issue 16): lost resolution (down- and
    up-scaled), blur, sensor noise and a contrast curve, each on a random part of the batch.
    Each fault is computed for its part of the batch only (the same random draws, in the same
    order, and the same result as computing it for every crop and keeping that part)."""
    n, dev = x.shape[0], x.device

    def some(p):
        return torch.rand(n, device=dev, generator=gen) < p

    def uni(lo, hi, shape=(1,)):
        return torch.empty(shape, device=dev).uniform_(lo, hi, generator=gen)

    size = x.shape[-1]
    small = max(12, int(size * float(uni(0.3, 0.8))))
    x = x.clone()
    rows = some(0.3)
    if bool(rows.any()):
        x[rows] = F.interpolate(F.interpolate(x[rows], size=(small, small), mode="area"), size=(size, size),
                                mode="bilinear", align_corners=False)
    rows = some(0.3)
    sigma = float(uni(0.5, 1.4))
    if bool(rows.any()):
        x[rows] = _blur(x[rows], sigma)
    gamma = uni(0.7, 1.45, (n, 1, 1, 1))
    rows = some(0.5)
    if bool(rows.any()):
        x[rows] = x[rows].clamp(1e-4, 1) ** gamma[rows]
    noise = torch.randn(x.shape, device=dev, generator=gen) * uni(0.01, 0.06, (n, 1, 1, 1))
    rows = some(0.4)
    x[rows] = x[rows] + noise[rows]
    return x.clamp(0, 1)


def _augment_crops(x, gen, upright=False, photo=False):
    """Colour gains, then each crop mirrored left-right half the time. Without ``upright`` the
    batch is also turned a random number of quarter turns; ``upright`` keeps the image's up,
    the cue that tells the top face (it lies above the side faces whenever the camera looks at
    the table obliquely). ``photo`` adds ``_augment_photo``."""
    x = _augment_colour(x, gen)
    if photo:
        x = _augment_photo(x, gen)
    if not upright:
        k = int(torch.randint(0, 4, (1,), generator=gen, device=gen.device))
        x = torch.rot90(x, k, (2, 3))
    flip = torch.rand(x.shape[0], device=x.device, generator=gen) < 0.5
    return torch.where(flip[:, None, None, None], x.flip(3), x)


def classifier_loss(model, batch: dict, gen, upright=True, photo=False):
    """Die/not-die BCE + value and colour cross-entropy (label smoothing 0.02) where labelled.
    ``batch``: crops uint8 [N,S,S,3], value, colour (-1 = no label), die. Returns (loss,
    (value right, values labelled, value and colour right))."""
    x = _augment_crops(batch["crops"].permute(0, 3, 1, 2).float() / 255, gen, upright, photo)
    v_t, c_t, d_t = batch["value"].long(), batch["colour"].long(), batch["die"].float()
    v, c, d = model.forward_raw(x)
    loss = F.binary_cross_entropy_with_logits(d[:, 0], d_t)
    vm, cm = v_t >= 0, c_t >= 0
    right = count = both = 0
    if bool(vm.any()):
        loss = loss + F.cross_entropy(v[vm], v_t[vm], label_smoothing=0.02)
        v_ok = v[vm].argmax(1) == v_t[vm]
        right, count = int(v_ok.sum()), int(vm.sum())
        both = int((v_ok & (c[vm].argmax(1) == c_t[vm])).sum())
    if bool(cm.any()):
        loss = loss + F.cross_entropy(c[cm], c_t[cm], label_smoothing=0.02)
    return loss, (right, count, both)


def train_classifier(sets, epochs, out: Path, seed=0, batch=128, lr=3e-3, init: Path | None = None, log=print,
                     upright=False, ema_decay: float | None = None, stop_after: int | None = None,
                     photo=False, width: float | None = None):
    """``sets``: list of dicts with crops (uint8 NxSxSx3), value, colour, die arrays. Saves
    (and stops) like ``train_detector``; ``photo``: ``_augment_photo`` on every batch; ``width``:
    the network's width (a narrower ``init`` is widened to it, ``nets.widen_classifier``)."""
    run_epochs = _epochs_run(epochs, stop_after)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    crops = np.concatenate([s["crops"] for s in sets])
    value = torch.from_numpy(np.concatenate([s["value"] for s in sets]).astype(np.int64))
    colour = torch.from_numpy(np.concatenate([s["colour"] for s in sets]).astype(np.int64))
    die = torch.from_numpy(np.concatenate([s["die"] for s in sets]).astype(np.float32))

    def calib():
        sel = np.linspace(0, len(crops) - 1, min(len(crops), 1024)).astype(int)
        x = torch.from_numpy(crops[sel]).permute(0, 3, 1, 2).float() / 255
        return [x[k:k + 256] for k in range(0, len(x), 256)]
    model = init_classifier(init, calib, width, seed)
    ema = Ema(model, ema_decay) if ema_decay else None
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    nb = len(crops) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, epochs * nb), pct_start=0.1)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    for ep in range(run_epochs):
        model.train()
        perm = rng.permutation(len(crops))
        tot, correct, count = 0.0, 0, 0
        for bi in range(nb):
            idx = np.sort(perm[bi * batch:(bi + 1) * batch])
            loss, (r, n, _) = classifier_loss(model, {"crops": torch.from_numpy(crops[idx]), "value": value[idx],
                                                      "colour": colour[idx], "die": die[idx]}, gen, upright,
                                              photo)
            correct += r
            count += n
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if ema:
                ema.update(model)
            tot += loss.item()
            if (bi + 1) % 100 == 0:
                log(f"cls ep {ep} batch {bi + 1}/{nb} loss {tot / (bi + 1):.4f} value acc {correct / max(1, count):.4f} {time.time() - t0:.0f}s")
        _save_epoch(model, ema, out)
        log(f"cls epoch {ep} done, loss {tot / max(1, nb):.4f}, train value acc {correct / max(1, count):.4f}, saved {out}")
    return model
