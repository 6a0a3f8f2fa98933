"""Die geometry: pip layouts, which value sits on which face, orientations.

A die is a unit cube in its own frame (x, y, z in [-0.5, 0.5]). Each face has an outward normal
and two in-face axes (u, v) with u x v = normal, so the pip pattern drawn in (u, v) coordinates is
fixed to the die: adjacent faces stay consistent whatever the orientation. Values: 1 on +z,
2 on +x, 3 on +y (1-2-3 counter-clockwise round their shared corner, as on Western dice), and the
opposite faces 6, 5, 4 so that opposite faces sum to 7.
"""
from __future__ import annotations

import numpy as np

#: pip centres per value, in face coordinates u, v in [-1, 1] (u right, v down).
PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-0.5, -0.5), (0.5, 0.5)),
    3: ((-0.5, -0.5), (0.0, 0.0), (0.5, 0.5)),
    4: ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)),
    5: ((-0.5, -0.5), (0.5, -0.5), (0.0, 0.0), (-0.5, 0.5), (0.5, 0.5)),
    6: ((-0.5, -0.5), (-0.5, 0.0), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.0), (0.5, 0.5)),
}

#: (value, normal, u axis, v axis) for the six faces, in the die's own frame.
FACES: tuple[tuple[int, np.ndarray, np.ndarray, np.ndarray], ...] = tuple(
    (value, np.array(n, float), np.array(u, float), np.array(v, float))
    for value, n, u, v in (
        (1, (0, 0, 1), (1, 0, 0), (0, 1, 0)),
        (6, (0, 0, -1), (1, 0, 0), (0, -1, 0)),
        (2, (1, 0, 0), (0, 1, 0), (0, 0, 1)),
        (5, (-1, 0, 0), (0, -1, 0), (0, 0, 1)),
        (3, (0, 1, 0), (-1, 0, 0), (0, 0, 1)),
        (4, (0, -1, 0), (1, 0, 0), (0, 0, 1)),
    )
)


def opposite_value(value: int) -> int:
    """The value on the face opposite ``value`` (they sum to 7)."""
    if value not in PIP_LAYOUTS:
        raise ValueError(f"a die value is 1..6, not {value!r}")
    return 7 - value


def face_of_value(value: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    for v, n, u, w in FACES:
        if v == value:
            return n, u, w
    raise ValueError(f"a die value is 1..6, not {value!r}")


def _rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A rotation matrix taking unit vector a onto unit vector b."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    c = float(np.dot(a, b))
    if c > 1 - 1e-9:
        return np.eye(3)
    if c < -1 + 1e-9:  # half turn about any axis perpendicular to a
        axis = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(axis) < 1e-6:
            axis = np.cross(a, [0.0, 1.0, 0.0])
        return rotation_about(axis, np.pi)
    axis = np.cross(a, b)
    return rotation_about(axis, np.arccos(c))


def rotation_about(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def orientation(top_value: int, yaw: float, tilt: float = 0.0, tilt_dir: float = 0.0) -> np.ndarray:
    """Rotation (die frame -> world, z up) resting with ``top_value`` up, turned by ``yaw``
    about the vertical, then leaned by ``tilt`` radians towards horizontal direction ``tilt_dir``."""
    n, _, _ = face_of_value(top_value)
    r = _rotation_between(n, np.array([0.0, 0.0, 1.0]))
    r = rotation_about([0, 0, 1], yaw) @ r
    if tilt:
        axis = np.array([-np.sin(tilt_dir), np.cos(tilt_dir), 0.0])
        r = rotation_about(axis, tilt) @ r
    return r


def top_value(rotation: np.ndarray) -> int:
    """The value whose face points most upwards (world +z) under ``rotation``."""
    best, best_z = 0, -2.0
    for value, n, _, _ in FACES:
        z = float((rotation @ n)[2])
        if z > best_z:
            best, best_z = value, z
    return best
