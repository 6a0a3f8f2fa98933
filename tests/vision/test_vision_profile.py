"""The table profile (vision/profile.py, vision/labels.py, ``python -m vision learn|profile``,
``read --profile``): runtime only, no torch. Learning itself: tests/visionlearn/."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.__main__ import main
from vision.config import DEFAULT_READER, default_profile_dir
from vision.labels import LabelsError, parse_labels
from vision.profile import (CLASSIFIER_FILE, CURRENT_FILE, DETECTOR_FILE, DICE_FILE, LOCK_FILE, MODEL_DIR, PHOTOS_FILE,
                            PROFILE_FILE, VIEW_MAX_PX, ProfileBusy, ProfileError, TableProfile)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_CLASSIFIER = ROOT / "models" / "dice_classifier.onnx"
SHIPPED_DETECTOR = ROOT / "models" / "dice_detector.onnx"
COLOURS = {"red": (40, 40, 200), "blue": (200, 80, 30), "green": (60, 170, 60)}


def _photo(path: Path, seed: int, n: int = 3) -> list[dict]:
    """A 320x240 photo of ``n`` coloured squares with white pips; returns its labels' dice."""
    rng = np.random.default_rng(seed)
    img = np.full((240, 320, 3), (90, 120, 150), np.uint8)
    dice = []
    for k in range(n):
        x, y, s = 20 + 100 * k, int(rng.integers(30, 150)), 50
        colour = list(COLOURS)[k % 3]
        cv2.rectangle(img, (x, y), (x + s, y + s), COLOURS[colour], -1)
        value = int(rng.integers(1, 7))
        for p in range(value):
            cv2.circle(img, (x + 10 + 12 * (p % 3), y + 15 + 18 * (p // 3)), 4, (250, 250, 250), -1)
        dice.append({"box": [x, y, s, s], "value": value, "colour": colour})
    cv2.imwrite(str(path), img)
    return dice


def _labels(tmp: Path, photos: int = 3, name: str = "labels.jsonl") -> Path:
    lines = []
    for i in range(photos):
        img = tmp / f"photo{i}.png"
        lines.append({"image": img.name, "dice": _photo(img, i)})
    path = tmp / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_profile_round_trip_and_reopen(tmp_path):
    labels = _labels(tmp_path)
    prof = TableProfile(tmp_path / "prof")
    assert not prof.exists() and prof.dice() == []
    added = prof.add_photos(parse_labels(labels))
    assert added["photos"] == 3 and added["dice"] == 9
    again = TableProfile(tmp_path / "prof")  # a restart: a new object on the same folder
    dice = again.dice()
    want = [d for line in labels.read_text().splitlines() for d in json.loads(line)["dice"]]
    assert [(d.value, d.colour, list(d.box)) for d in dice] == [(w["value"], w["colour"], w["box"]) for w in want]
    assert sorted({d.photo for d in dice}) == [1, 2, 3]
    crop = again.load_crop(dice[0])
    x, y, w, h = dice[0].crop_box
    assert crop.shape[0] == crop.shape[1] == 100  # 2.0 x the 50 px die
    assert abs(x + w / 2 - 50) < 1 and abs(w - 50) < 1
    # the die's own colour fills the centre of the stored crop
    assert np.abs(crop[int(y) + 3, int(x) + 3].astype(int) - COLOURS[dice[0].colour]).max() < 10
    assert json.loads((tmp_path / "prof" / PROFILE_FILE).read_text())["dice"] == 9


def test_the_same_photo_is_not_added_twice(tmp_path):
    labels = _labels(tmp_path)
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(labels))
    added = prof.add_photos(parse_labels(labels))
    assert added == {"photos": 0, "dice": 0, "negatives": 0, "skipped": 3}
    assert len(prof.dice()) == 9


def test_value_only_and_unknown_colour_labels(tmp_path):
    img = tmp_path / "p.png"
    dice = _photo(img, 5, 2)
    dice[0]["colour"] = None
    dice[1]["colour"] = "unknown"  # read --json's word for "other"
    (tmp_path / "l.jsonl").write_text(json.dumps({"image": str(img), "dice": dice, "ms": 3.0}) + "\n")
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(tmp_path / "l.jsonl"))
    assert [d.colour for d in prof.dice()] == [None, "other"]


@pytest.mark.parametrize("line, why", [
    ("{not json", "line 2: not JSON"),
    ('{"image": "photo0.png"}', "line 2: \"dice\" must be a list"),
    ('{"image": "photo0.png", "dice": [{"box": [1, 2, 3], "value": 2, "colour": "red"}]}', "die 1: \"box\""),
    ('{"image": "photo0.png", "dice": [{"box": [1, 2, 30, 30], "value": 7, "colour": "red"}]}', "\"value\" must be"),
    ('{"image": "photo0.png", "dice": [{"box": [1, 2, 30, 30], "value": 3, "colour": "pink"}]}', "\"colour\" must be"),
    ('{"image": "photo0.png", "dice": [{"box": [300, 200, 50, 50], "value": 3, "colour": "red"}]}',
     "lies outside the image (320x240"),
    ('{"image": "nowhere.png", "dice": []}', "file not found"),
    ('{"image": "notes.txt", "dice": []}', "not an image"),
])
def test_a_bad_labels_line_is_named_and_changes_nothing(tmp_path, line, why):
    good = _labels(tmp_path, photos=1)
    (tmp_path / "notes.txt").write_text("hello")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text() + line + "\n")
    with pytest.raises(LabelsError, match="line 2") as info:
        parse_labels(bad)
    assert why.replace("line 2: ", "") in str(info.value) and "line 2" in str(info.value)
    # through the CLI: exit 2, the reason on stderr, no profile written
    out, err = io.StringIO(), io.StringIO()
    code = main(["learn", "--profile", str(tmp_path / "prof"), str(bad), "--no-learn"], out=out, err=err)
    assert code == 2 and "line 2" in err.getvalue() and "nothing was added" in err.getvalue()
    assert not (tmp_path / "prof").exists()


def test_a_bad_line_leaves_an_existing_profile_as_it_was(tmp_path):
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path, photos=2)))
    before = _snapshot(prof.path)
    bad = tmp_path / "bad.jsonl"
    img = tmp_path / "new.png"
    dice = _photo(img, 9)
    bad.write_text(json.dumps({"image": str(img), "dice": dice}) + "\n" + '{"image": "x.png", "dice": 3}\n')
    code = main(["learn", "--profile", str(prof.path), str(bad)], out=io.StringIO(), err=io.StringIO())
    assert code == 2 and _snapshot(prof.path) == before


def test_a_profile_folder_that_cannot_be_written(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    prof = TableProfile(blocker / "prof")
    with pytest.raises(ProfileError, match="cannot write to the profile folder"):
        prof.add_photos(parse_labels(_labels(tmp_path)))
    err = io.StringIO()
    code = main(["learn", "--profile", str(blocker / "prof"), str(tmp_path / "labels.jsonl"), "--no-learn"],
                out=io.StringIO(), err=err)
    assert code == 2 and "cannot write to the profile folder" in err.getvalue()
    assert blocker.read_text() == "a file, not a folder"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes to read-only folders")
def test_a_read_only_profile_folder(tmp_path):
    folder = tmp_path / "prof"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ProfileError, match="cannot write"):
            TableProfile(folder).add_photos(parse_labels(_labels(tmp_path)))
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)


def test_each_photo_keeps_its_view_and_whether_it_is_complete(tmp_path):
    """The detector learns from a photo's view, and only from a photo whose every die is
    confirmed with its box (``"complete"``: a labels line may say false)."""
    labels = _labels(tmp_path)
    lines = labels.read_text().splitlines()
    lines[1] = json.dumps(dict(json.loads(lines[1]), complete=False))
    labels.write_text("\n".join(lines) + "\n")
    big = tmp_path / "big.png"  # a large photo: its view is at most VIEW_MAX_PX on a side
    cv2.imwrite(str(big), cv2.resize(cv2.imread(str(tmp_path / "photo0.png")), (1600, 1200)))
    with open(labels, "a") as f:
        f.write(json.dumps({"image": big.name, "dice": [{"box": [100, 200, 250, 250], "value": 3, "colour": "red"}]}) + "\n")
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(labels))
    views = TableProfile(prof.path).views()  # a restart
    assert sorted(views) == [1, 2, 3, 4] and [views[p].complete for p in (1, 2, 3, 4)] == [True, False, True, True]
    assert views[1].view_size == views[1].image_size == (320, 240)
    assert views[4].view_size == (VIEW_MAX_PX, 768) and views[4].image_size == (1600, 1200)
    assert views[4].to_view((100, 200, 250, 250)) == pytest.approx((64, 128, 160, 160))
    assert prof.load_view(views[4]).shape == (768, VIEW_MAX_PX, 3)
    # a bad "complete" is a bad line: nothing added
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"image": "photo0.png", "dice": [], "complete": "yes"}) + "\n")
    with pytest.raises(LabelsError, match="line 1: \"complete\" must be true or false"):
        parse_labels(bad)
    # a torn views file is reported, and nothing is added over it
    (prof.path / PHOTOS_FILE).write_text((prof.path / PHOTOS_FILE).read_text()[:-30])
    with pytest.raises(ProfileError, match="photos.jsonl line 4: torn"):
        prof.views()
    before = _snapshot(prof.path)
    with pytest.raises(ProfileError):
        prof.add_photos(parse_labels(_labels(tmp_path, name="more.jsonl")))
    assert _snapshot(prof.path) == before
    # a missing view is named; a profile made before views has none (nothing for the detector)
    (prof.path / PHOTOS_FILE).unlink()
    assert prof.views() == {} and len(prof.dice()) == 10
    prof2 = TableProfile(tmp_path / "prof2")
    prof2.add_photos(parse_labels(_labels(tmp_path, name="again.jsonl")))
    next((prof2.path / "views").iterdir()).unlink()
    with pytest.raises(ProfileError, match="a view of photos.jsonl is missing"):
        prof2.views()


def test_a_model_of_the_detector_alone_and_a_torn_part(tmp_path):
    """A model folder holds the parts its learn adapted ("parts"); the other reads shipped. A
    part it names that is missing is a torn model (reported; the shipped model reads)."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    folder = prof.new_model_folder()
    shutil.copy(SHIPPED_DETECTOR, folder / DETECTOR_FILE)
    model = prof.switch_model(folder, {"unsure_below": 0.85, "parts": ["detector"]})
    assert model.classifier is None and model.detector == folder / DETECTOR_FILE
    zpath = prof.export(tmp_path / "t.zip")
    with zipfile.ZipFile(zpath) as z:
        names = z.namelist()
    assert any(n.endswith(DETECTOR_FILE) for n in names) and not any(n.endswith(CLASSIFIER_FILE) for n in names)
    assert PHOTOS_FILE in names and sum(n.startswith("views/") for n in names) == 3
    prof.clear()
    prof.import_from(zpath)
    assert prof.current_model().detector.read_bytes() == SHIPPED_DETECTOR.read_bytes()
    assert len(prof.views()) == 3
    (prof.current_model().detector).unlink()
    with pytest.raises(ProfileError, match="the adapted detector is missing"):
        prof.current_model()
    for parts in ([], ["pips"], "detector"):
        folder = prof.new_model_folder()
        shutil.copy(SHIPPED_DETECTOR, folder / DETECTOR_FILE)
        with pytest.raises(ProfileError, match="not a complete model folder"):
            prof.switch_model(folder, {"unsure_below": 0.85, "parts": parts})


@pytest.mark.parametrize("damage", ["profile-garbage", "dice-torn", "counts", "crop-missing"])
def test_a_torn_profile_is_reported(tmp_path, damage):
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    if damage == "profile-garbage":
        (prof.path / PROFILE_FILE).write_text('{"format": 1, "pho')
    elif damage == "dice-torn":
        text = (prof.path / DICE_FILE).read_text()
        (prof.path / DICE_FILE).write_text(text[: len(text) - 40])
    elif damage == "counts":
        info = json.loads((prof.path / PROFILE_FILE).read_text())
        (prof.path / PROFILE_FILE).write_text(json.dumps(dict(info, dice=99)))
    else:
        next((prof.path / "crops").iterdir()).unlink()
    with pytest.raises(ProfileError) as info:
        prof.dice()
    assert str(prof.path) in str(info.value)
    before = _snapshot(prof.path)
    err = io.StringIO()
    code = main(["learn", "--profile", str(prof.path), str(tmp_path / "labels.jsonl"), "--no-learn"],
                out=io.StringIO(), err=err)
    assert code == 2 and "nothing was added" in err.getvalue()
    assert _snapshot(prof.path) == before
    assert "error" in prof.summary()


def _install_model(prof: TableProfile, unsure_below: float, classifier: Path = SHIPPED_CLASSIFIER) -> Path:
    folder = prof.new_model_folder()
    shutil.copy(classifier, folder / CLASSIFIER_FILE)
    prof.switch_model(folder, {"unsure_below": unsure_below, "trained_on": {"photos": 1, "dice": 3}})
    return folder


def test_the_model_is_switched_atomically_and_old_ones_go(tmp_path):
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    assert prof.current_model() is None
    first = _install_model(prof, 0.9)
    assert prof.current_model().folder == first and prof.current_model().unsure_below == 0.9
    cfg = prof.current_model().reader_config()  # every reader of an adapted model is configured by it
    assert cfg.unsure_below == 0.9 and cfg.duplicate_iou == DEFAULT_READER.duplicate_iou
    # a learn that dies after making its folder, before switching: the last good model stays
    half = prof.new_model_folder()
    (half / CLASSIFIER_FILE).write_bytes(b"half written")
    assert prof.current_model().folder == first
    second = _install_model(prof, 0.95)
    assert prof.current_model().folder == second and not first.exists() and not half.exists()
    with pytest.raises(ProfileError):
        prof.switch_model(prof.path / MODEL_DIR / "nothing-there", {"unsure_below": 0.9})
    assert prof.current_model().folder == second


def test_export_import_clear(tmp_path):
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    _install_model(prof, 0.92)
    zpath = prof.export(tmp_path / "table.zip")
    with zipfile.ZipFile(zpath) as z:
        assert PROFILE_FILE in z.namelist() and any(n.endswith(CLASSIFIER_FILE) for n in z.namelist())
    before = [d.to_json() for d in prof.dice()]
    assert prof.clear() and not prof.path.exists() and prof.clear() is False
    got = prof.import_from(zpath)
    assert got == {"photos": 3, "dice": 9}
    assert [d.to_json() for d in prof.dice()] == before and prof.current_model().unsure_below == 0.92
    # a bad import changes nothing
    snap = _snapshot(prof.path)
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(ProfileError, match="not a table profile export"):
        prof.import_from(tmp_path / "bad.zip")
    with zipfile.ZipFile(tmp_path / "evil.zip", "w") as z:
        z.writestr(PROFILE_FILE, "{}")
        z.writestr("../outside.txt", "x")
    with pytest.raises(ProfileError, match="unsafe path"):
        prof.import_from(tmp_path / "evil.zip")
    with zipfile.ZipFile(tmp_path / "torn.zip", "w") as z:
        z.writestr(PROFILE_FILE, '{"format": 1, "photos": 1, "dice": 5}')
        z.writestr(DICE_FILE, "")
    with pytest.raises(ProfileError, match="not imported"):
        prof.import_from(tmp_path / "torn.zip")
    assert _snapshot(prof.path) == snap and not (tmp_path / "outside.txt").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".prof")] == []
    # the same through the CLI
    out = io.StringIO()
    assert main(["profile", "clear", "--profile", str(prof.path)], out=out, err=io.StringIO()) == 0
    assert main(["profile", "import", str(zpath), "--profile", str(prof.path)], out=out, err=io.StringIO()) == 0
    assert main(["profile", "show", "--profile", str(prof.path)], out=(shown := io.StringIO()), err=io.StringIO()) == 0
    assert json.loads(shown.getvalue())["dice"] == 9


def test_import_and_clear_refuse_while_a_learner_holds_the_profile(tmp_path):
    """The learner holds the profile's lock for its whole run (``TableProfile.hold``): import and
    clear refuse (``ProfileBusy``, nothing changed), so its model lands in the profile it learned;
    a second learner refuses too; once it lets go, both work."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    zpath = prof.export(tmp_path / "table.zip")
    other = TableProfile(prof.path)  # Settings' own view of the same folder
    with prof.hold("learn"):
        assert other.busy() == "learn"
        snap = _snapshot(prof.path)
        for action in (other.clear, lambda: other.import_from(zpath), lambda: other.hold("learn").__enter__()):
            with pytest.raises(ProfileBusy, match="a learn is running"):
                action()
        assert _snapshot(prof.path) == snap
        _install_model(prof, 0.9)
    assert other.busy() is None and not (prof.path / LOCK_FILE).exists()
    assert other.current_model().unsure_below == 0.9
    assert other.import_from(zpath)["dice"] == 9 and other.current_model() is None
    assert other.clear() and not prof.path.exists()
    out, err = io.StringIO(), io.StringIO()
    other.import_from(zpath)
    with prof.hold("learn"):  # the CLI says so and exits 2
        assert main(["profile", "clear", "--profile", str(prof.path)], out=out, err=err) == 2
    assert "a learn is running" in err.getvalue() and prof.dice()


def test_a_learn_that_ends_after_a_clear_keeps_nothing(tmp_path):
    """A learner that did not hold the lock (or lost its folder) and ends after a clear: its model
    is not switched in, the cleared folder is not made again, and the next photo starts a clean
    profile (before: ``model/`` was made again without ``profile.json``, and the folder then
    refused every photo as "not a table profile")."""
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    early = prof.new_model_folder()
    (early / CLASSIFIER_FILE).write_bytes(b"trained on the old dice")
    assert prof.clear()
    with pytest.raises(ProfileError, match="cleared"):
        prof.new_model_folder()
    with pytest.raises(ProfileError):
        prof.switch_model(early, {"unsure_below": 0.9})
    assert not prof.path.exists()
    got = prof.add_photos(parse_labels(_labels(tmp_path, photos=1)))
    assert got["dice"] == 3 and prof.current_model() is None


def test_a_folder_that_is_not_a_profile_is_never_written_replaced_or_deleted(tmp_path):
    other = tmp_path / "Documents"
    other.mkdir()
    (other / "letter.txt").write_text("keep me")
    prof = TableProfile(other)
    zpath = tmp_path / "t.zip"
    donor = TableProfile(tmp_path / "donor")
    donor.add_photos(parse_labels(_labels(tmp_path)))
    donor.export(zpath)
    for action in (lambda: prof.clear(), lambda: prof.import_from(zpath),
                   lambda: prof.add_photos(parse_labels(tmp_path / "labels.jsonl"))):
        with pytest.raises(ProfileError, match="is not a table profile"):
            action()
    assert sorted(p.name for p in other.iterdir()) == ["letter.txt"]
    assert main(["profile", "clear", "--profile", str(other)], out=io.StringIO(), err=io.StringIO()) == 2
    assert (other / "letter.txt").read_text() == "keep me"
    # an empty folder is fine
    (tmp_path / "empty").mkdir()
    assert TableProfile(tmp_path / "empty").import_from(zpath)["dice"] == 9


def test_the_default_profile_is_in_the_apps_user_data_dir(monkeypatch, tmp_path):
    from companion.content.paths import user_data_dir

    for env in ({"ENCYCLOPEDIA_DATA_DIR": str(tmp_path / "d")}, {"ENCYCLOPEDIA_DATA_DIR": "", "XDG_DATA_HOME": str(tmp_path)}):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert default_profile_dir() == user_data_dir() / "table-profile"
        assert TableProfile().path == default_profile_dir()


SAMPLE = ROOT / "samples" / "dice"


def _sample_image() -> Path:
    images = sorted(p for p in SAMPLE.glob("*") if p.suffix.lower() in (".jpg", ".png"))
    if not images or not SHIPPED_CLASSIFIER.is_file():
        pytest.skip("no shipped model or sample images")
    return images[0]


def _read(args: list[str]) -> tuple[int, list[dict], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["read", "--json", *args], out=out, err=err)
    return code, [json.loads(x) for x in out.getvalue().splitlines()], err.getvalue()


def test_read_uses_the_profiles_adapted_pair(tmp_path, monkeypatch):
    image = _sample_image()
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path / "data"))
    code, shipped, _ = _read([str(image)])
    assert code == 0 and any(not d["unsure"] for d in shipped[0]["dice"])
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    _install_model(prof, 1.0)  # its threshold: nothing is sure
    code, adapted, _ = _read(["--profile", str(prof.path), str(image)])
    assert code == 0 and [d["value"] for d in adapted[0]["dice"]] == [d["value"] for d in shipped[0]["dice"]]
    assert all(d["unsure"] for d in adapted[0]["dice"])
    # the user's own profile is used without --profile, and --no-profile ignores it
    own = TableProfile(default_profile_dir())
    own.add_photos(parse_labels(_labels(tmp_path, name="own.jsonl")))
    _install_model(own, 1.0)
    assert all(d["unsure"] for d in _read([str(image)])[1][0]["dice"])
    assert _read(["--no-profile", str(image)])[1][0]["dice"] == shipped[0]["dice"]
    # the classifier read is the profile's file: a broken one is reported, the shipped one reads
    (prof.current_model().classifier).write_bytes(b"torn")
    code, lines, err = _read(["--profile", str(prof.path), str(image)])
    assert code == 0 and "warning: ignoring the table profile" in err and "cannot load" in err
    assert lines[0]["dice"] == shipped[0]["dice"]
    # and so is the detector, where the model holds one
    shutil.copy(SHIPPED_CLASSIFIER, prof.current_model().classifier)
    shutil.copy(SHIPPED_DETECTOR, prof.current_model().folder / DETECTOR_FILE)
    prof.switch_model(prof.current_model().folder, {"unsure_below": 1.0, "parts": ["classifier", "detector"]})
    code, both, _ = _read(["--profile", str(prof.path), str(image)])
    assert code == 0 and [d["box"] for d in both[0]["dice"]] == [d["box"] for d in shipped[0]["dice"]]
    (prof.current_model().detector).write_bytes(b"torn")
    code, lines, err = _read(["--profile", str(prof.path), str(image)])
    assert code == 0 and "its adapted model cannot load" in err and DETECTOR_FILE in err
    assert lines[0]["dice"] == shipped[0]["dice"]
    # the shipped model itself unusable is still an error (nothing to fall back to)
    code, _, err = _read(["--profile", str(prof.path), "--model-dir", str(tmp_path / "no-models"), str(image)])
    assert code == 2 and "cannot load the dice model" in err


def test_a_torn_profile_reads_with_the_shipped_model(tmp_path):
    image = _sample_image()
    prof = TableProfile(tmp_path / "prof")
    prof.add_photos(parse_labels(_labels(tmp_path)))
    _install_model(prof, 1.0)
    (prof.path / MODEL_DIR / CURRENT_FILE).write_text('{"fold')
    code, lines, err = _read(["--profile", str(prof.path), str(image)])
    assert code == 0 and "warning: ignoring the table profile" in err and "torn" in err
    assert any(not d["unsure"] for d in lines[0]["dice"])
    code, _, err = _read(["--profile", str(tmp_path / "no-such-profile"), str(image)])
    assert code == 2 and "no table profile folder" in err


def test_learn_without_the_learn_extra_keeps_the_dice(tmp_path):
    shim = tmp_path / "shim" / "torch"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('No module named torch (test shim)')\n")
    labels = _labels(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "shim"), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-m", "vision", "learn", "--profile", str(tmp_path / "prof"), str(labels)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert "learn' extra" in proc.stderr and "dice are kept" in proc.stderr
    assert len(TableProfile(tmp_path / "prof").dice()) == 9
    assert TableProfile(tmp_path / "prof").current_model() is None


@pytest.mark.parametrize("derived,kept", [(False, 3), (True, 1)])
def test_derived_negatives_leave_out_boxes_that_may_be_a_left_out_die(tmp_path, derived, kept):
    """The detector's own boxes (``derived``, as ``vision learn`` passes them) are "not a die" only
    away from the photo's border and from every confirmed die: a die cut by the frame or behind
    another is one a labels file leaves out, not one the player took away. Boxes a player removed
    in the app are kept whatever they touch."""
    img = np.full((200, 400, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "p.png"), img)
    die = {"box": [100, 80, 40, 40], "value": 3, "colour": "red"}
    (tmp_path / "l.jsonl").write_text(json.dumps({"image": "p.png", "dice": [die]}) + "\n")
    far, border, behind = (250, 80, 40, 40), (0, 80, 40, 40), (139, 60, 50, 40)  # behind: centre 164 > 120 + 40
    prof = TableProfile(tmp_path / "prof")
    got = prof.add_photos(parse_labels(tmp_path / "l.jsonl"), proposals=lambda im: [far, border, behind],
                          derived=derived)
    assert got["negatives"] == kept
    boxes = sorted(tuple(round(v) for v in d.box) for d in prof.dice() if not d.die)
    assert (far in boxes) and ((border in boxes) is not derived) and ((behind in boxes) is not derived)


def test_derived_negatives_take_a_border_box_that_looks_like_no_die(tmp_path):
    """(stop 69) With ``looks_like_a_die`` (``vision learn``: the shipped classifier's die
    probability at least ``CUT_DIE_FROM``), a border box it finds no die is "not a die"; one it finds
    a die may be a cut die and is left out; a box behind a confirmed die is left out either way."""
    img = np.full((200, 400, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "p.png"), img)
    die = {"box": [100, 80, 40, 40], "value": 3, "colour": "red"}
    (tmp_path / "l.jsonl").write_text(json.dumps({"image": "p.png", "dice": [die]}) + "\n")
    cable, cut, behind = (0, 80, 40, 40), (360, 10, 40, 40), (139, 60, 50, 40)
    asked = []

    def looks(image, boxes):
        asked.append(list(boxes))
        return [b != cable for b in boxes]

    prof = TableProfile(tmp_path / "prof")
    got = prof.add_photos(parse_labels(tmp_path / "l.jsonl"), proposals=lambda im: [cable, cut, behind],
                          derived=True, looks_like_a_die=looks)
    assert got["negatives"] == 1
    assert [tuple(round(v) for v in d.box) for d in prof.dice() if not d.die] == [cable]
    assert asked and cable in asked[0]



def test_learn_cli_asks_the_shipped_classifier_about_border_boxes(monkeypatch):
    """``vision learn``'s proposals: with ``CUT_DIE_FROM`` set, the second callable reads boxes with
    the shipped classifier (a flag per box, its die probability against the bar); None (as before
    stop 69): no second callable, every border box may be a cut die."""
    import vision.profile as profile_mod
    from vision.profile_cli import _proposals

    img = np.full((240, 320, 3), 150, np.uint8)
    boxes = [(0.0, 0.0, 40.0, 40.0), (100.0, 100.0, 50.0, 50.0)]
    monkeypatch.setattr(profile_mod, "CUT_DIE_FROM", None)
    proposals, looks = _proposals()
    assert callable(proposals) and looks is None
    monkeypatch.setattr(profile_mod, "CUT_DIE_FROM", 0.0)
    assert _proposals()[1](img, boxes) == [True, True]
    monkeypatch.setattr(profile_mod, "CUT_DIE_FROM", 1.01)
    assert _proposals()[1](img, boxes) == [False, False]
