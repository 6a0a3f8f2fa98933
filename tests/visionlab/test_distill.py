"""The narrower detector's start and loss (visionlab/train/distill.py; torch is the optional
'train' extra): the cut keeps the teacher where nothing is cut, the loss is zero on the teacher's
own outputs, a few steps bring a cut student closer, and the table learner loads any widths."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional 'train' extra")
pytest.importorskip("onnx", reason="onnx is the optional 'train' extra")

from vision.model import DEFAULT_MODEL_DIR  # noqa: E402
from visionlab.train.data import DET_SIZE  # noqa: E402
from visionlab.train.distill import (DistillInputs, _window, distill_loss, draw_input,  # noqa: E402
                                     slice_init)
from visionlab.train.nets import DETECTOR_CHANNELS, DETECTOR_HEAD, Detector, detector_shape  # noqa: E402
from visionlab.train.warmstart import detector_from_onnx  # noqa: E402

DET = DEFAULT_MODEL_DIR / "dice_detector.onnx"


def _inputs(n, seed=0):
    canvases = np.stack([draw_input(DistillInputs(seed=seed), i, []) for i in range(n)])
    return torch.from_numpy(canvases).permute(0, 3, 1, 2).float() / 255


def test_the_shipped_file_loads_at_its_own_widths():
    det = detector_from_onnx(DET)
    assert detector_shape({k[:-7]: v for k, v in det.state_dict().items() if k.endswith(".weight")}) == {
        "channels": DETECTOR_CHANNELS, "head": DETECTOR_HEAD}


def test_a_cut_to_the_same_widths_is_the_teacher():
    teacher = detector_from_onnx(DET).eval()
    same = slice_init(teacher, DETECTOR_CHANNELS, DETECTOR_HEAD).eval()
    x = _inputs(2)
    with torch.no_grad():
        for a, b in zip(teacher.forward_raw(x), same.forward_raw(x)):
            assert torch.allclose(a, b, atol=1e-4)
        assert distill_loss(same.forward_raw(x), teacher.forward_raw(x)).item() < 1e-6


def test_a_narrower_cut_has_its_widths_and_learns_towards_the_teacher():
    torch.manual_seed(0)
    teacher = detector_from_onnx(DET).eval()
    student = slice_init(teacher, (16, 16, 32, 64, 96), 16).eval()
    assert student.head[0].out_channels == 16 and student.s2[0][0].out_channels == 32
    x = _inputs(2, seed=3)
    with torch.no_grad():
        target = teacher.forward_raw(x)
        before = distill_loss(student.forward_raw(x), target).item()
    opt = torch.optim.Adam(student.parameters(), 1e-3)
    for _ in range(15):
        loss = distill_loss(student.forward_raw(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        after = distill_loss(student.forward_raw(x), target).item()
    assert before > 0.01 and after < 0.8 * before


def test_a_detector_needs_five_stages():
    with pytest.raises(ValueError, match="five stages"):
        Detector(channels=(16, 16, 32, 64))
    with pytest.raises(ValueError, match="not a detector"):
        detector_shape({"body.0.0": np.zeros((3, 3))})


def test_inputs_are_detector_sized_and_reproducible():
    a = draw_input(DistillInputs(seed=5), 4, [])
    assert a.shape == (DET_SIZE[1], DET_SIZE[0], 3) and a.dtype == np.uint8
    assert np.array_equal(a, draw_input(DistillInputs(seed=5), 4, []))
    # a window of a small image is padded with the letterbox grey where the photo ends
    w = _window(np.zeros((40, 200, 3), np.uint8), np.random.default_rng(0))   # 3.5 x finer: 358 px high
    assert w.shape == a.shape and (w == 114).any()


def test_image_folders_are_drawn_from(tmp_path):
    import cv2
    from visionlab.train.distill import load_images
    img = np.full((300, 400, 3), 200, np.uint8)
    cv2.imwrite(str(tmp_path / "a.jpg"), img)
    (tmp_path / "notes.txt").write_text("not an image")
    pool = load_images(DistillInputs(image_dirs=(str(tmp_path),)))
    assert len(pool) == 1
    # every input drawn from a pool of one light-grey photo: its grey (or the letterbox's) only
    opts = DistillInputs(image_dirs=(str(tmp_path),), image_share=1.0, photo_share=0.0)
    x = draw_input(opts, 0, pool)
    assert x.shape == (DET_SIZE[1], DET_SIZE[0], 3) and set(np.unique(x)) <= {114, 199, 200, 201}


def test_a_narrower_detector_checkpoint_exports_at_its_widths(tmp_path):
    pytest.importorskip("onnxscript", reason="onnxscript is the optional 'train' extra")
    from visionlab.train.__main__ import main as train_main
    student = slice_init(detector_from_onnx(DET).eval(), (16, 16, 32, 64, 96), 16)
    torch.save(student.state_dict(), tmp_path / "student.pt")   # as distill writes it
    train_main(["export", "--detector", str(tmp_path / "student.pt"),
                "--classifier", str(DEFAULT_MODEL_DIR / "dice_classifier.onnx"), "--out", str(tmp_path / "m")])
    back = detector_from_onnx(tmp_path / "m" / "dice_detector.onnx")
    assert back.head[0].out_channels == 16 and back.s2[0][0].out_channels == 32


def test_a_run_continues_from_an_earlier_student(tmp_path):
    from visionlab.train.distill import DistillConfig, start_student
    teacher = detector_from_onnx(DET).eval()
    cut = slice_init(teacher, (16, 16, 32, 64, 96), 16)
    with torch.no_grad():
        cut.hm.bias.fill_(0.5)   # so that a fresh cut and the saved student differ
    torch.save(cut.state_dict(), tmp_path / "student.pt")
    # its own widths, whatever --channels says; its weights, not a fresh cut's
    again = start_student(teacher, DistillConfig(out=tmp_path, channels=(16, 24, 48, 64, 96), head=32,
                                                 init=tmp_path / "student.pt"))
    assert detector_shape(again.state_dict()) == {"channels": (16, 16, 32, 64, 96), "head": 16}
    assert all(torch.equal(a, b) for a, b in zip(again.state_dict().values(), cut.state_dict().values()))
    # no init: the cut
    fresh = start_student(teacher, DistillConfig(out=tmp_path))
    assert float(fresh.hm.bias.detach()) != 0.5
    (tmp_path / "torn.pt").write_bytes((tmp_path / "student.pt").read_bytes()[:100])
    with pytest.raises(ValueError, match="torn.pt"):
        start_student(teacher, DistillConfig(out=tmp_path, init=tmp_path / "torn.pt"))
    with pytest.raises(ValueError, match="image_share"):
        DistillInputs(image_share=1.5)
