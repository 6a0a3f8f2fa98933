"""Build one sampled scene in Blender and render it with Cycles on the CPU; compute its truth.

Imports ``bpy``: only the CLI (:mod:`visionlab.render.blender.__main__`) imports this module, lazily.  All random
choices come from :func:`visionlab.render.blender.geometry.sample_scene`; nothing here draws random numbers.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import bpy  # noqa: I001  (bpy first: it makes bmesh and mathutils importable)
import bmesh
import numpy as np
from mathutils import Matrix, Vector

from . import geometry as g

TOP_BAND = 0.3   # vertices within this fraction of the bevel below the top plane count as top face
BOOLEAN_SOLVER = "MANIFOLD"   # 5x faster than EXACT; EXACT is the fallback
PIP_SEGMENTS = 20


def bpy_version() -> str:
    return bpy.app.version_string


def denoiser_available() -> bool:
    try:
        import _cycles
        return bool(getattr(_cycles, "with_openimagedenoise", False))
    except ImportError:
        return False


# ----------------------------------------------------------------------------- helpers

def _link(obj):
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _rgba(rgb, a: float = 1.0):
    return (float(rgb[0]), float(rgb[1]), float(rgb[2]), a)


def _principled(name: str):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = nodes["Principled BSDF"]
    return mat, nodes, mat.node_tree.links, bsdf


def _ramp(nodes, colours, interpolation="LINEAR", positions=None):
    ramp = nodes.new("ShaderNodeValToRGB")
    cr = ramp.color_ramp
    cr.interpolation = interpolation
    n = len(colours)
    positions = positions or [i / max(n - 1, 1) for i in range(n)]
    while len(cr.elements) < n:
        cr.elements.new(0.5)
    for el, pos, col in zip(cr.elements, positions, colours):
        el.position = pos
        el.color = _rgba(col)
    return ramp


def _apply_modifiers(obj) -> None:
    """Replace the object's mesh by its evaluated mesh (modifiers applied), drop the modifiers."""
    dg = bpy.context.evaluated_depsgraph_get()
    new = bpy.data.meshes.new_from_object(obj.evaluated_get(dg), preserve_all_data_layers=True,
                                          depsgraph=dg)
    old = obj.data
    obj.modifiers.clear()
    obj.data = new
    bpy.data.meshes.remove(old)


def _smooth(mesh, angle_deg: float = 35.0) -> None:
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    mesh.set_sharp_from_angle(angle=math.radians(angle_deg))


def _place_on_table(obj, rotation, x: float, y: float) -> None:
    """Set the object's world matrix so its lowest vertex touches z = 0."""
    rot = np.asarray(rotation, float)
    co = _vertices(obj)
    low = float((co @ rot.T)[:, 2].min())
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = (x, y, -low + 2e-6)
    obj.matrix_world = Matrix(m.tolist())


def _vertices(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


# ----------------------------------------------------------------------------- materials

def die_materials(d: dict):
    """(body material, pip material) of one die."""
    body, nodes, links, bsdf = _principled("die_body")
    bsdf.inputs["Base Color"].default_value = _rgba(d["body"])
    bsdf.inputs["Roughness"].default_value = d["roughness"]
    bsdf.inputs["Coat Weight"].default_value = d["coat"]
    bsdf.inputs["Coat Roughness"].default_value = 0.08
    if d["transmission"]:
        bsdf.inputs["Transmission Weight"].default_value = d["transmission"]
        bsdf.inputs["IOR"].default_value = 1.49
    if d["kind"] == "marbled":
        tc = nodes.new("ShaderNodeTexCoord")
        mp = nodes.new("ShaderNodeMapping")
        mp.inputs["Scale"].default_value = (1 / d["side"],) * 3
        mp.inputs["Location"].default_value = (d["texture_seed"],) * 3
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = d["marble_scale"]
        noise.inputs["Detail"].default_value = 6.0
        noise.inputs["Distortion"].default_value = 4.0
        ramp = _ramp(nodes, [d["body"], d["body"], d["body2"], d["body"]], positions=[0.0, 0.42, 0.5, 0.6])
        links.new(tc.outputs["Object"], mp.inputs["Vector"])
        links.new(mp.outputs["Vector"], noise.inputs["Vector"])
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    if d["pip_style"] == "engraved":   # unpainted pits: the body plastic, a little duller
        pit, _, _, pbsdf = _principled("die_pit")
        pbsdf.inputs["Base Color"].default_value = _rgba([c * 0.8 for c in d["body"]])
        pbsdf.inputs["Roughness"].default_value = min(1.0, d["roughness"] + 0.25)
        pbsdf.inputs["Transmission Weight"].default_value = d["transmission"]
        return body, pit
    pip, _, _, pbsdf = _principled("die_pip")
    pbsdf.inputs["Base Color"].default_value = _rgba(d["pip_colour"])
    pbsdf.inputs["Roughness"].default_value = d["pip_roughness"]
    pbsdf.inputs["Metallic"].default_value = d["pip_metallic"]
    return body, pip


def plastic(name: str, rgb, roughness: float):
    mat, _, _, bsdf = _principled(name)
    bsdf.inputs["Base Color"].default_value = _rgba(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    return mat


def table_material(t: dict):
    mat, nodes, links, bsdf = _principled("table")
    bsdf.inputs["Roughness"].default_value = t["roughness"]
    tc = nodes.new("ShaderNodeTexCoord")
    mp = nodes.new("ShaderNodeMapping")
    mp.inputs["Rotation"].default_value = (0.0, 0.0, t["rotation"])
    mp.inputs["Location"].default_value = (t["seed"], t["seed"] * 0.37, 0.0)
    links.new(tc.outputs["Object"], mp.inputs["Vector"])
    vec = mp.outputs["Vector"]
    kind = t["kind"]
    if kind == "wood":
        mp.inputs["Scale"].default_value = (t["scale"], t["scale"] / t["stretch"], t["scale"])
        wave = nodes.new("ShaderNodeTexWave")
        wave.wave_type = "BANDS"
        wave.bands_direction = "X"
        wave.inputs["Scale"].default_value = 1.0
        wave.inputs["Distortion"].default_value = t["distortion"]
        wave.inputs["Detail"].default_value = 3.0
        wave.inputs["Detail Scale"].default_value = 1.5
        noise = nodes.new("ShaderNodeTexNoise")
        noise.noise_dimensions = "2D"
        noise.inputs["Scale"].default_value = 3.0
        noise.inputs["Detail"].default_value = 4.0
        mix = nodes.new("ShaderNodeMath")
        mix.operation = "MULTIPLY_ADD"
        mix.inputs[1].default_value = 0.7
        links.new(vec, wave.inputs["Vector"])
        links.new(vec, noise.inputs["Vector"])
        links.new(wave.outputs["Fac"], mix.inputs[0])
        links.new(noise.outputs["Fac"], mix.inputs[2])
        ramp = _ramp(nodes, t["colours"], positions=[0.35, 1.0])
        links.new(mix.outputs[0], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    elif kind in ("cloth", "plain"):
        noise = nodes.new("ShaderNodeTexNoise")
        noise.noise_dimensions = "2D"
        noise.inputs["Scale"].default_value = t["scale"]
        noise.inputs["Detail"].default_value = 5.0 if kind == "cloth" else 2.0
        links.new(vec, noise.inputs["Vector"])
        ramp = _ramp(nodes, t["colours"], positions=[0.3, 0.7])
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        if kind == "cloth":
            bsdf.inputs["Sheen Weight"].default_value = t["sheen"]
            weave = nodes.new("ShaderNodeTexNoise")   # a cheap one: a bump reads it three times
            weave.noise_dimensions = "2D"
            weave.inputs["Scale"].default_value = t["scale"] * 2
            weave.inputs["Detail"].default_value = 0.0
            links.new(vec, weave.inputs["Vector"])
            bump = nodes.new("ShaderNodeBump")
            bump.inputs["Strength"].default_value = 0.2
            links.new(weave.outputs["Fac"], bump.inputs["Height"])
            links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    else:   # board art: coloured cells (swirled), pip-like dots, text-like strokes
        warp = nodes.new("ShaderNodeTexNoise")
        warp.noise_dimensions = "2D"
        warp.inputs["Scale"].default_value = t["scale"] * 0.5
        warp.inputs["Detail"].default_value = 2.0
        links.new(vec, warp.inputs["Vector"])
        sub = nodes.new("ShaderNodeVectorMath")
        sub.operation = "SCALE"
        links.new(warp.outputs["Color"], sub.inputs[0])
        sub.inputs["Scale"].default_value = t["swirl"] * 0.6 / t["scale"]
        add = nodes.new("ShaderNodeVectorMath")
        add.operation = "ADD"
        links.new(vec, add.inputs[0])
        links.new(sub.outputs["Vector"], add.inputs[1])
        cells = nodes.new("ShaderNodeTexVoronoi")
        cells.voronoi_dimensions = "2D"
        cells.inputs["Scale"].default_value = t["scale"]
        links.new(add.outputs["Vector"], cells.inputs["Vector"])
        sep = nodes.new("ShaderNodeSeparateColor")
        links.new(cells.outputs["Color"], sep.inputs["Color"])
        n = len(t["colours"])
        ramp = _ramp(nodes, t["colours"], "CONSTANT", positions=[i / n for i in range(n)])
        links.new(sep.outputs[0], ramp.inputs["Fac"])
        colour = ramp.outputs["Color"]
        if t["dots"]:
            dots = nodes.new("ShaderNodeTexVoronoi")
            dots.voronoi_dimensions = "2D"
            dots.inputs["Scale"].default_value = t["dot_scale"]
            dots.inputs["Randomness"].default_value = 0.3
            links.new(vec, dots.inputs["Vector"])
            lt = nodes.new("ShaderNodeMath")
            lt.operation = "LESS_THAN"
            lt.inputs[1].default_value = t["dot_size"]
            links.new(dots.outputs["Distance"], lt.inputs[0])
            mix = nodes.new("ShaderNodeMix")
            mix.data_type = "RGBA"
            mix.inputs["B"].default_value = _rgba(t["dot_colour"])
            links.new(lt.outputs[0], mix.inputs["Factor"])
            links.new(colour, mix.inputs["A"])
            colour = mix.outputs["Result"]
        if t["text"]:
            # lines of "words": small bricks switched on at random, each filled with blotchy
            # glyph-like strokes, only inside some regions of the board
            words = nodes.new("ShaderNodeTexBrick")
            words.inputs["Scale"].default_value = t["text_scale"]
            words.inputs["Color1"].default_value = (0, 0, 0, 1)
            words.inputs["Color2"].default_value = (1, 1, 1, 1)
            words.inputs["Mortar"].default_value = (0, 0, 0, 1)
            words.inputs["Mortar Size"].default_value = 0.06
            words.inputs["Brick Width"].default_value = 0.9
            words.inputs["Row Height"].default_value = 0.3
            links.new(vec, words.inputs["Vector"])
            glyph = nodes.new("ShaderNodeTexNoise")
            glyph.noise_dimensions = "2D"
            glyph.inputs["Scale"].default_value = t["text_scale"] * 6
            glyph.inputs["Detail"].default_value = 0.0
            links.new(vec, glyph.inputs["Vector"])
            region = nodes.new("ShaderNodeTexNoise")
            region.noise_dimensions = "2D"
            region.inputs["Scale"].default_value = t["text_scale"] / 40
            region.inputs["Detail"].default_value = 0.0
            links.new(vec, region.inputs["Vector"])
            factors = []
            for sock, thr in ((words.outputs["Color"], 0.5), (glyph.outputs["Fac"], 0.52),
                              (region.outputs["Fac"], 0.55)):
                gt = nodes.new("ShaderNodeMath")
                gt.operation = "GREATER_THAN"
                gt.inputs[1].default_value = thr
                links.new(sock, gt.inputs[0])
                factors.append(gt.outputs[0])
            both = nodes.new("ShaderNodeMath")
            both.operation = "MULTIPLY"
            links.new(factors[0], both.inputs[0])
            links.new(factors[1], both.inputs[1])
            three = nodes.new("ShaderNodeMath")
            three.operation = "MULTIPLY"
            links.new(both.outputs[0], three.inputs[0])
            links.new(factors[2], three.inputs[1])
            both = three
            mix = nodes.new("ShaderNodeMix")
            mix.data_type = "RGBA"
            mix.inputs["B"].default_value = _rgba(t["text_colour"])
            links.new(both.outputs[0], mix.inputs["Factor"])
            links.new(colour, mix.inputs["A"])
            colour = mix.outputs["Result"]
        links.new(colour, bsdf.inputs["Base Color"])
    return mat


# ----------------------------------------------------------------------------- objects

def make_die(d: dict):
    """A bevelled cube with pips cut in (modifiers applied), resting on the table."""
    side = d["side"]
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=side)
    mesh = bpy.data.meshes.new("die")
    bm.to_mesh(mesh)
    bm.free()
    body, pip = die_materials(d)
    mesh.materials.append(body)
    obj = _link(bpy.data.objects.new("die", mesh))
    bev = obj.modifiers.new("bevel", "BEVEL")
    bev.width = d["bevel"] * side
    bev.segments = d["bevel_segments"]
    bev.limit_method = "NONE"
    _apply_modifiers(obj)
    plain = len(obj.data.vertices)
    verts, faces = g.die_pip_cutters(d, segments=PIP_SEGMENTS)
    cmesh = bpy.data.meshes.new("pips")
    cmesh.from_pydata(verts.tolist(), [], faces)
    cmesh.materials.append(pip)
    cutter = _link(bpy.data.objects.new("pips", cmesh))
    cutter.hide_render = True
    for solver in (BOOLEAN_SOLVER, "EXACT"):
        boo = obj.modifiers.new("pips", "BOOLEAN")
        boo.operation = "DIFFERENCE"
        boo.solver = solver
        boo.object = cutter
        boo.material_mode = "TRANSFER"
        dg = bpy.context.evaluated_depsgraph_get()
        if len(obj.evaluated_get(dg).data.vertices) >= plain + 21 * PIP_SEGMENTS:
            break
        obj.modifiers.clear()   # the fast solver refused (non-manifold input): use the exact one
    _apply_modifiers(obj)
    bpy.data.objects.remove(cutter)
    bpy.data.meshes.remove(cmesh)
    _smooth(obj.data)
    _place_on_table(obj, d["rotation"], d["x"], d["y"])
    return obj


def make_distractor(x: dict):
    bm = bmesh.new()
    if x["shape"] == "cube":
        bmesh.ops.create_cube(bm, size=x["size"])
    else:
        bmesh.ops.create_cone(bm, cap_ends=True, segments=40, radius1=x["size"] / 2,
                              radius2=x["size"] / 2, depth=x["height"])
    mesh = bpy.data.meshes.new("distractor")
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(plastic("distractor", x["colour"], x["roughness"]))
    obj = _link(bpy.data.objects.new("distractor", mesh))
    bev = obj.modifiers.new("bevel", "BEVEL")
    bev.width = x["bevel"] * min(x["size"], x["height"]) * 0.5
    bev.segments = 3
    bev.limit_method = "ANGLE"
    _apply_modifiers(obj)
    _smooth(obj.data)
    _place_on_table(obj, g.rot_z(x["yaw"]), x["x"], x["y"])
    return obj


def make_table(t: dict, centre) -> None:
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=15.0)
    mesh = bpy.data.meshes.new("table")
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(table_material(t))
    obj = _link(bpy.data.objects.new("table", mesh))
    obj.location = (float(centre[0]), float(centre[1]), 0.0)


def make_lights(lights: list[dict], target) -> None:
    tgt = Vector([float(v) for v in target])
    for i, li in enumerate(lights):
        data = bpy.data.lights.new(f"light{i}", li["type"])
        data.energy = li["energy"]
        data.color = tuple(li["color"])
        if li["type"] == "AREA":
            data.shape = "DISK"
            data.size = li["size"]
        elif li["type"] == "POINT":
            data.shadow_soft_size = li["size"]
        else:
            data.angle = li["size"]
        obj = _link(bpy.data.objects.new(f"light{i}", data))
        obj.location = Vector(li["pos"])
        obj.rotation_mode = "QUATERNION"
        obj.rotation_quaternion = (tgt - obj.location).to_track_quat("-Z", "Y")


def make_world(w: dict) -> None:
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = _rgba(w["color"])
    bg.inputs["Strength"].default_value = w["strength"]
    bpy.context.scene.world = world


def make_camera(c: dict, width: int):
    data = bpy.data.cameras.new("camera")
    data.type = "PERSP"
    data.lens_unit = "FOV"
    data.sensor_fit = "HORIZONTAL"
    data.angle = math.radians(c["fov"])
    data.clip_start = 0.002
    data.clip_end = 100.0
    obj = _link(bpy.data.objects.new("camera", data))
    obj.matrix_world = Matrix(c["matrix"])
    bpy.context.scene.camera = obj
    return obj


# ----------------------------------------------------------------------------- render

def configure(s: dict, samples: int, threads: int) -> None:
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cy = scene.cycles
    cy.device = "CPU"
    cy.samples = samples
    cy.use_adaptive_sampling = True      # flat table areas stop early
    cy.adaptive_threshold = 0.04
    cy.adaptive_min_samples = min(8, samples)
    cy.seed = (s["seed"] * 7919 + s["index"]) % (2 ** 31)
    cy.use_denoising = denoiser_available()
    if cy.use_denoising:
        cy.denoiser = "OPENIMAGEDENOISE"
        cy.denoising_input_passes = "RGB_ALBEDO_NORMAL"
        cy.denoising_prefilter = "FAST"
        cy.denoising_quality = "BALANCED"
    cy.max_bounces = 6
    cy.diffuse_bounces = 1
    cy.glossy_bounces = 2
    cy.transmission_bounces = 6
    cy.transparent_max_bounces = 2
    cy.volume_bounces = 0
    cy.caustics_reflective = False
    cy.caustics_refractive = False
    cy.blur_glossy = 1.0
    cy.use_auto_tile = False
    r = scene.render
    r.threads_mode = "FIXED"
    r.threads = threads
    r.resolution_x, r.resolution_y = s["width"], s["height"]
    r.resolution_percentage = 100
    r.pixel_aspect_x = r.pixel_aspect_y = 1.0
    r.use_file_extension = True
    r.image_settings.file_format = "JPEG"
    r.image_settings.color_mode = "RGB"
    r.image_settings.quality = s["jpeg_quality"]
    vs = scene.view_settings
    vs.view_transform = s["view_transform"]
    vs.look = "None"
    vs.exposure = s["exposure"]
    vs.gamma = 1.0


def build(s: dict, samples: int = 8, threads: int = 1):
    """Build the scene in a fresh, empty Blender file; returns (camera, [(die, die object)])."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    configure(s, samples, threads)
    dice = [(d, make_die(d)) for d in s["dice"]]
    for x in s["distractors"]:
        make_distractor(x)
    make_table(s["table"], s["camera"]["target"])
    make_lights(s["lights"], s["camera"]["target"])
    make_world(s["world"])
    cam = make_camera(s["camera"], s["width"])
    bpy.context.view_layer.update()
    return cam, dice


def die_world_vertices(obj) -> tuple[np.ndarray, np.ndarray]:
    """(world vertices, local vertices) of a die object."""
    local = _vertices(obj)
    m = np.array(obj.matrix_world)
    return local @ m[:3, :3].T + m[:3, 3], local


def truth(s: dict, dice) -> list[dict]:
    cam = np.array(s["camera"]["matrix"], float)
    out = []
    for d, obj in dice:
        world, local = die_world_vertices(obj)
        n = g.face_frame(d["value"])[0]
        top = local @ n >= d["side"] / 2 - TOP_BAND * d["bevel"] * d["side"]
        t = g.die_truth(d["colour"], d["value"], world, top, cam, s["width"], s["height"], s["camera"]["fov"])
        if t is not None:
            out.append(t)
    return out


def projection_error(cam_obj, dice) -> float:
    """Largest pixel difference between geometry.project and bpy_extras' world_to_camera_view."""
    from bpy_extras.object_utils import world_to_camera_view

    scene = bpy.context.scene
    w, h = scene.render.resolution_x, scene.render.resolution_y
    cam = np.array(cam_obj.matrix_world)
    fov = math.degrees(cam_obj.data.angle)
    worst = 0.0
    for _, obj in dice:
        world, _ = die_world_vertices(obj)
        mine, _ = g.project(world, cam, w, h, fov)
        for p, q in zip(world[::7], mine[::7]):
            ndc = world_to_camera_view(scene, cam_obj, Vector(p.tolist()))
            ref = (ndc.x * w, (1 - ndc.y) * h)
            worst = max(worst, abs(ref[0] - q[0]), abs(ref[1] - q[1]))
    return worst


def render_scene(s: dict, jpg: Path, samples: int = 8, threads: int = 1, verify: bool = False
                 ) -> tuple[list[dict], dict]:
    """Render scene ``s`` to ``jpg``; returns (dice truth, timings and checks)."""
    t0 = time.perf_counter()
    cam, dice = build(s, samples, threads)
    info = {"build_s": round(time.perf_counter() - t0, 2)}
    if verify:
        info["projection_error_px"] = projection_error(cam, dice)
    truths = truth(s, dice)
    bpy.context.scene.render.filepath = str(jpg)
    t1 = time.perf_counter()
    bpy.ops.render.render(write_still=True)
    info["render_s"] = round(time.perf_counter() - t1, 2)
    return truths, info
