"""The adapted reader's sure threshold, set on the profile's held-back dice (never on the dice it
trained on). Pure; no torch. docs/vision.md, "The table profile" states the rule:

* ``GRID`` is the shipped calibration's grid (models/README.md, rule 1) with 0.99 added;
* with at least ``MIN_HELD_BACK`` held-back dice that can be sure: the smallest grid value whose
  sure reads on them are at most ``MAX_WRONG_SHARE`` wrong, never under the shipped threshold
  (``SHIPPED``) while they are fewer than ``BELOW_SHIPPED_FROM`` (no wrong read in n bounds the
  error rate at 3/n with 95 % confidence: under 1 % takes 300; the shipped 0.85 was set on 2 775
  dice; stop 47, docs/vision-history.md);
* with fewer: the larger of ``SMALL_FLOOR`` (0.90, one grid step above the shipped 0.85: an
  adapted model known from a few dice is not trusted as far as the shipped one; 0.85 until stop 38)
  and the smallest grid value with NO wrong sure read on them (none in 39 instead of 1 in 100);
* with none (a profile of one photo): ``NO_EVIDENCE`` (one grid step above ``SMALL_FLOOR``);
* when every grid value leaves a wrong sure read: ``NOTHING_SURE`` (no read is sure).
"""
from __future__ import annotations

from typing import Sequence

from vision.config import DEFAULT_READER

GRID = (0.80, 0.85, 0.88, 0.90, 0.92, 0.95, 0.97, 0.98, 0.99)
MIN_HELD_BACK = 40
SHIPPED = DEFAULT_READER.unsure_below  # the shipped reader's threshold, 0.85 (models/README.md)
BELOW_SHIPPED_FROM = 300  # held-back dice that can be sure before the threshold may go under SHIPPED
MAX_WRONG_SHARE = 0.01
SMALL_FLOOR = 0.90
NO_EVIDENCE = 0.92
NOTHING_SURE = 1.01


def sure_counts(reads: Sequence[tuple[float, bool]], threshold: float) -> tuple[int, int]:
    """(sure reads, wrong among them) at ``threshold``."""
    sure = [right for conf, right in reads if conf >= threshold]
    return len(sure), sum(1 for r in sure if not r)


def choose_threshold(reads: Sequence[tuple[float, bool]]) -> tuple[float, str]:
    """``reads``: (confidence, right) of every held-back die that can be read sure (dice of no
    game colour are never sure and are left out by the caller). Returns (threshold, why)."""
    n = len(reads)
    if n == 0:
        return NO_EVIDENCE, f"no held-back dice that can be sure: {NO_EVIDENCE}"
    if n >= MIN_HELD_BACK:
        for t in GRID:
            if t < SHIPPED and n < BELOW_SHIPPED_FROM:
                continue
            sure, wrong = sure_counts(reads, t)
            if wrong <= MAX_WRONG_SHARE * sure:
                return t, f"{n} held-back dice: {t} is the first grid value with sure reads <= 1 % wrong ({wrong} of {sure})"
        return NOTHING_SURE, f"{n} held-back dice: wrong sure reads at every grid value; no read is sure"
    for t in GRID:
        if t < SMALL_FLOOR:
            continue
        sure, wrong = sure_counts(reads, t)
        if wrong == 0:
            return t, (f"only {n} held-back dice (< {MIN_HELD_BACK}): {t}, the first grid value from {SMALL_FLOOR} "
                       f"with no wrong sure read ({sure} sure)")
    return NOTHING_SURE, f"only {n} held-back dice: wrong sure reads at every grid value; no read is sure"
