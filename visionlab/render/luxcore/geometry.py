"""Scene sampling and geometry of the LuxCore dice renderer (numpy only; no ``pyluxcore`` here).

Written for a fourth rendering path that shares no scene code with ``visionlab.render.synth``,
``visionlab.render.blender`` or ``visionlab.render.mitsuba`` (a test checks the imports): the dice are superellipsoids (no
flat faces joined by cylinders: the edge rounding is one exponent), the pips are a bump map and a
paint texture on them (no mesh dimples), the colours come from palettes of anchor colours mixed in
linear RGB, most tables are LuxCore's own procedural textures, the lights include LuxCore's sun,
and the picture is developed by our own code in ``render.py`` (auto exposure, tone curves).

Every random choice of a scene is drawn from ``numpy.random.default_rng([seed, index, 4])``.
Coordinates: metres, the table is the plane z = 0, z up.  Pixels: origin top-left, x right, y down;
the horizontal field of view spans the image width.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

SIZES = {"640x480": (640, 480), "1280x960": (1280, 960), "640x640": (640, 640), "480x640": (480, 640)}
#: ``sample_scene(far=True)``: a photo of the whole table from standing height, as a phone takes it
#: (issue 38 item 6): this size, FAR_DICE dice whose side at the aim point is FAR_DIE_SHARE of the
#: photo's width (their whole-die boxes about 1.5-5.5 %, 30-110 px: 7-28 px in the detector's first
#: pass), seen from FAR_TILT degrees off vertical. Until stop 60's first set (lux-far-777300, commit
#: f634c66) the share was 0.02-0.05: boxes of 69-153 px
FAR_SIZE = (2016, 1512)
FAR_DIE_SHARE = (0.0125, 0.03)
FAR_DICE = (10, 21)
FAR_TILT = (0.0, 25.0)

# Die faces: local axis (index, sign) of each value; opposite faces sum to 7.
FACE_AXIS: dict[int, tuple[int, int]] = {1: (2, 1), 6: (2, -1), 2: (0, 1), 5: (0, -1), 3: (1, 1), 4: (1, -1)}

# Pip centres on a face in face units (-1..1), scaled by the spacing.
PIP_LAYOUT: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}

# Body colour palettes: sRGB anchors per family (light .. dark); a die mixes two neighbours.
PALETTES: dict[str, list[tuple[int, int, int]]] = {
    "red": [(242, 86, 60), (224, 40, 38), (196, 22, 34), (150, 16, 28), (232, 62, 22)],
    "yellow": [(255, 236, 80), (252, 214, 30), (246, 190, 20), (236, 168, 16), (250, 226, 120)],
    "purple": [(186, 150, 214), (150, 96, 196), (118, 60, 170), (86, 36, 132), (104, 40, 110)],
    "blue": [(120, 186, 240), (54, 130, 220), (24, 84, 186), (16, 50, 130), (30, 110, 170)],
    "green": [(150, 220, 70), (84, 186, 60), (36, 150, 70), (20, 104, 52), (14, 76, 40)],
}
# "other" dice (another game's): white, ivory, black, grey; red or blue ones only with black or gold pips
OTHER_BODIES = [(238, 238, 232), (246, 236, 208), (30, 30, 34), (120, 120, 124), (200, 40, 40), (40, 90, 200)]


def srgb_to_linear(c: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(c, np.float64), 0.0, 1.0)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(c, np.float64), 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055)


def body_colour(rng: np.random.Generator, family: str) -> list[float]:
    """sRGB 0..1: two neighbouring anchors of the family's palette mixed in linear RGB, jittered."""
    pal = np.asarray(PALETTES[family], np.float64) / 255.0
    i = int(rng.integers(0, len(pal)))
    j = (i + int(rng.choice([-1, 1]))) % len(pal)
    t = float(rng.uniform(0.0, 1.0))
    lin = (1 - t) * srgb_to_linear(pal[i]) + t * srgb_to_linear(pal[j])
    lin = lin * rng.uniform(0.85, 1.15) * rng.uniform(0.95, 1.05, 3)
    return [float(v) for v in linear_to_srgb(lin)]


# --- rotations ---------------------------------------------------------------------------------------

def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation_for_top(value: int, yaw: float, tilt: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """A rotation (local -> world) that turns the face of ``value`` to +z, then turns the die by
    ``yaw`` about z; ``tilt`` (small angles about x and y, radians) leans it (a die on a slope)."""
    axis, sign = FACE_AXIS[value]
    n = np.zeros(3)
    n[axis] = sign
    z = np.array([0.0, 0.0, 1.0])
    v = np.cross(n, z)
    c = float(n @ z)
    if np.linalg.norm(v) < 1e-12:
        r = np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    else:
        vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        r = np.eye(3) + vx + vx @ vx * (1 / (1 + c))
    tx, ty = tilt
    rx = np.array([[1, 0, 0], [0, math.cos(tx), -math.sin(tx)], [0, math.sin(tx), math.cos(tx)]])
    ry = np.array([[math.cos(ty), 0, math.sin(ty)], [0, 1, 0], [-math.sin(ty), 0, math.cos(ty)]])
    return ry @ rx @ rot_z(yaw) @ r


def top_value(rotation: np.ndarray) -> int:
    """The value whose face normal points most upwards."""
    best, up = 1, -2.0
    for v, (axis, sign) in FACE_AXIS.items():
        z = sign * float(np.asarray(rotation)[2, axis])
        if z > up:
            best, up = v, z
    return best


# --- the die mesh: a superellipsoid with a per-face texture atlas -------------------------------------

def face_frame(value: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(normal, u axis, v axis) of a face in the die's local frame."""
    axis, sign = FACE_AXIS[value]
    n = np.zeros(3)
    n[axis] = sign
    u = np.zeros(3)
    u[(axis + 1) % 3] = 1.0
    v = np.cross(n, u)
    return n, u, v


def die_mesh(half: float, exponent: float, grid: int) -> dict[str, np.ndarray]:
    """Six grid patches on the cube [-1, 1]^3 pushed onto the superellipsoid |x|^e+|y|^e+|z|^e = 1
    (radially), scaled by ``half``.  UVs: the 3x2 atlas, face of value k in tile (k-1)%3, (k-1)//3."""
    t = np.linspace(-1.0, 1.0, grid)
    a, b = np.meshgrid(t, t, indexing="xy")
    pos, nor, uv, faces = [], [], [], []
    off = 0
    e = float(exponent)
    for value in range(1, 7):
        n, u, v = face_frame(value)
        p = n[None, None, :] + a[..., None] * u + b[..., None] * v
        p = p.reshape(-1, 3)
        r = np.power(np.sum(np.abs(p) ** e, axis=1), 1.0 / e)
        q = p / r[:, None]
        g = np.sign(q) * np.abs(q) ** (e - 1)
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        col, row = (value - 1) % 3, (value - 1) // 3
        uu = (col + (a.reshape(-1) + 1) / 2 * 0.96 + 0.02) / 3.0
        vv = (row + (b.reshape(-1) + 1) / 2 * 0.96 + 0.02) / 2.0
        pos.append(q * half)
        nor.append(g)
        uv.append(np.stack([uu, vv], axis=1))
        idx = np.arange(grid * grid).reshape(grid, grid) + off
        q00, q01, q10, q11 = idx[:-1, :-1], idx[:-1, 1:], idx[1:, :-1], idx[1:, 1:]
        tri = np.concatenate([np.stack([q00, q01, q11], -1).reshape(-1, 3), np.stack([q00, q11, q10], -1).reshape(-1, 3)])
        faces.append(tri)
        off += grid * grid
    return {"positions": np.concatenate(pos), "normals": np.concatenate(nor), "uv": np.concatenate(uv),
            "faces": np.concatenate(faces).astype(np.int64)}


def pip_centres(value: int, spacing: float, quarter: bool) -> list[tuple[float, float]]:
    pts = [(x * spacing, y * spacing) for x, y in PIP_LAYOUT[value]]
    if quarter:
        pts = [(-y, x) for x, y in pts]
    return pts


def die_textures(die: dict[str, Any], tile: int) -> tuple[np.ndarray, np.ndarray]:
    """(colour atlas sRGB float HxWx3, height atlas HxW in 0..1 with pips below 1) for a die.
    LuxCore's image maps put the file's first row at v = 0, so image row r holds v = r / H."""
    h, w = 2 * tile, 3 * tile
    body = np.asarray(die["body"], np.float64)
    col = np.ones((h, w, 3)) * body
    hgt = np.ones((h, w))
    ys, xs = np.mgrid[0:tile, 0:tile]
    # face units: -1..1 over the tile's inner 96 %
    fu = ((xs + 0.5) / tile - 0.02) / 0.96 * 2 - 1
    fv = ((ys + 0.5) / tile - 0.02) / 0.96 * 2 - 1
    pip_rgb = np.asarray(die["pip_rgb"], np.float64)
    rad = die["pip_radius"]
    for value in range(1, 7):
        c0, r0 = (value - 1) % 3, (value - 1) // 3
        sl = (slice(r0 * tile, (r0 + 1) * tile), slice(c0 * tile, (c0 + 1) * tile))
        d = np.full((tile, tile), 9.0)
        for px, py in pip_centres(value, die["pip_spacing"], die["quarter"][value - 1]):
            d = np.minimum(d, np.hypot(fu - px, fv - py))
        soft = 1.5 / tile * 2
        paint = np.clip((rad - d) / soft + 0.5, 0.0, 1.0)
        if die["pip_style"] == "ring":
            ring = np.clip((rad * 1.25 - d) / soft + 0.5, 0.0, 1.0) - paint
            col[sl] = col[sl] * (1 - ring[..., None] * 0.6)
        if die["pip_style"] != "engraved":
            col[sl] = col[sl] * (1 - paint[..., None]) + pip_rgb * paint[..., None]
        else:
            col[sl] = col[sl] * (1 - paint[..., None] * 0.25)
        if die["pip_style"] in ("dimple", "engraved"):
            bowl = np.clip(1 - (d / rad) ** 2, 0.0, 1.0)
            hgt[sl] = 1 - bowl * (d < rad)
    return col, hgt


# --- camera ---------------------------------------------------------------------------------------------

def camera_basis(origin: np.ndarray, target: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = np.asarray(target, np.float64) - np.asarray(origin, np.float64)
    f /= np.linalg.norm(f)
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    return f, r, u


def focal_px(width: int, fov_x: float) -> float:
    return (width / 2.0) / math.tan(math.radians(fov_x) / 2.0)


def project(points: np.ndarray, cam: dict[str, Any], width: int, height: int) -> np.ndarray:
    """World points -> pixel coordinates (NaN behind the camera)."""
    f, r, u = camera_basis(cam["origin"], cam["target"], cam["up"])
    d = np.asarray(points, np.float64) - np.asarray(cam["origin"], np.float64)
    z = d @ f
    fl = focal_px(width, cam["fov"])
    with np.errstate(divide="ignore", invalid="ignore"):
        x = width / 2.0 + fl * (d @ r) / z
        y = height / 2.0 - fl * (d @ u) / z
    out = np.stack([x, y], axis=1)
    out[z <= 1e-6] = np.nan
    return out


def pixel_ray_to_plane(cam: dict[str, Any], width: int, height: int, px: float, py: float, z0: float) -> np.ndarray | None:
    f, r, u = camera_basis(cam["origin"], cam["target"], cam["up"])
    fl = focal_px(width, cam["fov"])
    d = f + r * (px - width / 2.0) / fl - u * (py - height / 2.0) / fl
    o = np.asarray(cam["origin"], np.float64)
    if d[2] >= -1e-9:
        return None
    t = (z0 - o[2]) / d[2]
    return o + t * d


# --- truth ----------------------------------------------------------------------------------------------

def die_truth(die: dict[str, Any], mesh: dict[str, np.ndarray], cam: dict[str, Any],
              width: int, height: int) -> dict[str, Any] | None:
    """Domain-directory truth of one die (docs/vision-pbr.md, "Output"): amodal box of all mesh
    vertices clipped to the image, the top face's unclipped box (vertices whose height along the top
    axis is at least 85 % of the half side), ``partial``, ``top_visible``; None when out of frame."""
    rot = np.asarray(die["rotation"], np.float64)
    local = mesh["positions"]
    world = local @ rot.T + np.asarray(die["position"], np.float64)
    px = project(world, cam, width, height)
    if np.isnan(px).any():
        return None
    x0, y0 = px.min(axis=0)
    x1, y1 = px.max(axis=0)
    cx0, cy0, cx1, cy1 = max(x0, 0.0), max(y0, 0.0), min(x1, float(width)), min(y1, float(height))
    if cx1 - cx0 < 1 or cy1 - cy0 < 1:
        return None
    value = top_value(rot)
    axis, sign = FACE_AXIS[value]
    top = sign * local[:, axis] >= 0.85 * die["half"]
    tx0, ty0 = px[top].min(axis=0)
    tx1, ty1 = px[top].max(axis=0)
    tw, th = max(tx1 - tx0, 1e-9), max(ty1 - ty0, 1e-9)
    inside = (max(0.0, min(tx1, width) - max(tx0, 0)) * max(0.0, min(ty1, height) - max(ty0, 0))) / (tw * th)
    return {"colour": die["colour"], "value": int(value),
            "box": [round(float(cx0), 2), round(float(cy0), 2), round(float(cx1 - cx0), 2), round(float(cy1 - cy0), 2)],
            "top_box": [round(float(tx0), 2), round(float(ty0), 2), round(float(tw), 2), round(float(th), 2)],
            "partial": bool(x0 < 0 or y0 < 0 or x1 > width or y1 > height),
            "top_visible": round(float(inside), 3)}


# --- scene sampling ---------------------------------------------------------------------------------------

TABLES = ("wood", "marble", "checker", "fbm", "brick", "board", "cloth", "plain")
CURVES = ("srgb", "gamma", "filmic", "reinhard")   # the tone curves of render.tone
KELVIN = (2700, 3000, 3500, 4200, 5000, 5600, 6500, 7500)


def kelvin_rgb(k: float) -> list[float]:
    """A light's linear RGB tint by colour temperature (blackbody fit, normalised to max 1)."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    c = srgb_to_linear(np.clip(np.array([r, g, b]) / 255.0, 0.0, 1.0))
    return [float(v) for v in c / c.max()]


def _size_of(rng: np.random.Generator, size: str) -> tuple[str, int, int]:
    if size == "mixed":
        size = "640x480" if rng.random() < 0.7 else "1280x960"
    w, h = SIZES[size]
    return size, w, h


def sample_die(rng: np.random.Generator, colour: str, half: float, exponent: float) -> dict[str, Any]:
    other = colour == "other"
    if other:
        k = int(rng.integers(0, len(OTHER_BODIES)))
        body = list(np.asarray(OTHER_BODIES[k], np.float64) / 255.0)
        if k >= 4:      # a red or blue body: never with the game's white pips (that would be a game die)
            pip_rgb = [0.05, 0.05, 0.06] if rng.random() < 0.7 else [0.85, 0.66, 0.2]
        elif sum(body) / 3 < 0.4:
            pip_rgb = [0.95, 0.95, 0.93]
        else:
            pip_rgb = [0.05, 0.05, 0.06] if rng.random() < 0.8 else [0.75, 0.1, 0.1]
    else:
        body = body_colour(rng, colour)
        cream = rng.random() < 0.3
        pip_rgb = [0.96, 0.92, 0.8] if cream else [float(v) for v in rng.uniform(0.9, 0.99) * np.ones(3)]
    style = str(rng.choice(["dimple", "print", "engraved", "ring"], p=[0.55, 0.25, 0.08, 0.12]))
    return {
        "colour": colour, "body": body, "pip_rgb": pip_rgb, "pip_style": style,
        "half": half * float(rng.uniform(0.95, 1.05)), "exponent": exponent,
        "pip_radius": float(rng.uniform(0.13, 0.25)), "pip_spacing": float(rng.uniform(0.42, 0.6)),
        "quarter": [bool(rng.random() < 0.5) for _ in range(6)],
        "material": str(rng.choice(["glossy", "disney", "coated"], p=[0.45, 0.35, 0.2])),
        "roughness": float(rng.uniform(0.04, 0.5)), "specular": float(rng.uniform(0.02, 0.08)),
        "bump": float(rng.uniform(0.4, 1.0)),
    }


def sample_table_top(rng: np.random.Generator) -> dict[str, Any]:
    """The table top: a kind (wood's colours its own), its texture's scale, colours and seed."""
    top = {"kind": str(rng.choice(TABLES)), "scale": float(rng.uniform(0.02, 0.3)),
           "rgb1": [float(v) for v in rng.uniform(0.1, 0.85, 3)], "rgb2": [float(v) for v in rng.uniform(0.05, 0.8, 3)],
           "roughness": float(rng.uniform(0.2, 0.9)), "gloss": bool(rng.random() < 0.35),
           "texture_seed": int(rng.integers(0, 2**31))}
    if top["kind"] == "wood":
        base = np.array([0.55, 0.36, 0.2]) * rng.uniform(0.5, 1.3)
        top["rgb1"], top["rgb2"] = [float(v) for v in np.clip(base, 0, 1)], [float(v) for v in np.clip(base * 0.6, 0, 1)]
    return top


# --- a table: one box of dice, one place, one phone (``--table``) -----------------------------------------
# Other tables' shades of the five game colours (sRGB), none of them an anchor of ``PALETTES``: a
# table's box is ONE of them per colour, so a table's dice may wear shades the model never saw.
TABLE_SHADES: dict[str, list[tuple[int, int, int]]] = {
    "red": [(238, 104, 84), (168, 22, 52), (160, 52, 40), (212, 42, 84), (236, 74, 34)],
    "yellow": [(216, 172, 44), (244, 238, 112), (240, 160, 24), (230, 202, 112), (200, 150, 52)],
    "purple": [(172, 142, 212), (122, 72, 202), (160, 42, 142), (100, 42, 92), (92, 62, 162)],
    "blue": [(32, 42, 112), (112, 172, 230), (32, 72, 202), (72, 112, 162), (42, 152, 202)],
    "green": [(162, 210, 62), (122, 202, 152), (32, 92, 52), (32, 132, 102), (102, 132, 42)],
}


TABLE_PIP_STYLES = ("dimple", "print", "engraved", "ring")


def sample_table(table_seed: int, hard: bool = False, pip_style: str | None = None) -> dict[str, Any]:
    """One table (``--table SEED``): what stays the same from photo to photo of one person's game —
    the box of dice (one shade per game colour, one pip paint and style, one material, one size
    and rounding), the table top, the room's key light and the phone (field of view, the way it is
    held, its tone curve and denoiser).  Drawn from ``default_rng([table_seed, 7])``; a scene of
    the table varies the dice, their places and values, and the light and camera a little
    (``sample_scene(..., table=)``). ``pip_style`` (one of ``TABLE_PIP_STYLES``) replaces the drawn
    pip style after every draw is made (the rest of the table is as without it); "engraved": pips
    unpainted, only their holes show."""
    if pip_style is not None and pip_style not in TABLE_PIP_STYLES:
        raise ValueError(f"pip_style must be one of {TABLE_PIP_STYLES}, not {pip_style!r}")
    rng = np.random.default_rng([int(table_seed), 7])
    shades = {}
    for fam, opts in TABLE_SHADES.items():
        lin = srgb_to_linear(np.asarray(opts[int(rng.integers(0, len(opts)))], np.float64) / 255.0)
        lin = lin * rng.uniform(0.9, 1.1) * rng.uniform(0.96, 1.04, 3)
        shades[fam] = [float(v) for v in linear_to_srgb(lin)]
    # pip paint per colour: white, cream or black (a coloured die with black pips is "other" to the
    # shipped model, which learned other games' dice that way: only the table can say it is its own)
    paints = {"white": [float(rng.uniform(0.9, 0.99))] * 3, "cream": [0.96, 0.92, 0.8], "black": [0.05, 0.05, 0.06]}
    pips = {fam: paints[str(rng.choice(list(paints), p=[0.5, 0.15, 0.35]))] for fam in TABLE_SHADES}
    dice = {"shades": shades, "pips": pips,
            "pip_style": str(rng.choice(list(TABLE_PIP_STYLES), p=[0.55, 0.25, 0.08, 0.12])),
            "pip_radius": float(rng.uniform(0.13, 0.25)), "pip_spacing": float(rng.uniform(0.42, 0.6)),
            "material": str(rng.choice(["glossy", "disney", "coated"], p=[0.45, 0.35, 0.2])),
            "roughness": float(rng.uniform(0.04, 0.5)), "specular": float(rng.uniform(0.02, 0.08)),
            "bump": float(rng.uniform(0.4, 1.0)),
            "half": float(rng.uniform(0.007, 0.0105)), "exponent": float(rng.uniform(5.0, 16.0))}
    if pip_style is not None:
        dice["pip_style"] = pip_style
    top = sample_table_top(rng)
    light = {"kind": str(rng.choice(["sphere", "spot", "area", "sun"], p=[0.35, 0.2, 0.3, 0.15])),
             "kelvin": float(rng.choice(KELVIN)), "elevation": float(rng.uniform(35, 80)),
             "azimuth": float(rng.uniform(0, 2 * math.pi)), "distance": float(rng.uniform(0.4, 1.4)),
             "size": float(rng.uniform(0.02, 0.3)), "cone": float(rng.uniform(30, 60)),
             "fill": bool(rng.random() < 0.5)}
    phone = {"fov": float(rng.uniform(50.0, 72.0)),
             "tilt": float(rng.uniform(44.0, 60.0)) if hard else float(rng.uniform(0.0, 40.0)),
             "die_px": float(rng.uniform(40.0, 80.0)),
             "curve": str(rng.choice(list(CURVES), p=[0.35, 0.15, 0.3, 0.2])), "denoise": bool(rng.random() < 0.5),
             "jpeg": int(rng.integers(75, 96))}
    return {"seed": int(table_seed), "hard": bool(hard), "dice": dice, "top": top, "light": light, "phone": phone}


def _table_die(die: dict[str, Any], table: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """A game die of the table's box (an "other" die stays as drawn: another game's die on the table)."""
    if die["colour"] == "other":
        return die
    look = table["dice"]
    lin = srgb_to_linear(np.asarray(look["shades"][die["colour"]])) * rng.uniform(0.97, 1.03, 3)
    die.update({k: look[k] for k in ("pip_style", "pip_radius", "pip_spacing", "material", "roughness",
                                     "specular", "bump", "exponent")})
    die["pip_rgb"] = list(look["pips"][die["colour"]])
    die["body"] = [float(v) for v in linear_to_srgb(lin)]
    die["half"] = look["half"] * float(rng.uniform(0.99, 1.01))
    return die


def sample_scene(seed: int, index: int, hard: bool = False, size: str = "640x480",
                 table: dict[str, Any] | None = None, far: bool = False) -> dict[str, Any]:
    """Every random choice of one scene (a plain dict: JSON-able except numpy arrays).  With ``table``
    (``sample_table``) the scene is a photo of that table: its dice, table top, key light and phone,
    the light and the camera varied a little; every draw of the scene is still made, so a scene
    without a table is the same as before tables existed."""
    rng = np.random.default_rng([int(seed), int(index), 4])
    tbl = table    # the name ``table`` is the scene's table top below, as before tables existed
    size, width, height = _size_of(rng, size)
    half = float(rng.uniform(0.007, 0.0105))                 # 14-21 mm dice
    exponent = float(rng.uniform(5.0, 16.0))                 # edge rounding: low = round
    fov = float(rng.uniform(38.0, 72.0))
    # camera: angle from vertical, distance from the die size in pixels
    if hard:
        tilt = float(rng.uniform(40.0, 66.0))
    else:
        tilt = float(rng.uniform(0.0, 12.0)) if rng.random() < 0.35 else float(rng.uniform(10.0, 46.0))
    die_px = float(rng.uniform(30.0, 95.0)) * max(width, height) / 640.0
    if tbl is not None:   # the table's phone, held a little differently each time
        trng = np.random.default_rng([int(seed), int(index), 5])
        phone = tbl["phone"]
        half, exponent, fov = tbl["dice"]["half"], tbl["dice"]["exponent"], phone["fov"]
        tilt = float(np.clip(phone["tilt"] + trng.normal(0.0, 5.0), 0.0, 66.0))
        die_px = phone["die_px"] * float(trng.uniform(0.8, 1.25)) * max(width, height) / 640.0
    if far:
        frng = np.random.default_rng([int(seed), int(index), 6])
        size, (width, height) = "x".join(map(str, FAR_SIZE)), FAR_SIZE
        die_px = float(frng.uniform(*FAR_DIE_SHARE)) * width
        tilt = float(frng.uniform(*FAR_TILT))
    fl = focal_px(width, fov)
    dist = fl * 2 * half / die_px
    az = float(rng.uniform(0, 2 * math.pi))
    target = np.array([rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05), 0.0])
    origin = target + dist * np.array([math.sin(math.radians(tilt)) * math.cos(az),
                                       math.sin(math.radians(tilt)) * math.sin(az),
                                       math.cos(math.radians(tilt))])
    fwd = target - origin
    fwd /= np.linalg.norm(fwd)
    # up: the far side of the table is up in the picture (a person looking across); small roll
    horiz = np.array([-math.cos(az), -math.sin(az), 0.0])
    up = horiz if tilt > 3 else np.array([math.cos(az + 1.3), math.sin(az + 1.3), 0.0])
    roll = math.radians(float(rng.normal(0.0, 3.0)))
    r = np.cross(fwd, up)
    r /= np.linalg.norm(r)
    u = np.cross(r, fwd)
    up = math.cos(roll) * u + math.sin(roll) * r
    cam = {"origin": origin, "target": target, "up": up, "fov": fov}
    focus = float(np.linalg.norm(target - origin))
    cam["aperture"] = float(rng.uniform(0.0, 0.0025)) if rng.random() < 0.3 else 0.0
    cam["focus"] = focus * float(rng.uniform(0.9, 1.1))

    # dice
    u_ = rng.random()
    if hard:
        n = int(rng.integers(4, 15))
    else:
        n = 0 if u_ < 0.03 else (int(rng.integers(1, 3)) if u_ < 0.12 else (int(rng.integers(3, 10)) if u_ < 0.88 else int(rng.integers(10, 15))))
    if tbl is not None:   # a player photographs the dice: a few to a dozen, framed
        n = int(trng.integers(5, 15)) if hard else int(trng.integers(3, 11))
    if far:
        n = int(frng.integers(*FAR_DICE))
    colours = [str(rng.choice(list(PALETTES))) for _ in range(n)]
    if n and rng.random() < 0.22:
        for k in rng.choice(n, size=min(n, int(rng.integers(1, 3))), replace=False):
            colours[int(k)] = "other"
    touch_p = 0.4 if hard else 0.12
    dice: list[dict[str, Any]] = []
    for colour in colours:
        die = sample_die(rng, colour, half, exponent)
        if tbl is not None:
            die = _table_die(die, tbl, trng)
        value = int(rng.integers(1, 7))
        yaw = float(rng.uniform(0, 2 * math.pi))
        lean = (float(rng.normal(0, 0.02)), float(rng.normal(0, 0.02)))
        placed = None
        for _ in range(30):
            if dice and rng.random() < touch_p:
                other = dice[int(rng.integers(0, len(dice)))]
                ang = float(rng.uniform(0, 2 * math.pi))
                gap = 2 * max(half, other["half"]) * float(rng.uniform(1.02, 1.15))
                xy = np.asarray(other["position"][:2]) + gap * np.array([math.cos(ang), math.sin(ang)])
                yaw = other["yaw"] + float(rng.normal(0, 0.05))
            else:
                lo, hi = (-0.04, 1.04) if tbl is None else (0.08, 0.92)
                p = pixel_ray_to_plane(cam, width, height, float(rng.uniform(lo, hi)) * width,
                                       float(rng.uniform(lo, hi)) * height, die["half"])
                if p is None:
                    continue
                xy = p[:2]
            if all(np.hypot(*(xy - np.asarray(o["position"][:2]))) >= 1.9 * max(die["half"], o["half"]) for o in dice):
                placed = xy
                break
        if placed is None:
            continue
        die["yaw"] = yaw
        die["rotation"] = rotation_for_top(value, yaw, lean)
        die["position"] = [float(placed[0]), float(placed[1]), die["half"]]
        dice.append(die)

    # distractors
    distractors = []
    for _ in range(int(rng.integers(0, 6)) if rng.random() < (0.55 if hard else 0.4) else 0):
        p = pixel_ray_to_plane(cam, width, height, float(rng.uniform(0, 1)) * width, float(rng.uniform(0, 1)) * height, 0.0)
        if p is None:
            continue
        fam = str(rng.choice(list(PALETTES)))
        rgb = body_colour(rng, fam) if rng.random() < 0.5 else [float(v) for v in rng.uniform(0.1, 0.95, 3)]
        kind = str(rng.choice(["disc", "box", "card", "meeple"]))
        distractors.append({"kind": kind, "position": [float(p[0]), float(p[1]), 0.0], "rgb": rgb,
                            "size": half * float(rng.uniform(0.8, 2.2)), "yaw": float(rng.uniform(0, 2 * math.pi)),
                            "texture_seed": int(rng.integers(0, 2**31))})
    def gap(x: dict[str, Any], d: dict[str, Any]) -> float:
        return float(np.hypot(x["position"][0] - d["position"][0], x["position"][1] - d["position"][1]))

    # when a distractor lies on a die, keep only those clear of every die by their own size too
    if any(gap(x, d) < 2.5 * half for x in distractors for d in dice):
        distractors = [x for x in distractors if all(gap(x, d) >= 2.5 * half + x["size"] for d in dice)]

    # table
    table = sample_table_top(rng)

    # lights
    k_main = float(rng.choice(KELVIN))
    lights: list[dict[str, Any]] = []
    kind = str(rng.choice(["sphere", "spot", "area", "sun"], p=[0.35, 0.2, 0.3, 0.15]))
    el = math.radians(float(rng.uniform(25, 85)))
    la = float(rng.uniform(0, 2 * math.pi))
    ld = float(rng.uniform(0.3, 1.6))
    lights.append({"kind": kind, "position": [ld * math.cos(el) * math.cos(la), ld * math.cos(el) * math.sin(la), ld * math.sin(el)],
                   "rgb": kelvin_rgb(k_main), "power": float(rng.uniform(0.6, 1.6)), "size": float(rng.uniform(0.01, 0.3)),
                   "cone": float(rng.uniform(25, 60))})
    if rng.random() < 0.5:
        el2 = math.radians(float(rng.uniform(20, 70)))
        la2 = la + math.pi + float(rng.uniform(-0.8, 0.8))
        lights.append({"kind": "sphere", "position": [ld * math.cos(el2) * math.cos(la2), ld * math.cos(el2) * math.sin(la2), ld * math.sin(el2)],
                       "rgb": kelvin_rgb(float(rng.choice(KELVIN))), "power": float(rng.uniform(0.1, 0.5)),
                       "size": float(rng.uniform(0.05, 0.3)), "cone": 0.0})
    if rng.random() < 0.15:                                   # phone flash beside the lens
        lights.append({"kind": "flash", "position": [float(v) for v in origin + 0.01 * r],
                       "rgb": kelvin_rgb(5600), "power": float(rng.uniform(0.5, 1.2)), "size": 0.0, "cone": 0.0})
    ambient = [float(v) * float(rng.uniform(0.02, 0.25)) for v in kelvin_rgb(float(rng.choice(KELVIN)))]

    # white balance: for the key light with a small error (75 %), or left as shot (a colour cast)
    key_rgb = np.asarray(lights[0]["rgb"])
    wb = key_rgb * np.exp(rng.normal(0.0, 0.05, 3)) if rng.random() < 0.75 else np.exp(rng.normal(0.0, 0.08, 3))
    post = {"curve": str(rng.choice(list(CURVES), p=[0.35, 0.15, 0.3, 0.2])),
            "white_balance": [float(v) for v in wb / wb.max()],
            "key": float(rng.uniform(0.14, 0.24)), "exposure": float(2 ** rng.normal(0.0, 0.3)),
            "denoise": bool(rng.random() < 0.5), "noise": float(rng.uniform(0.0, 0.02)),
            "blur": float(rng.uniform(0.4, 1.3)) if rng.random() < 0.2 else 0.0,
            "motion": float(rng.uniform(2, 6)) if rng.random() < 0.07 else 0.0,
            "jpeg": int(rng.integers(65, 96))}
    if tbl is not None:
        lt = tbl["light"]
        el = math.radians(float(np.clip(lt["elevation"] + trng.normal(0.0, 6.0), 20.0, 88.0)))
        la = lt["azimuth"] + float(trng.normal(0.0, 0.25))
        ld = lt["distance"] * float(trng.uniform(0.85, 1.15))
        lights = [{"kind": lt["kind"], "position": [ld * math.cos(el) * math.cos(la), ld * math.cos(el) * math.sin(la),
                                                    ld * math.sin(el)],
                   "rgb": kelvin_rgb(lt["kelvin"]), "power": float(trng.uniform(0.8, 1.3)), "size": lt["size"],
                   "cone": lt["cone"]}]
        if lt["fill"]:
            lights.append({"kind": "sphere", "position": [-ld * math.cos(el) * math.cos(la), -ld * math.cos(el) * math.sin(la),
                                                          ld * math.sin(el)],
                           "rgb": kelvin_rgb(lt["kelvin"]), "power": float(trng.uniform(0.15, 0.4)), "size": 0.2,
                           "cone": 0.0})
        ambient = [float(v) * float(trng.uniform(0.05, 0.15)) for v in kelvin_rgb(lt["kelvin"])]
        key_rgb = np.asarray(lights[0]["rgb"])
        wb = key_rgb * np.exp(trng.normal(0.0, 0.03, 3))
        post.update(curve=tbl["phone"]["curve"], denoise=tbl["phone"]["denoise"],
                    white_balance=[float(v) for v in wb / wb.max()], jpeg=tbl["phone"]["jpeg"],
                    motion=0.0)
        table = dict(tbl["top"])
    out = {"seed": int(seed), "index": int(index), "hard": bool(hard), "size": size, "width": width, "height": height,
           "camera": cam, "dice": dice, "distractors": distractors, "table": table, "lights": lights,
           "ambient": ambient, "post": post}
    if far:   # the camera can stand farther than the lights: their panels must not hide the table
        out["far"] = True
    return out
