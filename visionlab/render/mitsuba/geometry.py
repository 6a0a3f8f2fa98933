"""Geometry, textures and scene sampling of the Mitsuba dice renderer (numpy only).

Everything random about a scene is drawn here, by :func:`sample_scene`, from
``numpy.random.default_rng([seed, index, 3])``; :mod:`visionlab.render.mitsuba.render` only turns the plain
dict it returns into a Mitsuba scene.  Nothing here is shared with :mod:`visionlab.render.synth` or
:mod:`visionlab.render.blender` (docs/vision-mts.md says what is drawn and why).

Conventions: metres, the table is the plane z = 0, z up.  A die's local frame has its centre at
the origin; face ``v`` (1..6) has the outward normal ``FACE_NORMAL[v]`` and in-face axes
``FACE_AXES[v]`` (a, b with a x b = normal).  Opposite faces sum to 7.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

COLOURS = ("red", "yellow", "purple", "blue", "green")

FACE_NORMAL: dict[int, tuple[int, int, int]] = {
    1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}


def _axes(n: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    nv = np.asarray(n, np.float64)
    helper = np.array([0.0, 0.0, 1.0]) if abs(nv[2]) < 0.5 else np.array([1.0, 0.0, 0.0])
    a = np.cross(helper, nv)
    a /= np.linalg.norm(a)
    return a, np.cross(nv, a)


FACE_AXES: dict[int, tuple[np.ndarray, np.ndarray]] = {v: _axes(n) for v, n in FACE_NORMAL.items()}

# pip positions of each face in units of the pip spacing (face coordinates a, b)
PIP_GRID: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, 1), (1, -1)),
    3: ((-1, 1), (0, 0), (1, -1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)),
    6: ((-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)),
}

ATLAS_CELLS = (3, 2)  # texture atlas: 3 columns x 2 rows of faces, face v in cell v - 1


def pip_points(value: int, spacing: float, turned: bool = False) -> np.ndarray:
    """Pip centres of face ``value`` in face coordinates (-1..1 = the face's half side);
    ``turned`` gives the pattern a quarter turn (2, 3 and 6 change; the others do not)."""
    p = np.asarray(PIP_GRID[value], np.float64) * spacing
    if turned:
        p = np.stack([-p[:, 1], p[:, 0]], axis=1)
    return p


def rotation_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


# the turn (about a horizontal axis) that puts face v up: a quarter turn, a half turn for 6
UP_TURN: dict[int, np.ndarray] = {v: np.array(m, np.float64) for v, m in {
    1: ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    2: ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
    3: ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
    4: ((1, 0, 0), (0, 0, 1), (0, -1, 0)),
    5: ((0, 0, 1), (0, 1, 0), (-1, 0, 0)),
    6: ((-1, 0, 0), (0, 1, 0), (0, 0, -1)),
}.items()}


def die_orientation(top: int, yaw: float) -> np.ndarray:
    """Rotation (local -> world) putting face ``top`` up, then turned by ``yaw`` about z."""
    return rotation_z(yaw) @ UP_TURN[top]


def top_face(rotation: np.ndarray) -> int:
    """The face whose world normal points most upwards."""
    return max(FACE_NORMAL, key=lambda v: float((rotation @ np.asarray(FACE_NORMAL[v], np.float64))[2]))


def die_mesh(half: float, rounding: float, grid: int = 64,
             dimples: dict[int, tuple[np.ndarray, float, float]] | None = None
             ) -> dict[str, np.ndarray]:
    """A die as a triangle mesh in its local frame: a cube of half side ``half`` whose edges and
    corners are rounded with radius ``rounding * half`` (each face grid point is clamped into the
    inner box and pushed out by the radius along the clamp direction), with spherical dimples.

    ``dimples[v] = (points, radius, depth)``: pip centres in face coordinates, pip radius in face
    coordinates, depth as a share of the radius.  Returns ``positions`` (V,3), ``normals`` (V,3),
    ``uv`` (V,2: the texture atlas, :data:`ATLAS_CELLS`), ``faces`` (F,3) and ``face_id`` (V,:
    the die face of each vertex)."""
    r = float(rounding) * half
    inner = half - r
    t = np.linspace(-1.0, 1.0, grid + 1)
    uu, vv = np.meshgrid(t, t, indexing="xy")
    pos, nor, uvs, tris, fid = [], [], [], [], []
    base = 0
    cols, rows = ATLAS_CELLS
    for value in range(1, 7):
        n = np.asarray(FACE_NORMAL[value], np.float64)
        a, b = FACE_AXES[value]
        p = half * (n[None, None] + uu[..., None] * a + vv[..., None] * b)
        c = np.clip(p, -inner, inner)
        d = p - c
        dl = np.linalg.norm(d, axis=-1, keepdims=True)
        dn = np.where(dl > 1e-12, d / np.maximum(dl, 1e-12), n)
        q = c + r * dn
        normal = dn.copy()
        if dimples and value in dimples:
            pts, rad, depth = dimples[value]
            dep = max(1e-6, float(depth) * rad)
            sphere = (rad * rad + dep * dep) / (2 * dep)  # radius of the cap's sphere, face units
            for (pa, pb) in np.asarray(pts, np.float64).reshape(-1, 2):
                rho2 = (uu - pa) ** 2 + (vv - pb) ** 2
                inside = rho2 < rad * rad
                if not inside.any():
                    continue
                # the cap's surface below the face plane: depth at rho, in face units
                z = np.sqrt(np.maximum(sphere * sphere - rho2, 0.0)) - (sphere - dep)
                z = np.where(inside, z, 0.0)
                q = q - (half * z)[..., None] * n
                # normal of the concave cap: from the surface point towards the sphere's centre
                off_world = ((pa - uu)[..., None] * a + (pb - vv)[..., None] * b
                             + (sphere - dep + z)[..., None] * n)
                off_world = off_world / np.linalg.norm(off_world, axis=-1, keepdims=True)
                normal = np.where(inside[..., None], off_world, normal)
        col, row = (value - 1) % cols, (value - 1) // cols
        uv = np.stack([(col + (uu + 1) / 2) / cols, (row + (vv + 1) / 2) / rows], -1)
        k = grid + 1
        idx = np.arange(k * k).reshape(k, k) + base
        i0, i1, i2, i3 = idx[:-1, :-1], idx[:-1, 1:], idx[1:, 1:], idx[1:, :-1]
        quads = np.stack([i0, i1, i2, i3], -1).reshape(-1, 4)
        # outward winding: (a, b) span the face with a x b = n, and grid x runs along a, y along b
        tris.append(np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]]))
        pos.append(q.reshape(-1, 3))
        nor.append(normal.reshape(-1, 3))
        uvs.append(uv.reshape(-1, 2))
        fid.append(np.full(k * k, value, np.int8))
        base += k * k
    return {"positions": np.concatenate(pos), "normals": np.concatenate(nor), "uv": np.concatenate(uvs),
            "faces": np.concatenate(tris).astype(np.int32), "face_id": np.concatenate(fid)}


# --- textures (sRGB 0..1 float arrays, rows = v from 0) -------------------------------------

def die_atlas(body: np.ndarray, pip_rgb: np.ndarray | None, pips: dict[int, np.ndarray], radius: float,
              cell: int = 128, pit_shade: float = 1.0, ring: float = 0.0, ring_rgb: np.ndarray | None = None
              ) -> np.ndarray:
    """The die's texture atlas (``cell`` texels per face side): body colour, and a disc of
    ``pip_rgb`` at each pip (anti-aliased; ``None``: unpainted, the pit is the body times
    ``pit_shade``); ``ring`` > 0 draws a ring of ``ring_rgb`` that wide (face units) round each pip."""
    cols, rows = ATLAS_CELLS
    img = np.empty((rows * cell, cols * cell, 3), np.float64)
    img[:] = np.asarray(body, np.float64)
    t = (np.arange(cell) + 0.5) / cell * 2 - 1
    uu, vv = np.meshgrid(t, t, indexing="xy")
    px = 2.0 / cell
    paint = pip_rgb if pip_rgb is not None else np.asarray(body, np.float64) * pit_shade
    for value, pts in pips.items():
        col, row = (value - 1) % cols, (value - 1) // cols
        tile = img[row * cell:(row + 1) * cell, col * cell:(col + 1) * cell]
        dist = np.full(uu.shape, np.inf)
        for (pa, pb) in np.asarray(pts, np.float64).reshape(-1, 2):
            dist = np.minimum(dist, np.hypot(uu - pa, vv - pb))
        if ring > 0 and ring_rgb is not None:
            cover = np.clip((radius + ring - dist) / px + 0.5, 0, 1)[..., None]
            tile[:] = tile * (1 - cover) + np.asarray(ring_rgb) * cover
        cover = np.clip((radius - dist) / px + 0.5, 0, 1)[..., None]
        tile[:] = tile * (1 - cover) + np.asarray(paint) * cover
    return img


def _smooth_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Value noise: a ``cells`` x ``cells`` random grid, interpolated bilinearly to ``size``."""
    g = rng.random((cells + 1, cells + 1))
    x = np.linspace(0, cells, size, endpoint=False)
    i = np.floor(x).astype(int)
    f = x - i
    f = f * f * (3 - 2 * f)
    rowsi = g[i] * (1 - f)[:, None] + g[i + 1] * f[:, None]
    return rowsi[:, i] * (1 - f)[None, :] + rowsi[:, i + 1] * f[None, :]


def fractal_noise(rng: np.random.Generator, size: int, base: int = 4, octaves: int = 5) -> np.ndarray:
    out = np.zeros((size, size))
    amp, total = 1.0, 0.0
    for o in range(octaves):
        cells = min(size // 2, base * 2 ** o)
        out += amp * _smooth_noise(rng, size, cells)
        total += amp
        amp *= 0.5
    return out / total


def hsv(h: float, s: float, v: float) -> np.ndarray:
    """HSV (h in degrees) to sRGB 0..1."""
    h = (h % 360.0) / 60.0
    c = v * s
    x = c * (1 - abs(h % 2 - 1))
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h) % 6]
    m = v - c
    return np.array([r + m, g + m, b + m])


def table_texture(rng: np.random.Generator, kind: str, size: int = 512) -> np.ndarray:
    """A tileable-enough table texture (sRGB 0..1, ``size`` x ``size``) of one ``kind``."""
    yy, xx = np.mgrid[0:size, 0:size] / size
    if kind == "wood":
        hue = rng.uniform(18, 38)
        light, dark = hsv(hue, rng.uniform(0.35, 0.7), rng.uniform(0.55, 0.9)), hsv(hue, rng.uniform(0.5, 0.85), rng.uniform(0.2, 0.5))
        warp = fractal_noise(rng, size, 2, 4)
        freq = rng.uniform(6, 30)
        grain = 0.5 + 0.5 * np.sin(2 * np.pi * (yy * freq + warp * rng.uniform(1, 4)))
        grain = grain ** rng.uniform(1, 3)
        fine = fractal_noise(rng, size, 32, 3)
        t = np.clip(grain * 0.8 + fine * 0.4 - 0.1, 0, 1)[..., None]
        img = light * (1 - t) + dark * t
    elif kind == "felt":
        base = hsv(rng.uniform(0, 360), rng.uniform(0.2, 0.8), rng.uniform(0.15, 0.7))
        n = fractal_noise(rng, size, 64, 2) - 0.5
        weave = 0.5 + 0.25 * (np.sin(xx * size * np.pi / rng.integers(2, 5)) + np.sin(yy * size * np.pi / rng.integers(2, 5)))
        img = base * (1 + 0.25 * n[..., None] + 0.12 * (weave[..., None] - 0.5))
    elif kind == "paper":
        base = hsv(rng.uniform(30, 60), rng.uniform(0, 0.2), rng.uniform(0.75, 0.95))
        img = base * (0.92 + 0.08 * fractal_noise(rng, size, 3, 3))[..., None]
    elif kind == "checks":
        a, b = hsv(rng.uniform(0, 360), rng.uniform(0.3, 0.9), rng.uniform(0.3, 0.9)), hsv(0, 0, rng.uniform(0.7, 0.95))
        k = rng.integers(4, 16)
        m = ((np.floor(xx * k) + np.floor(yy * k)) % 2)[..., None]
        img = a * m + b * (1 - m)
        img = img * (0.9 + 0.1 * fractal_noise(rng, size, 64, 2))[..., None]
    elif kind == "stone":
        base = hsv(rng.uniform(0, 360), rng.uniform(0, 0.25), rng.uniform(0.3, 0.85))
        n = fractal_noise(rng, size, 3, 6)
        veins = np.abs(np.sin(8 * np.pi * (xx + 2 * n))) ** 0.2
        img = base * (0.7 + 0.3 * veins)[..., None]
    else:  # "board": printed game-board art: bands, discs, frames, small dots and glyph-like marks
        palette = [hsv(rng.uniform(0, 360), rng.uniform(0.2, 0.9), rng.uniform(0.25, 0.95)) for _ in range(rng.integers(3, 7))]
        img = np.empty((size, size, 3))
        img[:] = palette[0]
        for _ in range(rng.integers(4, 14)):
            c = palette[rng.integers(len(palette))]
            shape = rng.integers(3)
            x0, y0 = rng.random(2)
            if shape == 0:
                w, h = rng.uniform(0.05, 0.6, 2)
                m = (xx >= x0) & (xx < x0 + w) & (yy >= y0) & (yy < y0 + h)
            elif shape == 1:
                m = np.hypot(xx - x0, yy - y0) < rng.uniform(0.03, 0.3)
            else:
                m = np.abs((xx - x0) * math.cos(rng.uniform(0, np.pi)) + (yy - y0) * math.sin(rng.uniform(0, np.pi))) < rng.uniform(0.005, 0.04)
            img[m] = c
        if rng.random() < 0.6:  # rows of dots (they look like pips to a detector)
            k = rng.integers(8, 40)
            dc = np.array([1.0, 1.0, 1.0]) if rng.random() < 0.6 else np.array([0.05, 0.05, 0.05])
            fx, fy = (xx * k) % 1 - 0.5, (yy * k) % 1 - 0.5
            m = (np.hypot(fx, fy) < rng.uniform(0.12, 0.3)) & (fractal_noise(rng, size, 3, 1) > 0.5)
            img[m] = dc
        if rng.random() < 0.6:  # glyphs: short strokes along text lines
            k = rng.integers(20, 60)
            line = ((yy * k) % 1 < 0.45) & (_smooth_noise(rng, size, 6) > 0.55)
            strokes = (_smooth_noise(rng, size, size // 3) > 0.6)
            img[line & strokes] = np.array([0.08, 0.08, 0.08]) if rng.random() < 0.7 else np.array([0.95, 0.95, 0.95])
        img = img * (0.93 + 0.07 * fractal_noise(rng, size, 16, 3))[..., None]
    return np.clip(img, 0, 1)


# --- camera -------------------------------------------------------------------------------------

def look_at(origin, target, up=(0.0, 0.0, 1.0)) -> dict[str, np.ndarray]:
    """Camera frame as Mitsuba's ``look_at`` builds it: ``left``, ``up``, ``forward`` (unit) and
    ``origin``.  Mitsuba's perspective camera draws camera +x on the image's left."""
    o = np.asarray(origin, np.float64)
    f = np.asarray(target, np.float64) - o
    f /= np.linalg.norm(f)
    left = np.cross(np.asarray(up, np.float64), f)
    left /= np.linalg.norm(left)
    return {"origin": o, "left": left, "up": np.cross(f, left), "forward": f}


def focal_px(width: int, fov_x: float) -> float:
    """The focal length in pixels of a camera ``width`` pixels wide with horizontal field of view
    ``fov_x`` (degrees)."""
    return (width / 2) / math.tan(math.radians(fov_x) / 2)


def project(points: np.ndarray, cam: dict[str, np.ndarray], width: int, height: int, fov_x: float) -> np.ndarray:
    """World points (N,3) to pixels (N,2): x right, y down, origin at the top-left corner;
    ``fov_x`` the horizontal field of view in degrees.  Points behind the camera give NaN."""
    d = np.asarray(points, np.float64).reshape(-1, 3) - cam["origin"]
    xc, yc, zc = d @ cam["left"], d @ cam["up"], d @ cam["forward"]
    f = focal_px(width, fov_x)
    with np.errstate(divide="ignore", invalid="ignore"):
        zc = np.where(zc > 1e-9, zc, np.nan)
        return np.stack([width / 2 - f * xc / zc, height / 2 - f * yc / zc], axis=1)


def pixel_ray_to_table(px: float, py: float, cam: dict[str, np.ndarray], width: int, height: int,
                       fov_x: float) -> np.ndarray | None:
    """Where the ray through pixel (px, py) meets the table (z = 0), or None (it does not)."""
    f = focal_px(width, fov_x)
    d = (-(px - width / 2) / f) * cam["left"] + (-(py - height / 2) / f) * cam["up"] + cam["forward"]
    if d[2] >= -1e-9:
        return None
    t = -cam["origin"][2] / d[2]
    return cam["origin"] + t * d


# --- truth ----------------------------------------------------------------------------------------

def box_of(pixels: np.ndarray) -> tuple[float, float, float, float]:
    x0, y0 = np.nanmin(pixels, axis=0)
    x1, y1 = np.nanmax(pixels, axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def die_truth(die: dict[str, Any], mesh: dict[str, np.ndarray], cam: dict[str, np.ndarray],
              width: int, height: int, fov_x: float) -> dict[str, Any] | None:
    """The ground truth of one placed die (the domain-directory format of docs/vision-pbr.md):
    colour, top value, amodal box of all mesh vertices clipped to the image, the top face's box
    (unclipped: vertices within 0.3 rounding radii of the top), ``partial``, ``top_visible``.
    None when the die lies wholly outside the image."""
    rot = np.asarray(die["rotation"], np.float64)
    world = mesh["positions"] @ rot.T + np.asarray(die["position"], np.float64)
    px = project(world, cam, width, height, fov_x)
    if np.isnan(px).any():
        return None
    x0, y0, x1, y1 = box_of(px)
    cx0, cy0, cx1, cy1 = max(x0, 0.0), max(y0, 0.0), min(x1, float(width)), min(y1, float(height))
    if cx1 - cx0 < 1 or cy1 - cy0 < 1:
        return None
    ztop = world[:, 2].max()
    top = world[:, 2] >= ztop - 0.3 * die["rounding"] * die["half"] - 1e-9
    tx0, ty0, tx1, ty1 = box_of(px[top])
    tw, th = max(tx1 - tx0, 1e-9), max(ty1 - ty0, 1e-9)
    inside = (max(0.0, min(tx1, width) - max(tx0, 0)) * max(0.0, min(ty1, height) - max(ty0, 0))) / (tw * th)
    value = top_face(rot)
    return {"colour": die["colour"], "value": int(value),
            "box": [round(cx0, 2), round(cy0, 2), round(cx1 - cx0, 2), round(cy1 - cy0, 2)],
            "top_box": [round(tx0, 2), round(ty0, 2), round(tw, 2), round(th, 2)],
            "partial": bool(x0 < 0 or y0 < 0 or x1 > width or y1 > height),
            "top_visible": round(float(inside), 3)}


# --- scene sampling ---------------------------------------------------------------------------------

# body colours per family: (hue range in degrees, saturation range, value range), sRGB HSV
FAMILIES: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "red": ((-12.0, 12.0), (0.65, 0.95), (0.45, 0.92)),
    "yellow": ((40.0, 56.0), (0.7, 1.0), (0.78, 1.0)),
    "purple": ((262.0, 290.0), (0.3, 0.8), (0.28, 0.78)),
    "blue": ((200.0, 232.0), (0.55, 0.95), (0.32, 0.88)),
    "green": ((90.0, 150.0), (0.45, 0.9), (0.28, 0.78)),
}

# linear-RGB tint of a light by colour temperature (coarse table, interpolated; 6500 K = white)
_KELVIN = np.array([1800, 2500, 3200, 4000, 5000, 6500, 8000, 10000], np.float64)
_TINT = np.array([[1.0, 0.38, 0.07], [1.0, 0.52, 0.18], [1.0, 0.64, 0.33], [1.0, 0.76, 0.52],
                  [1.0, 0.88, 0.76], [1.0, 1.0, 1.0], [0.86, 0.92, 1.0], [0.74, 0.84, 1.0]])


def tint(kelvin: float) -> np.ndarray:
    t = np.array([np.interp(kelvin, _KELVIN, _TINT[:, c]) for c in range(3)])
    return t / t.max()


def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _pick(rng: np.random.Generator, weights: dict[str, float]) -> str:
    keys = list(weights)
    p = np.asarray([weights[k] for k in keys], np.float64)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def _die(rng: np.random.Generator, colour: str, side: float) -> dict[str, Any]:
    if colour == "other":
        kind = _pick(rng, {"white": 0.45, "ivory": 0.2, "black": 0.2, "grey": 0.15})
        body = {"white": hsv(0, 0, rng.uniform(0.88, 0.98)), "ivory": hsv(rng.uniform(35, 50), rng.uniform(0.1, 0.25), rng.uniform(0.85, 0.97)),
                "black": hsv(0, 0, rng.uniform(0.04, 0.12)), "grey": hsv(rng.uniform(0, 360), rng.uniform(0, 0.1), rng.uniform(0.4, 0.65))}[kind]
        pip = hsv(0, 0, 0.95) if kind == "black" else (hsv(0, 0.9, 0.6) if rng.random() < 0.15 else hsv(0, 0, rng.uniform(0.03, 0.12)))
    else:
        (h0, h1), (s0, s1), (v0, v1) = FAMILIES[colour]
        body = hsv(rng.uniform(h0, h1), rng.uniform(s0, s1), rng.uniform(v0, v1))
        pip = hsv(0, 0, rng.uniform(0.9, 0.98)) if rng.random() < 0.7 else hsv(rng.uniform(38, 50), rng.uniform(0.08, 0.25), rng.uniform(0.85, 0.96))
    style = _pick(rng, {"dimple": 0.6, "flat": 0.25, "engraved": 0.08 if colour != "other" else 0.0, "ring": 0.07})
    rounding = rng.uniform(0.08, 0.35)
    radius = rng.uniform(0.12, 0.26)
    room = 1.0 - rounding - 0.05 - radius          # the outer pips stay on the flat face
    spacing = float(np.clip(rng.uniform(0.45, 0.65), 2.3 * radius, max(room, 2.3 * radius)))
    if spacing + radius > 1.0 - rounding - 0.02:  # no room: smaller pips
        radius = max(0.08, (1.0 - rounding - 0.02 - spacing))
    turned = {v: bool(rng.random() < 0.5) for v in (2, 3, 6)}
    return {
        "colour": colour, "half": side / 2 * rng.uniform(0.94, 1.06), "rounding": rounding,
        "body": body.tolist(), "pip_rgb": None if style == "engraved" else pip.tolist(), "style": style,
        "pip_radius": radius, "pip_spacing": spacing, "turned": turned,
        "pip_depth": 0.0 if style == "flat" else (rng.uniform(0.45, 0.8) if style == "engraved" else rng.uniform(0.25, 0.65)),
        "roughness": rng.uniform(0.1, 0.55), "specular": rng.uniform(0.3, 0.7),
        "clearcoat": rng.uniform(0.3, 1.0) if rng.random() < 0.25 else 0.0,
        "top": int(rng.integers(1, 7)), "yaw": rng.uniform(0, 2 * np.pi),
    }


def die_pips(die: dict[str, Any]) -> dict[int, np.ndarray]:
    """Each face's pip centres (face coordinates) of a sampled die."""
    return {v: pip_points(v, die["pip_spacing"], die["turned"].get(v, False)) for v in range(1, 7)}


def _in_reach(p: np.ndarray, placed: list[tuple[np.ndarray, float]], skip: int | None = None) -> bool:
    for i, (q, r) in enumerate(placed):
        if i != skip and np.hypot(*(p[:2] - q[:2])) < r:
            return True
    return False


def sample_scene(seed: int, index: int, hard: bool = False, size: str = "640x480") -> dict[str, Any]:
    """Every random choice of scene ``index`` of ``seed`` (a plain dict; see the module doc)."""
    rng = np.random.default_rng([seed, index, 3])
    if size == "mixed":
        size = "640x480" if rng.random() < 0.5 else "1280x960"
    width, height = (int(v) for v in size.split("x"))
    fov = rng.uniform(40, 70)
    pitch = rng.uniform(40, 65) if hard else (rng.uniform(0, 15) if rng.random() < 0.35 else rng.uniform(10, 45))
    side = rng.uniform(0.014, 0.02)
    long_side = max(width, height)   # a portrait photo shows its dice as large as the landscape one
    die_px = rng.uniform(30, 95) * (long_side / 640) * (rng.uniform(0.55, 1.0) if long_side > 640 else 1.0)
    f = focal_px(width, fov)
    dist = f * side / die_px
    az = rng.uniform(0, 2 * np.pi)
    pr = math.radians(pitch)
    origin = np.array([math.sin(pr) * math.cos(az), math.sin(pr) * math.sin(az), math.cos(pr)]) * dist
    roll = math.radians(rng.uniform(-6, 6))
    up = np.array([-math.cos(az + roll), -math.sin(az + roll), 0.0])
    cam = look_at(origin, (0.0, 0.0, 0.0), up)

    u = rng.random()
    n_dice = 0 if u < 0.03 else (int(rng.integers(1, 3)) if u < 0.12 else (int(rng.integers(3, 10)) if u < 0.88 else int(rng.integers(10, 15))))
    if hard and n_dice:
        n_dice = max(n_dice, int(rng.integers(4, 10)))
    colours = [COLOURS[int(rng.integers(5))] for _ in range(n_dice)]
    if n_dice and rng.random() < 0.2:
        for _ in range(int(rng.integers(1, 3))):
            colours[int(rng.integers(n_dice))] = "other"
    touch_p = 0.4 if hard else 0.12
    dice: list[dict[str, Any]] = []
    placed: list[tuple[np.ndarray, float]] = []
    for colour in colours:
        d = _die(rng, colour, side)
        for _ in range(40):
            parent = None
            if dice and rng.random() < touch_p:
                parent = int(rng.integers(len(dice)))
                pd = dice[parent]
                d["yaw"] = pd["yaw"]
                step = pd["half"] + d["half"] + rng.uniform(0.0003, 0.0015)
                k = int(rng.integers(4))
                off = rotation_z(pd["yaw"] + k * np.pi / 2) @ np.array([step, rng.uniform(-0.3, 0.3) * d["half"], 0.0])
                pos = np.asarray(pd["position"]) + off
                pos[2] = d["half"]
                px = project(pos[None], cam, width, height, fov)[0]
                if not (np.isfinite(px).all() and -0.05 * width < px[0] < 1.05 * width and -0.05 * height < px[1] < 1.05 * height):
                    continue
            else:
                hit = pixel_ray_to_table(rng.uniform(-0.04, 1.04) * width, rng.uniform(-0.04, 1.04) * height, cam, width, height, fov)
                if hit is None:
                    continue
                pos = hit + np.array([0.0, 0.0, d["half"]])
            if _in_reach(pos, placed, skip=parent):
                continue
            d["position"] = pos.tolist()
            d["rotation"] = die_orientation(d["top"], d["yaw"]).tolist()
            dice.append(d)
            placed.append((pos, 1.5 * 2 * d["half"]))
            break

    distractors: list[dict[str, Any]] = []
    if rng.random() < (0.55 if hard else 0.4):
        for _ in range(int(rng.integers(1, 6))):
            kind = _pick(rng, {"token": 0.45, "cube": 0.35, "card": 0.2})
            colour = (hsv(*[rng.uniform(*r) for r in FAMILIES[COLOURS[int(rng.integers(5))]]]) if rng.random() < 0.5
                      else hsv(rng.uniform(0, 360), rng.uniform(0, 0.8), rng.uniform(0.2, 0.95)))
            size_m = {"token": rng.uniform(0.006, 0.016), "cube": rng.uniform(0.004, 0.012), "card": rng.uniform(0.025, 0.045)}[kind]
            for _ in range(20):
                hit = pixel_ray_to_table(rng.uniform(0, 1) * width, rng.uniform(0, 1) * height, cam, width, height, fov)
                if hit is None:
                    continue
                reach = 1.2 * size_m + side if kind != "card" else 0.0
                if reach and _in_reach(hit, placed):
                    continue
                if kind == "card" and _in_reach(hit, [(q, r + 0.06) for q, r in placed]):
                    continue
                distractors.append({"kind": kind, "position": hit.tolist(), "size": size_m,
                                    "height": rng.uniform(0.002, 0.02) if kind == "token" else size_m,
                                    "yaw": rng.uniform(0, 2 * np.pi), "rgb": colour.tolist(),
                                    "texture_seed": int(rng.integers(1 << 30))})
                if kind != "card":
                    placed.append((hit, reach))
                break

    table = {"kind": _pick(rng, {"wood": 0.25, "felt": 0.2, "board": 0.25, "paper": 0.1, "checks": 0.1, "stone": 0.1}),
             "texture_seed": int(rng.integers(1 << 30)), "metres": rng.uniform(0.15, 1.0),
             "roughness": rng.uniform(0.3, 0.95), "specular": rng.uniform(0.1, 0.5)}

    temp = _pick(rng, {"warm": 0.3, "neutral": 0.4, "cool": 0.2, "mixed": 0.1})
    k_key = {"warm": rng.uniform(2400, 3600), "neutral": rng.uniform(4200, 5800), "cool": rng.uniform(6000, 9000), "mixed": rng.uniform(2600, 3400)}[temp]
    k_fill = rng.uniform(6500, 9000) if temp == "mixed" else k_key * rng.uniform(0.9, 1.1)
    el, kaz = math.radians(rng.uniform(25, 85)), rng.uniform(0, 2 * np.pi)
    kdist = rng.uniform(0.3, 1.5)
    key_pos = np.array([math.cos(el) * math.cos(kaz), math.cos(el) * math.sin(kaz), math.sin(el)]) * kdist
    lights = [{"kind": _pick(rng, {"sphere": 0.55, "rect": 0.25, "spot": 0.2}), "position": key_pos.tolist(),
               "size": rng.uniform(0.005, 0.25), "irradiance": rng.uniform(1.5, 4.0), "rgb": tint(k_key).tolist(),
               "spot_deg": rng.uniform(15, 40)}]
    if rng.random() < 0.5:
        fel, faz = math.radians(rng.uniform(20, 70)), kaz + np.pi + rng.uniform(-1, 1)
        fd = rng.uniform(0.5, 2.0)
        lights.append({"kind": "sphere", "position": (np.array([math.cos(fel) * math.cos(faz), math.cos(fel) * math.sin(faz), math.sin(fel)]) * fd).tolist(),
                       "size": rng.uniform(0.1, 0.5), "irradiance": lights[0]["irradiance"] * rng.uniform(0.15, 0.5),
                       "rgb": tint(k_fill).tolist(), "spot_deg": 0.0})
    if rng.random() < 0.15:  # phone flash, a few centimetres beside the lens
        fpos = origin + cam["left"] * rng.uniform(-0.02, 0.02) + cam["up"] * rng.uniform(-0.02, 0.02)
        lights.append({"kind": "point", "position": fpos.tolist(), "size": 0.0, "irradiance": rng.uniform(0.8, 2.5),
                       "rgb": tint(rng.uniform(5000, 6500)).tolist(), "spot_deg": 0.0})
    ambient = (tint(rng.uniform(5000, 9000) if rng.random() < 0.6 else k_key) * rng.uniform(0.05, 0.45)).tolist()
    post = {"white_balance": (tint(k_key) * np.exp(rng.normal(0, 0.05, 3))).tolist() if rng.random() < 0.75 else [1.0, 1.0, 1.0],
            "exposure": float(np.exp(rng.uniform(-0.35, 0.3))), "noise": rng.uniform(0.0, 0.025),
            "blur": rng.uniform(0.5, 1.3) if rng.random() < 0.2 else 0.0, "jpeg": int(rng.integers(70, 96)),
            "contrast": rng.uniform(0.9, 1.25)}
    return {"seed": seed, "index": index, "hard": bool(hard), "size": size, "width": width, "height": height,
            "fov": fov, "pitch": pitch, "camera": {k: v.tolist() for k, v in cam.items()}, "dice": dice,
            "distractors": distractors, "table": table, "lights": lights, "ambient": ambient, "post": post}


def camera_of(scene: dict[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.asarray(v, np.float64) for k, v in scene["camera"].items()}
