"""The trainer of the dice models: ``python -m visionlab.train ...`` (needs the optional ``train``
extra: torch, onnx, onnxscript, imported only by the modules that train). Part of the lab: it
imports the runtime (``vision.model``) and the synthetic renderer (``visionlab.render.synth``);
the runtime and the app never import it. See models/README.md for the recipe."""
