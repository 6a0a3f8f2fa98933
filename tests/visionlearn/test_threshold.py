"""The adapted reader's threshold rule (visionlearn/threshold.py; docs/vision.md, "The table
profile"): pure, no torch."""
from visionlearn.threshold import (BELOW_SHIPPED_FROM, GRID, MIN_HELD_BACK, NO_EVIDENCE, NOTHING_SURE, SHIPPED,
                                   SMALL_FLOOR, choose_threshold, sure_counts)


def test_sure_counts():
    reads = [(0.99, True), (0.9, False), (0.5, False)]
    assert sure_counts(reads, 0.85) == (2, 1) and sure_counts(reads, 0.95) == (1, 0)


def test_the_first_value_under_one_percent_exactly():
    reads = [(0.99, True)] * 150 + [(0.81, False), (0.81, False), (0.86, False)]
    # 0.80: 3 of 153 wrong (2 %); 0.85: 1 of 151 (0.66 %) -> 0.85
    assert choose_threshold(reads)[0] == 0.85
    reads = [(0.99, True)] * 60 + [(0.81, True)] * 10
    assert choose_threshold(reads)[0] == 0.85  # none wrong, but 70 dice cannot show 1 %: not under the shipped 0.85
    reads = [(0.99, True)] * (BELOW_SHIPPED_FROM - 10) + [(0.81, True)] * 10
    assert choose_threshold(reads)[0] == 0.80  # 300 dice and none wrong: below the shipped 0.85
    assert choose_threshold(reads[1:])[0] == 0.85 == SHIPPED


def test_few_held_back_dice_stay_conservative():
    few = [(0.99, True)] * (MIN_HELD_BACK - 1)
    assert choose_threshold(few)[0] == SMALL_FLOOR == 0.90          # a grid step above the shipped threshold
    assert choose_threshold([(0.99, True)] * 30 + [(0.86, True)])[0] == 0.90  # sure at 0.85, but the floor holds
    few = [(0.99, True)] * 30 + [(0.89, False)]
    t, why = choose_threshold(few)
    assert t == 0.90 and "held-back dice (< 40)" in why           # no wrong sure read at all, not 1 %
    many = [(0.99, True)] * 200 + [(0.89, False)]
    assert choose_threshold(many)[0] == 0.85                       # the same wrong read among 201: 1 % allowed,
    many = [(0.99, True)] * 300 + [(0.89, False)]                  # but not under the shipped threshold before 300
    assert choose_threshold(many)[0] == 0.80


def test_no_evidence_and_nothing_sure():
    assert choose_threshold([]) == (NO_EVIDENCE, "no held-back dice that can be sure: 0.92")
    assert NO_EVIDENCE > SMALL_FLOOR
    assert choose_threshold([(0.999, False)])[0] == NOTHING_SURE > 1.0
    assert choose_threshold([(0.999, False)] * 50)[0] == NOTHING_SURE
