"""A second, independent dice-scene renderer: physically based, Blender (``bpy``) Cycles.

It exists to measure how the dice reader generalises to images from a renderer it never trained
on.  It shares no drawing code with :mod:`visionlab.render.synth`: its own die meshes (bevelled cubes with
pips cut in by booleans), materials, lights and camera, all drawn by :func:`geometry.sample_scene`
from ``numpy.random.default_rng([seed, index])``.

``bpy`` is a benchmark extra with its own virtual environment (it pins numpy 1.26): only
:mod:`visionlab.render.blender.scene` imports it, and only the CLI (``python -m visionlab.render.blender render ...``) imports
that module.  :mod:`visionlab.render.blender.geometry` is numpy only.  See docs/vision-pbr.md.
"""
