"""The reader's unsure threshold and its boundary, pinned (issue 40: 0.85 -> 0.95, or ``<`` ->
``<=``, broke no test). The threshold is the one the model card's figures were measured at
(models/README.md): a change of it is a decision, made here and in the card together."""

from __future__ import annotations

import numpy as np

from vision.config import DEFAULT_READER, ReaderConfig
from vision.reader import decide
from vision_testutil import FakeRawDie


def exact(confidence: float) -> FakeRawDie:
    """A raw die whose read confidence is exactly ``confidence`` (colour and detection certain)."""
    value_probs = (confidence, 1.0 - confidence, 0.0, 0.0, 0.0, 0.0)
    colour_probs = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return FakeRawDie((10.0, 10.0, 20.0, 20.0), 1.0, value_probs, colour_probs, (50.0, 0.0, 0.0))


def test_the_shipped_unsure_threshold_is_0_85():
    assert DEFAULT_READER.unsure_below == 0.85
    assert ReaderConfig().unsure_below == 0.85


def test_a_read_at_the_threshold_is_sure_and_just_below_it_is_unsure():
    t = DEFAULT_READER.unsure_below
    at = decide(exact(t), (0, 0, 1, 1))
    assert at.confidence == t and not at.unsure  # "below" is strict: at the threshold is sure
    below = decide(exact(float(np.nextafter(t, 0.0))), (0, 0, 1, 1))
    assert below.confidence < t and below.unsure
    assert not decide(exact(0.9), (0, 0, 1, 1)).unsure
    assert decide(exact(0.8), (0, 0, 1, 1)).unsure
