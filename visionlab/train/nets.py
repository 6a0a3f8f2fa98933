"""The two networks (torch; training only). Plain conv/BN/ReLU stacks so that onnxruntime and
OpenCV's cv2.dnn both run the exported graphs."""
from __future__ import annotations

import torch
from torch import nn

from .data import WH_SCALE  # detector predicts log(w / WH_SCALE)


def cbr(i, o, s=1, k=3):
    return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


DETECTOR_CHANNELS = (16, 24, 48, 64, 96)   # the stages' channels at width 1
DETECTOR_HEAD = 32                         # the last block's channels


class Detector(nn.Module):
    """CenterNet-style: stride-4 heatmap of die centres + box size + sub-cell offset.
    ``channels`` (five stages) and ``head`` give a network of other widths (a distilled one,
    visionlab/train/distill.py); by default the shipped detector's."""

    def __init__(self, width: float = 1.0, channels: tuple[int, ...] | None = None, head: int = DETECTOR_HEAD):
        super().__init__()
        c = list(channels) if channels is not None else [max(8, int(round(x * width))) for x in DETECTOR_CHANNELS]
        if len(c) != 5:
            raise ValueError(f"a detector has five stages, not {len(c)}: {c}")
        self.s1 = nn.Sequential(cbr(3, c[0], 2), cbr(c[0], c[1], 2), cbr(c[1], c[1]))      # /4
        self.s2 = nn.Sequential(cbr(c[1], c[2], 2), cbr(c[2], c[2]))                      # /8
        self.s3 = nn.Sequential(cbr(c[2], c[3], 2), cbr(c[3], c[3]), cbr(c[3], c[3]))      # /16
        self.s4 = nn.Sequential(cbr(c[3], c[4], 2), cbr(c[4], c[4]))                      # /32
        self.l4 = cbr(c[4], c[3], k=1)
        self.m3 = cbr(c[3], c[2])
        self.m2 = cbr(c[2], c[1])
        self.m1 = cbr(c[1], c[1])
        self.head = cbr(c[1], head)
        self.hm = nn.Conv2d(head, 1, 1)
        self.wh = nn.Conv2d(head, 2, 1)
        self.off = nn.Conv2d(head, 2, 1)
        nn.init.constant_(self.hm.bias, -2.19)
        nn.init.zeros_(self.wh.bias)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")

    def trunk(self, x):
        """The merged stride-4 features before the last block (``head``); a table's learner
        trains a copy of ``head`` and ``hm`` over them (visionlearn/detector.py)."""
        f1 = self.s1(x)
        f2 = self.s2(f1)
        f3 = self.s3(f2)
        f4 = self.s4(f3)
        p3 = self.m3(self.up(self.l4(f4)) + f3)
        p2 = self.m2(self.up(p3) + f2)
        return self.m1(self.up(p2) + f1)

    def features(self, x):
        return self.head(self.trunk(x))

    def forward_raw(self, x):
        h = self.features(x)
        return self.hm(h), self.wh(h), self.off(h)

    def forward(self, x):
        hm, wh, off = self.forward_raw(x)
        return torch.sigmoid(hm), torch.exp(wh) * WH_SCALE, torch.sigmoid(off)


def detector_shape(weights: dict) -> dict:
    """Detector keyword arguments (``channels``, ``head``) of a weight dict {module: weight}
    (a state dict's "<module>.weight" keys or visionlab.train.warmstart's ONNX names)."""
    def out(name):
        for key in (name, f"{name}.weight"):
            if key in weights:
                return int(weights[key][0].shape[0] if isinstance(weights[key], tuple) else weights[key].shape[0])
        raise ValueError(f"no weights for {name!r}: not a detector")
    return {"channels": tuple(out(n) for n in ("s1.0.0", "s1.1.0", "s2.0.0", "s3.0.0", "s4.0.0")),
            "head": out("head.0")}


CLASSIFIER_CHANNELS = (24, 32, 48, 64, 96)   # the stages' channels at width 1


class Classifier(nn.Module):
    """64x64 crop -> value (6), colour (6: five dice colours + other), is-a-die (1)."""

    def __init__(self, width: float = 1.0):
        super().__init__()
        c = [max(8, int(round(x * width))) for x in CLASSIFIER_CHANNELS]
        self.body = nn.Sequential(
            cbr(3, c[0], 2), cbr(c[0], c[1]),            # 32
            cbr(c[1], c[2], 2), cbr(c[2], c[2]),         # 16
            cbr(c[2], c[3], 2), cbr(c[3], c[3]),         # 8
            cbr(c[3], c[4], 2), cbr(c[4], c[4]),         # 4
        )
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(c[4] * 4 * 4, 13)

    def forward_raw(self, x):
        f = self.body(x)
        f = self.drop(torch.flatten(f, 1))
        o = self.fc(f)
        return o[:, :6], o[:, 6:12], o[:, 12:13]

    def forward(self, x):
        v, c, d = self.forward_raw(x)
        return torch.softmax(v, 1), torch.softmax(c, 1), torch.sigmoid(d)


def focal_loss(pred_logits, target):
    """CenterNet's penalty-reduced focal loss on a Gaussian-splatted heatmap."""
    p = torch.sigmoid(pred_logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def classifier_width(state: dict) -> float:
    """The ``width`` a Classifier state dict was built with (from its first layer's channels)."""
    return state["body.0.0.weight"].shape[0] / CLASSIFIER_CHANNELS[0]


def from_state(net: type, state: dict) -> nn.Module:
    """A ``Detector`` or ``Classifier`` at the widths ``state`` (a state dict) was built with,
    holding its weights."""
    model = Classifier(classifier_width(state)) if net is Classifier else Detector(**detector_shape(state))
    model.load_state_dict(state)
    return model


def widen_classifier(model: Classifier, width: float, noise: float = 0.02, seed: int = 0) -> Classifier:
    """A wider Classifier that computes what ``model`` computes (Net2WiderNet, Chen et al. 2016):
    each new channel copies a random old one (its filter and BatchNorm), and the next layer's
    weights on every copy of a channel are divided by the number of copies. ``noise`` (a share
    of each copied filter's spread) is added to the copies' filters so that training can tell
    them apart; with ``noise`` 0 the outputs are the same to rounding."""
    wide = Classifier(width)
    gen = torch.Generator().manual_seed(seed)
    old_convs = [blk[0] for blk in model.body]
    new_convs = [blk[0] for blk in wide.body]
    if any(n.out_channels < o.out_channels for o, n in zip(old_convs, new_convs)):
        raise ValueError(f"width {width} is not wider than the model's {classifier_width(model.state_dict())}")
    prev_map = torch.arange(3)
    prev_count = torch.ones(3)
    with torch.no_grad():
        for ob, nb in zip(model.body, wide.body):
            oc, ncv, obn, nbn = ob[0], nb[0], ob[1], nb[1]
            n_old, n_new = oc.out_channels, ncv.out_channels
            extra = torch.randint(0, n_old, (n_new - n_old,), generator=gen)
            out_map = torch.cat([torch.arange(n_old), extra])
            count = torch.bincount(out_map, minlength=n_old).float()
            w = oc.weight[:, prev_map] / prev_count[prev_map].view(1, -1, 1, 1)
            w = w[out_map].clone()
            if noise > 0 and n_new > n_old:
                spread = w[n_old:].flatten(1).std(1).view(-1, 1, 1, 1)
                w[n_old:] += noise * spread * torch.randn(w[n_old:].shape, generator=gen)
            ncv.weight.copy_(w)
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(nbn, name).copy_(getattr(obn, name)[out_map])
            nbn.num_batches_tracked.copy_(obn.num_batches_tracked)
            prev_map, prev_count = out_map, count
        area = model.fc.in_features // old_convs[-1].out_channels   # 4 x 4 positions per channel
        cols = (prev_map.view(-1, 1) * area + torch.arange(area).view(1, -1)).reshape(-1)
        scale = prev_count[prev_map].repeat_interleave(area)
        wide.fc.weight.copy_(model.fc.weight[:, cols] / scale.view(1, -1))
        wide.fc.bias.copy_(model.fc.bias)
    return wide.train(model.training)
