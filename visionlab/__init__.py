"""The dice reader's lab, beside the runtime (``vision``): what makes and measures the shipped
model, none of which the app ships.

- ``visionlab.render``: the four scene renderers (``synth``, ``blender``, ``mitsuba``,
  ``luxcore``) and ``domaindir``, the domain-directory format they write;
- ``visionlab.train``: the trainer (``python -m visionlab.train``; torch, the ``train`` extra);
- ``visionlab.bench``: the benchmark (``python -m visionlab.bench``, also reached as
  ``python -m vision bench``) and ``choose.py``, the count of a choice between candidates;
- ``visionlab/recipes/``: shell recipes of past model rounds (``gpu-next.sh``, ``lux-sets.sh``);
  the recipe that reproduces the shipped files stays in ``models/recipes/v21-gpu.sh``.

The lab may import the runtime (``vision``); nothing in ``vision``, ``companion``, ``automa``
or ``models`` (nor their tests) imports the lab.  Its heavy dependencies (torch, bpy, mitsuba,
pyluxcore) are optional extras, imported only by the modules that need them.
"""
