"""Geometry and scene sampling for the Blender dice renderer: numpy and stdlib only, no bpy.

Everything a scene needs is drawn here, by :func:`sample_scene`, from
``numpy.random.default_rng([seed, index])``; :mod:`visionlab.render.blender.scene` only turns the resulting
plain dictionary into Blender objects.  That keeps the randomness testable without Blender.

Units are metres.  The table is the plane z = 0, +z is up.

Die frame: a cube centred at the origin.  Values sit on the faces as on a Western die:
1 on +z, 2 on -y, 3 on +x (1-2-3 counter-clockwise round their shared corner), the opposite faces
6, 5, 4, so opposite faces sum to 7.  Each face has two in-face axes (u, v) with u x v = normal;
pip positions are given in (u, v) units of the pip spacing.

Camera: Blender's convention, the camera looks along its local -z with +y up and +x right.
Pixel coordinates have their origin at the top-left corner of the image, x right, y down, and the
horizontal field of view spans the image width.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

COLOURS = ("red", "yellow", "purple", "blue", "green")

#: face value -> (outward normal, u axis, v axis) in the die frame, u x v = normal
FACE_FRAMES: dict[int, tuple[tuple[float, float, float], ...]] = {
    1: ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    6: ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
    2: ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
    5: ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
    3: ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    4: ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
}

#: pip positions per value in units of the pip spacing (a = along u, b = along v)
PIP_GRID: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, 1), (1, -1)),
    3: ((-1, 1), (0, 0), (1, -1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

PIP_STYLES = ("painted", "engraved", "rim")
TABLE_KINDS = ("wood", "cloth", "plain", "board")
SIZES = {"640x480": (640, 480), "1280x960": (1280, 960), "640x640": (640, 640), "480x640": (480, 640)}


# ----------------------------------------------------------------------------- die faces

def face_frame(value: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(normal, u, v) of the face showing ``value``, in the die frame."""
    if value not in FACE_FRAMES:
        raise ValueError(f"a die face shows 1..6, not {value!r}")
    n, u, v = FACE_FRAMES[value]
    return np.array(n, float), np.array(u, float), np.array(v, float)


def pip_offsets(value: int, spacing: float, quarter_turn: bool = False) -> np.ndarray:
    """(k, 2) pip centres in face coordinates (u, v), ``spacing`` from the centre per grid step.

    ``quarter_turn`` turns the pattern by 90 degrees on the face (it changes the look of 2, 3 and 6
    only: dice makers differ in how those faces are turned).
    """
    if value not in PIP_GRID:
        raise ValueError(f"a die face shows 1..6, not {value!r}")
    g = np.array(PIP_GRID[value], float) * spacing
    if quarter_turn:
        g = np.stack([-g[:, 1], g[:, 0]], axis=1)
    return g


def pip_centres(value: int, side: float, spacing: float, quarter_turn: bool = False) -> np.ndarray:
    """(k, 3) pip centres on the face plane, in the die frame; ``spacing`` is a fraction of the side."""
    n, u, v = face_frame(value)
    off = pip_offsets(value, spacing * side, quarter_turn)
    return n * side / 2 + off[:, :1] * u + off[:, 1:] * v


def top_value(rotation: np.ndarray) -> int:
    """The value on the face whose normal points most upwards once the die is turned by ``rotation``."""
    rot = np.asarray(rotation, float)
    best, best_z = 0, -np.inf
    for value in range(1, 7):
        z = float((rot @ face_frame(value)[0])[2])
        if z > best_z:
            best, best_z = value, z
    return best


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], float)


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], float)


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], float)


def rot_axis(axis, a: float) -> np.ndarray:
    """Rotation by ``a`` radians about ``axis`` (Rodrigues)."""
    k = np.asarray(axis, float)
    k = k / np.linalg.norm(k)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(a) * kx + (1 - math.cos(a)) * (kx @ kx)


def face_up_rotation(value: int) -> np.ndarray:
    """A rotation that turns the face showing ``value`` to face +z."""
    n = face_frame(value)[0]
    if n[2] > 0.5:
        return np.eye(3)
    if n[2] < -0.5:
        return rot_x(math.pi)
    # a quarter turn about the horizontal axis z x n takes n onto +z
    return rot_axis(np.cross(n, [0.0, 0.0, 1.0]), math.pi / 2)


def die_rotation(value: int, yaw: float, lean: float = 0.0, lean_azimuth: float = 0.0) -> np.ndarray:
    """Die frame -> world: ``value`` up, turned by ``yaw`` about +z, then leant by ``lean`` radians."""
    rot = rot_z(yaw) @ face_up_rotation(value)
    if lean:
        rot = rot_axis([math.cos(lean_azimuth), math.sin(lean_azimuth), 0.0], lean) @ rot
    return rot


# ----------------------------------------------------------------------------- pip cutters

def pip_profile(radius: float, depth: float, above: float, rim_radius: float = 0.0,
                rim_depth: float = 0.0, rings: int = 6) -> np.ndarray:
    """(rho, h) profile of a pip cutter, from the top of its axis out and down to the bottom.

    h is the height above the face plane.  The cutter is a cylinder from ``above`` down to the face,
    then a spherical cap ``depth`` deep whose opening has ``radius``; with ``rim_radius`` >
    ``radius`` a flat counterbore ``rim_depth`` deep is cut first (the painted rim style).
    """
    if not 0 < depth < radius * 1.5:
        raise ValueError("a pip is between 0 and 1.5 radii deep")
    big = (radius ** 2 + depth ** 2) / (2 * depth)   # sphere radius of the cap
    centre = big - depth                             # sphere centre height (above the bottom)
    pts = [(0.0, above)]
    top_phi = math.acos(max(-1.0, min(1.0, centre / big)))   # angle of the rim, from straight down
    if rim_radius > radius and 0 < rim_depth < depth:
        pts += [(rim_radius, above), (rim_radius, -rim_depth)]
        top_phi = math.acos(max(-1.0, min(1.0, (centre + rim_depth) / big)))
    else:
        pts += [(radius, above)]
    for phi in np.linspace(top_phi, 0.0, rings + 1)[:-1]:
        pts.append((big * math.sin(phi), centre - big * math.cos(phi)))
    pts.append((0.0, -depth))
    return np.array(pts, float)


def revolve(profile: np.ndarray, origin, normal, u_axis, segments: int = 20
            ) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """A closed mesh (vertices, faces) sweeping ``profile`` (rho, h) round the axis ``normal``.

    The first and last profile points must lie on the axis (rho = 0).  Faces are wound so that
    their normals point out of the solid.
    """
    prof = np.asarray(profile, float)
    if prof[0, 0] != 0 or prof[-1, 0] != 0:
        raise ValueError("a revolved profile starts and ends on its axis")
    n = np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    u = np.asarray(u_axis, float)
    u = u - n * float(u @ n)
    u = u / np.linalg.norm(u)
    v = np.cross(n, u)
    o = np.asarray(origin, float)
    ang = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    radial = np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v      # (S, 3)
    verts = [o + n * prof[0, 1]]
    rings = prof[1:-1]
    for rho, h in rings:
        verts.extend(o + n * h + radial * rho)
    verts.append(o + n * prof[-1, 1])
    verts = np.array(verts)
    top, bottom = 0, len(verts) - 1
    faces: list[tuple[int, ...]] = []

    def ring(i: int, j: int) -> int:
        return 1 + i * segments + j % segments

    for j in range(segments):   # fan round the top of the axis
        faces.append((top, ring(0, j), ring(0, j + 1)))
    for i in range(len(rings) - 1):
        for j in range(segments):
            faces.append((ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1)))
    last = len(rings) - 1
    for j in range(segments):   # fan round the bottom
        faces.append((bottom, ring(last, j + 1), ring(last, j)))
    return verts, faces


def signed_volume(verts: np.ndarray, faces) -> float:
    """Volume of a closed mesh; positive when its faces are wound outwards."""
    vol = 0.0
    for f in faces:
        p0 = verts[f[0]]
        for a, b in zip(f[1:-1], f[2:]):
            vol += float(np.dot(p0, np.cross(verts[a], verts[b]))) / 6.0
    return vol


def die_pip_cutters(die: dict, segments: int = 20, rings: int = 6
                    ) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """All pip cutters of one die (as sampled by :func:`sample_die`), one mesh, in the die frame."""
    side = die["side"]
    r = die["pip_radius"] * side
    depth = die["pip_depth"] * side
    rim_r = die["rim_radius"] * side if die["pip_style"] == "rim" else 0.0
    rim_d = die["rim_depth"] * side if die["pip_style"] == "rim" else 0.0
    prof = pip_profile(r, depth, above=0.08 * side, rim_radius=rim_r, rim_depth=rim_d, rings=rings)
    all_v, all_f, base = [], [], 0
    for value in range(1, 7):
        n, u, _ = face_frame(value)
        for c in pip_centres(value, side, die["spacing"], die["quarter_turns"][value - 1]):
            vs, fs = revolve(prof, c, n, u, segments)
            all_v.append(vs)
            all_f.extend(tuple(i + base for i in f) for f in fs)
            base += len(vs)
    return np.concatenate(all_v), all_f


# ----------------------------------------------------------------------------- camera

def camera_matrix(target, distance: float, tilt: float, azimuth: float, roll: float) -> np.ndarray:
    """4x4 camera-to-world matrix of a camera ``distance`` from ``target``, looking at it.

    ``tilt`` is the angle of the view from straight down (0 = looking straight down), ``azimuth``
    the compass direction the camera looks along, ``roll`` a turn about the line of sight.
    """
    rot = rot_z(azimuth - math.pi / 2) @ rot_x(tilt) @ rot_z(roll)
    look = rot @ np.array([0.0, 0.0, -1.0])
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = np.asarray(target, float) - look * distance
    return m


def focal_px(width: int, fov_deg: float) -> float:
    """Focal length in pixels for a horizontal field of view of ``fov_deg`` over ``width`` pixels."""
    return (width / 2.0) / math.tan(math.radians(fov_deg) / 2.0)


def project(points, cam_to_world: np.ndarray, width: int, height: int, fov_deg: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates (N, 2) and depths in front of the camera (N,) of world points (N, 3)."""
    p = np.asarray(points, float).reshape(-1, 3)
    w2c = np.linalg.inv(np.asarray(cam_to_world, float))
    pc = p @ w2c[:3, :3].T + w2c[:3, 3]
    depth = -pc[:, 2]
    f = focal_px(width, fov_deg)
    safe = np.where(depth > 1e-9, depth, 1e-9)
    x = width / 2.0 + f * pc[:, 0] / safe
    y = height / 2.0 - f * pc[:, 1] / safe
    return np.stack([x, y], axis=1), depth


# ----------------------------------------------------------------------------- boxes and truth

def clip_box(x0: float, y0: float, x1: float, y1: float, width: int, height: int
             ) -> tuple[list[float] | None, bool]:
    """([x, y, w, h] of the box clipped to the image, or None when nothing is left; partial flag).

    ``partial`` is true when the unclipped box leaves the image.
    """
    partial = bool(x0 < 0 or y0 < 0 or x1 > width or y1 > height)
    cx0, cy0 = max(0.0, float(x0)), max(0.0, float(y0))
    cx1, cy1 = min(float(width), float(x1)), min(float(height), float(y1))
    if cx1 <= cx0 or cy1 <= cy0:
        return None, partial
    return [cx0, cy0, cx1 - cx0, cy1 - cy0], partial


def inside_fraction(x0: float, y0: float, x1: float, y1: float, width: int, height: int) -> float:
    """Fraction of the box's area that lies inside the image (1.0 for a degenerate box inside)."""
    w, h = x1 - x0, y1 - y0
    iw = max(0.0, min(x1, width) - max(x0, 0.0))
    ih = max(0.0, min(y1, height) - max(y0, 0.0))
    if w <= 0 or h <= 0:
        return 1.0 if (0 <= x0 <= width and 0 <= y0 <= height) else 0.0
    return float(iw * ih / (w * h))


def die_truth(colour: str, value: int, verts_world: np.ndarray, top_mask: np.ndarray,
              cam_to_world: np.ndarray, width: int, height: int, fov_deg: float,
              min_px: float = 1.0) -> dict | None:
    """The ground truth of one die from its mesh vertices, or None when it is out of the frame.

    ``top_mask`` selects the vertices of the top face.  Boxes are amodal: other dice in front are
    not taken out.
    """
    pts, depth = project(verts_world, cam_to_world, width, height, fov_deg)
    if not np.all(depth > 0):
        return None
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    box, partial = clip_box(x0, y0, x1, y1, width, height)
    if box is None or box[2] < min_px or box[3] < min_px:
        return None
    tp = pts[np.asarray(top_mask, bool)]
    tx0, ty0 = tp.min(0)
    tx1, ty1 = tp.max(0)
    return {
        "colour": colour,
        "value": int(value),
        "box": [round(float(b), 2) for b in box],
        "top_box": [round(float(tx0), 2), round(float(ty0), 2),
                    round(float(tx1 - tx0), 2), round(float(ty1 - ty0), 2)],
        "partial": partial,
        "top_visible": round(inside_fraction(tx0, ty0, tx1, ty1, width, height), 3),
    }


# ----------------------------------------------------------------------------- footprints

def rect_corners(centre, half: float, yaw: float) -> np.ndarray:
    """(4, 2) corners of a square of half-side ``half`` at ``centre`` turned by ``yaw``."""
    c, s = math.cos(yaw), math.sin(yaw)
    ax = np.array([[c, s], [-s, c]]) * half
    sq = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]], float)
    return np.asarray(centre, float)[:2] + sq @ ax


def squares_overlap(c1, half1: float, yaw1: float, c2, half2: float, yaw2: float,
                    margin: float = 0.0) -> bool:
    """Whether two turned squares on the table overlap (separating axis test), ``margin`` apart."""
    p = rect_corners(c1, half1 + margin / 2, yaw1)
    q = rect_corners(c2, half2 + margin / 2, yaw2)
    for yaw in (yaw1, yaw2):
        for ang in (yaw, yaw + math.pi / 2):
            axis = np.array([math.cos(ang), math.sin(ang)])
            a, b = p @ axis, q @ axis
            if a.max() <= b.min() or b.max() <= a.min():
                return False
    return True


# ----------------------------------------------------------------------------- colour

def srgb_to_linear(c) -> np.ndarray:
    c = np.clip(np.asarray(c, float), 0.0, 1.0)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def hsv_to_rgb(h: float, s: float, v: float) -> np.ndarray:
    """h in degrees, s and v in [0, 1]; returns sRGB in [0, 1]."""
    h = (h % 360.0) / 60.0
    i = int(h) % 6
    f = h - int(h)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    return np.array([(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i], float)


def kelvin_to_rgb(kelvin: float) -> np.ndarray:
    """Approximate colour of a black body at ``kelvin`` (1000-12000 K), normalised to max 1."""
    t = max(1000.0, min(12000.0, kelvin)) / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    rgb = np.clip(np.array([r, g, b]) / 255.0, 0.0, 1.0)
    return srgb_to_linear(rgb / rgb.max())


#: per Encyclopedia colour: (light end, dark end) of the family as (hue deg, sat, value)
COLOUR_FAMILIES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "red": ((12.0, 0.92, 0.95), (354.0, 0.90, 0.62)),      # orange-red .. deep red
    "yellow": ((56.0, 0.85, 0.98), (40.0, 0.95, 0.92)),    # lemon .. amber
    "purple": ((275.0, 0.35, 0.85), (272.0, 0.85, 0.32)),  # lilac .. deep violet
    "blue": ((200.0, 0.55, 0.92), (224.0, 0.92, 0.30)),    # sky .. navy
    "green": ((82.0, 0.80, 0.85), (145.0, 0.85, 0.28)),    # lime .. bottle
}


def family_colour(rng: np.random.Generator, colour: str) -> list[float]:
    """A linear RGB body colour drawn from the family of an Encyclopedia colour."""
    (h0, s0, v0), (h1, s1, v1) = COLOUR_FAMILIES[colour]
    t = float(rng.random())
    dh = ((h1 - h0 + 180.0) % 360.0) - 180.0
    h = h0 + t * dh + rng.normal(0, 3.0)
    s = np.clip(s0 + t * (s1 - s0) + rng.normal(0, 0.04), 0.2, 1.0)
    v = np.clip(v0 + t * (v1 - v0) + rng.normal(0, 0.04), 0.15, 1.0)
    return [round(float(x), 5) for x in srgb_to_linear(hsv_to_rgb(h, s, v))]


def _lin(rgb) -> list[float]:
    return [round(float(x), 5) for x in srgb_to_linear(rgb)]


# ----------------------------------------------------------------------------- sampling

def _loguniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def pip_layout_params(rng: np.random.Generator, rim: bool) -> dict:
    """Bevel, pip radius, depth and spacing (fractions of the die side) that fit on a face.

    The outermost pip (and its rim) stays on the flat part of the face, clear of the bevel, and
    neighbouring pips stay apart.
    """
    bevel = float(rng.uniform(0.04, 0.12))
    radius = float(rng.uniform(0.06, 0.14))
    rim_factor = float(rng.uniform(1.18, 1.35)) if rim else 1.0
    flat = 0.5 - bevel - 0.015                      # half of the flat face, less a small border
    # neighbours (one spacing apart) need spacing >= 2.2 r, the corner pip needs spacing + r <= flat
    radius = min(radius, flat / (1 + 2.2 * rim_factor) / rim_factor)
    r_out = radius * rim_factor
    lo, hi = 2.2 * r_out, flat - r_out
    spacing = float(lo + (hi - lo) * rng.uniform(0.45, 1.0))
    depth = float(radius * rng.uniform(0.35, 0.7))
    return {"bevel": bevel, "pip_radius": radius, "rim_radius": r_out,
            "rim_depth": float(rng.uniform(0.006, 0.012)), "pip_depth": depth, "spacing": spacing}


def sample_die(rng: np.random.Generator, colour: str, side: float) -> dict:
    """Looks and geometry of one die (not its place on the table)."""
    kind = "opaque"
    if colour in COLOURS:
        body = family_colour(rng, colour)
        body2 = None
        cream = rng.random() < 0.35
        pip = _lin((0.96, 0.93, 0.82) if cream else (0.97, 0.97, 0.96))
        pip_metal = 0.0
    else:
        which = rng.choice(["white", "ivory", "black", "translucent", "marbled"],
                           p=[0.25, 0.15, 0.2, 0.2, 0.2])
        body2 = None
        pip_metal = 0.0
        if which in ("white", "ivory"):
            body = _lin((0.95, 0.95, 0.93) if which == "white" else (0.93, 0.89, 0.78))
            pip = _lin((0.04, 0.04, 0.04))
        elif which == "black":
            body = _lin((0.05, 0.05, 0.055))
            pip = _lin((0.96, 0.96, 0.95))
        else:
            kind = str(which)
            body = _lin(hsv_to_rgb(rng.uniform(0, 360), rng.uniform(0.4, 0.95), rng.uniform(0.4, 0.95)))
            if kind == "marbled":
                body2 = _lin(hsv_to_rgb(rng.uniform(0, 360), rng.uniform(0.0, 0.8), rng.uniform(0.1, 1.0)))
            if rng.random() < 0.5:
                pip, pip_metal = _lin((1.0, 0.78, 0.34)), 1.0    # gold
            else:
                pip = _lin((0.96, 0.96, 0.95))
    style = str(rng.choice(PIP_STYLES, p=[0.65, 0.12, 0.23]))
    if style == "engraved" and colour not in COLOURS:
        style = "painted"        # other dice carry contrasting pips
    layout = pip_layout_params(rng, style == "rim")
    if style == "engraved":
        layout["pip_depth"] = float(layout["pip_radius"] * rng.uniform(0.55, 0.9))
    return {
        "colour": colour, "kind": kind, "side": side, "body": body, "body2": body2,
        "pip_colour": pip, "pip_metallic": pip_metal, "pip_style": style,
        "pip_roughness": float(rng.uniform(0.3, 0.7)),
        "roughness": float(rng.uniform(0.15, 0.6)) if kind != "translucent" else float(rng.uniform(0.05, 0.25)),
        "coat": float(rng.uniform(0.0, 0.6)) if rng.random() < 0.35 else 0.0,
        "transmission": float(rng.uniform(0.75, 1.0)) if kind == "translucent" else 0.0,
        "bevel_segments": int(rng.integers(3, 6)),
        "quarter_turns": [bool(x) for x in rng.random(6) < 0.5],
        "marble_scale": float(rng.uniform(0.5, 2.5)),
        "texture_seed": float(rng.uniform(0, 100)),
        **layout,
    }


def _n_dice(rng: np.random.Generator, max_dice: int) -> int:
    u = rng.random()
    if u < 0.04:
        n = 0
    elif u < 0.12:
        n = int(rng.integers(1, 3))
    elif u < 0.9:
        n = int(rng.integers(3, 11))
    else:
        n = int(rng.integers(11, 13))
    return min(n, max_dice)


def _place(rng, placed: list[dict], half: float, radius: float, touching: bool, tries: int = 60):
    """(x, y, yaw) for a new footprint clear of ``placed``, or None."""
    for attempt in range(tries):
        if touching and placed and attempt < tries // 2:
            flat = [p for p in placed if p["touchable"]]
            if not flat:
                touching = False
                continue
            ref = flat[int(rng.integers(len(flat)))]
            yaw = ref["yaw"]
            ang = yaw + math.pi / 2 * int(rng.integers(4))
            gap = ref["half"] + half + float(rng.uniform(0.0003, 0.0015))
            slide = float(rng.uniform(-0.45, 0.45)) * 2 * min(half, ref["half"])
            x = ref["x"] + gap * math.cos(ang) - slide * math.sin(ang)
            y = ref["y"] + gap * math.sin(ang) + slide * math.cos(ang)
        else:
            r = radius * math.sqrt(rng.random())
            a = rng.uniform(0, 2 * math.pi)
            x, y, yaw = r * math.cos(a), r * math.sin(a), float(rng.uniform(0, 2 * math.pi))
        if not any(squares_overlap((x, y), half, yaw, (p["x"], p["y"]), p["half"], p["yaw"], margin=1e-4)
                   for p in placed):
            return float(x), float(y), float(yaw)
    return None


def _table(rng: np.random.Generator) -> dict:
    kind = str(rng.choice(TABLE_KINDS, p=[0.3, 0.22, 0.18, 0.3]))
    t: dict[str, Any] = {"kind": kind, "seed": float(rng.uniform(0, 1000)),
                         "rotation": float(rng.uniform(0, math.pi))}
    if kind == "wood":
        h = rng.uniform(18, 40)
        v = rng.uniform(0.25, 0.85)
        t["colours"] = [_lin(hsv_to_rgb(h, rng.uniform(0.4, 0.8), v * rng.uniform(0.45, 0.75))),
                        _lin(hsv_to_rgb(h + rng.normal(0, 4), rng.uniform(0.35, 0.75), v))]
        t["scale"] = _loguniform(rng, 3.0, 25.0)          # grain bands per metre-ish
        t["stretch"] = float(rng.uniform(4, 14))
        t["distortion"] = float(rng.uniform(1, 5))
        t["roughness"] = float(rng.uniform(0.25, 0.7))
    elif kind == "cloth":
        base = hsv_to_rgb(rng.uniform(0, 360), rng.uniform(0.0, 0.8), rng.uniform(0.12, 0.7))
        t["colours"] = [_lin(base), _lin(np.clip(base * rng.uniform(0.7, 0.95), 0, 1))]
        t["scale"] = _loguniform(rng, 150, 700)           # weave noise
        t["roughness"] = float(rng.uniform(0.8, 1.0))
        t["sheen"] = float(rng.uniform(0.2, 1.0))
    elif kind == "plain":
        base = hsv_to_rgb(rng.uniform(0, 360), rng.uniform(0.0, 0.6), rng.uniform(0.1, 0.95))
        t["colours"] = [_lin(base), _lin(np.clip(base * rng.uniform(0.85, 1.0), 0, 1))]
        t["scale"] = _loguniform(rng, 5, 60)
        t["roughness"] = float(rng.uniform(0.15, 0.9))
    else:  # colourful printed board art
        n = int(rng.integers(3, 7))
        hue0 = rng.uniform(0, 360)
        t["colours"] = [_lin(hsv_to_rgb(hue0 + rng.uniform(-60, 200), rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0)))
                        for _ in range(n)]
        t["scale"] = _loguniform(rng, 4.0, 40.0)           # cells per metre
        t["roughness"] = float(rng.uniform(0.3, 0.8))
        t["dots"] = bool(rng.random() < 0.5)
        t["dot_scale"] = _loguniform(rng, 30.0, 150.0)
        t["dot_size"] = float(rng.uniform(0.08, 0.25))
        t["dot_colour"] = _lin((0.95, 0.95, 0.93) if rng.random() < 0.6 else (0.05, 0.05, 0.05))
        t["text"] = bool(rng.random() < 0.5)
        t["text_scale"] = _loguniform(rng, 150.0, 500.0)
        t["text_colour"] = _lin(hsv_to_rgb(rng.uniform(0, 360), rng.uniform(0, 0.5), rng.uniform(0.0, 0.3)))
        t["swirl"] = float(rng.uniform(0.0, 1.0))
    return t


def _temperature_pair(rng: np.random.Generator) -> tuple[float, float, str]:
    mode = str(rng.choice(["warm", "neutral", "cool", "mixed"], p=[0.3, 0.25, 0.2, 0.25]))
    ranges = {"warm": (2600, 3600), "neutral": (3800, 5000), "cool": (5200, 7500)}
    if mode == "mixed":
        a, b = (2600, 3400), (5200, 7500)
        if rng.random() < 0.5:
            a, b = b, a
        return float(rng.uniform(*a)), float(rng.uniform(*b)), mode
    lo, hi = ranges[mode]
    return float(rng.uniform(lo, hi)), float(rng.uniform(lo, hi)), mode


#: horizontal irradiance (W/m^2) at the dice of all lights together, before the random brightness:
#: a white card (albedo 0.8) then shows about 0.55 linear, 0.77 sRGB
TABLE_IRRADIANCE = 2.2


def _spot(target: np.ndarray, dist: float, az: float, el: float) -> np.ndarray:
    return target + dist * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def _energy(kind: str, irradiance: float, dist: float) -> float:
    """Blender light power giving ``irradiance`` (W/m^2, facing the light) at ``dist`` metres."""
    if kind == "AREA":      # one-sided Lambertian emitter: E = P / (pi d^2)
        return float(irradiance * math.pi * dist ** 2)
    if kind == "POINT":     # E = P / (4 pi d^2)
        return float(irradiance * 4 * math.pi * dist ** 2)
    return float(irradiance)  # SUN: strength is the irradiance


def balanced_light_colour(kelvin: float, white_kelvin: float) -> np.ndarray:
    """Linear RGB of a ``kelvin`` light seen by a camera white-balanced for ``white_kelvin``,
    scaled to luminance 1 (so light powers alone set the brightness)."""
    # a white balance under 1900 K has no blue at all: keep the division finite there (scenes
    # whose white point has blue are unchanged)
    rgb = kelvin_to_rgb(kelvin) / np.maximum(kelvin_to_rgb(white_kelvin), 1e-3)
    return rgb / float(rgb @ np.array([0.2126, 0.7152, 0.0722]))


def _lights(rng: np.random.Generator, target: np.ndarray, cam: np.ndarray) -> tuple[list[dict], dict]:
    """Lights and world; their powers are scaled so the table gets about TABLE_IRRADIANCE.

    Colours are relative to the camera's white balance: usually set for the key light, off by
    a little (a residual cast), sometimes left at daylight (a strong warm or cool cast).
    """
    k_key, k_fill, mode = _temperature_pair(rng)
    if rng.random() < 0.75:
        white = k_key * math.exp(rng.normal(0, 0.1))
    else:
        white = 5500.0

    def colour(kelvin: float) -> list[float]:
        return [round(float(x), 5) for x in balanced_light_colour(kelvin, white)]

    parts = []   # (light, share of the table irradiance, sine of its elevation, distance)
    az = rng.uniform(0, 2 * math.pi)
    el = math.radians(rng.uniform(25, 85))
    dist = float(rng.uniform(0.5, 2.0))
    kind = str(rng.choice(["AREA", "POINT", "SUN"], p=[0.65, 0.2, 0.15]))
    key = {"type": kind, "pos": _spot(target, dist, az, el).tolist(),
           "color": colour(k_key), "kelvin": k_key}
    if kind == "AREA":
        key["size"] = _loguniform(rng, 0.03, 1.5)
    elif kind == "POINT":
        key["size"] = _loguniform(rng, 0.002, 0.12)
    else:
        key["size"] = math.radians(_loguniform(rng, 0.5, 15.0))   # sun angle
    parts.append((key, 1.0, math.sin(el), dist))
    if rng.random() < 0.6:   # a fill light
        az2 = az + rng.uniform(0.6 * math.pi, 1.4 * math.pi)
        el2 = math.radians(rng.uniform(20, 80))
        d2 = float(rng.uniform(0.6, 2.5))
        fill = {"type": "AREA", "pos": _spot(target, d2, az2, el2).tolist(),
                "color": colour(k_fill), "kelvin": k_fill, "size": _loguniform(rng, 0.2, 2.0)}
        parts.append((fill, float(rng.uniform(0.15, 0.6)), math.sin(el2), d2))
    flash = bool(rng.random() < 0.15)
    if flash:  # a phone flash next to the lens
        off = rng.normal(0, 0.015, 2)
        cpos = cam[:3, 3] + cam[:3, :3] @ np.array([off[0], off[1], 0.0])
        d3 = float(np.linalg.norm(cpos - target))
        k3 = float(rng.uniform(5000, 6500))
        fl = {"type": "POINT", "pos": cpos.tolist(), "size": 0.002, "color": colour(k3), "kelvin": k3}
        parts.append((fl, float(rng.uniform(0.4, 1.2)), float((cpos - target)[2]) / d3, d3))
    world_share = float(rng.uniform(0.03, 0.35))
    wk = rng.uniform(3000, 9000)
    world_colour = balanced_light_colour(wk, white) * rng.uniform(0.6, 1.0)
    total = TABLE_IRRADIANCE * 10 ** rng.uniform(-0.2, 0.15)
    shares = sum(p[1] for p in parts) + world_share
    lights = []
    for light, share, sin_el, d in parts:
        facing = total * share / shares / max(sin_el, 0.35)     # irradiance facing the light
        light["energy"] = _energy(light["type"], facing, d)
        lights.append(light)
    lum = float(world_colour @ np.array([0.2126, 0.7152, 0.0722]))
    world = {"color": world_colour.tolist(),
             "strength": float(total * world_share / shares / (math.pi * max(lum, 0.05))),
             "mode": mode, "flash": flash, "white_balance": float(white)}
    return lights, world


def sample_scene(seed: int, index: int, hard: bool = False, size: str = "640x480",
                 max_dice: int = 12) -> dict:
    """Every random choice of scene ``index`` of ``seed``, as a JSON-able dictionary.

    The scene depends only on (seed, index, hard); ``size`` picks the image size (a key of
    ``SIZES``: "480x640" is portrait; or "mixed": 640x480 or 1280x960 drawn per scene) and does
    not change anything else (the field of view spans the width, so a square image sees more of
    the table).
    """
    rng = np.random.default_rng([int(seed), int(index)])
    size_draw = rng.random()
    if size == "mixed":
        size = "640x480" if size_draw < 0.5 else "1280x960"
    if size not in SIZES:
        raise ValueError(f"size is {', '.join(SIZES)} or mixed, not {size!r}")
    width, height = SIZES[size]

    # ---- dice
    n = _n_dice(rng, max_dice)
    colours = [str(rng.choice(COLOURS)) for _ in range(n)]
    if n and rng.random() < 0.25:           # a few dice from another game
        colours = (colours + ["other"] * int(rng.integers(1, 4)))[-max_dice:]
    base_side = float(rng.uniform(0.014, 0.018))
    spread = rng.uniform(0.7, 1.4) if hard else rng.uniform(0.9, 2.3)
    radius = base_side * (1.0 + math.sqrt(max(len(colours), 1)) * spread)
    touching = 0.35 if hard else 0.15
    placed: list[dict] = []
    dice = []
    for colour in colours:
        side = base_side * float(rng.uniform(0.92, 1.08))
        d = sample_die(rng, colour, side)
        d["value"] = int(rng.integers(1, 7))
        lean = math.radians(rng.uniform(3, 12)) if rng.random() < 0.07 else 0.0
        d["lean"], d["lean_azimuth"] = lean, float(rng.uniform(0, 2 * math.pi))
        half = side / 2 * (1.25 if lean else 1.0)
        spot = _place(rng, placed, half, radius, touching=bool(rng.random() < touching) and not lean)
        if spot is None:
            continue
        d["x"], d["y"], d["yaw"] = spot
        d["rotation"] = die_rotation(d["value"], d["yaw"], lean, d["lean_azimuth"]).round(9).tolist()
        placed.append({"x": d["x"], "y": d["y"], "yaw": d["yaw"], "half": half, "touchable": not lean})
        dice.append(d)

    # ---- distractors: pip-less cubes and cylinders (game markers, tokens)
    distractors = []
    if rng.random() < (0.55 if hard else 0.4):
        for _ in range(int(rng.integers(1, 6))):
            shape = str(rng.choice(["cube", "cylinder"]))
            size_d = base_side * float(rng.uniform(0.5, 1.6))
            if rng.random() < 0.5:
                col = family_colour(rng, str(rng.choice(COLOURS)))
            else:
                col = _lin(hsv_to_rgb(rng.uniform(0, 360), rng.uniform(0, 1), rng.uniform(0.1, 1)))
            tall = size_d * (1.0 if shape == "cube" else float(rng.uniform(0.15, 1.2)))
            half = size_d / 2 * (1.0 if shape == "cube" else 1.05)
            spot = _place(rng, placed, half, radius * 1.6, touching=False)
            if spot is None:
                continue
            placed.append({"x": spot[0], "y": spot[1], "yaw": spot[2], "half": half, "touchable": False})
            distractors.append({"shape": shape, "size": size_d, "height": tall, "colour": col,
                                "x": spot[0], "y": spot[1], "yaw": spot[2],
                                "bevel": float(rng.uniform(0.03, 0.15)),
                                "roughness": float(rng.uniform(0.2, 0.8))})

    # ---- camera
    if dice:
        pos = np.array([[d["x"], d["y"]] for d in dice])
        centre = pos.mean(0)
        extent = float(np.max(np.linalg.norm(pos - centre, axis=1))) + base_side
    else:
        centre, extent = np.zeros(2), base_side * 4
    centre = centre + rng.normal(0, 0.15 * extent, 2)
    target = np.array([centre[0], centre[1], base_side * 0.4])
    if hard:
        tilt = rng.uniform(45, 65)
    else:
        tilt = rng.uniform(0, 40) if rng.random() < 0.7 else rng.uniform(40, 58)
    fov = float(rng.uniform(45, 75))
    roll = float(rng.uniform(-6, 6) if hard else rng.uniform(-4, 4))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    u = rng.random()
    fill = rng.uniform(0.85, 1.5) if u < (0.3 if hard else 0.12) else rng.uniform(0.45, 0.9)
    vfov_half = math.atan(math.tan(math.radians(fov) / 2) * height / width)
    distance = extent / (fill * math.tan(vfov_half))
    f = focal_px(width, fov)
    die_frac = (0.05, 0.16)            # die side in pixels as a fraction of the image's long side
    long_side = max(width, height)     # (a portrait photo shows its dice as large as the landscape one)
    distance = float(np.clip(distance, base_side * f / (die_frac[1] * long_side),
                             base_side * f / (die_frac[0] * long_side)))
    cam = camera_matrix(target, distance, math.radians(tilt), azimuth, math.radians(roll))

    lights, world = _lights(rng, target, cam)
    return {
        "seed": int(seed), "index": int(index), "hard": bool(hard),
        "width": width, "height": height, "size": size,
        "dice": dice, "distractors": distractors, "table": _table(rng),
        "camera": {"matrix": cam.round(9).tolist(), "fov": fov, "tilt": float(tilt), "roll": roll,
                   "azimuth": azimuth, "distance": distance, "target": target.tolist()},
        "lights": lights, "world": world,
        "view_transform": str(rng.choice(["Standard", "AgX"], p=[0.6, 0.4])),
        "exposure": float(rng.uniform(-0.4, 0.4)),
        "jpeg_quality": int(rng.integers(85, 96)),
    }
