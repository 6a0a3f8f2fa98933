"""The dice-scene renderers of the lab, each drawing seeded scenes with their ground truth:

- ``synth``: numpy + OpenCV, the training renderer (``python -m visionlab.render.synth``);
- ``blender``: Blender Cycles through ``bpy`` (``python -m visionlab.render.blender render``);
- ``mitsuba``: Mitsuba 3 (``python -m visionlab.render.mitsuba render``);
- ``luxcore``: LuxCore through ``pyluxcore`` (``python -m visionlab.render.luxcore render``);

``realcolour``: not a renderer, real photos of white dice with the dice painted in the game's
colours (``python -m visionlab.render.realcolour render``, stop 69); and ``domaindir``, the
domain-directory format (``domain.json`` + ``NNNNN.json``/``.jpg``) the path tracers and
``realcolour`` write and the benchmark and the trainer read.  The renderers share no drawing code
(tests check their imports); each one's ``geometry`` is numpy only and only its CLI imports the
module that needs its renderer (bpy, mitsuba, pyluxcore).  Nothing outside the lab imports them.
"""
