"""Live mode: watch a webcam or a video file, read the dice only when the scene is still.

The app can scan without a button press: dice rolling, a hand in the frame, the phone moving ->
nothing is read; the scene stays still for ``LiveConfig.still_seconds`` -> it is read once and
one JSON line is printed.  The same still scene is not read again (a camera left running on a
quiet table prints one line); the next line comes when the scene has changed and settled again.

Stillness: each frame is turned grey, downscaled to ``diff_width`` and blurred; a frame pair is
"still" when the fraction of pixels whose grey level changed by more than ``pixel_threshold``
is at most ``still_fraction``.  A scene is "new" when it differs from the last read scene by
more than ``new_scene_fraction`` (same pixel test).  All thresholds: ``vision.config.LiveConfig``.

Time: a video file uses its own clock (frame index / its frame rate), so the output is the same
on every machine and every run; a camera uses the wall clock.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TextIO

import cv2
import numpy as np

from vision.config import DEFAULT_LIVE, LiveConfig

__all__ = ["LiveSourceError", "StillnessDetector", "StableScene", "frames_from_capture", "open_source", "run_live"]


class LiveSourceError(RuntimeError):
    """The camera or video file cannot be opened or read."""


def _small_grey(frame: np.ndarray, config: LiveConfig) -> np.ndarray:
    if frame.ndim == 3:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.shape[2] == 3 else cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    else:
        grey = frame
    h, w = grey.shape[:2]
    width = max(8, min(config.diff_width, w))
    height = max(8, int(round(h * width / max(w, 1))))
    small = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
    k = config.blur_kernel if config.blur_kernel % 2 == 1 else config.blur_kernel + 1
    if k > 1:
        small = cv2.GaussianBlur(small, (k, k), 0)
    return small


def changed_fraction(a: np.ndarray, b: np.ndarray, pixel_threshold: int) -> float:
    """Fraction of pixels whose grey level differs by more than ``pixel_threshold``."""
    if a.shape != b.shape:
        return 1.0
    return float(np.count_nonzero(cv2.absdiff(a, b) > pixel_threshold)) / a.size


class StillnessDetector:
    """Feed frames with their time; ``update`` is True once per new stable scene."""

    def __init__(self, config: LiveConfig = DEFAULT_LIVE) -> None:
        self.config = config
        self._prev: np.ndarray | None = None
        self._still_since: float | None = None
        self._still_pairs = 0
        self._handled = False  # this still period was already considered
        self._last_read: np.ndarray | None = None
        self.last_motion = 0.0  # changed fraction of the latest frame pair (for diagnostics)

    def update(self, frame: np.ndarray, t: float) -> bool:
        small = _small_grey(frame, self.config)
        prev, self._prev = self._prev, small
        if prev is None:
            return False
        self.last_motion = changed_fraction(prev, small, self.config.pixel_threshold)
        if self.last_motion > self.config.still_fraction:
            self._still_since = None
            self._still_pairs = 0
            self._handled = False
            return False
        if self._still_since is None:
            self._still_since = t
        self._still_pairs += 1
        if self._handled:
            return False
        if self._still_pairs < self.config.min_still_frames or t - self._still_since < self.config.still_seconds:
            return False
        self._handled = True
        if self._last_read is not None and changed_fraction(
            self._last_read, small, self.config.pixel_threshold
        ) <= self.config.new_scene_fraction:
            return False  # the table settled back to the scene already read
        self._last_read = small
        return True


@dataclass(frozen=True)
class StableScene:
    frame_index: int
    time_s: float
    frame: np.ndarray


def open_source(camera: int | None = None, video: str | None = None) -> tuple[cv2.VideoCapture, bool]:
    """Open a camera index or a video file; returns (capture, is_file)."""
    if (camera is None) == (video is None):
        raise ValueError("give exactly one of camera or video")
    if video is not None:
        from pathlib import Path

        p = Path(video)
        if not p.is_file():
            raise LiveSourceError(f"{video}: video file not found")
        cap = cv2.VideoCapture(str(p))
        if not cap.isOpened():
            raise LiveSourceError(f"{video}: cannot open the video (not a video file, or no codec for it)")
        return cap, True
    cap = cv2.VideoCapture(int(camera))  # type: ignore[arg-type]
    if not cap.isOpened():
        raise LiveSourceError(f"camera {camera}: cannot open it (is it connected and not used by another app?)")
    return cap, False


def frames_from_capture(
    cap: cv2.VideoCapture, is_file: bool, config: LiveConfig = DEFAULT_LIVE, clock: Callable[[], float] = time.monotonic
) -> Iterator[tuple[int, float, np.ndarray]]:
    """(index, time_s, frame) until the stream ends; a file uses its own frame clock."""
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    if not fps or not np.isfinite(fps) or fps <= 0:
        fps = config.default_fps
    start = clock()
    index = 0
    failed = 0
    while True:
        ok, frame = cap.read()
        if not ok or frame is None:
            if is_file:
                return
            failed += 1
            if failed > config.camera_max_failed_reads:
                raise LiveSourceError(f"the camera stopped sending frames ({failed} failed grabs in a row)")
            continue
        failed = 0
        t = index / fps if is_file else clock() - start
        yield index, t, frame
        index += 1


def stable_scenes(
    frames: Iterator[tuple[int, float, np.ndarray]], config: LiveConfig = DEFAULT_LIVE
) -> Iterator[StableScene]:
    detector = StillnessDetector(config)
    for index, t, frame in frames:
        if detector.update(frame, t):
            yield StableScene(index, t, frame)


def run_live(
    reader: Any,
    frames: Iterator[tuple[int, float, np.ndarray]],
    source: str,
    out: TextIO = sys.stdout,
    config: LiveConfig = DEFAULT_LIVE,
    max_scenes: int | None = None,
) -> int:
    """Read each new stable scene with ``reader`` and print one JSON line per scene:
    ``{"source", "frame", "time_s", "dice": [...], "ms"}`` (dice as in ``read --json``).
    Returns the number of scenes printed."""
    count = 0
    for scene in stable_scenes(frames, config):
        result = reader.read(scene.frame)
        line: dict[str, Any] = {"source": source, "frame": scene.frame_index, "time_s": round(scene.time_s, 3)}
        payload = result.to_json(source)
        payload.pop("image", None)
        line.update(payload)
        out.write(json.dumps(line) + "\n")
        out.flush()
        count += 1
        if max_scenes is not None and count >= max_scenes:
            break
    return count
