"""The shipped ONNX models (see models/README.md, the model card)."""
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent
DETECTOR_PATH = MODEL_DIR / "dice_detector.onnx"
CLASSIFIER_PATH = MODEL_DIR / "dice_classifier.onnx"

__all__ = ["MODEL_DIR", "DETECTOR_PATH", "CLASSIFIER_PATH"]
