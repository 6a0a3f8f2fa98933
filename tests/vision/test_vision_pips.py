"""The pip check (vision.pips): a plain OpenCV second opinion that only confirms a value."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

import vision.reader as reader_mod
from vision.config import DEFAULT_READER, PIP_CONFIRM_FROM
from vision.pips import FACE_LAYOUTS, count_pips, face_fit
from vision.reader import DiceReader, decide
from vision_testutil import NOMINAL_BGR, PIPS, FakeRawDie

# the pip check is off by default from model v16 (vision.config); these tests switch it on
PIP_ON = dataclasses.replace(DEFAULT_READER, pip_confirm_from=PIP_CONFIRM_FROM)

DIE = 80


def drawn_die(value: int, colour: str = "red", pip_colour=(245, 245, 245), slant: bool = False,
              seed: int = 0) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """One die face drawn on a noisy grey table (pips 0.06 of the face in radius); with
    ``slant`` the whole picture is sheared and squashed as a die seen from the side."""
    rng = np.random.default_rng(seed)
    img = np.full((200, 200, 3), 120, np.uint8)
    x = y = 60
    cv2.rectangle(img, (x, y), (x + DIE - 1, y + DIE - 1), NOMINAL_BGR[colour], -1)
    for px, py in PIPS[value]:
        cv2.circle(img, (x + int(px * DIE), y + int(py * DIE)), int(0.06 * DIE), pip_colour, -1, cv2.LINE_AA)
    box = (float(x), float(y), float(DIE), float(DIE))
    if slant:
        m = np.float32([[1.0, 0.25, -20], [0.05, 0.7, 30]])
        img = cv2.warpAffine(img, m, (200, 200), borderValue=(120, 120, 120))
        corners = np.float32([[x, y, 1], [x + DIE, y, 1], [x, y + DIE, 1], [x + DIE, y + DIE, 1]]) @ m.T
        x0, y0 = corners.min(axis=0)
        x1, y1 = corners.max(axis=0)
        box = (float(x0), float(y0), float(x1 - x0), float(y1 - y0))
    noise = rng.integers(-3, 4, img.shape)
    return np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8), box


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("colour", ["red", "purple", "green"])
def test_a_drawn_face_is_counted(value, colour) -> None:
    img, box = drawn_die(value, colour)
    assert count_pips(img, box).value == value


@pytest.mark.parametrize("value", [3, 4, 5, 6])
def test_a_slanted_face_is_counted(value) -> None:
    img, box = drawn_die(value, "blue", slant=True)
    assert count_pips(img, box).value == value


def test_dark_pips_on_a_white_die_are_counted() -> None:
    img = np.full((200, 200, 3), 90, np.uint8)
    cv2.rectangle(img, (60, 60), (60 + DIE - 1, 60 + DIE - 1), (235, 235, 235), -1)
    for px, py in PIPS[5]:
        cv2.circle(img, (60 + int(px * DIE), 60 + int(py * DIE)), int(0.06 * DIE), (20, 20, 20), -1)
    assert count_pips(img, (60, 60, DIE, DIE)).value == 5


@pytest.mark.parametrize("box", [
    (150.0, 150.0, 100.0, 100.0),          # partly outside the image
    (-500.0, -500.0, 50.0, 50.0),          # wholly outside
    (10.0, 10.0, 2.0, 2.0),                # too small to hold pips
    (float("nan"), 10.0, 50.0, 50.0),      # not a box
])
def test_no_opinion_on_a_box_it_cannot_look_at(box) -> None:
    img, _ = drawn_die(4)
    assert count_pips(img, box).value is None


def test_no_opinion_on_a_blank_face_or_noise() -> None:
    img, box = drawn_die(4)
    blank = img.copy()
    cv2.rectangle(blank, (60, 60), (60 + DIE - 1, 60 + DIE - 1), NOMINAL_BGR["red"], -1)
    assert count_pips(blank, box).value is None
    noise = np.random.default_rng(3).integers(0, 256, img.shape, dtype=np.uint8)
    assert count_pips(noise, box).value in (None, 1, 2, 3, 4, 5, 6)  # never raises


def test_pips_off_the_face_pattern_are_no_face() -> None:
    img = np.full((200, 200, 3), 120, np.uint8)
    cv2.rectangle(img, (60, 60), (60 + DIE - 1, 60 + DIE - 1), NOMINAL_BGR["green"], -1)
    for px, py in [(0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8), (0.68, 0.4)]:  # a 5 gone wrong
        cv2.circle(img, (60 + int(px * DIE), 60 + int(py * DIE)), int(0.06 * DIE), (245, 245, 245), -1)
    assert count_pips(img, (60, 60, DIE, DIE)).value is None


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_every_face_layout_fits_under_any_affine_map(n) -> None:
    rng = np.random.default_rng(n)
    for _ in range(5):
        a = rng.normal(size=(2, 2)) + np.eye(2) * 2
        pts = np.asarray(FACE_LAYOUTS[n]) @ a.T + rng.normal(size=2) * 50
        assert face_fit(rng.permutation(pts)) == pytest.approx(0.0, abs=1e-9)


def test_face_fit_rejects_other_layouts() -> None:
    bent_three = [(0, 0), (5, 4), (10, 0)]
    off_centre_five = [(-1, -1), (-1, 1), (1, -1), (1, 1), (0.6, 0.5)]
    assert face_fit(bent_three) > 0.2
    assert face_fit(off_centre_five) > 0.12
    assert face_fit([(0, 0)] * 7) is None
    assert face_fit([(1, 2)]) == 0.0 and face_fit([(1, 2), (3, 4)]) == 0.0


# ---------------------------------------------------------------- the reader's use of it

def raw_for(box, value=4, vp=0.8, cp=0.99, det=0.9) -> FakeRawDie:
    value_probs = [(1 - vp) / 5] * 6
    value_probs[value - 1] = vp
    colour_probs = [(1 - cp) / 5] * 6
    colour_probs[0] = cp
    return FakeRawDie(tuple(box), det, tuple(value_probs), tuple(colour_probs), (50.0, 60.0, 40.0))


class Scripted:
    def __init__(self, raws):
        self.raws = raws

    def read(self, image_bgr):
        return list(self.raws)


def test_an_agreeing_pip_count_makes_a_near_sure_read_sure() -> None:
    img, box = drawn_die(4)
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.8)]), config=PIP_ON).read(img).dice
    assert d.value == 4 and d.pip_confirmed and not d.unsure
    assert d.value_confidence == pytest.approx(1 - 0.2 * DEFAULT_READER.pip_doubt_factor)


def test_the_shipped_reader_counts_pips_and_can_do_without() -> None:
    """On again since stop 69 (rule Q, docs/vision-history.md): the shipped reader confirms an unsure
    read the counter agrees with; switched off (``pip_confirm_from`` None, off from v16 to stop 68)
    the same read stays as the model made it."""
    img, box = drawn_die(4)
    assert DEFAULT_READER.pip_confirm_from == PIP_CONFIRM_FROM
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.8)])).read(img).dice
    assert d.value == 4 and d.pip_confirmed and d.value_confidence > 0.8
    off = dataclasses.replace(DEFAULT_READER, pip_confirm_from=None)
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.8)]), config=off).read(img).dice
    assert d.value == 4 and not d.pip_confirmed and d.value_confidence == pytest.approx(0.8)


def test_a_disagreeing_count_changes_nothing() -> None:
    img, box = drawn_die(5)
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.8)]), config=PIP_ON).read(img).dice
    assert d.value == 4 and not d.pip_confirmed and d.unsure
    assert d.value_confidence == pytest.approx(0.8)


@pytest.mark.parametrize("change", [
    dict(pip_confirm_from=None),   # switched off (the default from v16)
    dict(pip_confirm_from=0.85),   # the model's value probability is below the floor
])
def test_the_check_follows_the_config(change) -> None:
    img, box = drawn_die(4)
    cfg = dataclasses.replace(PIP_ON, **change)
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.8)]), config=cfg).read(img).dice
    assert not d.pip_confirmed and d.unsure


def test_one_or_two_pips_never_confirm() -> None:
    """Any two points fit the two-pip layout: too weak to confirm a value (docs/vision.md)."""
    img, box = drawn_die(2)
    (d,) = DiceReader(Scripted([raw_for(box, 2, vp=0.8)]), config=PIP_ON).read(img).dice
    assert not d.pip_confirmed and d.unsure
    assert not decide(raw_for(box, 2, vp=0.8), (0, 0, 1, 1), PIP_ON, pip_value=2).pip_confirmed


def test_no_count_when_the_colour_alone_keeps_the_read_unsure(monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(reader_mod, "count_pips", lambda *a, **k: calls.append(a) or None)
    img, box = drawn_die(4)
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.8, cp=0.6)]), config=PIP_ON).read(img).dice
    assert d.unsure and not calls
    (d,) = DiceReader(Scripted([raw_for(box, 4, vp=0.99, cp=0.99)]), config=PIP_ON).read(img).dice
    assert not d.unsure and not calls  # a sure read is not counted again


def test_the_check_never_changes_a_value() -> None:
    die = decide(raw_for((0, 0, 10, 10), 4, vp=0.5), (0, 0, 10, 10), PIP_ON, pip_value=6)
    assert die.value == 4 and not die.pip_confirmed and die.value_confidence == pytest.approx(0.5)


def test_a_die_filling_a_big_photo_is_counted() -> None:
    """A close-up: the box is thinned out before it is resized (bounded time, same answer)."""
    img = np.full((3000, 3000, 3), 120, np.uint8)
    cv2.rectangle(img, (500, 500), (2499, 2499), NOMINAL_BGR["yellow"], -1)
    for px, py in PIPS[5]:
        cv2.circle(img, (500 + int(px * 2000), 500 + int(py * 2000)), 120, (245, 245, 245), -1)
    assert count_pips(img, (500, 500, 2000, 2000)).value == 5
