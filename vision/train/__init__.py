"""Training recipe for the dice models (needs the optional ``train`` extra: torch, onnx,
onnxscript). Never imported by the app or the tests. See models/README.md for the recipe."""
