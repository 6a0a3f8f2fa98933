"""End-to-end (issue 38, "done when"): the table profile in the real web app (headless Chromium,
Flutter's semantics tree), with the real reader and the real learner.

A game of two human seats, prepared with the view-model up to Ana's dice (``_prepare_game``), is
opened from the saved-games list. Ana's dice come from a photo (``samples/table-profile/
palette-a.jpg``) of four dice of ANOTHER table's colours (maroon red, teal blue, pink purple: the
palette of ``visionlab.bench.palette``), which the shipped model reads with unsure dice and one
sure and wrong colour; the player corrects them on the chips and confirms. The profile already
holds one earlier photo of these dice (``_seed_profile``: a profile of one photo adopts nothing, as
nothing is held back to check it on); the app keeps the corrected photo, its second, and starts the
learner (trained on the earlier photo, checked on the corrected one) in the background (``python -m visionlearn``, as a child process of the
server, shortened to ``LEARN_STEPS`` steps by ``ENCYCLOPEDIA_LEARN_STEPS``; the real learner, its
real replay and threshold). Once the adapted model is switched in (the test waits for the
profile's ``model/current.json`` on disk, then reloads the page) the dice step says "Learned from
4 of your dice", and Ben's photo of the same dice (``palette-b.jpg``: the same four dice, the
camera a little closer, the light a little brighter) is read with fewer unsure dice than the
shipped reader reads it, and than Ana's photo was read. The server is restarted on the same data
folder: the step still says it learned from them, Settings counts them; Settings clears them,
the profile folder is gone and the step no longer says it.

Skipped with the reason when the browser, the shipped model or the ``learn`` extra (torch, onnx)
is missing. Screenshots go to ``test-artifacts/app-profile/`` (gitignored).
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
from pathlib import Path

import pytest
import webapp  # tests/app/webapp.py

sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))

pytestmark = webapp.e2e_marks()

ARTIFACTS = webapp.REPO / "test-artifacts" / "app-profile"
SAMPLES = webapp.REPO / "samples" / "table-profile"
TIMEOUT_MS = 45000
LEARN_TIMEOUT_S = 240  # torch's import, the replay render (first learn) and the steps, on a loaded machine
LEARN_STEPS = 20  # the learner's 80 are not needed for one photo of four dice (samples/table-profile/README.md)
TITLE = "Profile check"
DIE_CHIP = re.compile(r"^die (red|yellow|purple|blue|green|unknown colour) (\d)( \(unsure\))?$")

_SHOTS: list[str] = []  # the screenshots of the run, numbered in order across tabs and servers


def _missing() -> str | None:
    import importlib.util

    # looked up, not imported: the app's tests never import the learner's libraries (the learner
    # runs as the server's child process; tests/test_architecture.py)
    missing = [m for m in ("torch", "onnx") if importlib.util.find_spec(m) is None]
    if missing:
        return f"learning needs the optional 'learn' extra (torch, onnx): {', '.join(missing)} not installed"
    try:
        from vision.reader import DiceReader

        DiceReader.from_files()
    except Exception as exc:  # noqa: BLE001 - no shipped model: no photo is read
        return f"the shipped dice model cannot be loaded: {type(exc).__name__}: {exc}"
    return None


class Tab(webapp.SemanticsTab):
    timeout_ms = TIMEOUT_MS

    def chips(self) -> list[tuple[str, int, bool]]:
        """The dice chips of the dice step: (colour, value, unsure), in the screen's order."""
        out = []
        for role, label, text in self.nodes():
            m = DIE_CHIP.match((label or text).split("\n")[0])
            if role == "button" and m:
                out.append((m.group(1), int(m.group(2)), bool(m.group(3))))
        return out

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        webapp.settle(self.page, 300)
        _SHOTS.append(name)
        self.page.screenshot(path=str(ARTIFACTS / f"{len(_SHOTS):02d}-{name}.png"))


def _prepare_game(data: Path) -> None:
    """Ana and Ben (both human), played by the view-model up to Ana's first dice."""
    from game_play import answer

    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM, LocalCatalogue
    from companion.app.game.wizard_vm import HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    t = GameText()
    w = NewGameVM(t, random.Random(5))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(HUMAN, "Ben")]
    w.shuffle_all()
    w.title = TITLE
    s = w.create(GameStore(data))
    assert s is not None, w.error
    try:
        vm = GameVM(s, t, LocalCatalogue(data / "catalogue-prepared.json"))
        rng = random.Random(5)
        for _ in range(500):
            if vm.step.kind == "roll_dice":
                break
            answer(vm, rng, None)
        assert vm.step.kind == "roll_dice" and vm.step.seat_name == "Ana", vm.step.kind
    finally:
        s.close()


def _seed_profile(data: Path, photo: Path) -> None:
    """The table confirmed one photo of these dice in an earlier game: ``photo`` turned left to
    right (its boxes too), with its true colours and values, already in the profile. A profile of
    one photo holds nothing back, so the learner adopts nothing from it alone (docs/vision.md); the
    player's correction in this game is its second photo."""
    import cv2

    from vision.labels import parse_labels
    from vision.profile import TableProfile

    img = cv2.imread(str(photo))
    w = img.shape[1]
    seed = data / "earlier-photo.jpg"
    cv2.imwrite(str(seed), img[:, ::-1])
    truth = json.loads(photo.with_suffix(".json").read_text())["dice"]
    dice = [{"box": [w - t["box"][0] - t["box"][2], *t["box"][1:]], "value": t["value"], "colour": t["colour"]}
            for t in truth]
    labels = data / "earlier-photo.jsonl"
    labels.write_text(json.dumps({"image": seed.name, "dice": dice}) + "\n")
    TableProfile(data / "table-profile").add_photos(parse_labels(labels))
    seed.unlink()
    labels.unlink()


def _shipped_read(photo: Path):
    from vision.reader import DiceReader

    return DiceReader.from_files().read(str(photo))


def _truth_of_reads(photo: Path, reads) -> list[tuple[str, int]]:
    """The true (colour, value) of each read die, in the read's order: the truth die whose box
    overlaps it most (``<photo>.json``, the renderer's ground truth)."""
    truth = json.loads(photo.with_suffix(".json").read_text())["dice"]

    def iou(a, b):
        ax, ay, aw, ah = a
        bx, by, bw, bh = b
        w = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
        h = max(0.0, min(ay + ah, by + bh) - max(ay, by))
        return w * h / (aw * ah + bw * bh - w * h)

    out = []
    for d in reads:
        best = max(truth, key=lambda t: iou(t["box"], d.box))
        assert iou(best["box"], d.box) > 0.5, (d, truth)
        out.append((best["colour"], int(best["value"])))
    assert sorted(out) == sorted((t["colour"], int(t["value"])) for t in truth)
    return out


def _open_game(ctx, url: str) -> Tab:
    page = webapp.open_app(ctx, url, 1280, 900, timeout_ms=TIMEOUT_MS)
    webapp.button(page, "Resume a game").click()
    webapp.shown(page, TITLE).wait_for(timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)
    webapp.shown(page, TITLE).click()
    return Tab(page, Path("."))


def _reload(tab: Tab) -> None:
    """Open the page again as a new page (the game's address brings the game back, drawn anew;
    a plain reload reconnects Flet's session, which shows the controls it had)."""
    tab.page.evaluate("() => sessionStorage.clear()")
    tab.page.reload()
    webapp.enable_semantics(tab.page, TIMEOUT_MS)


def _upload(tab: Tab, photo: Path) -> list[tuple[str, int, bool]]:
    with tab.page.expect_file_chooser(timeout=TIMEOUT_MS) as chooser:
        webapp.button(tab.page, "Photo of the dice").click()
    chooser.value.set_files(str(photo))
    return tab.wait(lambda: len(tab.chips()) == 4 and tab.chips(), f"the four chips of {photo.name}", 60000)


def _correct(tab: Tab, want: list[tuple[str, int]]) -> None:
    """Make every chip say what ``want`` says, as a player would: a wrong chip is tapped and its
    colour and value chosen; an unsure right one is tapped, "It is right"."""
    page = tab.page
    chip_buttons = page.get_by_role("button", name=re.compile(r"^die (red|yellow|purple|blue|green|unknown colour) \d"))
    for i, (colour, value) in enumerate(want):
        c, v, unsure = tab.chips()[i]
        if (c, v) == (colour, value) and not unsure:
            continue
        _tap_until(tab, chip_buttons.nth(i), lambda: tab.shows(f"Correct die {i + 1}"), f"die {i + 1} selected")
        if (c, v) == (colour, value):
            _tap_until(tab, webapp.button(page, "It is right"), lambda: not tab.chips()[i][2], f"die {i + 1} right")
        else:
            if c != colour:  # the colour's choice chip
                _tap_until(tab, page.get_by_role("checkbox", name=colour, exact=True).first,
                           lambda: tab.chips()[i][0] == colour, f"die {i + 1} corrected to {colour}")
            if v != value:
                _tap_until(tab, page.get_by_role("checkbox", name=str(value), exact=True).first,
                           lambda: tab.chips()[i][1] == value, f"die {i + 1} corrected to {value}")
        tab.wait(lambda: tab.chips()[i] == (colour, value, False), f"die {i + 1} confirmed as {colour} {value}")


def _tap_until(tab: Tab, locator, done, what: str, attempts: int = 3) -> None:
    """Tap, and tap again if nothing changed after a while, as a person would: a tap that lands
    while Flutter redraws the panel that just opened is sometimes lost (seen under load)."""
    for _ in range(attempts - 1):
        locator.click()
        try:
            tab.wait(done, what, timeout_ms=4000)
            return
        except AssertionError:
            pass
    locator.click()
    tab.wait(done, what)


def _unplaced(tab: Tab) -> int | None:
    """How many dice the place-dice step shows not yet on a slot (the chips above the slots)."""
    n = 0
    for _role, label, text in tab.nodes():
        x = (label or text).split("\n")[0]
        if x == "Slot 1":
            return n
        n += bool(re.match(r"^die (red|yellow|purple|blue|green) \d$", x))
    return None


def _learned(data: Path) -> dict:
    """Wait for the learner to switch a model into the profile; its ``model.json``."""
    from vision.profile import TableProfile

    prof = TableProfile(data / "table-profile")
    deadline = time.monotonic() + LEARN_TIMEOUT_S
    while time.monotonic() < deadline:
        model = prof.current_model() if (prof.path / "model" / "current.json").exists() else None
        if model is not None and prof.busy() is None:
            return model.info
        time.sleep(0.5)
    raise AssertionError(f"no adapted model after {LEARN_TIMEOUT_S} s; profile: {prof.summary()}")


@pytest.fixture
def needs():
    why = _missing()
    if why:
        pytest.skip(why)


def test_the_reader_learns_the_tables_dice_keeps_them_and_forgets_them(tmp_path, needs):
    from vision.profile import TableProfile

    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    _prepare_game(data)
    first, second = SAMPLES / "palette-a.jpg", SAMPLES / "palette-b.jpg"
    _seed_profile(data, first)
    shipped_first, shipped_second = _shipped_read(first), _shipped_read(second)
    want = _truth_of_reads(first, shipped_first.dice)
    unsure_shipped_second = sum(d.unsure for d in shipped_second.dice)
    assert unsure_shipped_second >= 1, shipped_second  # the sample still needs a look with the shipped model
    env = {"ENCYCLOPEDIA_LEARN_STEPS": str(LEARN_STEPS)}
    timings = {}
    t0 = time.monotonic()
    with webapp.browser() as ctx:
        with webapp.running_app(data, env=env) as (url, _proc):
            tab = _open_game(ctx, url)
            tab.wait(lambda: tab.shows("Ana draws 4 dice"), "Ana's dice step")
            read = _upload(tab, first)
            tab.shot("first-photo-read")
            unsure_first = sum(u for *_, u in read)
            assert unsure_first >= 1 and [(c, v) for c, v, _ in read] != want, read  # unsure, and a wrong colour
            _correct(tab, want)
            tab.shot("first-photo-corrected")
            _tap_until(tab, webapp.button(tab.page, "Confirm the dice"), lambda: tab.shows("Ana: place your dice"),
                       "Ana's dice confirmed")
            # dice read from a photo come placed left to right (issue 38, item 5): one tap confirms
            assert tab.shows("Placed from the photo, left to right") and _unplaced(tab) == 0
            _tap_until(tab, webapp.button(tab.page, "Confirm the board"), lambda: tab.shows("Ben draws 4 dice"),
                       "Ben's dice step")
            timings["to_first_confirm"] = time.monotonic() - t0
            info = _learned(data)
            timings["learn_done"] = time.monotonic() - t0
            assert info["steps"] == LEARN_STEPS and info["trained_on"]["dice"] == 4, info
            _reload(tab)  # the step is drawn again with the adapted model's news
            tab.wait(lambda: tab.shows("Learned from 4 of your dice"), "the step to say it learned")
            read2 = _upload(tab, second)
            tab.shot("second-photo-read")
            unsure_second = sum(u for *_, u in read2)
            assert unsure_second < unsure_shipped_second and unsure_second < unsure_first, (read, read2)
            assert sorted((c, v) for c, v, _ in read2) == sorted(want), read2
            tab.page.close()
        # a restart on the same data folder: the profile is still there
        with webapp.running_app(data, env=env) as (url, _proc):
            tab = _open_game(ctx, url)
            tab.wait(lambda: tab.shows("Ben draws 4 dice") and tab.shows("Learned from 4 of your dice"),
                     "the step to say it learned, after a restart")
            tab.shot("after-restart")
            page = webapp.open_app(ctx, url, 1280, 900, timeout_ms=TIMEOUT_MS)
            settings = Tab(page, Path("."))
            _tap_until(settings, webapp.button(page, "Settings"),
                       lambda: settings.shows("8 dice kept from 2 photos; the reader learned from 4 of them."),
                       "Settings to count the table's dice")
            _tap_until(settings, webapp.button(page, "Forget the table's dice"),
                       lambda: settings.shows("Forget every kept die"), "the question")
            _tap_until(settings, webapp.button(page, "Yes, forget them"), lambda: settings.shows("No dice kept yet"),
                       "Settings to say the dice are forgotten")
            settings.shot("settings-cleared")
            assert not TableProfile(data / "table-profile").exists()
            _reload(tab)
            tab.wait(lambda: tab.shows("Ben draws 4 dice"), "Ben's dice step again")
            assert not tab.shows("Learned from")
    print(f"\nprofile e2e: {', '.join(f'{k} {v:.1f} s' for k, v in timings.items())}; total {time.monotonic() - t0:.1f} s")
