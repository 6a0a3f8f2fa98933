"""A third, independent dice-scene renderer: Mitsuba 3 (its own path tracer, ``mitsuba`` on PyPI).

It exists to measure the shipped reader on images from a renderer it never trained on: the
shipped model trains on :mod:`visionlab.render.synth` (numpy/OpenCV) and on :mod:`visionlab.render.blender` (Blender
Cycles), so neither can say how it reads dice it has never seen.  This package shares no code
with either: its own die meshes (a cube rounded by clamping, pips as dimples and painted texture
discs), textures, materials, lights, camera and placement, all drawn by
:func:`geometry.sample_scene` from ``numpy.random.default_rng([seed, index, 3])``.

``mitsuba`` is a benchmark extra with its own virtual environment: only :mod:`visionlab.render.mitsuba.render`
imports it, and only the CLI (``python -m visionlab.render.mitsuba render ...``) imports that module.
:mod:`visionlab.render.mitsuba.geometry` is numpy only.  See docs/vision-mts.md.
"""
