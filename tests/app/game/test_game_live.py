"""The desktop live preview (``companion.app.game.live_vm``) on generated frames: reads once per
still scene, hides the boxes while the picture moves, keeps the read when the same scene comes
back, draws the boxes, and its read fills the dice chips with the photo's checks."""

from __future__ import annotations

import cv2
import numpy as np
from game_play import FakeDie, FakeRead

from companion.app.game.dice_vm import DiceEntry
from companion.app.game.live_vm import BOX_BGR, UNSURE_BGR, LivePreview
from companion.app.game.texts import GameText

FPS = 15.0


def scene(seed: int, w=800, h=600) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), (90, 120, 150), np.uint8)
    for _ in range(4):
        x, y = int(rng.integers(50, w - 100)), int(rng.integers(50, h - 100))
        cv2.rectangle(img, (x, y), (x + 50, y + 50), tuple(int(c) for c in rng.integers(0, 255, 3)), -1)
    return img


def moving(k: int, base: np.ndarray) -> np.ndarray:
    img = base.copy()
    cv2.rectangle(img, (20 + 37 * k, 100), (300 + 37 * k, 450), (30, 30, 30), -1)  # a hand passing
    return img


def frames(parts):
    i = 0
    for img, n in parts:
        for _ in range(n):
            yield i, i / FPS, img if not callable(img) else img(i)
            i += 1


class Reader:
    def __init__(self, reads):
        self.reads = list(reads)
        self.calls = 0

    def read(self, frame):
        self.calls += 1
        assert frame.ndim == 3
        return self.reads.pop(0)


def die(colour, value, box, unsure=False):
    d = FakeDie(colour, value, unsure=unsure)
    d.box = box
    return d


def run(p: LivePreview, n: int) -> list:
    out = []
    for _ in range(n):
        assert p.step()
        out.append(p.read)
    return out


def test_live_preview_reads_each_still_scene_once_and_hides_boxes_while_moving():
    a, b = scene(1), scene(2)
    read_a = FakeRead([die("red", 3, (100, 100, 50, 50)), die("blue", 5, (300, 200, 50, 50), unsure=True)])
    read_b = FakeRead([die("green", 2, (400, 300, 50, 50))])
    reader = Reader([read_a, read_b])
    src = frames([(lambda i: moving(i % 7, a), 6), (a, 20), (lambda i: moving(i % 7, a), 5), (a, 20), (b, 20)])
    p = LivePreview(reader, src, max_width=400)

    first = run(p, 6)
    assert all(r is None for r in first) and p.usable_read() is None  # rolling: nothing read
    still = run(p, 20)
    assert reader.calls == 1 and still[-1] is read_a and p.usable_read() is read_a
    assert still.index(read_a) >= 3  # read only after half a second of stillness
    passing = run(p, 5)
    assert passing[-1] is None  # a hand in the frame: the boxes are hidden, no read offered
    back = run(p, 20)
    assert back[-1] is read_a and reader.calls == 1  # the same scene again: not read twice
    new = run(p, 20)
    assert new[-1] is read_b and reader.calls == 2 and p.reads == 2
    assert not p.step() and p.ended  # the stream ended

    jpeg = cv2.imdecode(np.frombuffer(p.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert jpeg.shape[:2] == (300, 400)  # scaled to max_width, aspect kept


def test_live_preview_draws_the_boxes_in_the_die_colour_and_unsure_in_amber():
    frame = np.zeros((600, 800, 3), np.uint8)
    p = LivePreview(Reader([]), iter(()))
    p.read = FakeRead([die("red", 3, (100, 100, 50, 50)), die("blue", 5, (300, 200, 50, 50), unsure=True)])
    out = p.annotate(frame)
    assert tuple(out[100, 125]) == BOX_BGR["red"]   # top edge of the red die's box
    assert tuple(out[200, 325]) == UNSURE_BGR       # the unsure one in amber
    assert not frame.any()                          # the camera frame itself is untouched
    p.read = None
    assert not p.annotate(frame).any()


def test_live_read_fills_the_chips_with_the_photo_checks():
    t = GameText()
    p = LivePreview(Reader([]), iter(()))
    p.read = FakeRead([die("red", 3, (0, 0, 9, 9)), die("red", 4, (20, 0, 9, 9))])
    entry = DiceEntry("Ana", 4, {"red": 1, "yellow": 4, "purple": 4, "blue": 4, "green": 4}, t)
    assert not entry.load_read(p.usable_read())  # 2 red dice read, 1 left in the bag: refused
    assert entry.chips == [] and "red" in entry.message
    entry.bag["red"] = 4
    assert entry.load_read(p.usable_read()) and [(c.colour, c.value) for c in entry.chips] == [("red", 3), ("red", 4)]
    p.read = FakeRead([], error="the camera frame is empty")
    assert p.usable_read() is None


def test_desktop_dice_step_live_camera_fills_the_chips(monkeypatch, game_dir):
    """The dice screen in a desktop window (page.web False): "Live camera" opens the camera
    (here generated frames), the loop shows frames until the scene is still and read, "Use this
    read" fills the chips; in the browser the button is not offered."""
    import random

    import flet as ft
    from game_play import answer
    from test_game_views import FakeShell, texts

    from companion.app.game import live_vm as live_mod
    from companion.app.shell.view import build_screen

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell(width=1280)

    class Page:
        web = False

        def run_thread(self, fn):
            fn()  # run the camera loop to its end, in this thread

    shell.page = Page()
    vm = shell.start_new_game()
    rng = random.Random(5)
    while not (vm.step.kind == "roll_dice" and vm.state.seats[vm.step.seat].kind == "human"):
        answer(vm, rng)
    step = vm.step
    read = FakeRead([die("red", 3, (100, 100, 50, 50)), die("blue", 5, (300, 200, 50, 50))])
    vm._reader, vm._reader_problem = Reader([read]), None
    released = []
    a = scene(3)
    monkeypatch.setattr(live_mod, "open_camera", lambda camera: (frames([(a, 15)]), lambda: released.append(1)))

    shell.render = lambda: build_screen("/game", shell).view()  # a redraw builds the screen
    screen = build_screen("/game", shell)
    assert "Live camera" in texts(screen.view())
    screen.start_live(step)  # the loop ran over the 15 frames (then the "camera" ended)
    run = screen.live_run()
    assert released == [1] and not run.running and run.preview.usable_read() is read
    screen.use_live(step)
    assert [(c.colour, c.value) for c in step.entry.chips] == [("red", 3), ("blue", 5)]
    assert isinstance(run.image, ft.Image) and run.image.src == run.preview.jpeg

    # no camera: the reason is shown, the dice can still be tapped in
    monkeypatch.setattr(live_mod, "open_camera", lambda camera: (_ for _ in ()).throw(RuntimeError("camera 0: cannot open it")))
    screen.start_live(step)
    assert "The camera cannot be used (camera 0: cannot open it)" in " ".join(texts(build_screen("/game", shell).view()))

    shell.page.web = True  # the browser: no camera button
    assert "Live camera" not in texts(build_screen("/game", shell).view())
