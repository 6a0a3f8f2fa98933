"""Dice reading by camera: robust image loading, an ONNX model behind a small runtime
interface (onnxruntime or OpenCV cv2.dnn), per-die colour/value with a confidence and an
``unsure`` flag, colour calibration, live mode, a CLI (``python -m vision``) and a benchmark.

Imports no game code.  See docs/vision.md (pipeline) and docs/vision-model.md (model).
"""

from vision.io import ImageLoadError, LoadedImage, load_image
from vision.reader import DiceReader, Die, ReadResult

__all__ = ["DiceReader", "Die", "ImageLoadError", "LoadedImage", "ReadResult", "load_image"]
