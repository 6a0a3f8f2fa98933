"""Training loops for the detector and the classifier (torch, CPU-friendly)."""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from .data import DET_SIZE, load_cache, mirror_half
from .nets import WH_SCALE, Classifier, Detector, focal_loss

STRIDE = 4
MIN_BOX = 3.0  # detector-input pixels


def _det_targets(boxes_list, gh, gw):
    n = len(boxes_list)
    hm = np.zeros((n, 1, gh, gw), np.float32)
    ind, whs, offs, mask = [], [], [], []
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    max_obj = 64
    ind = np.zeros((n, max_obj), np.int64)
    wh = np.zeros((n, max_obj, 2), np.float32)
    off = np.zeros((n, max_obj, 2), np.float32)
    mask = np.zeros((n, max_obj), np.float32)
    for b, boxes in enumerate(boxes_list):
        k = 0
        for x, y, w, h in boxes:
            if w < MIN_BOX or h < MIN_BOX or k >= max_obj:
                continue
            cx, cy = (x + w / 2) / STRIDE, (y + h / 2) / STRIDE
            ix, iy = min(gw - 1, int(cx)), min(gh - 1, int(cy))
            sigma = max(0.8, 0.12 * min(w, h) / STRIDE)
            g = np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma ** 2))
            np.maximum(hm[b, 0], g, out=hm[b, 0])
            hm[b, 0, iy, ix] = 1.0
            ind[b, k] = iy * gw + ix
            wh[b, k] = (math.log(w / WH_SCALE), math.log(h / WH_SCALE))
            off[b, k] = (cx - ix, cy - iy)
            mask[b, k] = 1
            k += 1
    return [torch.from_numpy(a) for a in (hm, ind, wh, off, mask)]


def _gather(feat, ind):
    n, c = feat.shape[:2]
    f = feat.view(n, c, -1).permute(0, 2, 1)
    return f.gather(1, ind.unsqueeze(2).expand(-1, -1, c))


def _augment_colour(x, gen):
    n = x.shape[0]
    gain = torch.empty(n, 3, 1, 1).uniform_(0.85, 1.15, generator=gen) * torch.empty(n, 1, 1, 1).uniform_(0.75, 1.2, generator=gen)
    return (x * gain + torch.empty(n, 1, 1, 1).uniform_(-0.05, 0.05, generator=gen)).clamp(0, 1)


def train_detector(caches, epochs, out: Path, seed=0, batch=16, lr=3e-3, init: Path | None = None, log=print,
                   mirror=False):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    data = [load_cache(c) for c in caches]
    index = [(d, i) for d, cache in enumerate(data) for i in range(len(cache["det_boxes"]))]
    model = Detector()
    if init:
        model.load_state_dict(torch.load(init))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(index) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps), pct_start=0.1)
    rng = np.random.default_rng(seed)
    gh, gw = DET_SIZE[1] // STRIDE, DET_SIZE[0] // STRIDE
    step = 0
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        perm = rng.permutation(len(index))
        tot = 0.0
        for bi in range(len(index) // batch):
            sel = [index[j] for j in perm[bi * batch:(bi + 1) * batch]]
            imgs = np.stack([data[d]["det_images"][i] for d, i in sel])
            boxes = [data[d]["det_boxes"][i] for d, i in sel]
            if mirror:
                imgs, boxes = mirror_half(imgs, boxes, rng)
            x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255
            x = _augment_colour(x, gen)
            hm_t, ind, wh_t, off_t, mask = _det_targets(boxes, gh, gw)
            hm, wh, off = model.forward_raw(x)
            l_hm = focal_loss(hm, hm_t)
            m = mask.unsqueeze(2)
            npos = mask.sum().clamp(min=1)
            l_wh = (torch.abs(_gather(wh, ind) - wh_t) * m).sum() / npos
            l_off = (torch.abs(torch.sigmoid(_gather(off, ind)) - off_t) * m).sum() / npos
            loss = l_hm + l_wh + l_off
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            tot += float(loss)
            if step % 50 == 0:
                log(f"det ep {ep} step {step}/{steps} loss {tot / (bi + 1):.4f} (hm {float(l_hm):.3f} wh {float(l_wh):.3f} off {float(l_off):.3f}) {time.time() - t0:.0f}s")
        torch.save(model.state_dict(), out)
        log(f"det epoch {ep} done, mean loss {tot / max(1, len(index) // batch):.4f}, saved {out}")
    return model


def _augment_crops(x, gen, upright=False):
    """Colour gains, then mirror left-right half the time. Without ``upright`` also a random
    number of 90-degree turns; ``upright`` keeps the image's up, the cue that tells the top face
    (it lies above the side faces whenever the camera looks at the table obliquely)."""
    x = _augment_colour(x, gen)
    if not upright:
        k = int(torch.randint(0, 4, (1,), generator=gen))
        x = torch.rot90(x, k, (2, 3))
    if torch.rand(1, generator=gen) < 0.5:
        x = torch.flip(x, (3,))
    return x


def train_classifier(sets, epochs, out: Path, seed=0, batch=128, lr=3e-3, init: Path | None = None, log=print,
                     upright=False):
    """``sets``: list of dicts with crops (uint8 NxSxSx3), value, colour, die arrays."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    crops = np.concatenate([s["crops"] for s in sets])
    value = torch.from_numpy(np.concatenate([s["value"] for s in sets]).astype(np.int64))
    colour = torch.from_numpy(np.concatenate([s["colour"] for s in sets]).astype(np.int64))
    die = torch.from_numpy(np.concatenate([s["die"] for s in sets]).astype(np.float32))
    model = Classifier()
    if init:
        model.load_state_dict(torch.load(init))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    nb = len(crops) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, epochs * nb), pct_start=0.1)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        perm = rng.permutation(len(crops))
        tot, correct, count = 0.0, 0, 0
        for bi in range(nb):
            idx = np.sort(perm[bi * batch:(bi + 1) * batch])
            x = torch.from_numpy(crops[idx]).permute(0, 3, 1, 2).float() / 255
            x = _augment_crops(x, gen, upright)
            v_t, c_t, d_t = value[idx], colour[idx], die[idx]
            v, c, d = model.forward_raw(x)
            loss = F.binary_cross_entropy_with_logits(d[:, 0], d_t)
            if (v_t >= 0).any():
                loss = loss + F.cross_entropy(v[v_t >= 0], v_t[v_t >= 0], label_smoothing=0.02)
                correct += int((v[v_t >= 0].argmax(1) == v_t[v_t >= 0]).sum())
                count += int((v_t >= 0).sum())
            if (c_t >= 0).any():
                loss = loss + F.cross_entropy(c[c_t >= 0], c_t[c_t >= 0], label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss)
            if (bi + 1) % 100 == 0:
                log(f"cls ep {ep} batch {bi + 1}/{nb} loss {tot / (bi + 1):.4f} value acc {correct / max(1, count):.4f} {time.time() - t0:.0f}s")
        torch.save(model.state_dict(), out)
        log(f"cls epoch {ep} done, loss {tot / max(1, nb):.4f}, train value acc {correct / max(1, count):.4f}, saved {out}")
    return model
