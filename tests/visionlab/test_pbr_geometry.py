"""The Blender renderer's geometry and scene sampling (numpy only: no bpy needed)."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from visionlab.render.blender import geometry as g


def test_faces_are_a_right_handed_frame_and_opposite_faces_sum_to_seven() -> None:
    normals = {}
    for value in range(1, 7):
        n, u, v = g.face_frame(value)
        assert np.allclose(np.cross(u, v), n)
        assert abs(u @ n) < 1e-12 and abs(v @ n) < 1e-12
        normals[value] = n
    for value in range(1, 7):
        assert np.allclose(normals[value], -normals[7 - value])
    assert len({tuple(n) for n in normals.values()}) == 6
    # 1, 2, 3 counter-clockwise round their corner (a Western die)
    assert np.linalg.det(np.stack([normals[1], normals[2], normals[3]])) > 0


@pytest.mark.parametrize("value", range(1, 7))
def test_pip_layouts(value: int) -> None:
    pts = g.pip_offsets(value, 1.0)
    assert len(pts) == value
    assert len({tuple(p) for p in pts.round(9)}) == value
    assert np.allclose(pts.mean(0), 0)                 # every layout is centred
    assert (np.abs(pts) <= 1 + 1e-12).all()
    # the centre pip is there on odd faces only
    assert any(np.allclose(p, 0) for p in pts) == (value % 2 == 1)
    turned = g.pip_offsets(value, 1.0, quarter_turn=True)
    assert np.allclose(np.sort(np.linalg.norm(turned, axis=1)), np.sort(np.linalg.norm(pts, axis=1)))
    centres = g.pip_centres(value, 2.0, 0.3)
    n = g.face_frame(value)[0]
    assert np.allclose(centres @ n, 1.0)               # on the face plane


def test_quarter_turn_changes_only_the_asymmetric_faces() -> None:
    for value in range(1, 7):
        a = {tuple(p) for p in g.pip_offsets(value, 1.0).round(9)}
        b = {tuple(p) for p in g.pip_offsets(value, 1.0, quarter_turn=True).round(9)}
        assert (a == b) == (value in (1, 4, 5))


@pytest.mark.parametrize("value", range(1, 7))
def test_top_value_of_a_rotation(value: int) -> None:
    rng = np.random.default_rng(value)
    for _ in range(20):
        yaw = rng.uniform(0, 2 * math.pi)
        rot = g.die_rotation(value, yaw, math.radians(rng.uniform(0, 20)), rng.uniform(0, 2 * math.pi))
        assert np.allclose(rot @ rot.T, np.eye(3)) and np.isclose(np.linalg.det(rot), 1)
        assert g.top_value(rot) == value
        assert g.top_value(g.rot_x(math.pi) @ rot) == 7 - value   # upside down


def test_top_value_of_quarter_turns() -> None:
    assert g.top_value(np.eye(3)) == 1
    assert g.top_value(g.rot_x(math.pi)) == 6
    # tip +x up (2 -> 3 ...): a quarter turn about y takes +x to +z
    assert g.top_value(g.rot_y(-math.pi / 2)) == 3
    assert g.top_value(g.rot_x(-math.pi / 2)) == 2   # -y up
    assert g.top_value(g.rot_x(math.pi / 2)) == 5


def test_pip_cutter_is_closed_and_wound_outwards() -> None:
    for rim in (0.0, 0.13):
        prof = g.pip_profile(0.1, 0.05, above=0.08, rim_radius=rim, rim_depth=0.01, rings=5)
        assert prof[0, 0] == 0 and prof[-1, 0] == 0 and np.isclose(prof[-1, 1], -0.05)
        verts, faces = g.revolve(prof, (0, 0, 0.5), (0, 0, 1), (1, 0, 0), segments=16)
        edges = Counter()
        for f in faces:
            for a, b in zip(f, f[1:] + f[:1]):
                edges[(a, b)] += 1
        # every directed edge once and its reverse once: closed and consistently wound
        assert all(c == 1 for c in edges.values())
        assert all((b, a) in edges for a, b in edges)
        assert g.signed_volume(verts, faces) > 0
        # the cap's opening is the pip radius on the face plane (z = 0.5)
        cap = prof[(prof[:, 1] <= 0) & (prof[:, 0] > 0)]
        assert cap[:, 0].max() <= max(0.1, rim) + 1e-9


def test_sampled_pips_fit_on_the_face_and_stay_apart() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        for rim in (False, True):
            p = g.pip_layout_params(rng, rim)
            r_out = p["rim_radius"]
            assert 0.04 <= p["pip_radius"] <= 0.14 and r_out >= p["pip_radius"]
            assert p["spacing"] + r_out <= 0.5 - p["bevel"] + 1e-9      # clear of the bevel
            assert p["spacing"] >= 2.2 * r_out - 1e-9                    # neighbours apart
            assert 0 < p["pip_depth"] < p["pip_radius"]


def test_die_cutters_one_per_pip() -> None:
    die = g.sample_die(np.random.default_rng(5), "red", 0.016)
    verts, faces = g.die_pip_cutters(die, segments=12, rings=4)
    per_pip = len(verts) // 21
    assert per_pip * 21 == len(verts)
    assert np.abs(verts).max() < 0.016 / 2 + 0.08 * 0.016 + 1e-9


def test_projection_of_a_downward_camera() -> None:
    cam = g.camera_matrix((0, 0, 0), 1.0, 0.0, math.pi / 2, 0.0)   # above the origin, looking down
    assert np.allclose(cam[:3, 3], (0, 0, 1))
    px, depth = g.project([(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0)], cam, 640, 480, 60.0)
    f = g.focal_px(640, 60.0)
    assert np.allclose(depth, 1.0)
    assert np.allclose(px[0], (320, 240))
    assert np.allclose(px[1], (320 + 0.1 * f, 240))       # +x is image right
    assert np.allclose(px[2], (320, 240 - 0.1 * f))       # the azimuth direction (+y) is image up


def test_projection_of_a_tilted_camera_keeps_the_target_centred() -> None:
    for tilt in (0.0, 0.5, 1.0):
        cam = g.camera_matrix((0.2, -0.1, 0.01), 0.4, tilt, 1.3, 0.05)
        px, depth = g.project([(0.2, -0.1, 0.01)], cam, 1280, 960, 70.0)
        assert np.allclose(px[0], (640, 480)) and np.isclose(depth[0], 0.4)
        assert np.isclose(cam[2, 3] - 0.01, 0.4 * math.cos(tilt))


def test_box_clipping_and_partial_flag() -> None:
    assert g.clip_box(10, 20, 50, 60, 640, 480) == ([10.0, 20.0, 40.0, 40.0], False)
    box, partial = g.clip_box(-10, 20, 30, 60, 640, 480)
    assert box == [0.0, 20.0, 30.0, 40.0] and partial
    box, partial = g.clip_box(600, 450, 700, 500, 640, 480)
    assert box == [600.0, 450.0, 40.0, 30.0] and partial
    assert g.clip_box(700, 10, 750, 40, 640, 480) == (None, True)
    assert g.clip_box(0, 0, 640, 480, 640, 480) == ([0.0, 0.0, 640.0, 480.0], False)
    assert g.inside_fraction(-10, 0, 10, 10, 640, 480) == pytest.approx(0.5)
    assert g.inside_fraction(10, 10, 20, 20, 640, 480) == 1.0
    assert g.inside_fraction(-30, -30, -10, -10, 640, 480) == 0.0


def test_die_truth_from_vertices() -> None:
    cam = g.camera_matrix((0, 0, 0), 0.5, 0.0, math.pi / 2, 0.0)
    cube = np.array([(x, y, z) for x in (-0.01, 0.01) for y in (-0.01, 0.01) for z in (0, 0.02)])
    top = cube[:, 2] > 0.019
    t = g.die_truth("blue", 4, cube, top, cam, 640, 480, 60.0)
    assert t["colour"] == "blue" and t["value"] == 4 and not t["partial"] and t["top_visible"] == 1.0
    x, y, w, h = t["box"]
    tx, ty, tw, th = t["top_box"]
    # seen from straight above, the top face (nearest) spans the whole box
    assert (tx, ty, tw, th) == (x, y, w, h) and w > 0.02 * g.focal_px(640, 60.0) / 0.5
    json.dumps(t)
    # moved half out of the left edge: clipped box, partial, about half the top face visible
    f = g.focal_px(640, 60.0)
    shift = np.array([-320 / f * 0.48, 0, 0])
    t2 = g.die_truth("blue", 4, cube + shift, top, cam, 640, 480, 60.0)
    assert t2["partial"] and t2["box"][0] == 0.0 and 0.3 < t2["top_visible"] < 0.7
    assert g.die_truth("blue", 4, cube + np.array([1.0, 0, 0]), top, cam, 640, 480, 60.0) is None


def test_squares_overlap() -> None:
    assert g.squares_overlap((0, 0), 1, 0, (1.5, 0), 1, 0)
    assert not g.squares_overlap((0, 0), 1, 0, (2.01, 0), 1, 0)
    assert g.squares_overlap((0, 0), 1, math.pi / 4, (2.2, 0), 1, 0)    # a corner pokes in
    assert not g.squares_overlap((0, 0), 1, math.pi / 4, (2.5, 0), 1, 0)


def test_scene_sampling_is_determined_by_seed_and_index() -> None:
    a = g.sample_scene(7, 3)
    b = g.sample_scene(7, 3)
    assert json.dumps(a) == json.dumps(b)
    assert json.dumps(a) != json.dumps(g.sample_scene(7, 4))
    assert json.dumps(a) != json.dumps(g.sample_scene(8, 3))
    # the size option changes the image size only
    big = g.sample_scene(7, 3, size="1280x960")
    assert (big["width"], big["height"]) == (1280, 960)
    assert json.dumps(big["dice"]) == json.dumps(a["dice"])
    mixed = {g.sample_scene(7, i, size="mixed")["size"] for i in range(20)}
    assert mixed == {"640x480", "1280x960"}
    square = g.sample_scene(7, 3, size="640x640")   # the square of many phone photos
    assert (square["width"], square["height"]) == (640, 640)
    assert json.dumps(square["dice"]) == json.dumps(a["dice"])
    portrait = g.sample_scene(7, 3, size="480x640")   # a phone held upright
    assert (portrait["width"], portrait["height"]) == (480, 640)
    assert json.dumps(portrait["dice"]) == json.dumps(a["dice"])
    with pytest.raises(ValueError, match="640x640"):
        g.sample_scene(7, 3, size="800x600")


def test_sampled_scenes_are_plausible() -> None:
    counts, others, colours = [], 0, Counter()
    for i in range(60):
        s = g.sample_scene(11, i, hard=(i % 4 == 0))
        dice = s["dice"]
        counts.append(len(dice))
        others += any(d["colour"] == "other" for d in dice)
        colours.update(d["colour"] for d in dice)
        for d in dice:
            rot = np.array(d["rotation"])
            assert g.top_value(rot) == d["value"]
            assert 0.15 <= d["roughness"] <= 0.6 or d["kind"] == "translucent"
        # no two dice footprints overlap (leaning dice get a larger footprint)
        for i1, d1 in enumerate(dice):
            for d2 in dice[i1 + 1:]:
                assert not g.squares_overlap((d1["x"], d1["y"]), d1["side"] / 2, d1["yaw"],
                                             (d2["x"], d2["y"]), d2["side"] / 2, d2["yaw"])
        cam = s["camera"]
        assert 45 <= cam["fov"] <= 75 and cam["tilt"] <= 65
        if s["hard"]:
            assert cam["tilt"] >= 45
        assert s["lights"] and 85 <= s["jpeg_quality"] <= 95
        json.dumps(s)
    assert max(counts) <= 12
    assert 3 <= np.median(counts) <= 10
    assert 5 <= others <= 30
    assert set(colours) >= set(g.COLOURS)


def test_a_candle_white_balance_keeps_light_colours_finite():
    import numpy as np
    from visionlab.render.blender.geometry import balanced_light_colour

    for white in (1000.0, 1500.0, 1900.0, 6500.0):
        for kelvin in (1800.0, 3200.0, 6500.0, 9000.0):
            assert np.isfinite(balanced_light_colour(kelvin, white)).all(), (kelvin, white)
