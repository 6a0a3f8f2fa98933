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

import visionlearn.detector as D
import visionlearn.learn as L
from vision.__main__ import main
from vision.labels import parse_labels
from vision.model import COLOUR_CLASSES, crop_for_classifier
from vision.profile import TableProfile
from visionlab.render.synth import render_indexed

SEED = 1234  # a training seed of our renderer
PURPLE = COLOUR_CLASSES.index("purple")


@pytest.fixture(autouse=True)
def small_replay(monkeypatch):
    monkeypatch.setattr(L, "REPLAY_SCENES", 6)
    monkeypatch.setattr(D, "REPLAY_SCENES", 4)
    monkeypatch.setattr(D, "STEPS", 4)
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
    assert report["tie_won"] is False and report["tie_why"].endswith("not enough")
    assert prof.current_model() is None


def test_a_tie_is_won_where_the_shipped_values_fail_the_table(monkeypatch):
    """Rule W (stop 74): the shipped classifier's values on the dice the learn trained on decide a
    tie: at least 3 % of them and at least 2 read wrong."""
    for wrong, n, won in ((2, 66, True), (2, 67, False), (1, 10, False), (0, 0, False), (5, 40, True)):
        monkeypatch.setattr(L, "values_wrong", lambda base, profile, dice, w=wrong, m=n: (w, m))
        assert L.values_tie_won(None, None, [])[0] is won, (wrong, n)


@pytest.mark.slow
def test_a_tie_won_on_the_values_is_adopted(tmp_path, monkeypatch):
    """The tie above, where the shipped model reads the trained-on dice's values badly: adopted."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 2, colour=None)))
    monkeypatch.setattr(L, "values_wrong", lambda base, profile, dice: (3, len(dice)))
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=0, log=lambda m: None)
    h = report["held_back"]
    assert (h["right"], h["sure_right"]) == (h["right_shipped"], h["sure_right_shipped"])
    assert report["tie_won"] and report["adopted"] and prof.current_model() is not None


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
    code = main(["learn", "--profile", str(tmp_path / "prof"), str(labels), "--steps", "24", "--cache", str(cache)],
                out=out, err=err)
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert "added" in text and "learned from" in text and "s in all" in text and "adopted" in text
    model = TableProfile(tmp_path / "prof").current_model()
    assert model is not None, text
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
    import io
    import lzma

    with np.load(io.BytesIO(lzma.decompress(shipped.read_bytes()))) as z:
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
    import io
    import lzma

    xz = tmp_path / "shipped.npz.xz"                                          # the shipped form: an npz in xz
    buf = io.BytesIO()
    np.savez(buf, **first)
    xz.write_bytes(lzma.compress(buf.getvalue(), format=lzma.FORMAT_XZ, filters=L.XZ_FILTERS))
    logs.clear()
    fourth = L.replay_crops(tmp_path / "xz-cache", log=logs.append, shipped=xz)
    assert not logs and all(np.array_equal(fourth[k], first[k]) for k in first)
    xz.write_bytes(b"not xz")
    L.replay_crops(tmp_path / "xz-cache", log=logs.append, shipped=xz)
    assert any("shipped replay" in m and "not an xz file" in m for m in logs)


def _with_a_missed_die(labels: Path, photos: tuple[int, ...]) -> Path:
    """The labels with one more "die" on each of lines ``photos`` (0-based), where the photo
    shows none: a die the shipped detector misses, as far as the learner can tell."""
    lines = [json.loads(x) for x in labels.read_text().splitlines()]
    for i in photos:
        lines[i]["dice"].append({"box": [300.0, 16.0, 34.0, 34.0], "value": 2, "colour": "purple"})
    labels.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return labels


@pytest.mark.slow
def test_the_detector_learns_only_where_the_shipped_one_misses_dice(tmp_path, monkeypatch):
    """No die missed: nothing trained. Dice missed (photos 1-3 learned from): the detector trains
    and is adopted when it loses no held-back die (photo 4) and reads no more boxes that are no
    die; the model folder then holds both parts, and ``read --profile`` reads with them. A photo
    not complete (a die typed in by hand) teaches nothing."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 4)))
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    det = report["detector"]
    assert det["missed_by_shipped"] == 0 and not det["adopted"] and "finds all" in det["reason"]
    assert prof.current_model().detector is None and prof.current_model().classifier is not None

    prof2 = TableProfile(tmp_path / "prof2")
    labels = _with_a_missed_die(_scenes(tmp_path, 0, 4), (0, 1, 2))
    lines = labels.read_text().splitlines()
    lines[1] = json.dumps(dict(json.loads(lines[1]), complete=False))
    labels.write_text("\n".join(lines) + "\n")
    prof2.add_photos(parse_labels(labels))
    report = L.learn(prof2.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    det = report["detector"]
    assert det["photos"] == 2 and det["missed_by_shipped"] == 2  # photo 2 is not complete
    assert det["steps"] == 4 and det["held_back"]["photos"] == 1 and det["onnx_max_diff"] < 1e-3
    assert det["adopted"] and det["held_back"]["lost"] == 0, det
    model = prof2.current_model()
    assert model.info["parts"] == ["classifier", "detector"] and model.detector.is_file()
    out = io.StringIO()
    assert main(["read", "--json", "--profile", str(prof2.path), str(tmp_path / "scene3.jpg")], out=out,
                err=io.StringIO()) == 0
    assert json.loads(out.getvalue())["dice"]


@pytest.mark.slow
def test_the_classifier_switches_in_before_the_detector_learns(tmp_path, monkeypatch):
    """The classifier's learn (what makes the next photo cheaper) is switched in first, within
    the learn's budget; the detector's learn follows and switches in a second folder holding the
    same classifier (stop 55)."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_with_a_missed_die(_scenes(tmp_path, 0, 4), (0, 1, 2))))
    real, seen = D.learn_detector, {}

    def spy(profile, *a, **k):
        model = profile.current_model()
        seen.update(parts=model.info["parts"], classifier=model.classifier.read_bytes(), folder=model.folder)
        return real(profile, *a, **k)
    monkeypatch.setattr(D, "learn_detector", spy)
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert seen["parts"] == ["classifier"] and report["classifier_adopted"] and report["detector"]["adopted"]
    assert report["classifier_seconds"] <= report["detector"]["switched_in_after"] <= report["seconds"]
    now = prof.current_model()
    assert now.folder != seen["folder"] and now.info["parts"] == ["classifier", "detector"] == report["parts"]
    assert now.classifier.read_bytes() == seen["classifier"] and now.unsure_below == report["unsure_below"]


@pytest.mark.slow
def test_a_detector_that_loses_a_held_back_die_is_not_adopted_and_each_part_stays_the_last_good(
        tmp_path, monkeypatch):
    """A detector that loses a held-back die the shipped one finds is refused. A learn adopts the
    parts that pass its checks; the model in use keeps its own of the others (the classifier
    with its threshold)."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_with_a_missed_die(_scenes(tmp_path, 0, 4), (0, 1, 2))))
    real = D._reads

    def adapted_loses_one(model, image, dice, unmatched=None):
        found, false = real(model, image, dice, unmatched)
        adapted = Path(model.config.detector_file).is_absolute()
        return (set(sorted(found)[1:]) if adapted else found), false
    monkeypatch.setattr(D, "_reads", adapted_loses_one)
    first = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=12, log=lambda m: None)
    assert first["classifier_adopted"] and not first["detector"]["adopted"]
    assert first["detector"]["held_back"]["lost"] == 1 and "lost 1 dice" in first["detector"]["reason"]
    in_use = prof.current_model()
    assert in_use.detector is None and in_use.info["parts"] == ["classifier"]
    classifier = in_use.classifier.read_bytes()
    # now the detector passes, and the classifier (no training step) is not adopted
    monkeypatch.setattr(D, "_reads", real)
    second = L.learn(prof.path, cache_dir=tmp_path / "cache", steps=0, log=lambda m: None)
    assert not second["classifier_adopted"] and second["detector"]["adopted"]
    now = prof.current_model()
    assert now.folder != in_use.folder and now.info["parts"] == ["classifier", "detector"]
    assert now.info["classifier_from"] == "an earlier learn" and now.unsure_below == in_use.unsure_below
    assert now.classifier.read_bytes() == classifier and not in_use.folder.exists()


def test_the_detector_is_shown_the_photo_as_the_reader_cuts_it():
    """A large photo of small dice: the first pass's letterboxed view, and the finer pass's
    tiles (each with the dice whose centre it holds, in its own pixels), as a fixed-size
    detector's reader cuts them; the shipped reader runs that view as one input, a little finer."""
    from functools import partial

    from vision.model import DEFAULT_MODEL_DIR, DiceModel
    from vision.runtime import create_runtime

    model = DiceModel.from_files(partial(create_runtime, threads=1), model_dir=DEFAULT_MODEL_DIR)
    image = np.full((1500, 2000, 3), 100, np.uint8)
    boxes = [(100.0, 100.0, 40.0, 40.0), (1800.0, 1300.0, 40.0, 40.0), (990.0, 700.0, 40.0, 40.0)]
    inputs = D.detector_inputs(model, image, boxes)
    plan = model.fine_plan(2000, 1500, [40 * 512 / 2000] * 3, as_tiles=True)
    assert plan is not None and len(inputs) == 1 + plan[1] * plan[2] == 5
    one = model.fine_plan(2000, 1500, [40 * 512 / 2000] * 3)
    assert model.single_fine() and plan[0] < one[0] < plan[0] * max(D.SCALES)
    first, first_boxes, _ = inputs[0]
    assert first.shape == (384, 512, 3) and first_boxes[0] == pytest.approx([25.6, 25.6, 10.24, 10.24])
    tiles = model.fine_tiles(image, *plan)
    seen = set()
    for (canvas, got, _), (tile, lb) in zip(inputs[1:], tiles):
        assert np.array_equal(canvas, tile)
        for b in got:
            x, y, w, h = lb.to_original(tuple(b))
            k = min(range(3), key=lambda i: abs(boxes[i][0] - x) + abs(boxes[i][1] - y))
            assert (x, y, w, h) == pytest.approx(boxes[k], abs=0.5)
            seen.add(k)
    assert seen == {0, 1, 2}
    # a photo the first pass reads at its own scale: one input
    assert len(D.detector_inputs(model, np.full((480, 640, 3), 100, np.uint8), [(10.0, 10.0, 60.0, 60.0)])) == 1


def test_reads_the_confirmation_does_not_list_are_not_taught_as_background():
    """Over a read of the shipped reader that matches no confirmed die (maybe a die cut by the
    border or half hidden), the heatmap's background loss is off; a die's own peak stays."""
    import torch

    from visionlab.train.data import det_targets
    from visionlab.train.nets import focal_loss

    hm, *_ = det_targets([np.array([[100.0, 100.0, 40.0, 40.0]], np.float32)], 96, 128)
    raised = D.ignore_targets(hm.copy(), [np.array([[300.0, 200.0, 60.0, 60.0], [100.0, 100.0, 40.0, 40.0]])])
    assert raised[0, 0, 30, 30] == 1.0 and raised.max() == 1.0 and (raised == 1.0).sum() == 1  # the die's peak
    assert (raised[0, 0, 50:65, 75:90] == D.IGNORE_TARGET).all()  # cells whose centre is in the ignore box
    assert raised[0, 0, 49, 80] == hm[0, 0, 49, 80] and raised[0, 0, 10, 10] == hm[0, 0, 10, 10]
    # a detector firing there costs nothing in the ignored cells, as much as before elsewhere
    quiet = torch.full((1, 1, 96, 128), -8.0)
    firing = quiet.clone()
    firing[0, 0, 50:65, 75:90] = 4.0

    def cost(target):
        t = torch.from_numpy(target)
        return float(focal_loss(firing, t) - focal_loss(quiet, t))
    assert cost(raised) < 1e-3 and cost(hm) > 1.0


def test_a_table_input_is_moved_and_scaled_with_its_dice():
    """Each table input is shown moved and scaled at random: the dice move with the image, a die
    no longer wholly inside is dropped (background, as the reader drops dice cut by the border),
    an ignore box is clipped; sometimes the input stays as it is."""
    image = np.full((384, 512, 3), 30, np.uint8)
    boxes = np.array([[200.0, 150.0, 40.0, 40.0], [2.0, 2.0, 40.0, 40.0]], np.float32)
    for x, y, w, h in boxes.astype(int):
        image[y:y + h, x:x + w] = 250
    ignore = np.array([[470.0, 340.0, 40.0, 40.0]], np.float32)
    rng = np.random.default_rng(3)
    kept = moved = 0
    for _ in range(40):
        img, b, ig = D.move_and_scale(image, boxes, ignore, rng)
        assert img.shape == image.shape and img.dtype == np.uint8
        if img is image:
            kept += 1
            assert np.array_equal(b, boxes) and np.array_equal(ig, ignore)
            continue
        moved += 1
        H, W = image.shape[:2]
        assert ((b[:, 0] >= 0) & (b[:, 1] >= 0) & (b[:, 0] + b[:, 2] <= W) & (b[:, 1] + b[:, 3] <= H)).all()
        for x, y, w, h in b:   # a die kept is still under its box: the bright square moved with it
            patch = img[int(y + h * 0.3):int(y + h * 0.7), int(x + w * 0.3):int(x + w * 0.7)]
            assert patch.size and patch.mean() > 200
        assert ((ig[:, 0] >= 0) & (ig[:, 0] + ig[:, 2] <= W + 1e-3)).all()
    assert kept and moved


def test_a_second_peak_on_a_die_costs_and_a_neighbour_or_an_ignored_read_does_not():
    """"No second peak on a die": the penalty lies over a confirmed die's box away from its
    centre, never at its centre, in another die's box or over an ignored read; the table head's
    loss grows with a response there."""
    import torch

    from visionlab.train.data import det_targets

    dice = np.array([[100.0, 100.0, 80.0, 80.0], [170.0, 100.0, 80.0, 80.0]], np.float32)   # overlapping by 10 px
    hm, *_ = det_targets([dice], 96, 128)
    hm = D.ignore_targets(hm, [np.array([[100.0, 160.0, 20.0, 20.0]], np.float32)])
    pen = D.ring_penalty(hm, [dice])
    cell = lambda x, y: pen[0, 0, int(y // 4), int(x // 4)]   # noqa: E731  (input px -> cell, stride 4)
    assert cell(140, 140) == 0 and cell(210, 140) == 0             # the dice's centres
    assert cell(110, 140) == D.RING_WEIGHT and cell(140, 105) == D.RING_WEIGHT   # a die's edge
    assert cell(174, 140) == 0                                     # in both dice's boxes
    assert cell(106, 166) == 0                                     # an ignored read
    assert cell(300, 300) == 0 and pen.max() == D.RING_WEIGHT      # no die
    logits, target = torch.zeros(hm.shape), torch.from_numpy(hm)   # a response (sigmoid 0.5) everywhere
    plain = float(D.head_loss(logits, target, torch.zeros(hm.shape)))
    assert float(D.head_loss(logits, target, torch.from_numpy(pen))) > plain


def test_the_steps_grow_with_the_photos_learned_from():
    """Rule S (stop 70): ``STEPS`` up to ten photos learned from, then as many passes over the
    table's crops as at ten, at most ``MAX_STEPS``."""
    assert [L.steps_for(n) for n in (0, 1, 8, 10)] == [L.STEPS] * 4
    assert L.steps_for(15) == 120 and L.steps_for(38) == 304
    assert L.steps_for(40) == L.MAX_STEPS == L.steps_for(400)


def test_a_learn_without_steps_trains_the_learners_own(tmp_path, monkeypatch):
    monkeypatch.setattr(L, "STEPS", 3)
    monkeypatch.setattr(L, "STEPS_PHOTOS", 1)   # every photo learned from past the first adds 3 steps
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_scenes(tmp_path, 0, 3)))   # 2 learned from, 1 held back
    report = L.learn(prof.path, cache_dir=tmp_path / "cache", log=lambda m: None)
    assert report["trained_on"]["photos"] == 2 and report["steps"] == 6 == L.steps_for(2)
