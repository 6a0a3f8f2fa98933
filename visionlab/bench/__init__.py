"""Benchmark: accuracy on a held-out synthetic set and on real photos, speed, model size.

    python -m visionlab.bench [--synthetic-count N] [--seed S] [--sizes webcam|vga|mixed|phone]
                              [--real DIR | --no-real] [--speed-runs N] [--backend B] [--json]

(``python -m vision bench ...`` hands off to it.)  Part of the lab: it imports the runtime
(``vision``: the reader it measures) and the lab's renderer (``visionlab.render.synth``); nothing
in the runtime, the app or ``models`` imports it.  Modules: ``scoring`` (matching and tallies,
pure), ``sets`` (the synthetic, real and domain sets it reads), ``speed`` (speed, model size,
awkward inputs), ``report`` (the text tables), ``cli`` (the options and the run); ``choose.py``
counts a choice between candidate models from its JSON (``python visionlab/bench/choose.py``).

Synthetic (``visionlab.render.synth.render_indexed(seed, i, sizes)``; seed 424242 is the held-out seed
that training never uses, docs/vision-model.md).  Predictions are matched to the ground-truth
dice greedily by IoU of the whole-die boxes (>= ``MATCH_IOU``).  Dice partly out of frame
(``partial``) are not scored: a detection lying mostly on one (``PARTIAL_OVERLAP`` of its area
inside that die's box) is neither a hit nor a false detection.
"other" dice (not Encyclopedia colours) are expected as colour "unknown".

Real photos (``../shared/datasets/real-dice/matteo-white``, white dice, value only): labels are
boxes around the pip pattern, so a prediction matches a label when the predicted box contains
the label's centre (nearest centres first).  Reported per split (``valid`` is the fair one if
the model was fine-tuned on ``train``; the two splits share near-duplicate scenes).

Figures: recall, false detections, value accuracy, colour accuracy, dice read right (colour
AND value, over all scored dice, so misses count as wrong), all-dice-right rate per image,
wrong reads among the confident (not unsure) ones (on the real photos: confident of the value,
since white dice are colour "unknown" and so always unsure), unsure share, median ms per 640x480 image
with 8 dice on one core (JPEG bytes in, dice out; the process is pinned to one CPU and OpenCV
and onnxruntime use one thread), and the model files' size.  The synthetic figures are also
broken down (recall and read right per group) two ways: by the drawn size of each die's top
face (under ``SMALL_TOP_PX`` on its shorter side or not) and by whether its box overlaps another
die's box (touching or stacked dice) or not.
"""

from .scoring import (MATCH_IOU, PARTIAL_OVERLAP, SMALL_TOP_PX, SWEEP, TOUCH_OVERLAP, Tally, iou,
                      match_by_centre, match_by_centre_distance, match_by_iou, overlap_of, reader_threshold,
                      score_real_image, score_synthetic_image, synthetic_groups, threshold_sweep)
from .sets import (DEFAULT_COUNT, DEFAULT_REAL, DEFAULT_SIZES, DOMAIN_ROOT, HELD_OUT_SEED, REPO, SYNTH_RANDOM,
                   TRAINING_FILE, DomainTruth, bench_domain_dir, bench_real, bench_synth_random, bench_synthetic,
                   domain_dirs, load_domain_dir, read_yolo_labels, real_splits, trained_domains, was_trained_on)
from .speed import (DEFAULT_SPEED_RUNS, SPEED_SEED, bench_awkward, bench_speed, model_size, one_core, speed_scene,
                    write_awkward_inputs)
from .report import HEADLINE, format_domains, format_table
from .cli import build_parser, main, run_domains, run_from_args

__all__ = [
    "MATCH_IOU", "PARTIAL_OVERLAP", "SMALL_TOP_PX", "SWEEP", "TOUCH_OVERLAP", "Tally", "iou", "match_by_centre",
    "match_by_centre_distance", "match_by_iou", "overlap_of", "reader_threshold", "score_real_image",
    "score_synthetic_image", "synthetic_groups", "threshold_sweep",
    "DEFAULT_COUNT", "DEFAULT_REAL", "DEFAULT_SIZES", "DOMAIN_ROOT", "HELD_OUT_SEED", "REPO", "SYNTH_RANDOM",
    "TRAINING_FILE", "DomainTruth", "bench_domain_dir", "bench_real", "bench_synth_random", "bench_synthetic",
    "domain_dirs", "load_domain_dir", "read_yolo_labels", "real_splits", "trained_domains", "was_trained_on",
    "DEFAULT_SPEED_RUNS", "SPEED_SEED", "bench_awkward", "bench_speed", "model_size", "one_core", "speed_scene",
    "write_awkward_inputs",
    "HEADLINE", "format_domains", "format_table",
    "build_parser", "main", "run_domains", "run_from_args",
]
