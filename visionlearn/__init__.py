"""The table's learner (issue 38): fine-tunes the shipped dice classifier on the dice a table has
confirmed (its profile, ``vision/profile.py``) and writes the adapted ONNX classifier with its own
sure threshold back into the profile. ``python -m visionlearn --profile DIR`` (what ``python -m
vision learn`` runs as a child process). Needs the optional ``learn`` extra (torch on the CPU,
onnx); without it the CLI exits 3 and says so.

It may import the runtime (``vision``) and the lab (``visionlab.train`` for the networks and the
ONNX weights, ``visionlab.render.synth`` for the replay of the shipped training distribution); the
runtime never imports it. ``threshold`` (the held-back threshold rule) imports neither torch nor
the lab. docs/vision.md, "The table profile".
"""
