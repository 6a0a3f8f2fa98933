"""The synthetic scene renderer: pip layouts, die orientation, determinism, ground truth."""
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from visionlab.render.synth import (FACES, PIP_LAYOUTS, SceneOptions, opposite_value, orientation,
                          render_indexed, render_scene, top_value)
from visionlab.render.synth.__main__ import main as synth_main
from visionlab.render.synth.dice import face_of_value


def test_pip_layouts_have_value_pips_inside_the_face():
    for v in range(1, 7):
        pips = PIP_LAYOUTS[v]
        assert len(pips) == v
        assert len(set(pips)) == v
        assert all(-0.75 <= c <= 0.75 for p in pips for c in p)
        # every layout is symmetric under a half turn (true of real dice)
        assert {(-u, -w) for u, w in pips} == set(pips)


def test_opposite_faces_sum_to_seven():
    normals = {v: n for v, n, _, _ in FACES}
    assert sorted(normals) == [1, 2, 3, 4, 5, 6]
    for v, n in normals.items():
        assert np.allclose(normals[opposite_value(v)], -n)
        assert v + opposite_value(v) == 7
    with pytest.raises(ValueError):
        opposite_value(7)


def test_face_frames_are_right_handed_and_one_two_three_counter_clockwise():
    for _, n, u, v in FACES:
        assert np.allclose(np.cross(u, v), n)
    n1, n2, n3 = (face_of_value(k)[0] for k in (1, 2, 3))
    assert np.linalg.det(np.stack([n1, n2, n3])) == pytest.approx(1.0)


@given(st.integers(1, 6), st.floats(0, 6.3), st.floats(0, 0.15), st.floats(0, 6.3))
@settings(max_examples=60, deadline=None)
def test_orientation_puts_the_asked_value_on_top(value, yaw, tilt, tilt_dir):
    r = orientation(value, yaw, tilt, tilt_dir)
    assert np.allclose(r @ r.T, np.eye(3), atol=1e-9)
    assert np.linalg.det(r) == pytest.approx(1.0)
    assert top_value(r) == value


def test_renderer_is_deterministic_for_a_seed():
    a, ta, _ = render_indexed(11, 3, "vga")
    b, tb, _ = render_indexed(11, 3, "vga")
    c, _, _ = render_indexed(12, 3, "vga")
    assert np.array_equal(a, b)
    assert ta == tb
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("index", range(6))
def test_ground_truth_boxes_are_inside_the_image(index):
    img, truths, opts = render_indexed(5, index, "vga", SceneOptions(min_dice=3, max_dice=12))
    h, w = img.shape[:2]
    assert (w, h) == (opts.width, opts.height) and img.dtype == np.uint8
    assert len(truths) >= 1
    for t in truths:
        x, y, bw, bh = t.box
        assert 0 <= x and 0 <= y and x + bw <= w + 1e-6 and y + bh <= h + 1e-6 and bw > 0 and bh > 0
        assert 1 <= t.value <= 6
        assert t.colour in ("red", "yellow", "purple", "blue", "green", "other")
        assert 0 <= t.top_visible <= 1
        if not t.partial:
            # a whole die contains its top face (the silhouette's rounded corners are polygons:
            # allow a few percent)
            tx, ty, tw, th = t.top_box
            tol = max(1.0, 0.05 * max(bw, bh))
            assert tx >= x - tol and ty >= y - tol and tx + tw <= x + bw + tol and ty + th <= y + bh + tol


def test_no_dice_scene_and_bad_size():
    img, truths = render_scene(np.random.default_rng(0), SceneOptions(min_dice=0, max_dice=0))
    assert truths == [] and img.shape == (480, 640, 3)
    with pytest.raises(ValueError):
        render_scene(np.random.default_rng(0), SceneOptions(width=8, height=8))


def test_cli_writes_images_and_ground_truth(tmp_path):
    assert synth_main(["--seed", "3", "--count", "2", "--out", str(tmp_path), "--sizes", "vga"]) == 0
    gt = json.loads((tmp_path / "ground_truth.json").read_text())
    assert gt["seed"] == 3 and len(gt["images"]) == 2
    for rec in gt["images"]:
        assert (tmp_path / rec["file"]).is_file()
        for d in rec["dice"]:
            assert set(d) == {"colour", "value", "box", "top_box", "partial", "top_visible"}


def _touching_pairs(truths):
    """Pairs of dice whose whole-die boxes overlap (dice placed against each other do)."""
    boxes = [t.box for t in truths]
    n = 0
    for i, (x, y, w, h) in enumerate(boxes):
        for bx, by, bw, bh in boxes[i + 1:]:
            if min(x + w, bx + bw) > max(x, bx) and min(y + h, by + bh) > max(y, by):
                n += 1
    return n


def test_touching_rate_controls_dice_placed_against_each_other():
    def pairs(rate):
        opts = SceneOptions(min_dice=8, max_dice=8, touching_rate=rate)
        return sum(_touching_pairs(render_indexed(21, i, "vga", opts)[1]) for i in range(6))
    assert pairs(1.0) >= 2 * max(1, pairs(0.0))
    # the default is the rate every shipped cache and benchmark seed was rendered with
    assert SceneOptions().touching_rate == 0.15


def test_the_benchmark_scenes_stay_the_scenes_the_figures_were_measured_on():
    # the model card's held-out (424242) and tuning (515151) figures hold for these exact
    # scenes: a renderer change that moves any random draw would silently change both sets
    first = {seed: [[(t.colour, t.value) for t in render_indexed(seed, i, "webcam")[1]][:4] for i in range(2)]
             for seed in (424242, 515151)}
    assert first == {
        424242: [[("red", 3), ("purple", 3), ("blue", 4), ("green", 5)],
                 [("purple", 2), ("yellow", 1), ("purple", 4), ("yellow", 6)]],
        515151: [[("red", 1), ("green", 5), ("purple", 4), ("blue", 1)],
                 [("green", 4), ("purple", 3), ("purple", 2), ("blue", 4)]],
    }


def _top_share(truths):
    """Mean share of a die's box that its top face covers (small when seen at a slant)."""
    shares = [t.top_box[2] * t.top_box[3] / (t.box[2] * t.box[3]) for t in truths if not t.partial]
    return float(np.mean(shares)) if shares else None


def test_steep_share_gives_more_slanted_top_faces():
    def mean_share(steep):
        opts = SceneOptions(min_dice=6, max_dice=6, steep_share=steep)
        vals = [_top_share(render_indexed(41, i, "vga", opts)[1]) for i in range(8)]
        return np.mean([v for v in vals if v is not None])
    assert mean_share(1.0) < mean_share(0.0) - 0.05
    assert SceneOptions().steep_share == 0.2


# ------------------------------------------------------------------------------------------
# The "random" style (domain randomisation, issue 16)
# ------------------------------------------------------------------------------------------


def test_classic_style_is_the_default_and_unknown_styles_are_refused():
    assert SceneOptions().style == "classic"
    with pytest.raises(ValueError, match="unknown scene style"):
        render_scene(np.random.default_rng(0), SceneOptions(style="cartoon"))


def test_random_style_is_deterministic_and_changes_the_look_not_the_layout():
    from dataclasses import replace
    opts = SceneOptions(width=320, height=240, min_dice=4, max_dice=4)
    a, ta = render_scene(np.random.default_rng([3, 1]), replace(opts, style="random"))
    b, tb = render_scene(np.random.default_rng([3, 1]), replace(opts, style="random"))
    c, tc = render_scene(np.random.default_rng([3, 1]), opts)
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)
    # the random style draws its own choices from a second generator: same dice, same values
    assert [(t.colour, t.value) for t in ta] == [(t.colour, t.value) for t in tc]


def test_family_colours_stay_in_their_family():
    import cv2
    from visionlab.render.synth.scene import BODY_FAMILIES, family_colour
    rng = np.random.default_rng(0)
    for colour, (hues, _, _) in BODY_FAMILIES.items():
        for _ in range(50):
            bgr = np.clip(family_colour(rng, colour), 0, 255).astype(np.uint8)
            h = float(cv2.cvtColor(bgr[None, None], cv2.COLOR_BGR2HSV_FULL)[0, 0, 0]) * 180 / 256
            assert any(lo - 3 <= h <= hi + 3 for lo, hi in hues) or (colour == "red" and (h <= 12 or h >= 169)), (colour, h)


def test_random_style_pips_cover_the_asked_range():
    from visionlab.render.synth.scene import _random_die_style
    rng = np.random.default_rng(1)
    styles = [_random_die_style(rng, "red") for _ in range(400)]
    fracs = [s.pip_frac / 2 for s in styles]  # radius / face side
    assert 0.06 <= min(fracs) < 0.07 and 0.13 < max(fracs) <= 0.14
    for s in styles:  # pips never overlap each other or leave the face
        assert s.pip_spread * 0.5 >= 2 * s.pip_frac * 0.5 and s.pip_spread * 0.5 + s.pip_frac <= 1.0
    assert {s.pip_style for s in styles} == {"flat", "engraved", "rim"}


def test_coloured_other_dice_get_game_colour_bodies_and_keep_the_layout():
    import cv2
    from dataclasses import replace
    opts = SceneOptions(width=320, height=240, min_dice=6, max_dice=6, other_share=1.0, style="random")
    sat_plain, sat_coloured = [], []
    for i in range(12):
        a, ta = render_scene(np.random.default_rng([5, i]), opts)
        b, tb = render_scene(np.random.default_rng([5, i]), replace(opts, coloured_other_rate=1.0))
        assert ta == tb  # same dice, same labels ("other" stays "other")
        hsv_a, hsv_b = (cv2.cvtColor(img, cv2.COLOR_BGR2HSV) for img in (a, b))
        for t in ta:
            if t.colour != "other" or t.partial:
                continue
            x, y, w, h = (int(round(v)) for v in t.top_box)
            if w < 6 or h < 6 or x < 0 or y < 0:
                continue
            sat_plain.append(float(np.median(hsv_a[y:y + h, x:x + w, 1])))
            sat_coloured.append(float(np.median(hsv_b[y:y + h, x:x + w, 1])))
    assert len(sat_plain) >= 10
    # white, ivory, grey and black bodies are pale; a game colour's body is saturated
    assert np.median(sat_coloured) > np.median(sat_plain) + 60


def test_a_polygon_reaching_far_off_the_image_draws_its_part_in_the_image():
    # a shadow cast by a light near the horizon projects thousands of millions of pixels away; cast
    # to int32 after the sub-pixel shift the polygon overflowed and fillPoly drew garbage
    import warnings
    from visionlab.render.synth.scene import _poly
    near, far = np.zeros((80, 80), np.float32), np.zeros((80, 80), np.float32)
    a, b = np.array([10.0, 10.0]), np.array([60.0, 20.0])
    direction = np.array([0.25, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _poly(near, np.array([a, b, a + 1e5 * direction]), 1.0)
        _poly(far, np.array([a, b, a + 3e9 * direction]), 1.0)
    assert near.sum() > 1000
    assert np.abs(near - far).sum() < 0.01 * near.sum()
    nan = np.zeros((80, 80), np.float32)
    _poly(nan, np.array([a, b, [np.nan, 5.0]]), 1.0)
    assert nan.sum() == 0


def test_a_palette_domain_can_paint_the_game_dice_pips_and_leaves_the_renderer_as_it_was(tmp_path) -> None:
    import cv2

    from visionlab.bench import palette
    from visionlab.render.synth import scene

    before = (dict(scene.BODY_BGR), scene.GAME_PIP_BGR, scene.GAME_PIP_STYLE)
    plain, _, _ = render_indexed(386001, 0, "vga")
    palette.render(tmp_path / "white", 386001, 1, nominal=True)
    palette.render(tmp_path / "engraved", 386001, 1, pips="engraved", nominal=True)
    # the renderer's settings come back, and its own scenes are drawn as before
    assert (dict(scene.BODY_BGR), scene.GAME_PIP_BGR, scene.GAME_PIP_STYLE) == before
    again, _, _ = render_indexed(386001, 0, "vga")
    assert np.array_equal(plain, again)
    # white pips with the renderer's colours: the renderer's own scene; engraved: the same dice, other pips
    white = cv2.imread(str(tmp_path / "white" / "00000.jpg"))
    engraved = cv2.imread(str(tmp_path / "engraved" / "00000.jpg"))
    ok, buf = cv2.imencode(".jpg", plain, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert np.array_equal(white, cv2.imdecode(buf, cv2.IMREAD_COLOR))
    assert not np.array_equal(white, engraved)
    dice_w = json.loads((tmp_path / "white" / "00000.json").read_text())["dice"]
    dice_e = json.loads((tmp_path / "engraved" / "00000.json").read_text())["dice"]
    assert dice_w == dice_e and dice_w
    info = json.loads((tmp_path / "engraved" / "domain.json").read_text())
    assert info["pips"] == "engraved" and info["nominal_colours"] is True
    with pytest.raises(ValueError, match="pips must be one of"):
        palette.render(tmp_path / "bad", 386001, 1, pips="gold")
