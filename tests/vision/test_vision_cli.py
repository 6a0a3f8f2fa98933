"""The CLI contract (docs/vision.md): in-process with a fake reader, and via subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.__main__ import main
from vision.calibration import Calibration
from vision.reader import DiceReader
from vision_testutil import REPO, FakeDiceModel, apply_cast, make_scene

SCENE = [("red", 1), ("yellow", 2), ("purple", 3), ("blue", 4), ("green", 5)]


def fake_factory(args, calibration):
    return DiceReader(FakeDiceModel(), calibration=calibration)


def run_cli(argv, factory=fake_factory, env_dir: Path | None = None, monkeypatch=None):
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, reader_factory=factory, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: Path, monkeypatch) -> dict[str, Path]:
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path / "profile"))
    img, _ = make_scene(SCENE)
    good = tmp_path / "dice.png"
    cv2.imwrite(str(good), img)
    text = tmp_path / "notes.jpg"
    text.write_text("not an image")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    table = tmp_path / "table.png"
    cv2.imwrite(str(table), np.full((240, 320, 3), 128, np.uint8))
    return {"good": good, "text": text, "empty": empty, "table": table, "missing": tmp_path / "missing.jpg"}


def test_read_json_one_line_per_image_in_order(files) -> None:
    argv = ["read", str(files["good"]), str(files["text"]), str(files["missing"]), str(files["table"]), "--json"]
    code, out, _ = run_cli(argv)
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["image"] for line in lines] == argv[1:5]
    good, text, missing, table = lines
    assert set(good) == {"image", "dice", "ms"}
    assert [(d["colour"], d["value"]) for d in good["dice"]] == SCENE
    assert good["dice"][0] == {"colour": "red", "value": 1, "box": [30, 30, 60, 60],
                               "confidence": good["dice"][0]["confidence"], "unsure": False}
    assert text == {"image": argv[2], "error": "not an image (unrecognised file format)"}
    assert missing == {"image": argv[3], "error": "file not found"}
    assert table["dice"] == [] and "error" not in table


def test_exit_code_is_non_zero_only_when_every_image_failed(files) -> None:
    code, out, _ = run_cli(["read", str(files["text"]), str(files["empty"]), "--json"])
    assert code == 1
    assert [json.loads(line)["error"] for line in out.splitlines()] == [
        "not an image (unrecognised file format)", "empty file"]


def test_an_exception_in_one_image_does_not_stop_the_run(files) -> None:
    class Exploding:
        def read(self, source):
            if str(source).endswith("dice.png"):
                raise RuntimeError("boom")
            return DiceReader(FakeDiceModel()).read(source)

    code, out, _ = run_cli(["read", str(files["good"]), str(files["table"]), "--json"], factory=lambda a, c: Exploding())
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["error"] == "internal error: RuntimeError: boom"
    assert second["dice"] == []
    assert code == 0


def test_read_text_output(files) -> None:
    code, out, _ = run_cli(["read", str(files["good"]), str(files["text"]), str(files["table"])])
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith(f"{files['good']}: red 1, yellow 2, purple 3, blue 4, green 5  [5 dice, ")
    assert lines[1] == f"{files['text']}: error: not an image (unrecognised file format)"
    assert lines[2].startswith(f"{files['table']}: no dice (")


def test_calibrate_then_read_uses_the_profile_calibration(files, tmp_path: Path) -> None:
    cast = (0.55, 0.9, 1.3)
    cal_img, _ = make_scene([(c, 2) for c in ("red", "yellow", "purple", "blue", "green")], seed=9)
    photo = tmp_path / "my-dice.png"
    cv2.imwrite(str(photo), apply_cast(cal_img, cast))
    game, _ = make_scene([("purple", 3), ("purple", 6), ("red", 2)], seed=2)
    shot = tmp_path / "round.png"
    cv2.imwrite(str(shot), apply_cast(game, cast))

    code, out, _ = run_cli(["read", str(shot), "--json"])
    assert [d["colour"] for d in json.loads(out)["dice"]] != ["purple", "purple", "red"]

    code, out, err = run_cli(["calibrate", str(photo), "--colours", "red,yellow,purple,blue,green"])
    assert code == 0, err
    stored = tmp_path / "profile" / "dice-calibration.json"
    assert stored.exists() and str(stored) in out
    assert set(Calibration.load(stored).centroids) == {"red", "yellow", "purple", "blue", "green"}

    code, out, _ = run_cli(["read", str(shot), "--json"])
    assert [d["colour"] for d in json.loads(out)["dice"]] == ["purple", "purple", "red"]
    code, out, _ = run_cli(["read", str(shot), "--json", "--no-calibration"])
    assert [d["colour"] for d in json.loads(out)["dice"]] != ["purple", "purple", "red"]

    code, out, _ = run_cli(["calibrate", "--show"])
    assert json.loads(out)["format"] == "encyclopedia-dice-calibration"
    code, out, _ = run_cli(["calibrate", "--clear"])
    assert code == 0 and not stored.exists()


def test_calibrate_errors_are_clear_and_change_nothing(files, tmp_path: Path) -> None:
    stored = tmp_path / "profile" / "dice-calibration.json"
    code, _, err = run_cli(["calibrate", str(files["good"]), "--colours", "red,yellow"])
    assert code == 2 and "found 5 dice but 2 colours" in err
    code, _, err = run_cli(["calibrate", str(files["good"]), "--colours", "red,pink"])
    assert code == 2 and "unknown dice colour(s) pink" in err
    code, _, err = run_cli(["calibrate", str(files["text"]), "--colour", "red"])
    assert code == 2 and "not an image" in err
    code, _, err = run_cli(["calibrate", str(files["good"])])
    assert code == 2 and "--colours" in err
    assert not stored.exists()


def test_a_broken_profile_calibration_is_a_warning_not_a_failure(files, tmp_path: Path) -> None:
    stored = tmp_path / "profile" / "dice-calibration.json"
    stored.parent.mkdir(parents=True)
    stored.write_text("{broken")
    code, out, err = run_cli(["read", str(files["good"]), "--json"])
    assert code == 0 and "warning: ignoring the colour calibration" in err
    assert len(json.loads(out)["dice"]) == 5
    code, _, err = run_cli(["read", str(files["good"]), "--calibration", str(stored)])
    assert code == 2 and "not valid JSON" in err


# ---------------------------------------------------------------------------- subprocess


def run_module(args, cwd: Path, timeout: float = 120):
    env = dict(os.environ, ENCYCLOPEDIA_DATA_DIR=str(cwd / "profile"))
    return subprocess.run([sys.executable, "-m", "vision", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_subprocess_missing_model_is_a_clear_failure(tmp_path: Path) -> None:
    img, _ = make_scene(SCENE)
    cv2.imwrite(str(tmp_path / "a.png"), img)
    empty_models = tmp_path / "nomodels"
    empty_models.mkdir()
    proc = run_module(["read", "a.png", "--json", "--model-dir", str(empty_models)], tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "cannot load the dice model" in proc.stderr


def test_subprocess_usage_errors(tmp_path: Path) -> None:
    proc = run_module(["read"], tmp_path)
    assert proc.returncode == 2 and "usage" in proc.stderr
    proc = run_module(["read", "a.png", "--backend", "tensorrt"], tmp_path)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    proc = run_module(["live"], tmp_path)
    assert proc.returncode == 2


def shipped_model_present() -> bool:
    return (REPO / "models" / "dice_detector.onnx").exists()


@pytest.mark.skipif(not shipped_model_present(), reason="the trained model is not in models/ yet")
@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
def test_subprocess_read_contract_with_the_shipped_model(tmp_path: Path, backend: str) -> None:
    img, _ = make_scene(SCENE)
    cv2.imwrite(str(tmp_path / "dice.png"), img)
    (tmp_path / "text.jpg").write_text("hello")
    (tmp_path / "empty.jpg").write_bytes(b"")
    cv2.imwrite(str(tmp_path / "dot.png"), np.zeros((1, 1, 3), np.uint8))
    names = ["dice.png", "text.jpg", "empty.jpg", "missing.jpg", "dot.png"]
    proc = run_module(["read", *names, "--json", "--backend", backend], tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["image"] for line in lines] == names
    dice, text, empty, missing, dot = lines
    assert set(dice) == {"image", "dice", "ms"} and isinstance(dice["ms"], (int, float))
    for d in dice["dice"]:
        assert set(d) == {"colour", "value", "box", "confidence", "unsure"}
        assert d["colour"] in {"red", "yellow", "purple", "blue", "green", "unknown"}
        assert 1 <= d["value"] <= 6 and 0 <= d["confidence"] <= 1
        assert len(d["box"]) == 4 and all(isinstance(v, int) for v in d["box"])
    assert set(text) == {"image", "error"} and set(empty) == {"image", "error"} and set(missing) == {"image", "error"}
    assert dot["dice"] == []
    proc = run_module(["read", "text.jpg", "empty.jpg", "--json", "--backend", backend], tmp_path)
    assert proc.returncode == 1 and len(proc.stdout.splitlines()) == 2


def test_read_from_stdin(files, monkeypatch) -> None:
    data = files["good"].read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = run_cli(["read", "-", "-", "--json"])
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["image"] == "-" and [(d["colour"], d["value"]) for d in first["dice"]] == SCENE
    assert second == {"image": "-", "error": "stdin was already read"}
    assert code == 0
