"""The dice reader's runtime: robust image loading, an ONNX model behind a small runtime
interface (onnxruntime or OpenCV cv2.dnn), per-die colour/value with a confidence and an
``unsure`` flag, colour calibration, live mode and a CLI (``python -m vision``).

What lives here is what the app ships: ``io``, ``model``, ``runtime``, ``reader``, ``pips``,
``calibration``, ``config``, ``live``, ``cli``, the table profile (``profile``, ``labels``,
``profile_cli``: the confirmed dice and the adapted model) and ``__main__`` (``read``, ``live``,
``calibrate``, ``learn``, ``profile``; ``bench`` hands off to ``python -m visionlab.bench`` by
``os.execv``; ``learn`` runs the learner ``python -m visionlearn`` as a child process).

What must not: the lab (``visionlab``: renderers, trainer, benchmark) and the learner
(``visionlearn``, torch).  The runtime never
imports ``visionlab`` (the lab imports the runtime, never the other way), nor torch, bpy,
mitsuba or pyluxcore; it imports no game code either.  See docs/vision.md (pipeline) and
docs/vision-model.md (model).
"""

from vision.io import ImageLoadError, LoadedImage, load_image
from vision.reader import DiceReader, Die, ReadResult

__all__ = ["DiceReader", "Die", "ImageLoadError", "LoadedImage", "ReadResult", "load_image"]
