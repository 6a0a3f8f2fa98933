"""visionlab.render.realcolour: real white dice painted in the game's colours (stop 69)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from visionlab.bench.sets import load_domain_dir
from visionlab.render.realcolour import COLOURS, paint_die, paint_photo, pip_styles, render, table_palette

BOX = (60.0, 50.0, 60.0, 60.0)   # x, y, w, h of the drawn die
PIPS = ((75, 65), (90, 80), (105, 95))


def desk_with_die(seed: int = 0) -> np.ndarray:
    """A grey-beige desk with grain, a white die (three black pips) in BOX."""
    rng = np.random.default_rng(seed)
    img = np.full((200, 240, 3), (168, 176, 180), np.uint8)
    img = np.clip(img.astype(np.int16) + rng.integers(-6, 7, img.shape[:2])[..., None], 0, 255).astype(np.uint8)
    cv2.rectangle(img, (64, 54), (116, 106), (232, 236, 238), -1)
    for c in PIPS:
        cv2.circle(img, c, 5, (25, 25, 25), -1)
    return img


def test_paint_die_colours_the_body_keeps_the_desk_and_the_dark_pips():
    img = desk_with_die()
    before = img.copy()
    assert paint_die(img, BOX, (0.8, 0.1, 0.1), pips="dark")
    body = img[70:76, 100:110].reshape(-1, 3).astype(float).mean(axis=0)   # a pip-free patch of the top
    b, g, r = body
    assert r > 150 and r > 3 * g and r > 3 * b
    for cx, cy in PIPS:
        assert img[cy, cx].max() < 60          # the pips stay dark
    far = np.ones(img.shape[:2], bool)
    far[30:130, 40:140] = False                 # the box widened by its margin
    assert np.array_equal(img[far], before[far])


def test_paint_die_light_pips():
    img = desk_with_die()
    assert paint_die(img, BOX, (0.12, 0.32, 0.82), pips="light")
    for cx, cy in PIPS:
        assert img[cy, cx].min() > 150          # painted near white
    b, g, r = img[70:76, 100:110].reshape(-1, 3).astype(float).mean(axis=0)
    assert b > 2 * r                            # the body blue


def test_paint_die_refuses_a_box_too_small_and_a_bad_pip_style():
    img = desk_with_die()
    before = img.copy()
    assert not paint_die(img, (10, 10, 3, 3), (0.8, 0.1, 0.1))
    assert np.array_equal(img, before)
    with pytest.raises(ValueError, match="pips"):
        paint_die(img, BOX, (0.8, 0.1, 0.1), pips="gold")


def test_paint_photo_changes_nothing_when_a_die_has_no_body():
    img = desk_with_die()
    before = img.copy()
    got = paint_photo(img, [BOX, (5, 5, 2, 2)], [3, 4], table_palette(1), np.random.default_rng(0), "dark")
    assert got is None and np.array_equal(img, before)


def test_table_palette_is_seeded_and_in_range():
    a, b = table_palette(1), table_palette(2)
    assert a == table_palette(1) and a != b
    assert set(a) == set(COLOURS)
    assert all(0.03 <= v <= 0.97 for rgb in a.values() for v in rgb)


def test_render_writes_a_domain_directory_the_bench_reads(tmp_path):
    src = tmp_path / "src"
    (src / "images" / "valid").mkdir(parents=True)
    (src / "labels" / "valid").mkdir(parents=True)
    for name in ("a", "b", "c"):
        cv2.imwrite(str(src / "images" / "valid" / f"{name}.jpg"), desk_with_die(ord(name)))
    (src / "labels" / "valid" / "a.txt").write_text("2 0.375 0.4 0.1 0.1\n")   # a 3
    (src / "labels" / "valid" / "c.txt").write_text("0 0.375 0.4 0.02 0.02\n")  # no box for it: left out
    # b.jpg has no labels: kept as it is (a photo with no dice)

    def boxes_for(path, labels):
        return None if path.stem == "c" else [(list(BOX), v) for v, _, _ in labels]

    out = tmp_path / "out"
    counts = render(src, "valid", out, seed=3, pips="light", quality=95, boxes_for=boxes_for)
    assert counts == {"photos": 2, "dice": 1, "left_out": 1}
    info = json.loads((out / "domain.json").read_text())
    assert info["seed"] == 3 and info["pips"] == "light" and info["source"] == "src/valid"
    _, scenes = load_domain_dir(out)
    assert [len(t) for _, t in scenes] == [1, 0]
    die = scenes[0][1][0]
    assert die.value == 3 and die.colour in COLOURS and die.box == BOX and not die.partial
    # the same seed paints the same colours
    again = render(src, "valid", tmp_path / "again", seed=3, pips="light", quality=95, boxes_for=boxes_for)
    assert again == counts
    assert load_domain_dir(tmp_path / "again")[1][0][1][0].colour == die.colour


def test_render_refuses_a_split_without_photos(tmp_path):
    with pytest.raises(ValueError, match="no .jpg photos"):
        render(tmp_path, "valid", tmp_path / "out", seed=1, pips="dark", quality=95, boxes_for=lambda p, l: [])


def test_pip_styles():
    assert pip_styles(5, "dark") == {c: "dark" for c in COLOURS}
    mixed = pip_styles(5, "mixed")
    assert mixed == pip_styles(5, "mixed") and set(mixed) == set(COLOURS)
    assert set(mixed.values()) == {"dark", "light"}
    with pytest.raises(ValueError, match="pips"):
        pip_styles(5, "gold")


def test_render_one_colour_as_mosaics(tmp_path):
    src = tmp_path / "src"
    (src / "images" / "valid").mkdir(parents=True)
    (src / "labels" / "valid").mkdir(parents=True)
    for k in range(5):   # 4 make a 2x2 mosaic, the fifth is left out
        cv2.imwrite(str(src / "images" / "valid" / f"p{k}.jpg"), desk_with_die(k))
        (src / "labels" / "valid" / f"p{k}.txt").write_text(f"{k} 0.375 0.4 0.1 0.1\n")
    counts = render(src, "valid", tmp_path / "out", seed=1, pips="light", quality=95,
                    boxes_for=lambda path, labels: [(list(BOX), v) for v, _, _ in labels],
                    colours=["blue"], mosaic=2)
    assert counts == {"photos": 1, "dice": 4, "left_out": 1}
    _, scenes = load_domain_dir(tmp_path / "out")
    (image, truths), = scenes
    assert cv2.imread(str(image)).shape == (400, 480, 3)
    assert [t.colour for t in truths] == ["blue"] * 4 and [t.value for t in truths] == [1, 2, 3, 4]
    assert [t.box[:2] for t in truths] == [(60, 50), (300, 50), (60, 250), (300, 250)]
    with pytest.raises(ValueError, match="colours"):
        render(src, "valid", tmp_path / "x", seed=1, pips="light", quality=95, boxes_for=lambda p, l: [], colours=["pink"])


def test_the_recipe_lists_every_painted_set_the_docs_name():
    """visionlab/recipes/painted-sets.sh makes the sets docs/vision.md names (stops 69-74), each
    with arguments the CLI takes."""
    import subprocess
    from pathlib import Path

    from visionlab.render import realcolour

    root = Path(__file__).resolve().parents[2]
    listed = subprocess.run(["bash", str(root / "visionlab/recipes/painted-sets.sh"), "--list"], capture_output=True,
                            text=True, check=True, timeout=30).stdout.split("\n")
    docs = (root / "docs/vision.md").read_text()
    outs = []
    for line in filter(None, listed):
        args = line.split()
        out = args[args.index("--out") + 1]
        name = Path(out).name
        outs.append(name)
        assert f"`{name}`" in docs, name
        parsed = realcolour.build_parser().parse_args(["render", *args])
        assert parsed.out == Path(out)
    assert len(outs) == 15 and len(set(outs)) == 15
