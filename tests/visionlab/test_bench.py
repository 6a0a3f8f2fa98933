"""Benchmark plumbing (visionlab.bench): matching, scoring, the real-dataset reader, the CLI (fake model)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import pytest

from visionlab.bench import (
    Tally,
    main,
    match_by_centre,
    match_by_centre_distance,
    match_by_iou,
    read_yolo_labels,
    real_splits,
    score_real_image,
    score_synthetic_image,
)
from vision.reader import DiceReader, Die
from vision_testutil import REAL_DICE, FakeDiceModel, make_scene


class T:  # a synthetic ground-truth die (the fields bench uses)
    def __init__(self, colour, value, box, partial=False, top_box=None):
        self.colour, self.value, self.box, self.partial = colour, value, box, partial
        if top_box is not None:
            self.top_box = top_box


def die(colour, value, box, unsure=False):
    return Die(colour=colour, value=value, box=box, confidence=0.5 if unsure else 0.99, unsure=unsure)


def test_iou_matching_is_one_to_one_best_first() -> None:
    preds = [(0, 0, 10, 10), (1, 1, 10, 10), (50, 50, 10, 10)]
    truths = [(1, 1, 10, 10), (100, 100, 5, 5)]
    assert match_by_iou(preds, truths) == [(1, 0)]


def test_centre_matching_nearest_first() -> None:
    preds = [(0, 0, 40, 40), (30, 0, 40, 40)]
    centres = [(35, 20), (10, 20)]
    assert sorted(match_by_centre(preds, centres)) == [(0, 1), (1, 0)]
    assert match_by_centre([(0, 0, 5, 5)], [(50, 50)]) == []


def test_synthetic_scoring() -> None:
    truths = [T("red", 3, (0, 0, 20, 20)), T("other", 5, (40, 0, 20, 20)), T("blue", 2, (80, 0, 20, 20), partial=True),
              T("green", 6, (0, 40, 20, 20))]
    dice = [
        die("red", 3, (1, 1, 20, 20)),  # right
        die("unknown", 5, (40, 0, 20, 20)),  # "other" read as unknown: right
        die("blue", 4, (80, 0, 20, 20)),  # on a partial die: not scored
        die("green", 5, (0, 40, 20, 20)),  # wrong value, confident
        die("yellow", 1, (200, 200, 20, 20), unsure=True),  # false detection, unsure
    ]
    t = Tally()
    score_synthetic_image(t, dice, truths, "x")
    s = t.summary()
    assert s["dice"] == 3 and s["predictions"] == 4
    assert s["recall"] == 1.0
    assert s["false_detections"] == 1 and s["false_detection_rate"] == 0.25
    assert s["value_accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["colour_accuracy"] == 1.0
    assert s["read_right"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["all_dice_right_images"] == 0.0
    assert s["confident_reads"] == 3 and s["confident_wrong"] == 1
    assert s["confident_wrong_examples"][0]["truth"] == {"colour": "green", "value": 6}


def test_a_missed_die_makes_the_image_wrong() -> None:
    t = Tally()
    score_synthetic_image(t, [die("red", 3, (0, 0, 20, 20))], [T("red", 3, (0, 0, 20, 20)), T("red", 1, (50, 50, 20, 20))])
    s = t.summary()
    assert s["recall"] == 0.5 and s["all_dice_right_images"] == 0.0 and s["read_right"] == 0.5


def test_synthetic_breakdown_by_top_face_size_and_overlap() -> None:
    truths = [
        T("red", 3, (0, 0, 20, 20), top_box=(2, 2, 16, 7.9)),  # steep view: top face 7.9 px high
        T("blue", 2, (40, 0, 20, 20), top_box=(42, 2, 16, 14)),
        T("green", 6, (80, 0, 20, 20), top_box=(82, 2, 16, 14)),
        T("yellow", 1, (0, 40, 20, 20), top_box=(2, 42, 5, 16)),  # missed; touches the partial die
        T("purple", 4, (15, 55, 60, 60), partial=True, top_box=(200, 0, 4, 4)),  # not scored
    ]
    dice = [die("red", 5, (0, 0, 20, 20)), die("blue", 2, (40, 0, 20, 20)), die("green", 6, (80, 0, 20, 20))]
    t = Tally()
    score_synthetic_image(t, dice, truths)
    assert t.summary()["breakdown"] == {
        "apart from other dice": {"dice": 3, "recall": 1.0, "read_right": 0.66667},
        "overlapping another die": {"dice": 1, "recall": 0.0, "read_right": 0.0},
        "top face 8 px and over": {"dice": 2, "recall": 1.0, "read_right": 1.0},
        "top face under 8 px": {"dice": 2, "recall": 0.5, "read_right": 0.0},
    }
    # truths without a top face box (old fixtures): the overlap groups only
    t2 = Tally()
    score_synthetic_image(t2, dice, [T("red", 3, (0, 0, 20, 20)), T("blue", 2, (10, 10, 20, 20))])
    assert set(t2.summary()["breakdown"]) == {"overlapping another die"}


def test_real_scoring_value_only() -> None:
    t = Tally()
    labels = [(4, 15.0, 15.0), (2, 115.0, 15.0)]
    white = [
        Die("unknown", 4, (0, 0, 30, 30), 0.5, True, value_confidence=0.99, det_score=0.9),
        Die("unknown", 3, (100, 0, 30, 30), 0.5, True, value_confidence=0.95, det_score=0.9),  # sure, wrong
        Die("unknown", 1, (200, 0, 30, 30), 0.5, True, value_confidence=0.6, det_score=0.9),  # unsure FP
    ]
    score_real_image(t, white, labels)
    s = t.summary(with_colour=False)
    assert s["recall"] == 1.0 and s["value_accuracy"] == 0.5 and s["colour_accuracy"] is None
    assert s["false_detections"] == 1
    # confidence on the value alone (white dice are always "unknown" colour, hence unsure)
    assert s["confident_reads"] == 2 and s["confident_wrong"] == 1 and s["unsure_share"] == pytest.approx(1 / 3, abs=1e-4)


def test_detections_on_partly_framed_dice_are_not_scored() -> None:
    truths = [T("red", 3, (0, 0, 50, 50)), T("blue", 2, (600, 0, 40, 120), partial=True)]
    dice = [die("red", 3, (0, 0, 50, 50)), die("blue", 2, (610, 2, 30, 40)), die("green", 1, (300, 300, 40, 40))]
    t = Tally()
    score_synthetic_image(t, dice, truths)
    s = t.summary()
    assert s["dice"] == 1 and s["predictions"] == 2 and s["false_detections"] == 1 and s["recall"] == 1.0


def write_fake_real_dataset(root: Path) -> Path:
    ds = root / "fake-white"
    for split, scenes in {"valid": [[("red", 2), ("blue", 5)], [("green", 6)]]}.items():
        (ds / "images" / split).mkdir(parents=True)
        (ds / "labels" / split).mkdir(parents=True)
        for k, scene in enumerate(scenes):
            img, truth = make_scene(scene, seed=k)
            h, w = img.shape[:2]
            cv2.imwrite(str(ds / "images" / split / f"s{k}.jpg"), img)
            lines = []
            for t in truth:
                x, y, bw, bh = t["box"]
                lines.append(f"{t['value'] - 1} {(x + bw / 2) / w} {(y + bh / 2) / h} {0.5 * bw / w} {0.5 * bh / h}")
            (ds / "labels" / split / f"s{k}.txt").write_text("\n".join(lines) + "\n")
    return root


def test_bench_cli_on_a_fake_real_dataset(tmp_path: Path) -> None:
    root = write_fake_real_dataset(tmp_path / "real")
    assert list(real_splits(root)) == ["fake-white/valid"]
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "0", "--real", str(root), "--speed-runs", "0", "--json",
                 "--domain-root", str(tmp_path / "no-domains")],
                reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    report = json.loads(out.getvalue())
    real = report["real"]["fake-white/valid"]
    assert real["images"] == 2 and real["dice"] == 3
    assert real["recall"] == 1.0 and real["value_accuracy"] == 1.0 and real["false_detections"] == 0
    assert real["all_dice_right_images"] == 1.0
    assert "synthetic" not in report


def test_bench_cli_says_when_the_real_photos_are_missing(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "0", "--real", str(tmp_path / "nowhere"), "--speed-runs", "0", "--json",
                 "--no-domains"], reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    assert json.loads(out.getvalue())["real_skipped"] == f"no dataset at {tmp_path / 'nowhere'}"
    assert f"no real photos at {tmp_path / 'nowhere'}: the real sets are skipped" in err.getvalue()


def test_bench_cli_synthetic_and_speed_table(tmp_path: Path) -> None:
    pytest.importorskip("visionlab.render.synth")
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "2", "--sizes", "vga", "--no-real", "--speed-runs", "1",
                 "--domain-root", str(tmp_path / "no-domains")],
                reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert "synthetic seed 424242 (vga)" in text
    for label in ("recall", "false detections", "value accuracy", "colour accuracy", "all dice right, per image",
                  "wrong among confident", "median ms per image"):
        assert label in text
    assert "speed: median" in text and "model size:" in text


def test_yolo_labels(tmp_path: Path) -> None:
    p = tmp_path / "a.txt"
    p.write_text("0 0.5 0.5 0.1 0.1\n5 0.25 0.75 0.1 0.1\n\n")
    assert read_yolo_labels(p, 640, 480) == [(1, 320.0, 240.0), (6, 160.0, 360.0)]
    assert read_yolo_labels(tmp_path / "missing.txt", 640, 480) == []


def test_real_dataset_layout_when_present() -> None:
    if not REAL_DICE.is_dir():
        pytest.skip("../shared/datasets/real-dice is absent (a fresh clone has no ../shared)")
    splits = real_splits(REAL_DICE)
    assert {"matteo-white/train", "matteo-white/valid"} <= set(splits)
    img, label = splits["matteo-white/valid"][0]
    assert img.exists() and label.exists()
    for value, cx, cy in read_yolo_labels(label, 640, 480):
        assert 1 <= value <= 6 and 0 <= cx <= 640 and 0 <= cy <= 480


def test_threshold_sweep() -> None:
    from visionlab.bench import threshold_sweep

    reads = [(0.99, True), (0.96, False), (0.85, True), (0.4, False)]
    sweep = {x["unsure_below"]: x for x in threshold_sweep(reads, (0.5, 0.9, 0.98))}
    assert sweep[0.5] == {"unsure_below": 0.5, "sure_share": 0.75, "sure": 3, "sure_wrong": 1}
    assert sweep[0.9]["sure"] == 2 and sweep[0.9]["sure_wrong"] == 1
    assert sweep[0.98]["sure"] == 1 and sweep[0.98]["sure_wrong"] == 0


# ------------------------------------------------------------------------------------------
# Domains (issue 16)
# ------------------------------------------------------------------------------------------


def test_centre_distance_matching_half_the_diagonal_nearest_first() -> None:
    from visionlab.bench import match_by_centre_distance

    truths = [(0, 0, 30, 40)]  # centre (15, 20), half diagonal 25
    assert match_by_centre_distance([(24, 0, 30, 40)], truths) == [(0, 0)]  # centre 24 px away
    assert match_by_centre_distance([(26, 0, 30, 40)], truths) == []  # 26 px away
    # one to one, nearest first: the second read of the same die is left over
    assert match_by_centre_distance([(10, 0, 30, 40), (1, 1, 30, 40)], truths) == [(1, 0)]


def test_hands_free_and_sure_wrong_rate() -> None:
    truths = [T("red", 3, (0, 0, 20, 20)), T("blue", 2, (40, 0, 20, 20)), T("green", 6, (80, 0, 20, 20)),
              T("yellow", 1, (0, 40, 20, 20))]
    dice = [die("red", 3, (0, 0, 20, 20)),  # sure, right: hands-free
            die("blue", 2, (40, 0, 20, 20), unsure=True),  # right but unsure: a tap
            die("green", 5, (80, 0, 20, 20)),  # sure and wrong
            die("purple", 4, (300, 300, 20, 20))]  # sure false detection
    t = Tally()
    score_synthetic_image(t, dice, truths)
    s = t.summary()
    assert s["hands_free"] == 0.25  # 1 of 4 dice
    assert s["sure_wrong_rate"] == pytest.approx(2 / 3, abs=1e-4)  # 2 of 3 sure reads
    # taps: the unsure blue, the wrong green, the missed yellow, the false purple (one photo)
    assert s["taps_per_photo"] == 4.0
    # an "other" die (right read: "unknown", never sure) is left out of hands-free
    t2 = Tally()
    score_synthetic_image(t2, dice[:1] + [Die("unknown", 2, (40, 0, 20, 20), 0.99, True)],
                          [truths[0], T("other", 2, (40, 0, 20, 20))])
    assert t2.summary()["hands_free"] == 1.0 and t2.summary()["read_right"] == 1.0


def write_domain(folder: Path, scenes, info=None, colours=True) -> Path:
    folder.mkdir(parents=True)
    (folder / "domain.json").write_text(json.dumps(info or {"domain": "fake", "renderer": "make_scene"}))
    for k, scene in enumerate(scenes):
        img, truth = make_scene(scene, seed=k)
        cv2.imwrite(str(folder / f"{k:05d}.jpg"), img)
        dice = [{"colour": t["colour"] if colours else None, "value": t["value"], "box": list(t["box"]),
                 "partial": False} for t in truth]
        (folder / f"{k:05d}.json").write_text(json.dumps({"image": f"{k:05d}.jpg", "dice": dice}))
    return folder


def test_domain_directory_is_read_and_scored(tmp_path: Path) -> None:
    from visionlab.bench import load_domain_dir

    root = tmp_path / "domains"
    write_domain(root / "fake-pbr", [[("red", 2), ("blue", 5)], [("green", 6)]])
    info, scenes = load_domain_dir(root / "fake-pbr")
    assert info["domain"] == "fake" and len(scenes) == 2 and scenes[0][1][0].value == 2
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "0", "--no-real", "--speed-runs", "0", "--json",
                 "--domain-root", str(root), "--trained-on", "synth-*"],
                reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    report = json.loads(out.getvalue())
    d = report["domains"]["fake-pbr"]
    assert d["dice"] == 3 and d["recall"] == 1.0 and d["value_accuracy"] == 1.0 and d["colour_accuracy"] == 1.0
    assert d["trained_on"] is False and report["trained_on"] == ["synth-*"]
    assert d["hands_free"] is not None and d["sure_wrong_rate"] is not None


def test_domain_table_lists_held_out_domains_first(tmp_path: Path) -> None:
    root = tmp_path / "domains"
    write_domain(root / "fake-pbr", [[("red", 2)]])
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "1", "--sizes", "vga", "--no-real", "--speed-runs", "0",
                 "--domain-root", str(root), "--trained-on", "synth-*"],
                reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[0].split()[:4] == ["domain", "trained", "on", "dice"] and "hands-free" in lines[0]
    assert lines[1].split()[:2] == ["fake-pbr", "NO"]
    # synth-large-12mp: the large-photo domain (issue 38 item 6), one photo at --synthetic-count 1
    assert {line.split()[0] for line in lines[2:5]} == {"synth-classic", "synth-random", "synth-large-12mp"}
    assert all("yes" in line for line in lines[2:5])


def test_a_bad_domain_directory_is_a_clear_error(tmp_path: Path) -> None:
    from visionlab.bench import load_domain_dir

    with pytest.raises(ValueError, match="no domain.json"):
        load_domain_dir(tmp_path)
    bad = write_domain(tmp_path / "bad", [[("red", 2)]])
    (bad / "00000.json").write_text("{not json")
    with pytest.raises(ValueError, match="00000.json"):
        load_domain_dir(bad)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "0", "--no-real", "--speed-runs", "0", "--domain-root",
                 str(tmp_path / "none"), "--domain-dir", str(tmp_path / "missing")],
                reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 2 and "not a domain directory" in err.getvalue()


def test_trained_on_prefixes() -> None:
    from visionlab.bench import trained_domains, was_trained_on

    assert was_trained_on("synth-random", ["synth-*"]) and not was_trained_on("pbr-424242", ["synth-*"])
    assert was_trained_on("real matteo-white/train", ["real matteo-white/train"])
    assert not was_trained_on("real matteo-white/valid", ["real matteo-white/train"])
    assert isinstance(trained_domains(), list)  # the shipped models/training.json parses


def test_a_domain_without_colour_labels_is_scored_on_values_and_counts_for_hands_free(tmp_path: Path) -> None:
    root = tmp_path / "domains"
    write_domain(root / "white", [[("red", 2), ("blue", 5)], [("green", 6)]], colours=False)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--synthetic-count", "0", "--no-real", "--speed-runs", "0", "--json",
                 "--domain-root", str(root), "--trained-on", "synth-*"],
                reader_factory=lambda a, c: DiceReader(FakeDiceModel()), out=out, err=err)
    assert code == 0, err.getvalue()
    d = json.loads(out.getvalue())["domains"]["white"]
    assert d["colour_accuracy"] is None and d["value_accuracy"] == 1.0 and d["read_right"] == 1.0
    # every die counts for hands-free; sure means sure of the value (as for the real photos)
    assert d["hands_free"] is not None and d["hands_free"] > 0


def test_a_photo_needs_no_tap_only_when_every_game_die_is_sure_and_right_and_nothing_else_is_read() -> None:
    truths = [T("red", 3, (0, 0, 20, 20)), T("blue", 2, (40, 0, 20, 20)), T("green", 6, (300, 0, 20, 20), partial=True)]
    right = [die("red", 3, (0, 0, 20, 20)), die("blue", 2, (40, 0, 20, 20))]
    cases = [
        (right, True),
        (right + [die("green", 6, (300, 0, 20, 20))], True),  # on the partly framed die: not scored
        (right[:1], False),  # a die missed
        (right[:1] + [die("blue", 2, (40, 0, 20, 20), unsure=True)], False),  # right but unsure: a tap
        (right[:1] + [die("blue", 5, (40, 0, 20, 20))], False),  # sure and wrong
        (right + [die("yellow", 1, (200, 200, 20, 20), unsure=True)], False),  # a chip on no die
    ]
    for dice, no_tap in cases:
        t = Tally()
        score_synthetic_image(t, dice, truths, match=match_by_centre_distance)
        assert t.summary()["no_tap_images"] == (1.0 if no_tap else 0.0), dice
    # another game's die: its right read ("unknown") is a chip to remove; unread, it costs nothing
    other = T("other", 4, (100, 0, 20, 20))
    t = Tally()
    score_synthetic_image(t, right + [die("unknown", 4, (100, 0, 20, 20), unsure=True)], truths[:2] + [other],
                          match=match_by_centre_distance)
    score_synthetic_image(t, right, truths[:2] + [other], match=match_by_centre_distance)
    assert t.summary()["no_tap_images"] == 0.5


def test_real_photos_need_no_tap_when_every_value_is_sure_and_right_at_the_reader_threshold() -> None:
    labels = [(4, 15.0, 15.0), (2, 115.0, 15.0)]
    white = [Die("unknown", 4, (0, 0, 30, 30), 0.5, True, value_confidence=0.99, det_score=0.9),
             Die("unknown", 2, (100, 0, 30, 30), 0.5, True, value_confidence=0.93, det_score=0.9)]
    for unsure_below, no_tap in ((0.90, 1.0), (0.95, 0.0)):
        t = Tally(unsure_below=unsure_below)
        score_real_image(t, white, labels)
        assert t.summary(with_colour=False)["no_tap_images"] == no_tap
    t = Tally(unsure_below=0.90)
    extra = Die("unknown", 1, (200, 0, 30, 30), 0.2, True, value_confidence=0.3, det_score=0.7)
    score_real_image(t, white + [extra], labels)
    assert t.summary(with_colour=False)["no_tap_images"] == 0.0  # an extra chip on no die


def test_the_bench_threshold_can_be_set_for_a_comparison(tmp_path, monkeypatch) -> None:
    from vision.cli import default_reader_factory

    made = []

    def from_files(**kw):
        made.append(kw["config"])
        return DiceReader(FakeDiceModel(), config=kw["config"])

    monkeypatch.setattr(DiceReader, "from_files", staticmethod(from_files))
    argv = ["--json", "--no-real", "--no-domains", "--synthetic-count", "0", "--speed-runs", "0"]
    from vision.config import DEFAULT_READER

    for extra, want in (([], DEFAULT_READER.unsure_below), (["--unsure-below", "0.97"], 0.97)):
        out = io.StringIO()
        assert main(argv + extra, reader_factory=default_reader_factory, out=out, err=io.StringIO()) == 0
        assert json.loads(out.getvalue())["unsure_below"] == want and made[-1].unsure_below == want
    err = io.StringIO()
    bad = argv + ["--unsure-below", "1.5"]
    assert main(bad, reader_factory=default_reader_factory, out=io.StringIO(), err=err) != 0
    assert "--unsure-below" in err.getvalue()


class Scripted:  # a model that finds no die (the bench test of the pip check: test_vision_pips.py)
    def read(self, image_bgr):
        return []


def test_the_bench_can_measure_with_and_without_the_pip_check(tmp_path, monkeypatch) -> None:
    """`python -m vision bench` measures the shipped reader (the check on since stop 69); `--pip-check`
    switches it on and `--no-pip-check` off, and the report says which (for comparisons)."""
    import io
    import json

    from vision.cli import default_reader_factory
    from vision.config import PIP_CONFIRM_FROM

    made = []

    def from_files(**kw):
        made.append(kw["config"])
        return DiceReader(Scripted(), config=kw["config"])

    monkeypatch.setattr(DiceReader, "from_files", staticmethod(from_files))
    for flag, on in (([], True), (["--pip-check"], True), (["--no-pip-check"], False)):
        out = io.StringIO()
        argv = ["--json", "--no-real", "--no-domains", "--synthetic-count", "0", "--speed-runs", "0", *flag]
        assert main(argv, reader_factory=default_reader_factory, out=out, err=io.StringIO()) == 0
        assert json.loads(out.getvalue())["pip_check"] is on
        assert (made[-1].pip_confirm_from == PIP_CONFIRM_FROM) is on


def test_python_m_vision_bench_hands_off_to_the_lab() -> None:
    """``python -m vision bench`` runs ``python -m visionlab.bench`` with the same options (the
    runtime never imports the lab: it replaces itself by the lab's process)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    runs = [subprocess.run([sys.executable, "-m", *cmd, "--help"], cwd=repo, capture_output=True, text=True,
                           timeout=120) for cmd in (["vision", "bench"], ["visionlab.bench"])]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert runs[0].stdout == runs[1].stdout
    assert "--synthetic-count" in runs[0].stdout and "--domain-root" in runs[0].stdout
