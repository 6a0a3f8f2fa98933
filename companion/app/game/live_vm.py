"""Desktop live webcam preview for the dice step (plain Python, no Flet).

``LivePreview`` pulls frames from ``vision.live`` (a camera, or any ``(index, time_s, frame)``
iterator: the tests use generated frames), watches for stillness with the same
``StillnessDetector`` as ``python -m vision live``, reads the dice ONCE per new still scene with
the dice reader, and gives each frame back as a JPEG with the last read's boxes drawn on the
dice (in the die's colour, its value beside it; unsure reads in amber). While the picture moves
(dice rolling, a hand in the frame) the boxes are hidden and the read is dropped, so a read is
only offered for the scene it was made on. ``read`` (the latest ``ReadResult``) goes into the
dice chips through ``DiceEntry.load_read``, with the same checks as a photo.

Only the desktop window offers it (a browser's page cannot reach the server's camera); the
screen runs ``step()`` in a thread and stops it when the dice step ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np

from vision.live import changed_fraction

BOX_BGR = {"red": (40, 40, 200), "yellow": (37, 168, 249), "purple": (154, 27, 106), "blue": (192, 101, 21),
           "green": (50, 125, 46), "unknown": (117, 117, 117)}
UNSURE_BGR = (0, 191, 255)  # amber, as the unsure chips


class LivePreview:
    def __init__(self, reader, frames: Iterator[tuple[int, float, np.ndarray]], config=None,
                 max_width: int = 640, jpeg_quality: int = 80):
        from vision.config import DEFAULT_LIVE
        from vision.live import StillnessDetector

        self.reader = reader
        self.frames = frames
        self.config = config or DEFAULT_LIVE
        self.detector = StillnessDetector(self.config)
        self.max_width = max_width
        self.jpeg_quality = jpeg_quality
        self.read: Any = None  # the ReadResult of the scene on screen, or None
        self.last_read: Any = None  # the latest read, kept while something passes in front
        self.last_scene: np.ndarray | None = None
        self.reads = 0  # how many still scenes were read
        self.jpeg: bytes | None = None  # the latest frame, annotated
        self.ended = False

    def step(self) -> bool:
        """Take one frame: detect stillness, read a new still scene, draw. False at the end."""
        if self.ended:
            return False
        try:
            _, t, frame = next(self.frames)
        except StopIteration:
            self.ended = True
            return False
        if self.detector.update(frame, t):
            self.read = self.last_read = self.reader.read(frame)
            self.last_scene = self.small(frame)
            self.reads += 1
        elif self.detector.last_motion > self.config.still_fraction:
            self.read = None  # the scene moved: the old boxes no longer sit on the dice
        elif self.read is None and self.last_read is not None and changed_fraction(
                self.small(frame), self.last_scene, self.config.pixel_threshold) <= self.config.new_scene_fraction:
            self.read = self.last_read  # still again on the scene already read (a hand passed)
        self.jpeg = self.encode(self.annotate(frame))
        return True

    def small(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the stillness test compares it (grey, narrow, blurred)."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        h, w = grey.shape[:2]
        width = max(8, min(self.config.diff_width, w))
        small = cv2.resize(grey, (width, max(8, round(h * width / max(w, 1)))), interpolation=cv2.INTER_AREA)
        k = self.config.blur_kernel | 1
        return cv2.GaussianBlur(small, (k, k), 0) if k > 1 else small

    def annotate(self, frame: np.ndarray) -> np.ndarray:
        out = frame.copy()
        dice = getattr(self.read, "dice", ()) if self.read is not None else ()
        thick = max(2, round(out.shape[1] / 320))
        for d in dice:
            x, y, w, h = (round(float(v)) for v in d.box)
            colour = UNSURE_BGR if d.unsure else BOX_BGR.get(d.colour, BOX_BGR["unknown"])
            cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
            cv2.putText(out, str(d.value), (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX,
                        max(0.5, h / 60), colour, thick, cv2.LINE_AA)
        return out

    def encode(self, frame: np.ndarray) -> bytes:
        h, w = frame.shape[:2]
        if w > self.max_width:
            frame = cv2.resize(frame, (self.max_width, max(1, round(h * self.max_width / w))),
                               interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            raise ValueError("the frame could not be encoded as JPEG")
        return buf.tobytes()

    def usable_read(self):
        """The read to load into the chips (it found dice and the scene has not moved), or None."""
        r = self.read
        if r is None or getattr(r, "error", None) or not getattr(r, "dice", ()):
            return None
        return r


def open_camera(camera: int = 0, clock: Callable[[], float] | None = None):
    """``(frames, release)`` for a webcam; ``vision.live.LiveSourceError`` says why not."""
    import time

    from vision.config import DEFAULT_LIVE
    from vision.live import frames_from_capture, open_source

    cap, is_file = open_source(camera=camera)
    return frames_from_capture(cap, is_file, DEFAULT_LIVE, clock or time.monotonic), cap.release


class LiveRun:
    """The camera loop of one dice step in the desktop window: ``loop`` runs in a thread, puts
    each annotated frame into the screen's current ``image`` and stops (releasing the camera)
    when asked, when the dice step is over, when the game screen is left, or when the camera
    fails (``problem`` then says why)."""

    def __init__(self, vm, step, ctl, preview=None, release=None, problem=None):
        self.vm, self.step, self.ctl = vm, step, ctl
        self.preview = preview
        self.release = release or (lambda: None)
        self.problem = problem
        self.running = preview is not None
        self.image = None  # the ft.Image on screen (replaced at each redraw)
        self.use_button = None

    @classmethod
    def start(cls, vm, step, ctl, text, camera: int = 0, opener=None) -> LiveRun:
        reader, why = vm.dice_reader()
        if reader is None:
            return cls(vm, step, ctl, problem=why)
        try:
            frames, release = (opener or open_camera)(camera)
        except Exception as exc:  # noqa: BLE001 - LiveSourceError, a missing OpenCV backend ...
            return cls(vm, step, ctl, problem=text("g.live.error", why=str(exc)))
        return cls(vm, step, ctl, LivePreview(reader, frames), release)

    def current(self) -> bool:
        return self.running and self.vm.step is self.step and self.ctl.nav.current == "/game"

    def stop(self) -> None:
        self.running = False

    def loop(self) -> None:
        try:
            while self.current() and self.preview.step():
                image, use = self.image, self.use_button
                if image is None or self.preview.jpeg is None:
                    continue
                image.src = self.preview.jpeg
                if use is not None:
                    use.disabled = self.preview.usable_read() is None
                try:
                    image.update()
                    if use is not None:
                        use.update()
                except Exception:  # noqa: BLE001, S110 - the control left the page during a redraw
                    pass
        except Exception as exc:  # noqa: BLE001 - the camera stopped: say so at the next redraw
            self.problem = str(exc)
        finally:
            self.running = False
            self.release()
