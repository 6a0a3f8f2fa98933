"""The learner (visionlearn/learn.py) on a tiny profile: it changes reads of held-out crops, the
adapted ONNX reads as torch does, a failing learn leaves the last good model, and ``python -m
vision learn`` then ``read --profile`` use it. Kept to seconds: few steps, a small replay."""
from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import visionlearn.learn as L
from vision.__main__ import main
from vision.labels import parse_labels
from vision.model import COLOUR_CLASSES, crop_for_classifier
from vision.profile import ProfileError, TableProfile
from visionlab.render.synth import render_indexed

SEED = 1234  # a training seed of our renderer
PURPLE = COLOUR_CLASSES.index("purple")


@pytest.fixture(autouse=True)
def small_replay(monkeypatch):
    monkeypatch.setattr(L, "REPLAY_SCENES", 6)
    # these tables call every die purple: one colour, where a real first learn waits for three
    monkeypatch.setattr(L, "MIN_TRAIN_COLOURS", 1)


SHIFTED = {"red": "purple", "yellow": "red", "purple": "blue", "blue": "green", "green": "yellow"}


def _scenes(tmp: Path, first: int, n: int, colour: str | None = "purple") -> Path:
    """Labels of ``n`` scenes of our renderer, every whole die labelled ``colour`` (a table
    whose dice the player calls purple, whatever the renderer drew) with its true value;
    ``colour`` "shifted": each die called the next colour of ``SHIFTED`` (a table of five colours
    whose dice all look like another colour to the shipped model)."""
    lines = []
    for i in range(first, first + n):
        img, truths, _ = render_indexed(SEED, i, "webcam")
        path = tmp / f"scene{i}.jpg"
        cv2.imwrite(str(path), img)
        dice = [{"box": [float(v) for v in t.box], "value": t.value,
                 "colour": SHIFTED[t.colour] if colour == "shifted" and t.colour in SHIFTED else colour}
                for t in truths if not t.partial and t.top_visible >= 0.9 and t.colour != "other"]
        lines.append({"image": path.name, "dice": dice})
    out = tmp / f"labels-{first}.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return out


def _purple_share(classifier, tmp: Path) -> float:
    """Mean P(purple) over the dice of scenes the profile never saw, read through the ONNX file."""
    from vision.runtime import create_runtime

    rt = create_runtime(str(classifier))
    crops = []
    for i in range(40, 43):
        img, truths, _ = render_indexed(SEED, i, "webcam")
        crops += [crop_for_classifier(img, t.box, 64, 1.3) for t in truths if not t.partial and t.colour != "purple"]
    x = np.stack(crops).transpose(0, 3, 1, 2).astype(np.float32) / 255
    return float(rt.run({"crops": x})["colour_probs"][:, PURPLE].mean())


def test_split_photos_holds_back_every_fourth():
    assert L.split_photos([1]) == ([1], [])
    assert L.split_photos([1, 2]) == ([1], [2])
    assert L.split_photos(list(range(1, 11))) == ([1, 2, 3, 5, 6, 7, 9, 10], [4, 8])


@pytest.mark.slow
def test_learning_changes_the_reads_and_a_failed_learn_keeps_the_last_model(tmp_path, monkeypatch):
    from vision.model import DEFAULT_MODEL_DIR

    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 4)))
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert report["adopted"] and report["trained_on"]["photos"] == 3 and report["held_back"]["photos"] == 1
    assert report["held_back"]["right"] > report["held_back"]["right_shipped"]  # it learned the table's "purple"
    assert report["onnx_max_diff"] < 1e-3
    model = prof.current_model()
    assert model.unsure_below == report["unsure_below"] >= 0.90  # few held-back dice: a step above the shipped
    before = _purple_share(DEFAULT_MODEL_DIR / "dice_classifier.onnx", tmp_path)
    after = _purple_share(model.classifier, tmp_path)
    assert after > before + 0.2, (before, after)
    # the same profile and seed give the same model
    again = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert again["held_back"] == report["held_back"] and again["final_loss"] == report["final_loss"]
    good = prof.current_model()
    # a learn that fails while writing its model: the last good model stays, no half folder
    import visionlearn.onnxout as O

    def boom(*a, **k):
        raise RuntimeError("disk full")
    monkeypatch.setattr(O, "write_classifier_onnx", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert prof.current_model().folder == good.folder
    assert [p.name for p in (prof.path / "model").iterdir() if p.is_dir()] == [good.folder.name]


@pytest.mark.slow
def test_a_model_no_better_on_the_held_back_dice_is_not_adopted(tmp_path):
    """No training step: the "adapted" network is the shipped one, it reads the held-back dice
    exactly as the shipped one does (a tie), so the reader is left as it was."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 2, colour=None)))
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=0, log=lambda m: None)
    h = report["held_back"]
    assert (h["right"], h["sure_right"]) == (h["right_shipped"], h["sure_right_shipped"]) and h["dice"] > 0
    assert not report["adopted"] and "no better" in report["reason"]
    assert prof.current_model() is None


@pytest.mark.slow
def test_an_overconfident_model_does_not_replace_the_adapted_one_in_use(tmp_path, monkeypatch):
    """Fewer than 40 held-back dice and a threshold above NO_EVIDENCE (one of them read wrong at
    0.92 or more): the model is overconfident on the table. A first adapted model is adopted as
    before (the shipped one read the held-back dice worse); one that would replace an adapted
    model in use is not (stop 49)."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 4)))
    chosen = []

    def overconfident(reads):
        chosen.append(len(reads))
        return 0.97, "a held-back die read wrong at 0.96"
    monkeypatch.setattr(L, "choose_threshold", overconfident)
    first = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert 0 < chosen[0] < L.MIN_HELD_BACK
    assert first["adopted"] and prof.current_model().unsure_below == 0.97   # no adapted model in use yet
    in_use = prof.current_model().folder
    again = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert again["held_back"]["right"] > again["held_back"]["right_shipped"]  # better than shipped, yet
    assert not again["adopted"] and "overconfident" in again["reason"] and again["unsure_below"] == 0.97
    assert prof.current_model().folder == in_use
    # at NO_EVIDENCE itself (0.92, what a profile with no held-back evidence gets) it replaces it
    monkeypatch.setattr(L, "choose_threshold", lambda reads: (L.NO_EVIDENCE, "as many as none"))
    assert L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)["adopted"]
    assert prof.current_model().folder != in_use


@pytest.mark.slow
def test_a_profile_of_one_photo_is_not_adopted(tmp_path):
    """One photo: nothing is held back, so nothing shows the adapted model reads better."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 1)))
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert report["held_back"]["dice"] == 0 and report["trained_on"]["photos"] == 1
    assert not report["adopted"] and "second confirmed photo" in report["reason"]
    assert report["steps"] == 0 and "train_seconds" not in report  # nothing trained to throw away
    assert prof.current_model() is None


def test_a_first_learn_waits_for_three_colours(tmp_path, monkeypatch):
    """Trained on one colour, a model pulls the table's other colours into it (stop 48): the
    learner does not train before its training photos hold dice of three game colours."""
    monkeypatch.setattr(L, "MIN_TRAIN_COLOURS", 3)
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 4)))   # every die called purple
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=5, log=lambda m: None)
    assert not report["adopted"] and report["steps"] == 0 and prof.current_model() is None
    assert "1 game colour (purple)" in report["reason"] and "learning starts with 3" in report["reason"]
    # three colours among the photos learned from: it trains
    prof2 = TableProfile(tmp_path / "prof2")
    prof2.add_photos(parse_labels(_scenes(tmp_path, 30, 2, colour="shifted")))
    report = L.learn(prof2.path, cache_dir=tmp_path / "cache", steps=5, log=lambda m: None)
    assert report["steps"] == 5 and "train_seconds" in report
    # values only: not held to it (its colour is never trained)
    prof3 = TableProfile(tmp_path / "prof3")
    prof3.add_photos(parse_labels(_scenes(tmp_path, 10, 3, colour=None)))
    report = L.learn(prof3.path, cache_dir=tmp_path / "cache", steps=5, log=lambda m: None)
    assert report["steps"] == 5


def test_value_only_labels_train_the_value_only(tmp_path):
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 10, 3, colour=None)))
    bank = L.table_bank(prof, prof.dice(), np.random.default_rng(0))
    assert (bank["colour"] == -1).all() and (bank["value"] >= 0).all() and len(bank["crops"]) == 8 * len(prof.dice())
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=5, log=lambda m: None)
    photos = sorted({d.photo for d in prof.dice()})
    assert report["trained_on"]["photos"] == len(L.split_photos(photos)[0])


def test_one_learner_per_profile(tmp_path):
    import os
    import subprocess
    import sys

    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 20, 2)))
    lock = prof.path / L.LOCK_FILE
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock.write_text(str(other.pid))
        with pytest.raises(L.LearnError, match="another learn is running"):
            L.learn(prof.path, log=lambda m: None)
        assert lock.exists() and prof.current_model() is None
    finally:
        other.kill()
        other.wait()
    # its process is gone: the lock is stale and taken over, then released
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=2, log=lambda m: None)
    assert "held_back" in report and not lock.exists()
    assert os.getpid() != other.pid


def test_nothing_to_learn_and_a_torn_profile(tmp_path):
    with pytest.raises(L.LearnError, match="no table profile"):
        L.learn(tmp_path / "none", log=lambda m: None)
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 20, 2)))
    (prof.path / "dice.jsonl").write_text('{"photo": 1, "cro')
    with pytest.raises(L.LearnError, match="torn"):
        L.learn(prof.path, log=lambda m: None)


@pytest.mark.slow
def test_vision_learn_then_read_with_the_profile(tmp_path):
    labels = _scenes(tmp_path, 30, 2, colour="shifted")  # the child learner needs 3 colours or more
    # the child process builds the full replay: give it a small ready cache of that name
    cache = tmp_path / "cache"
    L.replay_crops(cache, log=lambda m: None)
    (cache / f"replay-{L.REPLAY_SEED}-6-v{L.REPLAY_VERSION}.npz").rename(
        cache / f"replay-{L.REPLAY_SEED}-60-v{L.REPLAY_VERSION}.npz")
    out, err = io.StringIO(), io.StringIO()
    code = main(["learn", "--profile", str(tmp_path / "prof"), str(labels), "--steps", "12", "--cache", str(cache)],
                out=out, err=err)
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert "added" in text and "learned from" in text and "s in all" in text and "adopted" in text
    model = TableProfile(tmp_path / "prof").current_model()
    assert model is not None
    out = io.StringIO()
    image = str(tmp_path / "scene30.jpg")
    assert main(["read", "--json", "--profile", str(tmp_path / "prof"), image], out=out, err=io.StringIO()) == 0
    assert json.loads(out.getvalue())["dice"]


def test_vision_learn_with_no_die_to_learn_from(tmp_path):
    img = tmp_path / "empty.png"
    cv2.imwrite(str(img), np.full((240, 320, 3), 128, np.uint8))
    (tmp_path / "l.jsonl").write_text(json.dumps({"image": img.name, "dice": []}) + "\n")
    err = io.StringIO()
    code = main(["learn", "--profile", str(tmp_path / "prof"), str(tmp_path / "l.jsonl")], out=io.StringIO(), err=err)
    assert code == 2 and "no confirmed dice to learn from" in err.getvalue()
    assert TableProfile(tmp_path / "prof").current_model() is None


def test_the_steps_from_the_environment(tmp_path, monkeypatch, capsys):
    """``ENCYCLOPEDIA_LEARN_STEPS`` sets the steps when ``--steps`` is not given (the app starts
    the learner without options; its browser test shortens the learn with it)."""
    from visionlearn.__main__ import STEPS_ENV
    from visionlearn.__main__ import main as learn_main

    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 21, 2)))  # two photos with dice: one held back
    for bad in ("many", "0"):
        monkeypatch.setenv(STEPS_ENV, bad)
        assert learn_main(["--profile", str(prof.path)]) == 2
        assert prof.current_model() is None
    assert STEPS_ENV in capsys.readouterr().err
    monkeypatch.setenv(STEPS_ENV, "3")
    assert learn_main(["--profile", str(prof.path), "--cache", str(tmp_path / "cache"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 3
    # --steps wins
    assert learn_main(["--profile", str(prof.path), "--cache", str(tmp_path / "cache"), "--json", "--steps", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 2


def test_the_shipped_replay_is_the_one_the_learner_renders(monkeypatch, tmp_path):
    """(stop 59) models/ ships the classifier's replay so a first learn need not render it: it must
    hold exactly the crops ``replay_crops`` renders (regenerate it with them when the renderer or
    the replay's scenes change)."""
    monkeypatch.setattr(L, "REPLAY_SCENES", 60)
    shipped = L.shipped_replay_file()
    assert shipped.is_file(), f"{shipped} is missing"
    rendered = L.replay_crops(tmp_path / "cache", log=lambda m: None)       # no cache, no shipped copy: rendered
    with np.load(shipped) as z:
        assert set(z.files) == {"crops", "value", "colour", "die"}
        for k in ("crops", "value", "colour", "die"):
            assert np.array_equal(z[k], rendered[k]), k


def test_the_replay_comes_from_the_profile_then_the_shipped_copy_then_the_renderer(tmp_path):
    logs = []
    cache, shipped = tmp_path / "cache", tmp_path / "shipped.npz"
    first = L.replay_crops(cache, log=logs.append)                             # rendered (6 scenes) and cached
    assert any("rendered" in m for m in logs) and len(first["crops"]) > 0
    cached = next(cache.iterdir())
    cached.rename(shipped)                                                     # now only a "shipped" copy
    logs.clear()
    again = L.replay_crops(cache, log=logs.append, shipped=shipped)
    assert not logs and all(np.array_equal(again[k], first[k]) for k in first)  # read, not rendered
    assert not cache.joinpath(cached.name).exists()                            # and not copied
    shipped.write_bytes(b"not an npz")                                         # a broken shipped copy: rendered
    logs.clear()
    third = L.replay_crops(cache, log=logs.append, shipped=shipped)
    assert any("shipped replay" in m and "unreadable" in m for m in logs) and any("rendered" in m for m in logs)
    assert all(np.array_equal(third[k], first[k]) for k in first)
    np.savez_compressed(shipped, crops=first["crops"][:2], value=first["value"], colour=first["colour"], die=first["die"])
    logs.clear()
    L.replay_crops(tmp_path / "other-cache", log=logs.append, shipped=shipped)  # labels not matching the crops
    assert any("do not match" in m for m in logs)
