"""Turn a sampled scene (:func:`visionlab.render.luxcore.geometry.sample_scene`) into a LuxCore scene, render it
with LuxCore's CPU path tracer (Intel Open Image Denoise from LuxCore's image pipeline in half the
scenes), develop the linear picture here (white balance with its error, auto exposure, one of a
few tone curves, blur, noise, JPEG) and compute the truth.  Imports ``pyluxcore`` (and ``cv2``
before it: the other order crashes in this wheel): only the CLI imports this module."""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2  # before pyluxcore: the import order matters (module docstring)
import numpy as np
import pyluxcore

from . import geometry as g

MESH_GRID = 40
TILE = 128
_INIT = False


def _init() -> None:
    global _INIT
    if not _INIT:
        pyluxcore.Init(lambda _msg: None)
        _INIT = True


def luxcore_version() -> str:
    return str(pyluxcore.Version())


def write_ply(path: Path, pos: np.ndarray, faces: np.ndarray, normals: np.ndarray | None = None,
              uv: np.ndarray | None = None) -> None:
    cols = [pos]
    props = "property float x\nproperty float y\nproperty float z\n"
    if normals is not None:
        cols.append(normals)
        props += "property float nx\nproperty float ny\nproperty float nz\n"
    if uv is not None:
        cols.append(uv)
        props += "property float s\nproperty float t\n"   # pyluxcore 2.11 reads s, t (not u, v)
    v = np.concatenate(cols, axis=1).astype("<f4")
    head = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(v)}\n{props}"
            f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n")
    rec = np.empty(len(faces), dtype=[("n", "u1"), ("i", "<i4", (3,))])
    rec["n"] = 3
    rec["i"] = faces
    path.write_bytes(head.encode("ascii") + v.tobytes() + rec.tobytes())


def _write_png(path: Path, srgb: np.ndarray) -> None:
    img = np.clip(np.round(np.asarray(srgb) * 255.0), 0, 255).astype(np.uint8)
    if img.ndim == 3:
        img = img[..., ::-1]
    cv2.imwrite(str(path), img)


def _v(x: Any) -> str:
    return " ".join(f"{float(t):.6g}" for t in np.ravel(x))


def _transform(rot: np.ndarray, pos: Any, scale: float = 1.0) -> str:
    """LuxCore's 16 numbers, column-major."""
    m = np.eye(4)
    m[:3, :3] = np.asarray(rot, np.float64) * scale
    m[:3, 3] = np.asarray(pos, np.float64)
    return _v(m.T)


def _box_mesh(sx: float, sy: float, sz: float) -> tuple[np.ndarray, np.ndarray]:
    c = np.array([[x, y, z] for z in (0, sz) for y in (-sy, sy) for x in (-sx, sx)], np.float64)
    f = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                  [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]])
    return c, f


def _cylinder_mesh(r: float, h: float, n: int = 32) -> tuple[np.ndarray, np.ndarray]:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    ring = np.stack([r * np.cos(a), r * np.sin(a)], 1)
    pos = np.concatenate([np.c_[ring, np.zeros(n)], np.c_[ring, np.full(n, h)], [[0, 0, 0], [0, 0, h]]])
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces += [[i, j, n + j], [i, n + j, n + i], [2 * n, j, i], [2 * n + 1, n + i, n + j]]
    return pos, np.array(faces)


def _table_texture(t: dict[str, Any], name: str) -> str:
    """Scene properties of the table's colour texture ``name`` from LuxCore's procedural textures
    (the image-based tables, board and cloth, are written by ``build``)."""
    k, s = t["kind"], t["scale"]
    c1, c2 = _v(t["rgb1"]), _v(t["rgb2"])
    m3 = f'scene.textures.{name}_i.mapping.type = "globalmapping3d"\nscene.textures.{name}_i.mapping.transformation = {_transform(np.eye(3), [0, 0, 0], 1.0 / s)}\n'
    mix = (f'scene.textures.{name}.type = "mix"\nscene.textures.{name}.amount = "{name}_i"\n'
           f'scene.textures.{name}.texture1 = {c1}\nscene.textures.{name}.texture2 = {c2}\n')
    if k == "wood":
        return (f'scene.textures.{name}_i.type = "blender_wood"\nscene.textures.{name}_i.woodtype = "ringnoise"\n'
                f'scene.textures.{name}_i.noisesize = 0.6\nscene.textures.{name}_i.turbulence = 6\n' + m3 + mix)
    if k == "marble":
        return (f'scene.textures.{name}_i.type = "marble"\nscene.textures.{name}_i.octaves = 8\n'
                f'scene.textures.{name}_i.roughness = 0.5\nscene.textures.{name}_i.scale = 1\nscene.textures.{name}_i.variation = 0.3\n' + m3 +
                f'scene.textures.{name}.type = "scale"\nscene.textures.{name}.texture1 = "{name}_i"\nscene.textures.{name}.texture2 = {c1}\n')
    if k == "fbm":
        return (f'scene.textures.{name}_i.type = "fbm"\nscene.textures.{name}_i.octaves = 6\nscene.textures.{name}_i.roughness = 0.6\n' + m3 + mix)
    if k == "checker":
        return (f'scene.textures.{name}.type = "checkerboard2d"\nscene.textures.{name}.texture1 = {c1}\n'
                f'scene.textures.{name}.texture2 = {c2}\nscene.textures.{name}.mapping.type = "uvmapping2d"\n'
                f'scene.textures.{name}.mapping.uvscale = {1.0 / s:.6g} {1.0 / s:.6g}\n')
    if k == "brick":
        return (f'scene.textures.{name}.type = "brick"\nscene.textures.{name}.brickbond = "running"\n'
                f'scene.textures.{name}.brickwidth = {s:.6g}\nscene.textures.{name}.brickheight = {s / 2.5:.6g}\n'
                f'scene.textures.{name}.brickdepth = {s / 2.5:.6g}\nscene.textures.{name}.mortarsize = 0.01\n'
                f'scene.textures.{name}.bricktex = {c1}\nscene.textures.{name}.mortartex = {c2}\nscene.textures.{name}.brickmodtex = 0.6\n'
                f'scene.textures.{name}.mapping.type = "globalmapping3d"\n')
    if k == "plain":
        return f'scene.textures.{name}.type = "constfloat3"\nscene.textures.{name}.value = {c1}\n'
    raise KeyError(k)


def table_image(t: dict[str, Any], px: int = 1024) -> np.ndarray:
    """sRGB image for the image-based tables: board art (bands, discs, dots like pips, strokes) or cloth."""
    rng = np.random.default_rng(t["texture_seed"])
    c1, c2 = np.asarray(t["rgb1"]), np.asarray(t["rgb2"])
    img = np.ones((px, px, 3)) * c1
    if t["kind"] == "cloth":
        y, x = np.mgrid[0:px, 0:px]
        weave = 0.5 + 0.5 * np.sin(x * 2 * math.pi / rng.uniform(3, 7)) * np.sin(y * 2 * math.pi / rng.uniform(3, 7))
        img = img * (0.85 + 0.15 * weave[..., None]) + rng.normal(0, 0.03, (px, px, 1))
        return np.clip(img, 0, 1)
    for _ in range(int(rng.integers(3, 9))):
        col = rng.uniform(0.05, 0.95, 3)
        k = rng.integers(0, 4)
        if k == 0:
            y0 = int(rng.integers(0, px))
            img[y0:y0 + int(rng.integers(10, 200))] = col
        elif k == 1:
            cv2.circle(img, (int(rng.integers(0, px)), int(rng.integers(0, px))), int(rng.integers(20, 250)), col.tolist(), -1)
        elif k == 2:
            dot = (1.0, 1.0, 1.0) if rng.random() < 0.6 else (0.05, 0.05, 0.05)
            step = int(rng.integers(14, 40))
            r = int(rng.integers(2, max(3, step // 3)))
            x0, y0 = int(rng.integers(0, px // 2)), int(rng.integers(0, px // 2))
            for yy in range(y0, min(px, y0 + int(rng.integers(60, 400))), step):
                for xx in range(x0, min(px, x0 + int(rng.integers(60, 400))), step):
                    cv2.circle(img, (xx, yy), r, dot, -1)
        else:
            for _ in range(int(rng.integers(5, 30))):
                p = rng.integers(0, px, 4)
                cv2.line(img, (int(p[0]), int(p[1])), (int(p[0] + (p[2] - px / 2) / 8), int(p[1] + (p[3] - px / 2) / 8)),
                         (c2 * 0.5).tolist(), int(rng.integers(1, 5)))
    return np.clip(img, 0, 1)


def build(scene: dict[str, Any], work: Path, spp: int, threads: int) -> tuple[str, str, list[dict[str, np.ndarray]]]:
    """(scene properties, render-config properties, each die's local mesh)."""
    cam = scene["camera"]
    w, h = scene["width"], scene["height"]
    s: list[str] = []
    s.append('scene.camera.type = "perspective"')
    s.append(f"scene.camera.lookat.orig = {_v(cam['origin'])}")
    s.append(f"scene.camera.lookat.target = {_v(cam['target'])}")
    s.append(f"scene.camera.up = {_v(cam['up'])}")
    s.append(f"scene.camera.fieldofview = {cam['fov']:.6g}")
    s.append(f"scene.camera.screenwindow = -1 1 {-h / w:.6g} {h / w:.6g}")
    if cam["aperture"] > 0:
        s.append(f"scene.camera.lensradius = {cam['aperture']:.6g}")
        s.append(f"scene.camera.focaldistance = {cam['focus']:.6g}")
    # table
    t = scene["table"]
    tp = np.array([[-2, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0]], np.float64)
    tuv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64) / max(t["scale"], 2.5e-4)   # one repeat per scale
    write_ply(work / "table.ply", tp, np.array([[0, 1, 2], [0, 2, 3]]), np.tile([0, 0, 1.0], (4, 1)), tuv)
    if t["kind"] in ("board", "cloth"):
        _write_png(work / "table.png", table_image(t))
        s.append('scene.textures.table.type = "imagemap"')
        s.append(f'scene.textures.table.file = "{work / "table.png"}"')
        s.append("scene.textures.table.gamma = 2.2")
        s.append('scene.textures.table.mapping.type = "uvmapping2d"')
    else:
        s.extend(_table_texture(t, "table").strip().splitlines())
    if t["gloss"]:
        s += ['scene.materials.table.type = "glossy2"', 'scene.materials.table.kd = "table"',
              "scene.materials.table.ks = 0.04 0.04 0.04", f"scene.materials.table.uroughness = {t['roughness'] * 0.3:.4g}",
              f"scene.materials.table.vroughness = {t['roughness'] * 0.3:.4g}"]
    else:
        s += ['scene.materials.table.type = "matte"', 'scene.materials.table.kd = "table"']
    s += ['scene.shapes.table.type = "mesh"', f'scene.shapes.table.ply = "{work / "table.ply"}"',
          'scene.objects.table.shape = "table"', 'scene.objects.table.material = "table"']
    # dice
    meshes = []
    for i, die in enumerate(scene["dice"]):
        mesh = g.die_mesh(die["half"], die["exponent"], MESH_GRID)
        meshes.append(mesh)
        write_ply(work / f"die{i}.ply", mesh["positions"], mesh["faces"], mesh["normals"], mesh["uv"])
        col, hgt = g.die_textures(die, TILE)
        _write_png(work / f"die{i}.png", col)
        _write_png(work / f"die{i}_h.png", hgt)
        n = f"die{i}"
        s += [f'scene.textures.{n}c.type = "imagemap"', f'scene.textures.{n}c.file = "{work / (n + ".png")}"',
              f"scene.textures.{n}c.gamma = 2.2", f'scene.textures.{n}c.mapping.type = "uvmapping2d"',
              f'scene.textures.{n}h.type = "imagemap"', f'scene.textures.{n}h.file = "{work / (n + "_h.png")}"',
              f"scene.textures.{n}h.gamma = 1.0", f'scene.textures.{n}h.mapping.type = "uvmapping2d"',
              f'scene.textures.{n}b.type = "scale"', f'scene.textures.{n}b.texture1 = "{n}h"',
              f"scene.textures.{n}b.texture2 = {die['half'] * 0.08 * die['bump']:.6g}"]
        rough = die["roughness"]
        if die["material"] == "glossy":
            s += [f'scene.materials.{n}.type = "glossy2"', f'scene.materials.{n}.kd = "{n}c"',
                  f"scene.materials.{n}.ks = {_v([die['specular']] * 3)}",
                  f"scene.materials.{n}.uroughness = {rough:.4g}", f"scene.materials.{n}.vroughness = {rough:.4g}"]
        elif die["material"] == "disney":
            s += [f'scene.materials.{n}.type = "disney"', f'scene.materials.{n}.basecolor = "{n}c"',
                  f"scene.materials.{n}.roughness = {min(1.0, rough * 1.5):.4g}",
                  f"scene.materials.{n}.specular = {die['specular'] * 8:.4g}", f"scene.materials.{n}.clearcoat = 0"]
        else:
            s += [f'scene.materials.{n}base.type = "matte"', f'scene.materials.{n}base.kd = "{n}c"',
                  f'scene.materials.{n}.type = "glossycoating"', f'scene.materials.{n}.base = "{n}base"',
                  f"scene.materials.{n}.ks = {_v([die['specular']] * 3)}",
                  f"scene.materials.{n}.uroughness = {rough * 0.5:.4g}", f"scene.materials.{n}.vroughness = {rough * 0.5:.4g}"]
        if die["pip_style"] in ("dimple", "engraved"):
            s.append(f'scene.materials.{n}.bumptex = "{n}b"')
        s += [f'scene.shapes.{n}.type = "mesh"', f'scene.shapes.{n}.ply = "{work / (n + ".ply")}"',
              f'scene.objects.{n}.shape = "{n}"', f'scene.objects.{n}.material = "{n}"',
              f"scene.objects.{n}.transformation = {_transform(die['rotation'], die['position'])}"]
    # distractors
    for i, x in enumerate(scene["distractors"]):
        n = f"x{i}"
        sz = x["size"]
        if x["kind"] == "disc":
            pos, faces = _cylinder_mesh(sz, sz * 0.35)
        elif x["kind"] == "meeple":
            pos, faces = _cylinder_mesh(sz * 0.6, sz * 2.2, 12)
        elif x["kind"] == "box":
            pos, faces = _box_mesh(sz, sz, sz * 2)
        else:
            pos, faces = _box_mesh(sz * 1.6, sz * 2.4, 0.0004)
        write_ply(work / f"{n}.ply", pos, faces)
        s += [f'scene.materials.{n}.type = "matte"', f"scene.materials.{n}.kd = {_v(g.srgb_to_linear(x['rgb']))}",
              f'scene.shapes.{n}.type = "mesh"', f'scene.shapes.{n}.ply = "{work / (n + ".ply")}"',
              f'scene.objects.{n}.shape = "{n}"', f'scene.objects.{n}.material = "{n}"',
              f"scene.objects.{n}.transformation = {_transform(g.rot_z(x['yaw']), x['position'])}"]
    # lights (gains are relative: develop()'s auto exposure sets the level)
    for i, lt in enumerate(scene["lights"]):
        n = f"l{i}"
        pos = np.asarray(lt["position"], np.float64)
        d2 = float(pos @ pos)
        rgb = np.asarray(lt["rgb"]) * lt["power"]
        if lt["kind"] in ("sphere", "flash"):
            s += [f'scene.lights.{n}.type = "sphere"', f"scene.lights.{n}.position = {_v(pos)}",
                  f"scene.lights.{n}.radius = {max(lt['size'] * 0.3, 0.002):.4g}", f"scene.lights.{n}.gain = {_v(rgb * d2 * 10)}"]
        elif lt["kind"] == "spot":
            s += [f'scene.lights.{n}.type = "spot"', f"scene.lights.{n}.position = {_v(pos)}", f"scene.lights.{n}.target = 0 0 0",
                  f"scene.lights.{n}.coneangle = {lt['cone']:.4g}", f"scene.lights.{n}.conedeltaangle = {lt['cone'] * 0.3:.4g}",
                  f"scene.lights.{n}.gain = {_v(rgb * d2 * 10)}"]
        elif lt["kind"] == "area":
            f_, r_, u_ = g.camera_basis(pos, np.zeros(3), np.array([0, 0, 1.0]) if abs(pos[2]) / math.sqrt(d2) < 0.99 else np.array([1.0, 0, 0]))
            a = max(lt["size"], 0.02) / 2
            quad = np.array([pos - a * r_ - a * u_, pos + a * r_ - a * u_, pos + a * r_ + a * u_, pos - a * r_ + a * u_])
            write_ply(work / f"{n}.ply", quad, np.array([[0, 2, 1], [0, 3, 2]]))
            radiance = rgb * d2 / (4 * a * a) * 0.3
            s += [f'scene.materials.{n}.type = "matte"', f"scene.materials.{n}.kd = 0 0 0",
                  f"scene.materials.{n}.emission = {_v(radiance)}",
                  f'scene.shapes.{n}.type = "mesh"', f'scene.shapes.{n}.ply = "{work / (n + ".ply")}"',
                  f'scene.objects.{n}.shape = "{n}"', f'scene.objects.{n}.material = "{n}"']
            if scene.get("far"):   # farther than the light, the camera would see its black back (stop 60)
                s.append(f"scene.objects.{n}.camerainvisible = 1")
        else:  # sun through a window: LuxCore's sun model
            dirn = pos / math.sqrt(d2)
            s += [f'scene.lights.{n}.type = "sun"', f"scene.lights.{n}.dir = {_v(dirn)}",
                  f"scene.lights.{n}.turbidity = 2.5", f"scene.lights.{n}.gain = {_v(rgb * 1e-4)}",
                  f"scene.lights.{n}.relsize = 3"]
    s += ['scene.lights.amb.type = "constantinfinite"', f"scene.lights.amb.color = {_v(scene['ambient'])}",
          "scene.lights.amb.gain = 1 1 1"]
    # render config and image pipeline
    p = scene["post"]
    c = ['renderengine.type = "PATHCPU"', 'sampler.type = "SOBOL"', f"batch.haltspp = {int(spp)}", "batch.halttime = 600",
         f"native.threads.count = {int(threads)}", f"renderengine.seed = {int(scene['index']) * 7919 % 100000 + 1}",
         "path.pathdepth.total = 6", "path.pathdepth.diffuse = 3", "path.pathdepth.glossy = 4",
         f"film.width = {w}", f"film.height = {h}", 'film.filter.type = "BLACKMANHARRIS"', "film.filter.width = 1.5",
         'film.outputs.0.type = "RGB_IMAGEPIPELINE"', 'film.outputs.0.filename = "out.png"', "film.outputs.0.index = 0"]
    pre = "film.imagepipelines.0"
    k = 0
    if p["denoise"]:
        c.append(f'{pre}.{k}.type = "INTEL_OIDN"')
        k += 1
    c += [f'{pre}.{k}.type = "TONEMAP_LINEAR"', f"{pre}.{k}.scale = 1"]   # linear radiance out: develop() exposes it
    return "\n".join(s) + "\n", "\n".join(c) + "\n", meshes


def tone(x: np.ndarray, curve: str) -> np.ndarray:
    """Exposed linear light (1 = white) -> display 0..1 by one of ``geometry.CURVES``."""
    if curve == "reinhard":
        x = x * 1.6
        x = x * (1 + x / 4.0) / (1 + x)
        return g.linear_to_srgb(x)
    if curve == "filmic":                       # an S-curve on log exposure, like a phone's picture
        y = np.log2(np.maximum(x, 1e-6) / 0.18)
        return np.clip(1.0 / (1.0 + np.exp(-(y * 0.55 + 0.35))), 0.0, 1.0) * 1.04 - 0.02
    if curve == "gamma":
        return np.power(np.clip(x, 0.0, 1.0), 1 / 2.0)
    return g.linear_to_srgb(x)


def develop(linear: np.ndarray, post: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Linear render (bottom-up) -> 8-bit BGR: white balance (with its error), auto exposure on the
    frame's mean light, a tone curve, blur, motion blur, sensor noise."""
    img = np.maximum(linear[::-1], 0.0) / np.asarray(post["white_balance"], np.float64)
    lum = img @ np.array([0.2126, 0.7152, 0.0722])
    mean = float(np.mean(np.minimum(lum, np.percentile(lum, 99.5)))) + 1e-9
    img = img * (post["key"] * post["exposure"] / mean)
    img = tone(img, post["curve"])
    if post["blur"] > 0:
        img = cv2.GaussianBlur(img, (0, 0), post["blur"])
    if post["motion"] > 0:
        n = int(round(post["motion"]))
        ker = np.zeros((n, n))
        ker[n // 2] = 1.0 / n
        m = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        ker = cv2.warpAffine(ker, m, (n, n))
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-9))
    img = img + rng.normal(0.0, post["noise"], img.shape) * (0.5 + np.sqrt(np.clip(img, 0, 1)))
    out = np.clip(np.round(img * 255.0), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(out[..., ::-1])


def render_scene(scene: dict[str, Any], jpg: Path, spp: int = 24, threads: int = 1) -> list[dict[str, Any]]:
    """Render ``scene`` to ``jpg``; returns the truth of every die in the frame."""
    _init()
    w, h = scene["width"], scene["height"]
    with tempfile.TemporaryDirectory(prefix="lux_") as tmp:
        sprops, cprops, meshes = build(scene, Path(tmp), spp, threads)
        sc = pyluxcore.Scene()
        sc.Parse(pyluxcore.Properties().SetFromString(sprops))
        cfg = pyluxcore.RenderConfig(pyluxcore.Properties().SetFromString(cprops), sc)
        session = pyluxcore.RenderSession(cfg)
        session.Start()
        t0 = time.monotonic()
        while not session.HasDone():
            time.sleep(0.05)
            session.UpdateStats()
            if time.monotonic() - t0 > 900:
                break
        session.Stop()
        buf = np.zeros((h, w, 3), np.float32)
        session.GetFilm().GetOutputFloat(pyluxcore.FilmOutputType.RGB_IMAGEPIPELINE, buf)
    rng = np.random.default_rng([scene["seed"], scene["index"], 44])
    bgr = develop(buf.astype(np.float64), scene["post"], rng)
    ok, enc = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(scene["post"]["jpeg"])])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    jpg.write_bytes(enc.tobytes())
    truths = []
    for die, mesh in zip(scene["dice"], meshes):
        t = g.die_truth(die, mesh, scene["camera"], w, h)
        if t is not None:
            truths.append(t)
    return truths
