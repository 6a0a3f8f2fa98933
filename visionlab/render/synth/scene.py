"""Render a photo-like scene of dice on a table, with its ground truth.

Geometry is real 3D: a pinhole camera looks at the table plane z = 0 from a chosen height and
pitch; each die is a cube with rounded corners resting on the table (one face up, turned about
the vertical, sometimes slightly leaning), drawn far-to-near with the faces that face the camera,
their own pips, Lambert shading, soft shadows, and then lighting casts, blur, noise and JPEG.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import cv2
import numpy as np

from .backgrounds import background
from .dice import FACES, PIP_LAYOUTS, face_of_value, orientation, top_value

COLOURS = ("red", "yellow", "purple", "blue", "green")

#: nominal BGR body colours of the Encyclopedia dice (opaque, white pips)
BODY_BGR = {
    "red": (40, 35, 195),
    "yellow": (35, 195, 235),
    "purple": (135, 45, 115),
    "blue": (185, 95, 25),
    "green": (65, 155, 45),
}
#: the game dice's pips in the classic style: their BGR paint (None: unpainted, the body's own
#: colour) and how they are drawn (one of PIP_STYLES). A domain of another table's dice may set
#: them, as it sets BODY_BGR (``visionlab.bench.palette --pips``); the random style draws its own.
GAME_PIP_BGR: tuple[int, int, int] | None = (235, 238, 240)
GAME_PIP_STYLE = "flat"
#: other dice a table may hold (labelled colour "other"): (body, pips)
OTHER_DICE = (
    ((235, 238, 238), (25, 25, 25)),    # white, black pips
    ((205, 228, 238), (30, 30, 35)),    # ivory, black pips
    ((190, 190, 190), (20, 20, 20)),    # light grey, black pips
    ((35, 35, 35), (235, 235, 235)),    # black, white pips
    ((70, 70, 72), (240, 240, 240)),    # dark grey, white pips
    ((235, 238, 238), (40, 40, 180)),   # white, red pips
)
OTHER_WEIGHTS = (0.35, 0.15, 0.1, 0.15, 0.1, 0.15)

STYLES = ("classic", "random")

#: body colour families of the "random" style, OpenCV HSV (H 0..180, S and V 0..1): hue ranges
#: (two for red, which wraps) and the (S, V) corners the shade is drawn between, light to deep
#: (purple from lilac to deep violet, blue from sky to navy, red to orange-red, yellow to amber,
#: green from lime to bottle).
BODY_FAMILIES = {
    "red": (((0.0, 9.0), (172.0, 180.0)), (0.62, 0.95), (0.95, 0.45)),
    "yellow": (((17.0, 32.0),), (0.55, 1.0), (1.0, 0.72)),
    "purple": (((124.0, 158.0),), (0.28, 0.85), (0.85, 0.28)),
    "blue": (((97.0, 121.0),), (0.45, 0.95), (0.95, 0.28)),
    "green": (((37.0, 82.0),), (0.55, 0.85), (0.95, 0.25)),
}
PIP_STYLES = ("flat", "engraved", "rim")
PIP_STYLE_WEIGHTS = (0.4, 0.35, 0.25)

WEBCAM_SIZES = ((640, 480), (1280, 720), (960, 720), (800, 600), (1920, 1080))
PHONE_SIZES = ((4032, 3024), (3024, 4032), (1920, 1440), (1440, 1920), (2048, 1536), (1080, 1920))


@dataclass(frozen=True)
class DieTruth:
    colour: str                                  # one of COLOURS or "other"
    value: int                                   # top face, 1..6
    box: tuple[float, float, float, float]       # x, y, w, h of the whole visible die, clipped to the image
    top_box: tuple[float, float, float, float]   # x, y, w, h of the top face (unclipped)
    partial: bool                                # partly out of frame (box was clipped)
    top_visible: float                           # fraction of the top face's box inside the frame

    def to_json(self) -> dict:
        d = asdict(self)
        d["box"] = [round(v, 2) for v in self.box]
        d["top_box"] = [round(v, 2) for v in self.top_box]
        d["top_visible"] = round(self.top_visible, 3)
        return d


@dataclass(frozen=True)
class SceneOptions:
    width: int = 640
    height: int = 480
    min_dice: int = 0
    max_dice: int = 20
    die_px: tuple[float, float] = (0.03, 0.14)   # die side, as a fraction of the long image side
    other_share: float = 0.3                     # chance a scene has "other" (non-Encyclopedia) dice
    distractor_rate: float = 0.35                # chance a scene has pip-less cubes (game markers)
    distractor_scale: tuple[float, float] = (0.5, 0.9)  # a pip-less cube's side, times the scene's die
    touching_rate: float = 0.15                  # chance each die is placed against an earlier one
    steep_share: float = 0.2                     # chance the camera looks at 45-58 degrees from
                                                 # straight down (else 0-45): more slanted top faces
    jpeg: bool = True
    coloured_other_rate: float = 0.0             # random style: chance an "other" die has a body of a
                                                 # game colour's family and black, brown or gold pips
                                                 # (another game's coloured die; 0 draws nothing, so
                                                 # seeds keep their scenes)
    style: str = "classic"                       # "classic": the v1-v9 look (the tuning and held-out
                                                 # seeds of docs/vision-model.md); "random": domain
                                                 # randomisation (pip size/shape/colour, body shades,
                                                 # gloss, flash, light colour, exposure; STYLES)


class Camera:
    def __init__(self, width, height, fov_deg, pitch, yaw, roll, distance):
        self.w, self.h = width, height
        self.f = (width / 2) / np.tan(np.radians(fov_deg) / 2)
        self.cx, self.cy = width / 2, height / 2
        h = np.array([np.cos(yaw), np.sin(yaw), 0.0])          # image "up" on the table
        z = np.array([0.0, 0.0, 1.0])
        self.pos = distance * (-np.sin(pitch) * h + np.cos(pitch) * z)
        fwd = -self.pos / np.linalg.norm(self.pos)
        right = np.cross(fwd, h)
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        c, s = np.cos(roll), np.sin(roll)
        right, down = c * right + s * down, -s * right + c * down
        self.r = np.stack([right, down, fwd])                  # world -> camera

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pc = (pts - self.pos) @ self.r.T
        z = np.maximum(pc[..., 2], 1e-6)
        return np.stack([self.f * pc[..., 0] / z + self.cx, self.f * pc[..., 1] / z + self.cy], -1), z

    def ray_to_table(self, u: float, v: float) -> np.ndarray:
        """The table point (z = 0) seen at pixel (u, v), or None above the horizon / too far."""
        d = self.r.T @ np.array([(u - self.cx) / self.f, (v - self.cy) / self.f, 1.0])
        if d[2] > -0.05:
            return None
        t = -self.pos[2] / d[2]
        return self.pos + t * d


def _rounded_square(radius: float, n_arc: int = 4) -> np.ndarray:
    """Outline of a square [-1, 1]^2 with rounded corners, as (u, v) points."""
    pts = []
    c = 1 - radius
    for cx, cy, a0 in ((c, c, 0), (-c, c, 90), (-c, -c, 180), (c, -c, 270)):
        for a in np.radians(np.linspace(a0, a0 + 90, n_arc)):
            pts.append((cx + radius * np.cos(a), cy + radius * np.sin(a)))
    return np.array(pts)


_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * np.pi, 14, endpoint=False)),
                    np.sin(np.linspace(0, 2 * np.pi, 14, endpoint=False))], -1)
_OCTANT = np.array([(1, 0, 0), (0, 1, 0), (0, 0, 1), (0.7, 0.7, 0), (0.7, 0, 0.7), (0, 0.7, 0.7), (0.58, 0.58, 0.58)])
_SHIFT = 4
_ONE = 1 << _SHIFT


_FAR = 1e6   # pixels: polygon points beyond this are cut off (int32 after the sub-pixel shift holds 1.3e8)


def _clip_far(pts2d: np.ndarray) -> np.ndarray:
    """The polygon cut to the square |x|, |y| <= _FAR (Sutherland-Hodgman): what is drawn in the
    image is unchanged. Points that far come from a point near the camera's plane, or a shadow
    cast by a light near the horizon; cast to int32 they overflowed and the polygon was garbage."""
    poly = [tuple(p) for p in pts2d]
    for axis in (0, 1):
        for sign in (1.0, -1.0):
            out = []
            for k, cur in enumerate(poly):
                prev = poly[k - 1]
                cin, pin = sign * cur[axis] <= _FAR, sign * prev[axis] <= _FAR
                if cin != pin:
                    t = (sign * _FAR - prev[axis]) / (cur[axis] - prev[axis])
                    out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
                if cin:
                    out.append(cur)
            poly = out
            if not poly:
                return np.zeros((0, 2))
    return np.array(poly)


def _poly(img, pts2d, colour):
    pts2d = np.asarray(pts2d, np.float64)
    if not np.isfinite(pts2d).all():
        return
    if np.abs(pts2d).max() > _FAR:
        pts2d = _clip_far(pts2d)
        if len(pts2d) < 3:
            return
    cv2.fillPoly(img, [np.round(pts2d * _ONE).astype(np.int32)], colour, cv2.LINE_AA, _SHIFT)


class _Die:
    def __init__(self, centre, size, rot, body, pip, colour):
        self.centre, self.size, self.rot = centre, size, rot
        self.body, self.pip, self.colour = np.array(body, float), np.array(pip, float), colour
        self.style = _DieStyle()

    def corner_points(self, rounding):
        """Points of a rounded cube's corners (for the silhouette and the shadow)."""
        half = self.size / 2
        inner = half * (1 - rounding)
        pts = []
        for sx in (-1, 1):
            for sy in (-1, 1):
                for sz in (-1, 1):
                    sign = np.array([sx, sy, sz])
                    pts.append(sign * inner + _OCTANT * sign * (half - inner))
        local = np.concatenate(pts)
        return local @ self.rot.T + self.centre


def _jitter_colour(rng, bgr, hue=6, sat=(0.8, 1.15), val=(0.8, 1.1)):
    px = np.uint8([[np.clip(bgr, 0, 255)]])
    hsv = cv2.cvtColor(px, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 0] = (hsv[..., 0] + rng.uniform(-hue, hue)) % 180
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(*sat), 0, 255)
    hsv[..., 2] = np.clip(hsv[..., 2] * rng.uniform(*val), 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(float)


def _hsv_to_bgr(h, s, v) -> np.ndarray:
    px = np.float32([[[h * 2.0, s, v]]])  # float HSV: H in degrees, S and V 0..1
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(float) * 255.0


def family_colour(rng, colour: str) -> np.ndarray:
    """A body colour (BGR 0..255) drawn from the family of an Encyclopedia colour (random style)."""
    hues, light, deep = BODY_FAMILIES[colour]
    lo, hi = hues[int(rng.integers(len(hues)))]
    t = rng.uniform(0, 1)
    sat = light[0] + (deep[0] - light[0]) * t + rng.normal(0, 0.05)
    val = light[1] + (deep[1] - light[1]) * t + rng.normal(0, 0.05)
    return _hsv_to_bgr(rng.uniform(lo, hi), float(np.clip(sat, 0.2, 1)), float(np.clip(val, 0.18, 1)))


#: "other" dice of the random style: (body BGR, pip BGR choices, kind); kind "marbled" and
#: "translucent" change how the body is drawn
OTHER_RANDOM = (
    ((236, 238, 238), ((25, 25, 25),), "plain"),
    ((200, 225, 238), ((30, 30, 35), (40, 150, 200)), "plain"),        # ivory, black or gold pips
    ((185, 185, 185), ((20, 20, 20),), "plain"),
    ((30, 30, 32), ((235, 235, 235), (60, 170, 215)), "plain"),        # black, white or gold pips
    ((80, 80, 82), ((240, 240, 240),), "plain"),
    ((230, 232, 232), ((40, 40, 180),), "plain"),
    ((220, 222, 222), ((20, 20, 20), (60, 170, 215)), "marbled"),
    ((60, 60, 60), ((240, 240, 240), (60, 170, 215)), "marbled"),
    ((225, 230, 235), ((25, 25, 25), (240, 240, 240)), "translucent"),
    ((90, 95, 100), ((240, 240, 240),), "translucent"),
)

#: pips of the coloured "other" dice (``SceneOptions.coloured_other_rate``): black, dark brown, gold
COLOURED_OTHER_PIPS = ((25, 25, 25), (20, 35, 55), (60, 170, 215))


@dataclass
class _DieStyle:
    pip_frac: float = 0.18     # pip radius as a fraction of the face's half side
    pip_spread: float = 0.95   # pip layout scale (corner pips at +-0.5 x this, of the half side)
    pip_style: str = "flat"
    body_kind: str = "plain"   # plain | marbled | translucent
    gloss: float = 0.0         # strength of the specular highlight
    shininess: float = 20.0


def _random_die_style(rng, colour: str) -> "_DieStyle":
    frac = rng.uniform(0.06, 0.14) * 2          # radius / face side 0.06..0.14 -> of the half side
    lo, hi = max(0.8, 2.15 * frac), min(1.3, 2 * (0.97 - frac))
    spread = rng.uniform(lo, max(lo, hi))
    style = str(rng.choice(PIP_STYLES, p=PIP_STYLE_WEIGHTS))
    gloss = rng.uniform(0.0, 0.9) if rng.random() < 0.7 else 0.0
    return _DieStyle(frac, spread, style, "plain", gloss, float(rng.uniform(8, 60)))


def _choose_dice_colours(rng, n, opts):
    kind = rng.random()
    if kind < opts.other_share * 0.6:          # only other dice (e.g. white dice on a desk)
        return ["other"] * n
    if kind < opts.other_share:                # mixed
        return [str(rng.choice(COLOURS)) if rng.random() < 0.7 else "other" for _ in range(n)]
    return [str(rng.choice(COLOURS)) for _ in range(n)]


def render_scene(rng: np.random.Generator, opts: SceneOptions = SceneOptions(),
                 extras: dict | None = None) -> tuple[np.ndarray, list[DieTruth]]:
    """One scene: (uint8 BGR image, ground truth per die). Deterministic for a given ``rng`` state.
    When ``extras`` is a dict it receives ``"distractor_boxes"``: boxes (x, y, w, h) of the
    pip-less cubes drawn as distractors (not dice; negatives for training)."""
    W, H = opts.width, opts.height
    if W < 16 or H < 16:
        raise ValueError(f"scene too small: {W}x{H} (need at least 16x16)")
    if opts.style not in STYLES:
        raise ValueError(f"unknown scene style {opts.style!r}; use one of {STYLES}")
    # the random style draws its own choices from a child generator (spawning draws nothing from
    # ``rng``), so the classic style's scenes stay exactly what they were and a random-style
    # scene places the same dice as the classic scene of the same generator
    srng = rng.spawn(1)[0] if opts.style == "random" else None
    n = int(rng.integers(opts.min_dice, opts.max_dice + 1))
    long_side = max(W, H)
    die_px = rng.uniform(*opts.die_px) * long_side
    die_size = 1.6  # cm
    fov = rng.uniform(45, 75)
    pitch = np.radians(rng.uniform(0, 45) if rng.random() < 1 - opts.steep_share else rng.uniform(45, 58))
    f = (W / 2) / np.tan(np.radians(fov) / 2)
    distance = f * die_size / die_px
    cam = Camera(W, H, fov, pitch, rng.uniform(0, 2 * np.pi), np.radians(rng.normal(0, 4)), distance)

    # light: direction towards the light, elevation 30..85 degrees
    el, az = np.radians(rng.uniform(30, 85)), rng.uniform(0, 2 * np.pi)
    light = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    ambient = rng.uniform(0.35, 0.6)
    rounding = rng.uniform(0.12, 0.3)
    pip_radius = rng.uniform(0.15, 0.21)
    flash = False
    if srng is not None:
        rounding = srng.uniform(0.08, 0.38)
        ambient = srng.uniform(0.2, 0.65)
        if srng.random() < 0.15:  # phone flash: the light sits at the camera
            flash = True
            light = cam.pos / np.linalg.norm(cam.pos)
            ambient = srng.uniform(0.15, 0.35)
        cream = srng.random() < 0.3

    # place dice: sample image points, back-project onto the table, reject overlaps
    dice: list[_Die] = []
    colours = _choose_dice_colours(rng, n, opts)
    other_style = OTHER_DICE[int(rng.choice(len(OTHER_DICE), p=OTHER_WEIGHTS))]
    size = die_size * rng.uniform(0.97, 1.03)
    margin = 0.6 * die_px
    for colour in colours:
        for _attempt in range(30):
            touching = dice and rng.random() < opts.touching_rate
            if touching:
                other = dice[int(rng.integers(len(dice)))]
                ax = other.rot[:, int(rng.integers(2))] * (1 if rng.random() < 0.5 else -1)
                ax[2] = 0
                if np.linalg.norm(ax) < 0.5:
                    continue
                ax /= np.linalg.norm(ax)
                centre = other.centre + ax * size * rng.uniform(1.0, 1.04)
                yaw_rot = other.rot
            else:
                u = rng.uniform(-margin, W + margin)
                v = rng.uniform(-margin, H + margin)
                centre = cam.ray_to_table(u, v)
                if centre is None:
                    continue
                yaw_rot = None
            centre = np.array([centre[0], centre[1], size / 2])
            if any(np.linalg.norm(centre[:2] - d.centre[:2]) < (0.99 if touching else 1.45) * size for d in dice):
                continue
            value = int(rng.integers(1, 7))
            if yaw_rot is not None:
                yaw = np.arctan2(yaw_rot[1, 0], yaw_rot[0, 0]) + rng.normal(0, 0.03)
            else:
                yaw = rng.uniform(0, 2 * np.pi)
            tilt = np.radians(rng.uniform(0, 10)) if rng.random() < 0.2 else 0.0
            rot = orientation(value, yaw, tilt, rng.uniform(0, 2 * np.pi))
            if tilt:
                centre[2] += np.sin(tilt) * size * 0.5
            if colour == "other":
                body, pip = other_style if rng.random() < 0.85 else OTHER_DICE[int(rng.integers(len(OTHER_DICE)))]
                body = _jitter_colour(rng, body, hue=4, sat=(0.8, 1.2), val=(0.85, 1.08))
            else:
                body = _jitter_colour(rng, BODY_BGR[colour])
                pip = body.copy() if GAME_PIP_BGR is None else GAME_PIP_BGR
            pip = np.clip(np.array(pip, float) * rng.uniform(0.92, 1.05), 0, 255)
            style = _DieStyle(pip_frac=pip_radius, pip_style=GAME_PIP_STYLE if colour != "other" else "flat")
            if srng is not None:
                style = _random_die_style(srng, colour)
                if colour == "other":
                    o_body, o_pips, style.body_kind = OTHER_RANDOM[int(srng.integers(len(OTHER_RANDOM)))]
                    body = _jitter_colour(srng, o_body, hue=4, sat=(0.8, 1.2), val=(0.85, 1.08))
                    pip = np.array(o_pips[int(srng.integers(len(o_pips)))], float)
                    if opts.coloured_other_rate > 0 and srng.random() < opts.coloured_other_rate:
                        # a coloured die of another game: a game colour's body, dark or gold pips
                        body = family_colour(srng, str(srng.choice(COLOURS)))
                        pip = np.array(COLOURED_OTHER_PIPS[int(srng.integers(len(COLOURED_OTHER_PIPS)))], float)
                        style.body_kind = "plain"
                else:
                    body = family_colour(srng, colour)
                    pip = np.array((200, 228, 242) if cream else (238, 240, 242), float)
                    if srng.random() < 0.04:  # unpainted engraved pips: only their shadow shows
                        pip, style.pip_style = body.copy(), "engraved"
                pip = np.clip(pip * srng.uniform(0.9, 1.04), 0, 255)
            dice.append(_Die(centre, size, rot, body, pip, colour))
            dice[-1].style = style
            break

    img = background(rng, H, W)

    # distractors: pip-less coloured wooden cubes and discs on the table (not dice)
    distractors = []
    for _ in range(int(rng.integers(0, 4)) if rng.random() < opts.distractor_rate else 0):
        c = cam.ray_to_table(rng.uniform(0, W), rng.uniform(0, H))
        if c is None:
            continue
        s_cube = size * rng.uniform(*opts.distractor_scale)
        centre = np.array([c[0], c[1], s_cube / 2])
        if any(np.linalg.norm(centre[:2] - d.centre[:2]) < 1.2 * size for d in dice):
            continue
        col = _jitter_colour(rng, BODY_BGR[str(rng.choice(COLOURS))]) if rng.random() < 0.8 else rng.uniform(0, 255, 3)
        distractors.append(_Die(centre, s_cube, orientation(1, rng.uniform(0, 6.3)), col, col, "none"))
        distractors[-1].style = _DieStyle()

    # soft shadows
    shadow = np.zeros((H, W), np.float32)
    for d in dice + distractors:
        pts = d.corner_points(rounding)
        flat = pts - light[None, :] * (pts[:, 2:3] / light[2])
        p2, _ = cam.project(flat)
        hull = cv2.convexHull(p2.astype(np.float32))
        _poly(shadow, hull[:, 0, :], 1.0)
    k = max(1.0, die_px * rng.uniform(0.05, 0.2))
    if srng is not None and srng.random() < 0.35:  # hard shadows (a small, bright light)
        k = max(0.6, die_px * srng.uniform(0.008, 0.04))
    shadow = cv2.GaussianBlur(shadow, (0, 0), k)
    img *= (1 - rng.uniform(0.25, 0.6) * shadow)[..., None]
    view_dir = cam.pos / np.linalg.norm(cam.pos)
    half_vec = (light + view_dir) / np.linalg.norm(light + view_dir)

    # draw far to near
    order = sorted(dice + distractors, key=lambda d: -float(cam.project(d.centre[None])[1][0]))
    face_outline = _rounded_square(min(0.45, rounding * 1.6))
    truths_by_die = {}
    for d in order:
        pts = d.corner_points(rounding)
        p2, _ = cam.project(pts)
        hull = cv2.convexHull(p2.astype(np.float32))[:, 0, :]
        edge_shade = ambient + (1 - ambient) * 0.45
        body = d.body
        if d.style.body_kind == "translucent":  # the table shows through the body
            x0, y0 = np.clip(hull.min(0).astype(int), 0, (W - 1, H - 1))
            x1, y1 = np.clip(hull.max(0).astype(int) + 1, 1, (W, H))
            under = img[y0:y1, x0:x1].reshape(-1, 3).mean(0) if x1 > x0 and y1 > y0 else body
            body = 0.6 * body + 0.4 * under * 1.2
        _poly(img, hull, tuple(body * edge_shade * rng.uniform(0.7, 0.9)))
        for value, n_loc, u_loc, v_loc in FACES:
            n_w = d.rot @ n_loc
            fc = d.centre + n_w * d.size / 2
            if np.dot(n_w, cam.pos - fc) <= 0:
                continue
            u_w, v_w = d.rot @ u_loc, d.rot @ v_loc
            diffuse = max(0.0, float(np.dot(n_w, light)))
            shade = ambient + (1 - ambient) * diffuse
            half = d.size / 2 * (1 - rounding * 0.35)
            outline = fc + (face_outline[:, :1] * u_w + face_outline[:, 1:] * v_w) * half
            face_bgr = body * shade * 1.05
            if d.style.gloss:
                face_bgr = face_bgr + 255 * d.style.gloss * max(0.0, float(n_w @ half_vec)) ** d.style.shininess
            _poly(img, cam.project(outline)[0], tuple(np.clip(face_bgr, 0, 255)))
            if d.colour == "none":
                continue
            if srng is not None:
                _face_details(srng, img, cam, d, fc, u_w, v_w, half, face_bgr)
            pr = d.style.pip_frac * half
            spread = d.style.pip_spread
            # the side of an engraved pip towards the light lies in its own shadow
            l_face = light - n_w * float(light @ n_w)
            l_uv = np.array([float(l_face @ u_w), float(l_face @ v_w)])
            l_uv = l_uv / max(np.linalg.norm(l_uv), 1e-6)
            for pu, pv in PIP_LAYOUTS[value]:
                pc = fc + (pu * u_w + pv * v_w) * half * spread
                circ = pc + (_CIRCLE[:, :1] * u_w + _CIRCLE[:, 1:] * v_w) * pr
                pip_bgr = np.clip(d.pip * shade * 0.95, 0, 255)
                if d.style.pip_style == "flat":
                    _poly(img, cam.project(circ)[0], tuple(pip_bgr))
                elif d.style.pip_style == "rim":
                    rim = pc + (_CIRCLE[:, :1] * u_w + _CIRCLE[:, 1:] * v_w) * pr * 1.22
                    _poly(img, cam.project(rim)[0], tuple(np.clip(body * shade * 0.35, 0, 255)))
                    _poly(img, cam.project(circ)[0], tuple(pip_bgr))
                else:  # engraved: a dark hole, its lit part shifted away from the light
                    _poly(img, cam.project(circ)[0], tuple(np.clip(0.5 * pip_bgr * 0.55 + 0.5 * face_bgr * 0.3, 0, 255)))
                    lit = pc - (l_uv[0] * u_w + l_uv[1] * v_w) * pr * 0.22
                    lit = lit + (_CIRCLE[:, :1] * u_w + _CIRCLE[:, 1:] * v_w) * pr * 0.76
                    _poly(img, cam.project(lit)[0], tuple(pip_bgr))
        if d.colour == "none":
            if extras is not None:
                x0, y0 = np.maximum(hull.min(0), 0)
                x1, y1 = np.minimum(hull.max(0), (W, H))
                if x1 - x0 >= 2 and y1 - y0 >= 2:
                    extras.setdefault("distractor_boxes", []).append(
                        (float(x0), float(y0), float(x1 - x0), float(y1 - y0)))
            continue
        # ground truth
        x0, y0 = hull.min(0)
        x1, y1 = hull.max(0)
        cx0, cy0, cx1, cy1 = max(0.0, x0), max(0.0, y0), min(float(W), x1), min(float(H), y1)
        if cx1 - cx0 < 2 or cy1 - cy0 < 2:
            continue
        tv = top_value(d.rot)
        n_loc, u_loc, v_loc = face_of_value(tv)
        n_w = d.rot @ n_loc
        fc = d.centre + n_w * d.size / 2
        half = d.size / 2 * (1 - rounding * 0.35)  # the drawn (rounded) top face
        top = fc + (face_outline[:, :1] * (d.rot @ u_loc) + face_outline[:, 1:] * (d.rot @ v_loc)) * half
        tp = cam.project(top)[0]
        tx0, ty0 = tp.min(0)
        tx1, ty1 = tp.max(0)
        tw, th = tx1 - tx0, ty1 - ty0
        inside = max(0.0, min(tx1, W) - max(tx0, 0)) * max(0.0, min(ty1, H) - max(ty0, 0)) / max(tw * th, 1e-9)
        partial = bool(x0 < 0 or y0 < 0 or x1 > W or y1 > H)
        truths_by_die[id(d)] = DieTruth(
            colour=d.colour, value=tv,
            box=(float(cx0), float(cy0), float(cx1 - cx0), float(cy1 - cy0)),
            top_box=(float(tx0), float(ty0), float(tw), float(th)),
            partial=partial, top_visible=float(inside))

    if flash:  # a flash lights the near table and leaves the rest darker
        yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
        fall = 1 - srng.uniform(0.3, 0.6) * (((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2) * 2)
        img = img * cv2.resize(fall, (W, H))[..., None]
    img = _photo_effects(rng, img, die_px)
    if srng is not None:
        img = _random_photo_effects(srng, img)
    if opts.jpeg:
        q = int(rng.integers(35, 96))
        if srng is not None:
            q = int(srng.integers(25, 96))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truths = [truths_by_die[id(d)] for d in dice if id(d) in truths_by_die]
    return img, truths


def _face_details(srng, img, cam, d, fc, u_w, v_w, half, face_bgr):
    """Random style: marbled streaks on a marbled die's face, now and then a glint."""
    if d.style.body_kind == "marbled":
        for _ in range(int(srng.integers(2, 5))):
            a, b = srng.uniform(-0.85, 0.85, 2), srng.uniform(-0.85, 0.85, 2)
            w = srng.uniform(0.04, 0.12)
            n = np.array([-(b - a)[1], (b - a)[0]]) / max(np.linalg.norm(b - a), 1e-6) * w
            quad = np.array([a + n, b + n, b - n, a - n])
            pts = fc + (quad[:, :1] * u_w + quad[:, 1:] * v_w) * half
            tone = face_bgr * srng.uniform(0.55, 0.8) if srng.random() < 0.5 else face_bgr + (255 - face_bgr) * 0.5
            _poly(img, cam.project(pts)[0], tuple(np.clip(tone, 0, 255)))
    if d.style.gloss > 0.3 and srng.random() < 0.25:
        c = srng.uniform(-0.75, 0.75, 2)
        ang = srng.uniform(0, np.pi)
        ax = np.array([np.cos(ang), np.sin(ang)])
        ell = c + _CIRCLE[:, :1] * ax * srng.uniform(0.1, 0.3) + _CIRCLE[:, 1:] * ax[::-1] * [-1, 1] * srng.uniform(0.03, 0.08)
        pts = fc + (ell[:, :1] * u_w + ell[:, 1:] * v_w) * half
        _poly(img, cam.project(pts)[0], tuple(np.clip(face_bgr + (255 - face_bgr) * 0.7, 0, 255)))


def _random_photo_effects(srng, img):
    """Random style: white balance and exposure errors, mixed light colours, chroma noise."""
    H, W = img.shape[:2]
    img = img.astype(np.float32)
    wb = srng.uniform(0.78, 1.22, 3)
    exposure = float(np.clip(srng.lognormal(0, 0.3), 0.5, 1.9))
    img = img * (wb * exposure)
    if srng.random() < 0.3:  # mixed light: a warm and a cool source from two sides
        t = np.linspace(0, 1, W, dtype=np.float32)[None, :, None]
        warm, cool = np.array([0.85, 0.97, 1.12], np.float32), np.array([1.12, 1.0, 0.88], np.float32)
        if srng.random() < 0.5:
            warm, cool = cool, warm
        img = img * (warm * (1 - t) + cool * t)
    if srng.random() < 0.4:
        sigma = srng.uniform(2, 8)
        img = img + srng.normal(0, sigma, (H, W, 3)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def _photo_effects(rng, img, die_px):
    H, W = img.shape[:2]
    # colour cast and exposure
    gains = rng.uniform(0.86, 1.14, 3) * rng.uniform(0.6, 1.3)
    if rng.random() < 0.3:  # warm indoor light
        gains *= np.array([0.85, 0.96, 1.08])
    img = img * gains
    # uneven light: a smooth gradient / vignette
    if rng.random() < 0.7:
        yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
        gx, gy = rng.uniform(-1, 1, 2)
        grad = 1 + 0.35 * rng.uniform(0, 1) * ((xx / W - 0.5) * gx + (yy / H - 0.5) * gy)
        vig = 1 - rng.uniform(0, 0.35) * (((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2) * 2)
        img = img * cv2.resize(grad * vig, (W, H))[..., None]
    # blur: defocus or motion, scaled with the dice size
    r = rng.random()
    if r < 0.45:
        img = cv2.GaussianBlur(img, (0, 0), float(die_px * rng.uniform(0.005, 0.03)) + 0.3)
    elif r < 0.6:
        ln = max(2, int(die_px * rng.uniform(0.03, 0.12)))
        k = np.zeros((ln, ln), np.float32)
        k[ln // 2, :] = 1 / ln
        rot = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        k = cv2.warpAffine(k, rot, (ln, ln))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    # sensor noise
    sigma = rng.uniform(0, 9)
    if sigma > 0.5:
        noise = rng.normal(0, sigma, (H // 2 + 1, W // 2 + 1, 1)).astype(np.float32)
        interp = cv2.INTER_NEAREST if rng.random() < 0.5 else cv2.INTER_LINEAR
        img = img + cv2.resize(noise, (W, H), interpolation=interp)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)
