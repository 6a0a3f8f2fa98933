"""The Mitsuba renderer's geometry and scene sampling (numpy only: no mitsuba needed)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from visionlab.render.mitsuba import geometry as g


def test_faces_frames_and_opposites() -> None:
    for value, n in g.FACE_NORMAL.items():
        a, b = g.FACE_AXES[value]
        assert np.allclose(np.cross(a, b), n)
        assert np.allclose(np.asarray(g.FACE_NORMAL[7 - value]), -np.asarray(n))
    assert len(set(g.FACE_NORMAL.values())) == 6


@pytest.mark.parametrize("value", range(1, 7))
def test_pip_points(value: int) -> None:
    p = g.pip_points(value, 0.5)
    assert len(p) == value and len({tuple(x) for x in p.round(9)}) == value
    assert np.allclose(p.mean(0), 0) and np.abs(p).max() <= 0.5 + 1e-12
    turned = {tuple(x) for x in g.pip_points(value, 0.5, turned=True).round(9)}
    assert (turned == {tuple(x) for x in p.round(9)}) == (value in (1, 4, 5))


@pytest.mark.parametrize("top", range(1, 7))
def test_orientation_puts_the_face_up(top: int) -> None:
    rng = np.random.default_rng(top)
    for _ in range(10):
        rot = g.die_orientation(top, rng.uniform(0, 2 * math.pi))
        assert np.allclose(rot @ rot.T, np.eye(3)) and np.isclose(np.linalg.det(rot), 1.0)
        assert g.top_face(rot) == top
        assert np.allclose(rot @ np.asarray(g.FACE_NORMAL[top], float), (0, 0, 1))


def test_die_mesh_is_a_closed_rounded_cube_with_dimples() -> None:
    half, rounding = 0.008, 0.2
    plain = g.die_mesh(half, rounding, grid=16)
    pos, faces = plain["positions"], plain["faces"]
    assert np.allclose(pos.min(0), -half) and np.allclose(pos.max(0), half)
    assert np.allclose(np.linalg.norm(plain["normals"], axis=1), 1.0)
    # outward winding: every triangle's normal agrees with its vertices' normals
    tri = pos[faces]
    fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    keep = np.linalg.norm(fn, axis=1) > 1e-14
    assert (np.einsum("ij,ij->i", fn[keep], plain["normals"][faces[keep, 0]]) > 0).all()
    # the corners are rounded: no vertex at a cube corner
    assert np.linalg.norm(pos, axis=1).max() < half * math.sqrt(3) - 0.05 * half
    assert plain["uv"].min() >= 0 and plain["uv"].max() <= 1
    pips = {v: g.pip_points(v, 0.5) for v in range(1, 7)}
    dimpled = g.die_mesh(half, rounding, grid=48, dimples={v: (p, 0.2, 0.5) for v, p in pips.items()})
    d = dimpled["positions"]
    # the one-face's centre is pushed in by the depth (0.5 x radius 0.2 of the half side)
    top = dimpled["face_id"] == 1
    centre = np.argmin(np.linalg.norm(d[top][:, :2], axis=1))
    assert np.isclose(d[top][centre, 2], half - 0.1 * half, atol=1e-4 * half)
    # nothing leaves the cube, and the faces without pips there stay flat
    assert np.abs(d).max() <= half + 1e-12


def test_atlas_paints_each_face_with_its_pips() -> None:
    body, pip = np.array([0.8, 0.1, 0.1]), np.array([1.0, 1.0, 1.0])
    pips = {v: g.pip_points(v, 0.5) for v in range(1, 7)}
    atlas = g.die_atlas(body, pip, pips, 0.18, cell=64)
    cols, rows = g.ATLAS_CELLS
    assert atlas.shape == (rows * 64, cols * 64, 3)
    for v in range(1, 7):
        c, r = (v - 1) % cols, (v - 1) // cols
        tile = atlas[r * 64:(r + 1) * 64, c * 64:(c + 1) * 64]
        white = (tile.min(axis=2) > 0.9).astype(np.uint8)
        # count connected white discs with a flood fill of our own
        seen = np.zeros_like(white, bool)
        blobs = 0
        for y, x in zip(*np.nonzero(white)):
            if seen[y, x]:
                continue
            blobs += 1
            stack = [(y, x)]
            while stack:
                yy, xx = stack.pop()
                if 0 <= yy < 64 and 0 <= xx < 64 and white[yy, xx] and not seen[yy, xx]:
                    seen[yy, xx] = True
                    stack += [(yy + 1, xx), (yy - 1, xx), (yy, xx + 1), (yy, xx - 1)]
        assert blobs == v


def test_projection_and_table_rays_agree() -> None:
    cam = g.look_at((0.0, 0.0, 0.5), (0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0))
    px = g.project(np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]], float), cam, 640, 480, 60.0)
    f = 320 / math.tan(math.radians(30))
    assert np.allclose(px[0], (320, 240))
    assert np.allclose(px[1], (320 + 0.2 * f, 240))     # world +x on the image's right
    assert np.allclose(px[2], (320, 240 - 0.2 * f))     # the up vector is image up
    rng = np.random.default_rng(0)
    tilted = g.look_at((0.1, -0.3, 0.4), (0.02, 0.01, 0.0))
    for _ in range(20):
        x, y = rng.uniform(0, 640), rng.uniform(0, 480)
        hit = g.pixel_ray_to_table(x, y, tilted, 640, 480, 55.0)
        assert hit is not None and abs(hit[2]) < 1e-12
        assert np.allclose(g.project(hit[None], tilted, 640, 480, 55.0)[0], (x, y))
    assert np.isnan(g.project(np.array([[0, 0, 1.0]]), cam, 640, 480, 60.0)).all()   # behind


def test_scenes_are_reproducible_and_dice_do_not_overlap() -> None:
    a, b = g.sample_scene(11, 4, hard=True), g.sample_scene(11, 4, hard=True)
    assert a == b
    assert g.sample_scene(11, 5) != g.sample_scene(11, 4)
    square = g.sample_scene(11, 4, size="640x640")   # the square of many phone photos
    assert (square["width"], square["height"]) == (640, 640)
    portrait = g.sample_scene(11, 4, size="480x640")   # a phone held upright
    assert (portrait["width"], portrait["height"]) == (480, 640)
    tops = Counter()
    for i in range(60):
        s = g.sample_scene(3, i, hard=i % 2 == 0, size="mixed")
        assert s["size"] in ("640x480", "1280x960")
        dice = s["dice"]
        for d in dice:
            rot = np.asarray(d["rotation"])
            tops[g.top_face(rot)] += 1
            assert d["colour"] in g.COLOURS + ("other",)
            assert math.isclose(d["position"][2], d["half"])               # resting on the table
            assert d["pip_spacing"] + d["pip_radius"] <= 1 - d["rounding"] + 1e-9  # pips on the flat face
        for i1 in range(len(dice)):
            for i2 in range(i1 + 1, len(dice)):
                p, q = np.asarray(dice[i1]["position"]), np.asarray(dice[i2]["position"])
                # closer than the two half sides is an interpenetration (touching dice share a yaw)
                assert np.hypot(*(p - q)[:2]) >= dice[i1]["half"] + dice[i2]["half"]
    assert set(tops) == set(range(1, 7))


def test_truth_of_a_die_seen_from_above() -> None:
    cam = g.look_at((0.0, 0.0, 0.3), (0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0))
    die = {"colour": "blue", "half": 0.008, "rounding": 0.2, "position": [0.0, 0.0, 0.008],
           "rotation": g.die_orientation(5, 0.0).tolist()}
    mesh = g.die_mesh(die["half"], die["rounding"], grid=8)
    t = g.die_truth(die, mesh, cam, 640, 480, 50.0)
    assert t is not None and t["value"] == 5 and t["colour"] == "blue"
    x, y, w, h = t["box"]
    assert math.isclose(x + w / 2, 320, abs_tol=0.5) and math.isclose(y + h / 2, 240, abs_tol=0.5)
    tx, ty, tw, th = t["top_box"]
    assert tw <= w and th <= h and not t["partial"] and t["top_visible"] == 1.0
    far = dict(die, position=[5.0, 0.0, 0.008])
    assert g.die_truth(far, mesh, cam, 640, 480, 50.0) is None


@pytest.mark.parametrize("kind", ["wood", "felt", "paper", "checks", "stone", "board"])
def test_table_textures(kind: str) -> None:
    t = g.table_texture(np.random.default_rng(1), kind, 64)
    assert t.shape == (64, 64, 3) and t.min() >= 0 and t.max() <= 1
    assert t.std() > 0.001   # not a flat colour


def test_mts_does_not_share_code_with_the_other_renderers() -> None:
    import ast
    import pathlib
    for path in pathlib.Path(g.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("visionlab.render.synth", "visionlab.render.blender", "synth", "blender")), path
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith(("visionlab.render.synth", "visionlab.render.blender")) for a in node.names), path
