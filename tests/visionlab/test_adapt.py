"""bench --adapt's pieces (visionlab/bench/adapt.py) without learning: the player's
confirmations built from the ground truth, the table, the CLI hand-off."""
from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from vision.reader import Die
from visionlab.bench.adapt import confirmation, format_curves, run_domain
from visionlab.bench.cli import build_parser
from visionlab.bench.sets import DomainTruth


def test_a_domain_confirmation_is_every_wholly_framed_die():
    truths = [DomainTruth("red", 3, (1, 2, 30, 30)), DomainTruth("other", 5, (50, 2, 30, 30)),
              DomainTruth("blue", 2, (0, 0, 10, 30), partial=True)]
    line = confirmation({"image": Path("a.jpg"), "truths": truths}, "domain", None)
    assert line == {"image": str(Path("a.jpg").resolve()), "dice": [{"box": [1, 2, 30, 30], "value": 3, "colour": "red"},
                                                                   {"box": [50, 2, 30, 30], "value": 5, "colour": "other"}]}
    line = confirmation({"image": Path("a.jpg"), "truths": truths}, "domain", None, values_only=True)
    assert [d["colour"] for d in line["dice"]] == [None, None] and [d["value"] for d in line["dice"]] == [3, 5]


def test_a_real_confirmation_takes_the_readers_boxes_and_the_labels_values(tmp_path):
    labels = tmp_path / "a.txt"
    labels.write_text("3 0.25 0.5 0.05 0.05\n0 0.9 0.9 0.05 0.05\n")  # value 4 at (100, 100); value 1 missed
    die = SimpleNamespace(box=(80, 80, 40, 40))
    far = SimpleNamespace(box=(0, 0, 20, 20))
    reader = SimpleNamespace(read=lambda img: SimpleNamespace(error=None, image_size=(400, 200), dice=(far, die)))
    line = confirmation({"image": tmp_path / "a.jpg", "labels": labels}, "real", reader)
    assert line["dice"] == [{"box": [80, 80, 40, 40], "value": 4, "colour": None}]


def test_the_table_and_the_options():
    rows = [{"k": 0, "confirmed_dice": 0, "hands_free": 0.5, "sure_wrong_rate": 0.1, "confident_wrong": 1,
             "confident_reads": 10, "recall": 1.0, "value_accuracy": 0.9, "colour_accuracy": None,
             "unsure_below": 0.85},
            {"k": 10, "confirmed_dice": 30, "hands_free": 0.8, "sure_wrong_rate": 0.0, "confident_wrong": 0,
             "confident_reads": 12, "recall": 1.0, "value_accuracy": 1.0, "colour_accuracy": 0.95,
             "unsure_below": 0.88, "learn_seconds": 20.0, "learn_cpu_seconds": 15.0, "adopted": True,
             "false_detections": 2, "taps_per_photo": 1.25, "parts": ["classifier", "detector"]}]
    text = format_curves({"d": {"trained_on": False, "note": "n", "rows": rows}})
    assert "| 10 (30) | 80.0 % | 1.25 | 0.0 % (0 / 12) | 100.0 % | 2 | 100.0 % | 95.0 % | 20.0 (15.0) | 0.88 + detector |" in text
    assert "| 0 (0) | 50.0 % | - |" in text  # a row without the figure (an older run's JSON)
    assert "NO model trained on it" in text
    kept = dict(rows[1], k=20, adopted=False, model="an earlier learn's", parts=["classifier"])
    none = dict(rows[1], k=1, adopted=False, model="the shipped one", unsure_below=0.85)
    text = format_curves({"d": {"trained_on": False, "note": "n", "rows": [none, kept]}})
    assert "| 0.88 (not adopted: an earlier learn's model) |" in text
    assert "| 0.85 (not adopted: the shipped model) |" in text
    args = build_parser().parse_args(["--adapt", "--adapt-ks", "0", "10", "--adapt-trained"])
    assert args.adapt and args.adapt_ks == [0, 10] and args.adapt_trained and not args.adapt_values_only
    assert build_parser().parse_args(["--adapt", "--adapt-values-only"]).adapt_values_only


def test_a_rows_json_carries_its_threshold_sweep_and_its_wrong_sure_reads(tmp_path):
    """k = 0 reads with the shipped reader alone (no learning): the row keeps the sweep of its reads
    and the sure reads that were wrong."""
    truths = [DomainTruth("red", 3, (10, 10, 30, 30)), DomainTruth("blue", 2, (60, 10, 30, 30))]
    reads = (Die("red", 3, (10, 10, 30, 30), 0.95, False), Die("blue", 5, (60, 10, 30, 30), 0.89, False))
    reader = SimpleNamespace(config=SimpleNamespace(unsure_below=0.85),
                             read=lambda img: SimpleNamespace(error=None, ms=1.0, image_size=(200, 100), dice=reads))
    items = [{"image": tmp_path / f"{i}.jpg", "truths": truths} for i in range(3)]
    (row,) = run_domain("d", items, "domain", reader, (0,), tmp_path, tmp_path / "cache", io.StringIO())
    sweep = {x["unsure_below"]: (x["sure"], x["sure_wrong"]) for x in row["threshold_sweep"]}
    assert row["confident_wrong"] == 3 and sweep[0.85] == (6, 3)   # k = 0: every photo read, each with a wrong blue
    assert sweep[0.9] == (3, 0) and sweep[0.99] == (0, 0)
    wrong = row["confident_wrong_examples"]
    assert len(wrong) == 3 and wrong[0]["read"]["value"] == 5 and wrong[0]["truth"]["value"] == 2


def test_the_curves_bar_at_ten_photos():
    from visionlab.bench.adapt import curve_bar

    def row(k, hf, value, wrong, sure):
        return {"k": k, "confirmed_dice": 3 * k, "hands_free": hf, "sure_wrong_rate": wrong / sure, "confident_wrong": wrong,
                "confident_reads": sure, "recall": 1.0, "value_accuracy": value, "colour_accuracy": 0.9,
                "unsure_below": 0.85}
    assert curve_bar([row(0, 0.5, 0.9, 0, 50), row(10, 0.8, 0.95, 1, 100)]) == {"k": 10, "met": True, "misses": []}
    assert curve_bar([row(0, 0.5, 1.0, 0, 50), row(10, 0.8, 1.0, 1, 100)])["met"]        # value right at both
    bad = curve_bar([row(0, 0.5, 0.95, 0, 50), row(10, 0.5, 0.95, 2, 100)])
    assert not bad["met"] and len(bad["misses"]) == 3                                    # each figure says why
    assert "sure-and-wrong 2 of 100, over 1 %" in bad["misses"][2]
    assert curve_bar([row(0, 0.5, 0.9, 0, 50), row(5, 0.8, 0.95, 0, 100)]) is None      # no row at k = 10
    text = format_curves({"d": {"trained_on": False, "note": "n",
                                "rows": [row(0, 0.5, 0.9, 0, 50), row(10, 0.8, 0.95, 1, 100)]}})
    assert "k = 10 against k = 0: meets the bar" in text
    text = format_curves({"d": {"trained_on": False, "note": "n",
                                "rows": [row(0, 0.5, 0.95, 0, 50), row(10, 0.5, 0.95, 2, 100)]}})
    assert "misses the bar: hands-free 50.0 %, not above 50.0 %; value 95.0 %, not above 95.0 %" in text


def test_value_on_the_dice_both_readers_find(tmp_path, monkeypatch):
    """(stop 59) A reader that finds one die more and reads its value wrong lowers the value figure
    (a share of the dice found) while reading the common dice as well: the row says both, and the
    bar line says why value is not higher."""
    import visionlab.bench.adapt as adapt

    truths = [DomainTruth("red", 3, (10, 10, 30, 30)), DomainTruth("blue", 2, (60, 10, 30, 30))]

    def reader(dice):
        return SimpleNamespace(config=SimpleNamespace(unsure_below=0.85),
                               read=lambda img: SimpleNamespace(error=None, ms=1.0, image_size=(200, 100), dice=dice))
    shipped = reader((Die("red", 3, (10, 10, 30, 30), 0.5, True),))                       # finds the red only
    adapted = reader((Die("red", 3, (10, 10, 30, 30), 0.95, False), Die("blue", 5, (60, 10, 30, 30), 0.4, True)))
    monkeypatch.setattr(adapt, "learn_profile", lambda *a, **k: (0.1, 0.1, ""))
    monkeypatch.setattr(adapt, "adapted_reader", lambda profile, **k: adapted)
    monkeypatch.setattr(adapt, "_model_folder", lambda profile: None)
    items = [{"image": tmp_path / f"{i}.jpg", "truths": truths} for i in range(12)]
    rows = run_domain("d", items, "domain", shipped, (0, 10), tmp_path, tmp_path / "cache", io.StringIO())
    assert "value_common" not in rows[0]
    assert rows[0]["value_accuracy"] == 1.0 and rows[1]["value_accuracy"] == 0.5
    assert rows[1]["value_common"] == {"dice": 2, "right": 2, "right_before": 2, "found_only_now": 2, "right_only_now": 0}
    bar = adapt.curve_bar(rows)
    assert bar["misses"] == ["value 50.0 %, not above 100.0 % (on the 2 dice both find, 2 → 2 read right; "
                             "0 of the 2 dice only k = 10 finds)"]


def test_adapt_reads_with_the_pip_setting_asked_and_refuses_a_global_threshold(tmp_path, monkeypatch):
    """(stop 66) --pip-check / --no-pip-check reach the shipped reader and every adapted one (they
    were ignored under --adapt); --unsure-below is refused: each adapted model has its own."""
    import dataclasses

    import pytest

    import visionlab.bench.adapt as adapt
    from vision.cli import CliError
    from vision.config import PIP_CONFIRM_FROM
    from vision.reader import DiceReader

    made = []
    monkeypatch.setattr(DiceReader, "from_files", classmethod(lambda cls, **k: made.append(k["config"]) or
                                                              SimpleNamespace(config=k["config"])))
    for flag, on in (("--pip-check", True), ("--no-pip-check", False)):
        args = build_parser().parse_args(["--adapt", flag, "--no-real", "--domain-root", str(tmp_path)])
        assert adapt.run_adapt(args, io.StringIO(), io.StringIO()) == 0
        assert (made[-1].pip_confirm_from == PIP_CONFIRM_FROM) is on
    # an adapted reader is built on the shipped reader's settings, with its own threshold
    model = SimpleNamespace(reader_config=lambda b: dataclasses.replace(b, unsure_below=0.9), files={})
    monkeypatch.setattr("vision.profile.TableProfile.current_model", lambda self: model)
    reader = adapt.adapted_reader(tmp_path, base=made[0])
    assert reader.config.pip_confirm_from == PIP_CONFIRM_FROM and reader.config.unsure_below == 0.9
    args = build_parser().parse_args(["--adapt", "--unsure-below", "0.9", "--no-real"])
    with pytest.raises(CliError, match="--unsure-below cannot be used with --adapt"):
        adapt.run_adapt(args, io.StringIO(), io.StringIO())


def test_adapt_reads_every_reader_on_the_runtime_asked_and_refuses_another_model_dir(tmp_path, monkeypatch):
    """(stop 67) --backend and --threads reach the shipped reader and every adapted one (the adapted
    readers were built with the default runtime, the shipped one with one thread whatever was
    asked); --model-dir is refused: `vision learn` adapts the shipped models."""
    import pytest

    import visionlab.bench.adapt as adapt
    from vision.cli import CliError
    from vision.reader import DiceReader

    def read(img):
        return SimpleNamespace(error=None, ms=1.0, image_size=(200, 100), dice=(Die("red", 3, (10, 10, 30, 30), 0.95, False),))

    made = []
    monkeypatch.setattr(DiceReader, "from_files", classmethod(lambda cls, **k: made.append(k) or
                                                              SimpleNamespace(config=k["config"], read=read)))
    args = build_parser().parse_args(["--adapt", "--backend", "opencv", "--threads", "2", "--no-real",
                                      "--domain-root", str(tmp_path)])
    assert adapt.run_adapt(args, io.StringIO(), io.StringIO()) == 0
    assert (made[-1]["backend"], made[-1]["threads"]) == ("opencv", 2)
    # the adapted readers of run_domain: the runtime it is handed
    model = SimpleNamespace(reader_config=lambda b: b, files={})
    monkeypatch.setattr("vision.profile.TableProfile.current_model", lambda self: model)
    asked = []
    real = adapt.adapted_reader
    monkeypatch.setattr(adapt, "adapted_reader", lambda profile, **k: asked.append(k) or real(profile, **k))
    monkeypatch.setattr(adapt, "learn_profile", lambda *a, **k: (0.1, 0.1, ""))
    monkeypatch.setattr(adapt, "_model_folder", lambda profile: None)
    truths = [DomainTruth("red", 3, (10, 10, 30, 30))]
    shipped = SimpleNamespace(config=SimpleNamespace(unsure_below=0.85), read=read)
    items = [{"image": tmp_path / f"{i}.jpg", "truths": truths} for i in range(3)]
    made.clear()
    rows = run_domain("d", items, "domain", shipped, (0, 1), tmp_path, tmp_path / "cache", io.StringIO(),
                      backend="opencv", threads=2)
    assert [r["k"] for r in rows] == [0, 1]
    assert (asked[-1]["backend"], asked[-1]["threads"]) == ("opencv", 2)
    assert (made[-1]["backend"], made[-1]["threads"]) == ("opencv", 2)
    for bad, message in ((["--model-dir", str(tmp_path)], "--model-dir cannot be used with --adapt"),
                         (["--threads", "0"], "--threads must be at least 1")):
        args = build_parser().parse_args(["--adapt", "--no-real", *bad])
        with pytest.raises(CliError, match=message):
            adapt.run_adapt(args, io.StringIO(), io.StringIO())


def test_a_learn_is_pinned_to_the_benchs_own_core():
    """A bench pinned to a core (taskset -c N) learns on that core, not on core 0 (stop 74: two
    benches side by side both learned on core 0)."""
    import os

    from visionlab.bench.adapt import learn_core

    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this platform")
    before = os.sched_getaffinity(0)
    last = max(before)
    try:
        os.sched_setaffinity(0, {last})
        assert learn_core() == last
    finally:
        os.sched_setaffinity(0, before)
    assert learn_core() == min(before)
