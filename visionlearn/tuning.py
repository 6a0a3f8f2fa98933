"""The fine-tuning loop both learners share (``visionlearn.learn``'s classifier,
``visionlearn.detector``'s detector): from seeded generators, AdamW with a cosine schedule,
BatchNorm statistics frozen (a few table images per batch would drag them)."""
from __future__ import annotations

from typing import Callable

import numpy as np
import torch


def freeze_batchnorm(model: torch.nn.Module) -> None:
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def fine_tune(model: torch.nn.Module, steps: int, seed: int, lr: float,
              step_loss: Callable[[np.random.Generator, torch.Generator], torch.Tensor]) -> float:
    """Train ``model`` in place for ``steps`` steps; ``step_loss(rng, gen)`` draws a batch with
    ``rng`` (numpy) and returns its loss (``gen``: torch's augmentation generator). Returns the
    mean loss of the last 10 steps (0 without steps). The same seed gives the same model."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + np.cos(np.pi * s / max(1, steps))))
    losses = []
    for _ in range(steps):
        model.train()
        freeze_batchnorm(model)
        loss = step_loss(rng, gen)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    model.eval()
    tail = losses[-10:]
    return sum(tail) / len(tail) if tail else 0.0
