"""Live mode on generated video files: reads only when the scene is still, once per new scene."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.__main__ import main
from vision.config import LiveConfig
from vision.live import LiveSourceError, StillnessDetector, frames_from_capture, open_source, run_live
from vision.reader import DiceReader
from vision_testutil import FakeDiceModel, make_scene

FPS = 10.0


def write_video(path: Path, segments: list[tuple[str, object, int]], size=(320, 240)) -> Path:
    """segments: ("still", image, n_frames) or ("moving", seed, n_frames)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, size)
    assert writer.isOpened(), "cv2 cannot write MJPG .avi here"
    for kind, what, n in segments:
        for i in range(n):
            if kind == "still":
                frame = what
            else:  # dice rolling: a die drawn at a new random place each frame
                rng = np.random.default_rng([int(what), i])
                frame = np.full((size[1], size[0], 3), 128, np.uint8)
                x, y = int(rng.integers(0, size[0] - 50)), int(rng.integers(0, size[1] - 50))
                cv2.rectangle(frame, (x, y), (x + 45, y + 45), (40, 40, 200), -1)
            writer.write(frame)
    writer.release()
    return path


def scene(dice, seed=0):
    img, _ = make_scene(dice, size=(320, 240), die=40, seed=seed)
    return img


def test_stillness_detector_on_synthetic_frames() -> None:
    cfg = LiveConfig(still_seconds=0.5, min_still_frames=3)
    det = StillnessDetector(cfg)
    a = scene([("red", 1), ("blue", 2)])
    b = scene([("green", 6)], seed=1)
    fired = []
    t = 0.0
    frames = [a] * 3 + [b, a, b, a] + [b] * 10 + [b] * 10
    for i, f in enumerate(frames):
        if det.update(f, t):
            fired.append(i)
        t += 0.1
    # a: still pairs at t=0.1,0.2 only (not yet 0.5 s) -> nothing; flicker -> nothing;
    # b: still from frame 8 (t=0.8) -> stable at t>=1.3 with >=3 pairs -> frame 13; then silent
    assert fired == [13]


def test_same_scene_after_a_hand_passes_is_not_read_again() -> None:
    cfg = LiveConfig(still_seconds=0.3, min_still_frames=2)
    det = StillnessDetector(cfg)
    a = scene([("red", 1), ("blue", 2)])
    hand = a.copy()
    cv2.rectangle(hand, (100, 50), (250, 200), (150, 170, 200), -1)
    c = scene([("yellow", 5)], seed=3)
    frames = [a] * 8 + [hand] * 2 + [a] * 8 + [c] * 8
    fired = [i for i, f in enumerate(frames) if det.update(f, i / FPS)]
    assert fired == [4, 22]


def test_live_on_a_generated_video_file(tmp_path: Path) -> None:
    first = scene([("red", 1), ("blue", 4), ("green", 6)])
    second = scene([("yellow", 2), ("purple", 5)], seed=2)
    video = write_video(tmp_path / "table.avi", [
        ("moving", 1, 8), ("still", first, 12), ("moving", 2, 8), ("still", second, 12), ("still", second, 10),
    ])
    cap, is_file = open_source(video=str(video))
    try:
        out = io.StringIO()
        n = run_live(DiceReader(FakeDiceModel()), frames_from_capture(cap, is_file), str(video), out=out,
                     config=LiveConfig(still_seconds=0.5))
    finally:
        cap.release()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert n == 2 and len(lines) == 2
    assert [(d["colour"], d["value"]) for d in lines[0]["dice"]] == [("red", 1), ("blue", 4), ("green", 6)]
    assert [(d["colour"], d["value"]) for d in lines[1]["dice"]] == [("yellow", 2), ("purple", 5)]
    assert 8 < lines[0]["frame"] < 20 and 28 < lines[1]["frame"] < 40
    assert lines[0]["time_s"] == pytest.approx(lines[0]["frame"] / FPS)
    assert set(lines[0]) == {"source", "frame", "time_s", "dice", "ms"}


def test_live_cli_with_video(tmp_path: Path) -> None:
    still = scene([("green", 3)])
    video = write_video(tmp_path / "v.avi", [("moving", 5, 6), ("still", still, 15)])
    out, err = io.StringIO(), io.StringIO()
    code = main(["live", "--video", str(video)], reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    (line,) = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [(d["colour"], d["value"]) for d in line["dice"]] == [("green", 3)]


def test_live_sources_that_cannot_be_opened(tmp_path: Path) -> None:
    with pytest.raises(LiveSourceError, match="video file not found"):
        open_source(video=str(tmp_path / "nope.avi"))
    bad = tmp_path / "bad.avi"
    bad.write_text("not a video")
    with pytest.raises(LiveSourceError, match="cannot open the video"):
        open_source(video=str(bad))
    out, err = io.StringIO(), io.StringIO()
    code = main(["live", "--video", str(bad)], reader_factory=lambda a, c: None, out=out, err=err)
    assert code == 2 and "cannot open the video" in err.getvalue()


class FlakyCamera:
    """A camera that fails its first grabs (warming up), then sends frames, then dies."""

    def __init__(self, frames, fail_first=5, then_fail=100):
        self.frames = list(frames)
        self.fail_first = fail_first
        self.then_fail = then_fail
        self.calls = 0

    def get(self, prop):
        return 0.0  # no fps reported

    def read(self):
        self.calls += 1
        if self.calls <= self.fail_first:
            return False, None
        if self.frames:
            return True, self.frames.pop(0)
        return False, None


def test_camera_tolerates_start_up_failures_then_reports_a_dead_camera() -> None:
    frame = scene([("red", 2)])
    clock_ticks = iter(np.arange(0, 100, 0.1))
    cam = FlakyCamera([frame] * 4, fail_first=5)
    got = []
    with pytest.raises(LiveSourceError, match="stopped sending frames"):
        for index, t, f in frames_from_capture(cam, False, LiveConfig(camera_max_failed_reads=10),
                                               clock=lambda: float(next(clock_ticks))):
            got.append(index)
    assert got == [0, 1, 2, 3]
