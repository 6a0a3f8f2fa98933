"""A training cache from a domain directory (visionlab.train.domain): no torch, no bpy needed."""
from pathlib import Path

import numpy as np
import pytest

from test_bench import write_domain
from vision.model import COLOUR_CLASSES
from visionlab.train.data import DET_SIZE, load_cache
from visionlab.train.domain import build_domain_cache

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_a_domain_directory_becomes_a_training_cache(tmp_path: Path) -> None:
    src = write_domain(tmp_path / "fake-pbr", [[("red", 2), ("blue", 5)], [("green", 6)]])
    n = build_domain_cache(tmp_path / "cache", [src], workers=1, log=lambda m: None)
    assert n == 2
    d = load_cache(tmp_path / "cache")
    assert d["det_images"].shape == (2, DET_SIZE[1], DET_SIZE[0], 3)
    assert [len(b) for b in d["det_boxes"]] == [2, 1]
    die = d["die"] == 1
    # one jittered crop per die, labelled with its value and colour; the rest are background
    assert sorted(zip(d["value"][die] + 1, d["colour"][die])) == sorted(
        [(2, COLOUR_CLASSES.index("red")), (5, COLOUR_CLASSES.index("blue")), (6, COLOUR_CLASSES.index("green"))])
    assert (d["value"][~die] == -1).all() and (d["colour"][~die] == -1).all() and (~die).sum() >= 2
    assert d["crops"].shape[1:] == (64, 64, 3) and len(d["crops"]) == len(d["value"])


def test_with_a_detector_its_own_boxes_add_labelled_crops(tmp_path: Path) -> None:
    src = write_domain(tmp_path / "fake-pbr", [[("red", 2), ("blue", 5), ("yellow", 3)]])
    build_domain_cache(tmp_path / "cache", [src], workers=1, negatives_from=MODELS, log=lambda m: None)
    d = load_cache(tmp_path / "cache")
    die = d["die"] == 1
    assert die.sum() > 3                                   # the shipped detector finds these dice
    labelled = set(zip(d["value"][die] + 1, d["colour"][die]))
    assert labelled <= {(2, COLOUR_CLASSES.index("red")), (5, COLOUR_CLASSES.index("blue")),
                        (3, COLOUR_CLASSES.index("yellow"))}


def test_an_empty_source_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "domain.json").write_text("{}")
    with pytest.raises(ValueError, match="no scenes"):
        build_domain_cache(tmp_path / "cache", [tmp_path / "empty"], log=lambda m: None)
    assert not (tmp_path / "cache" / "DONE").exists()
