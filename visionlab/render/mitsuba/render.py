"""Turn a sampled scene (:func:`visionlab.render.mitsuba.geometry.sample_scene`) into a Mitsuba 3 scene, render
it with Mitsuba's path tracer on the CPU (``scalar_rgb``), develop the picture (white balance,
exposure, tone, noise, blur, JPEG) and compute the truth.  Imports ``mitsuba``: only the CLI
imports this module."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import cv2
import mitsuba as mi
import numpy as np

from . import geometry as g

mi.set_variant("scalar_rgb")

MESH_GRID = 64


def set_threads(n: int) -> None:
    import drjit as dr
    dr.set_thread_count(max(1, int(n)))


def mitsuba_version() -> str:
    return str(mi.__version__)


def write_ply(path: Path, mesh: dict[str, np.ndarray]) -> None:
    """Binary little-endian PLY with positions, normals and texture coordinates."""
    v = np.concatenate([mesh["positions"], mesh["normals"], mesh["uv"]], axis=1).astype("<f4")
    f = mesh["faces"].astype("<i4")
    head = ("ply\nformat binary_little_endian 1.0\n"
            f"element vertex {len(v)}\n"
            "property float x\nproperty float y\nproperty float z\n"
            "property float nx\nproperty float ny\nproperty float nz\n"
            "property float u\nproperty float v\n"
            f"element face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n")
    rec = np.empty(len(f), dtype=[("n", "u1"), ("i", "<i4", (3,))])
    rec["n"] = 3
    rec["i"] = f
    with open(path, "wb") as fh:
        fh.write(head.encode("ascii"))
        fh.write(v.tobytes())
        fh.write(rec.tobytes())


def _transform(rotation: Any, position: Any, scale: float | tuple[float, float, float] = 1.0) -> "mi.ScalarTransform4f":
    m = np.eye(4)
    m[:3, :3] = np.asarray(rotation, np.float64) * np.asarray(scale, np.float64)
    m[:3, 3] = np.asarray(position, np.float64)
    return mi.ScalarTransform4f(m.tolist())


def _bitmap(srgb: np.ndarray) -> "mi.Bitmap":
    return mi.Bitmap(np.ascontiguousarray(g.srgb_to_linear(srgb), dtype=np.float32))


def _rgb(srgb: Any) -> dict[str, Any]:
    return {"type": "rgb", "value": g.srgb_to_linear(np.asarray(srgb)).tolist()}


def _aimed_at_origin(pos: np.ndarray) -> "mi.ScalarTransform4f":
    """A frame at ``pos`` whose +z looks at the table centre (the origin)."""
    up = [0, 0, 1] if abs(pos[2] / np.linalg.norm(pos)) < 0.99 else [1, 0, 0]
    return mi.ScalarTransform4f().look_at(origin=pos.tolist(), target=[0, 0, 0], up=up)


def _light(light: dict[str, Any]) -> dict[str, Any]:
    """A light whose power gives the table centre (the origin) about ``irradiance``."""
    pos = np.asarray(light["position"], np.float64)
    d = float(np.linalg.norm(pos))
    cos = max(0.2, pos[2] / d)
    e = light["irradiance"] / cos
    rgb = np.asarray(light["rgb"], np.float64)
    kind = light["kind"]
    if kind == "sphere":
        r = light["size"]
        radiance = e * d * d / (math.pi * r * r)
        return {"type": "sphere", "center": pos.tolist(), "radius": r,
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": (rgb * radiance).tolist()}}}
    if kind == "rect":
        half = light["size"] / 2
        radiance = e * d * d / (4 * half * half)
        return {"type": "rectangle", "to_world": _aimed_at_origin(pos) @ mi.ScalarTransform4f().scale([half, half, 1.0]),
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": (rgb * radiance).tolist()}}}
    intensity = e * d * d
    if kind == "spot":
        return {"type": "spot", "to_world": _aimed_at_origin(pos),
                "cutoff_angle": float(light["spot_deg"]), "beam_width": float(light["spot_deg"]) * 0.7,
                "intensity": {"type": "rgb", "value": (rgb * intensity).tolist()}}
    return {"type": "point", "position": pos.tolist(), "intensity": {"type": "rgb", "value": (rgb * intensity).tolist()}}


def build(scene: dict[str, Any], workdir: Path, spp: int) -> tuple[dict[str, Any], list[dict[str, np.ndarray]]]:
    """The Mitsuba scene dict, and each die's local mesh (for the truth)."""
    cam = g.camera_of(scene)
    target = cam["origin"] + cam["forward"]
    up = cam["up"]
    d: dict[str, Any] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 6, "hide_emitters": True},
        "sensor": {"type": "perspective", "fov": float(scene["fov"]), "fov_axis": "x",
                   "near_clip": 0.005, "far_clip": 20.0,
                   "to_world": mi.ScalarTransform4f().look_at(origin=cam["origin"].tolist(), target=target.tolist(), up=up.tolist()),
                   "film": {"type": "hdrfilm", "width": scene["width"], "height": scene["height"],
                            "rfilter": {"type": "gaussian"}, "pixel_format": "rgb"},
                   "sampler": {"type": "independent", "sample_count": int(spp),
                               "seed": int(scene["index"]) * 7919 + int(scene["seed"]) % 100003}},
        "ambient": {"type": "constant", "radiance": {"type": "rgb", "value": list(scene["ambient"])}},
    }
    t = scene["table"]
    trng = np.random.default_rng(t["texture_seed"])
    tex = g.table_texture(trng, t["kind"], 512)
    reps = 3.0 / t["metres"]
    d["table"] = {"type": "rectangle", "to_world": mi.ScalarTransform4f().scale([1.5, 1.5, 1.0]),
                  "bsdf": {"type": "principled",
                           "base_color": {"type": "bitmap", "bitmap": _bitmap(tex), "raw": True,
                                          "to_uv": mi.ScalarTransform4f().scale([reps, reps, 1.0])},
                           "roughness": float(t["roughness"]), "specular": float(t["specular"])}}
    meshes = []
    for i, die in enumerate(scene["dice"]):
        pips = g.die_pips(die)
        dimples = None
        if die["pip_depth"] > 0:
            dimples = {v: (p, die["pip_radius"], die["pip_depth"]) for v, p in pips.items()}
        mesh = g.die_mesh(die["half"], die["rounding"], MESH_GRID, dimples)
        meshes.append(mesh)
        ply = workdir / f"die{i}.ply"
        write_ply(ply, mesh)
        body = np.asarray(die["body"], np.float64)
        pip_rgb = None if die["pip_rgb"] is None else np.asarray(die["pip_rgb"], np.float64)
        ring = 0.035 if die["style"] == "ring" else 0.0
        atlas = g.die_atlas(body, pip_rgb, pips, die["pip_radius"], 128, pit_shade=0.78,
                            ring=ring, ring_rgb=body * 0.45)
        bsdf: dict[str, Any] = {"type": "principled",
                                "base_color": {"type": "bitmap", "bitmap": _bitmap(atlas), "raw": True,
                                               "filter_type": "bilinear", "wrap_mode": "clamp"},
                                "roughness": float(die["roughness"]), "specular": float(die["specular"])}
        if die["clearcoat"] > 0:
            bsdf["clearcoat"] = float(die["clearcoat"])
            bsdf["clearcoat_gloss"] = 0.9
        d[f"die{i}"] = {"type": "ply", "filename": str(ply), "face_normals": False,
                        "to_world": _transform(die["rotation"], die["position"]), "bsdf": bsdf}
    for i, x in enumerate(scene["distractors"]):
        pos = np.asarray(x["position"], np.float64)
        rot = g.rotation_z(x["yaw"])
        bsdf = {"type": "principled", "base_color": _rgb(x["rgb"]), "roughness": 0.4}
        if x["kind"] == "token":
            h, r = x["height"], x["size"]
            d[f"x{i}"] = {"type": "cylinder", "p0": pos.tolist(), "p1": (pos + [0, 0, h]).tolist(), "radius": r, "bsdf": bsdf}
            d[f"x{i}cap"] = {"type": "disk", "to_world": mi.ScalarTransform4f().translate((pos + [0, 0, h]).tolist()) @ mi.ScalarTransform4f().scale([r, r, 1.0]), "bsdf": bsdf}
        elif x["kind"] == "cube":
            s = x["size"]
            d[f"x{i}"] = {"type": "cube", "to_world": _transform(rot, pos + [0, 0, s], s), "bsdf": bsdf}
        else:  # a card lying on the table
            s = x["size"]
            ctex = g.table_texture(np.random.default_rng(x["texture_seed"]), "board", 256)
            d[f"x{i}"] = {"type": "rectangle", "to_world": _transform(rot, pos + [0, 0, 0.0004], (s, 1.4 * s, 1.0)),
                          "bsdf": {"type": "principled", "base_color": {"type": "bitmap", "bitmap": _bitmap(ctex), "raw": True},
                                   "roughness": 0.5}}
    for i, light in enumerate(scene["lights"]):
        d[f"light{i}"] = _light(light)
    return d, meshes


def develop(linear: np.ndarray, post: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Linear RGB render -> 8-bit BGR: white balance, exposure, a contrast curve, sRGB, noise, blur."""
    img = linear / np.asarray(post["white_balance"], np.float64) * post["exposure"]
    img = img / (1.0 + 0.12 * img)                     # a soft shoulder before clipping
    img = np.clip(img, 0.0, 1.0)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    c = post["contrast"]
    srgb = np.clip(0.5 + (srgb - 0.5) * c, 0.0, 1.0)
    if post["blur"] > 0:
        srgb = cv2.GaussianBlur(srgb, (0, 0), post["blur"])
    srgb = srgb + rng.normal(0.0, post["noise"], srgb.shape)
    out = np.clip(np.round(srgb * 255.0), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(out[..., ::-1])


def render_scene(scene: dict[str, Any], jpg: Path, spp: int = 32) -> list[dict[str, Any]]:
    """Render ``scene`` to ``jpg``; returns the truth of every die in the frame."""
    with tempfile.TemporaryDirectory(prefix="mts_") as tmp:
        desc, meshes = build(scene, Path(tmp), spp)
        sc = mi.load_dict(desc)
        linear = np.asarray(mi.render(sc), np.float64)[..., :3]
    rng = np.random.default_rng([scene["seed"], scene["index"], 33])
    bgr = develop(linear, scene["post"], rng)
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(scene["post"]["jpeg"])])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    jpg.write_bytes(buf.tobytes())
    cam = g.camera_of(scene)
    truths = []
    for die, mesh in zip(scene["dice"], meshes):
        t = g.die_truth(die, mesh, cam, scene["width"], scene["height"], scene["fov"])
        if t is not None:
            truths.append(t)
    return truths
