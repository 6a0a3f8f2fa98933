"""Training code that needs torch (the ``train`` extra): skipped where it is not installed.

Warm start from the shipped ONNX files, the shared losses, and a few seconds of the streaming
trainer on the CPU."""
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional 'train' extra")
pytest.importorskip("onnx", reason="onnx is the optional 'train' extra")
# the exporter (visionlab/train/export.py: torch.onnx.export(dynamo=True)) needs onnxscript;
# without it the export tests failed deep inside torch instead of saying what is missing
pytest.importorskip("onnxscript", reason="onnxscript is the optional 'train' extra")

from vision.model import DEFAULT_MODEL_DIR  # noqa: E402
from vision.runtime import create_runtime  # noqa: E402
from visionlab.train.nets import Classifier, Detector  # noqa: E402
from visionlab.train.warmstart import load_onnx_weights, recalibrate_batchnorm  # noqa: E402

DET = DEFAULT_MODEL_DIR / "dice_detector.onnx"
CLS = DEFAULT_MODEL_DIR / "dice_classifier.onnx"


def _crops(n, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (n, 1, 1, 3))
    return np.clip(base + rng.normal(0, 40, (n, 64, 64, 3)), 0, 255).astype(np.uint8)


def _as_input(u8):
    return torch.from_numpy(u8).permute(0, 3, 1, 2).float() / 255


def test_onnx_weights_put_back_give_the_shipped_outputs():
    x = _as_input(_crops(6))
    rt = create_runtime(str(CLS), backend="onnxruntime", threads=1)
    ref = rt.run({"crops": x.numpy()})
    net = load_onnx_weights(Classifier(), CLS).eval()
    with torch.no_grad():
        got = dict(zip(("value_probs", "colour_probs", "die_prob"), net(x)))
    for k, v in got.items():
        assert np.abs(v.numpy() - np.asarray(ref[k])).max() < 1e-4
    # recalibrating the BatchNorm statistics keeps what the network computes in eval mode ...
    recalibrate_batchnorm(net, [_as_input(_crops(64, seed=1))])
    with torch.no_grad():
        again = net(x)
    for a, b in zip(got.values(), again):
        assert torch.allclose(a, b, atol=1e-4)
    # ... and gives each BatchNorm the statistics of its input
    bn = net.body[0][1]
    assert not torch.allclose(bn.running_mean, torch.zeros_like(bn.running_mean))


def test_detector_weights_put_back_too():
    from visionlab.train.data import DET_SIZE
    img = np.random.default_rng(2).integers(0, 255, (1, DET_SIZE[1], DET_SIZE[0], 3)).astype(np.uint8)
    rt = create_runtime(str(DET), backend="onnxruntime", threads=1)
    ref = rt.run({"image": _as_input(img).numpy()})
    net = load_onnx_weights(Detector(), DET).eval()
    with torch.no_grad():
        hm, wh, off = net(_as_input(img))
    assert np.abs(hm.numpy() - np.asarray(ref["heatmap"])).max() < 1e-3
    assert np.abs(off.numpy() - np.asarray(ref["offset"])).max() < 1e-3


def test_onnx_weights_of_another_network_are_refused():
    with pytest.raises(ValueError, match="shape|no module"):
        load_onnx_weights(Classifier(), DET)
    with pytest.raises(ValueError, match="shape"):
        load_onnx_weights(Classifier(width=0.5), CLS)


def test_losses_fall_on_a_repeated_batch():
    from visionlab.train.data import DET_SIZE, STRIDE, det_targets
    from visionlab.train.train import classifier_loss, detector_loss
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    img = np.full((2, DET_SIZE[1], DET_SIZE[0], 3), 90, np.uint8)
    img[:, 100:140, 60:100] = 230                      # a bright square: the "die"
    hm, ind, wh, off, mask = det_targets([np.array([[60, 100, 40, 40]], np.float32)] * 2,
                                         DET_SIZE[1] // STRIDE, DET_SIZE[0] // STRIDE)
    batch = {"image": torch.from_numpy(img), "hm": torch.from_numpy(hm), "ind": torch.from_numpy(ind),
             "wh": torch.from_numpy(wh), "off": torch.from_numpy(off), "mask": torch.from_numpy(mask)}
    det = Detector()
    opt = torch.optim.Adam(det.parameters(), 3e-3)
    first = None
    for _ in range(15):
        loss, parts = detector_loss(det, batch, gen)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.7 * first and len(parts) == 3
    cls = Classifier()
    crops = _crops(32, seed=3)
    cb = {"crops": torch.from_numpy(crops), "value": torch.arange(32) % 6,
          "colour": torch.where(torch.arange(32) % 4 == 0, -1, torch.arange(32) % 6), "die": torch.ones(32)}
    opt = torch.optim.Adam(cls.parameters(), 3e-3)
    first = None
    for _ in range(15):
        loss, (right, count, both) = classifier_loss(cls, cb, gen, upright=True)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.7 * first and count == 32 and 0 <= both <= right <= count


def test_streaming_trainer_runs_and_saves_on_the_cpu(tmp_path):
    from visionlab.train.online import OnlineConfig, load_real_mosaic, save_real_mosaic, train_online
    ramp = np.linspace(0, 120, 64)[None, :, None, None]
    crops = np.clip(np.arange(7)[:, None, None, None] * 15 + ramp + np.zeros((7, 64, 64, 3)), 0, 255).astype(np.uint8)
    save_real_mosaic(tmp_path / "real.jpg", crops, [0, 1, 2, 3, 4, 5, -1], [5] * 6 + [-1], [1] * 6 + [0], cols=3)
    back = load_real_mosaic(tmp_path / "real.jpg")
    assert back[0].shape == crops.shape and np.abs(back[0].astype(int) - crops).mean() < 3
    assert list(back[1]) == [0, 1, 2, 3, 4, 5, -1]
    # ends on its step count (3), not on the clock: a loaded machine only makes it slower
    cfg = OnlineConfig(out=tmp_path / "run", minutes=3.0, steps=3, device="cpu", workers=1, seed=5,
                       det_init=DET, cls_init=CLS, det_batch=2, cls_batch=16, det_capacity=64,
                       cls_capacity=2000, min_scenes=4, real=tmp_path / "real.jpg", real_share=0.25,
                       mining_model=DEFAULT_MODEL_DIR, log_every=2, save_every=10)
    res = train_online(cfg, log=lambda s: None)
    assert res["steps"] == 3 and res["stats"]["scenes"] >= 4
    assert res["stats"]["kinds"][1] > 0                 # crops cut on the mining detector's boxes
    for name in ("det", "cls", "det_ema", "cls_ema"):
        assert (tmp_path / "run" / f"{name}.pt").is_file()
    log = json.loads((tmp_path / "run" / "log.json").read_text())
    assert log["tag"] == "final" and log["steps"] == res["steps"] and log["history"]
    state = torch.load(tmp_path / "run" / "cls_ema.pt")
    Classifier().load_state_dict(state)


def test_streaming_trainer_classifier_alone_with_other_renderers_crops(tmp_path):
    from visionlab.train.online import OnlineConfig, save_real_mosaic, train_online
    from visionlab.train.stream import StreamOptions, scene_setup
    n = 12
    save_real_mosaic(tmp_path / "dom.jpg", _crops(n, seed=2), np.arange(n) % 6, np.arange(n) % 6, np.ones(n), cols=4)
    stream = StreamOptions(styles=("random", "classic"), steep_shares=(0.2, 0.7), coloured_other_rates=(0.0, 1.0))
    drawn = {scene_setup(5, i, stream)[1].style for i in range(20)}
    assert drawn == {"random", "classic"}
    assert scene_setup(5, 3)[1].style == "classic"                  # the default stream is unchanged
    cfg = OnlineConfig(out=tmp_path / "run", minutes=3.0, steps=2, device="cpu", workers=1, seed=5,
                       cls_width=1.25, train_detector=False, save_raw=False, photo_aug=True,
                       domain=tmp_path / "dom.jpg", domain_share=0.5, cls_batch=8, cls_capacity=500,
                       min_scenes=2, log_every=1, save_every=10, stream=stream)
    res = train_online(cfg, log=lambda s: None)
    assert res["steps"] == 2
    assert sorted(f.name for f in (tmp_path / "run").iterdir()) == ["cls_ema.pt", "log.json"]
    Classifier(1.25).load_state_dict(torch.load(tmp_path / "run" / "cls_ema.pt"))
    with pytest.raises(ValueError, match="no rendered crops"):
        train_online(OnlineConfig(out=tmp_path / "bad", device="cpu", workers=1, train_detector=False,
                                  domain=tmp_path / "dom.jpg", domain_share=1.0, cls_batch=8, min_scenes=1),
                     log=lambda s: None)


def test_streaming_trainer_ends_when_its_minutes_went_on_waiting_for_scenes(tmp_path):
    from visionlab.train.online import OnlineConfig, train_online
    cfg = OnlineConfig(out=tmp_path / "run", minutes=0.0001, device="cpu", workers=1, seed=5,
                       train_detector=False, cls_batch=8, cls_capacity=500, min_scenes=2, save_every=10)
    import threading
    done = {}
    run = threading.Thread(target=lambda: done.update(train_online(cfg, log=lambda s: None)), daemon=True)
    run.start()
    run.join(300)   # before: a budget below zero never ran out, and the loop never ended
    assert not run.is_alive() and "steps" in done
    log = json.loads((tmp_path / "run" / "log.json").read_text())
    assert log["tag"] == "final" and (tmp_path / "run" / "cls.pt").is_file()


def _children(pid):
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_streaming_trainer_workers_end_when_the_trainer_is_killed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    code = ("from visionlab.train.online import OnlineConfig, train_online; "
            f"train_online(OnlineConfig(out={str(tmp_path / 'run')!r}, device='cpu', workers=1, "
            "train_detector=False, min_scenes=10 ** 9))")
    trainer = subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.time() + 120
        workers = []
        while time.time() < deadline and not workers:   # the spawned worker (and the resource tracker)
            time.sleep(1)
            workers = [k for k in _children(trainer.pid) if "spawn_main" in Path(f"/proc/{k}/cmdline").read_text()]
        assert workers, "no worker started"
        time.sleep(3)
    finally:
        trainer.send_signal(signal.SIGKILL)   # no clean-up in the trainer: only the workers' own check
        trainer.wait()
    deadline = time.time() + 60
    while time.time() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
        time.sleep(1)
    alive = [w for w in workers if Path(f"/proc/{w}").exists()]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert not alive, "render workers outlived their trainer"


def test_stop_after_ends_a_run_early_on_its_own_schedule(tmp_path):
    from visionlab.train.train import train_classifier
    n = 256
    sets = [{"crops": _crops(n, seed=4), "value": np.arange(n) % 6, "colour": np.arange(n) % 6,
             "die": np.ones(n)}]
    logs = []
    train_classifier(sets, epochs=3, out=tmp_path / "c.pt", batch=128, lr=1e-3, log=logs.append,
                     stop_after=1, ema_decay=0.9)
    assert [line.split(",")[0] for line in logs if "done" in line] == ["cls epoch 0 done"]
    assert (tmp_path / "c.pt").is_file() and (tmp_path / "c_ema.pt").is_file()
    for bad in (0, 4):
        with pytest.raises(ValueError, match="stop_after"):
            train_classifier(sets, epochs=3, out=tmp_path / "d.pt", stop_after=bad)
    assert not (tmp_path / "d.pt").exists()


def test_widened_classifier_computes_what_the_narrow_one_does():
    from visionlab.train.nets import Classifier, classifier_width, widen_classifier
    torch.manual_seed(3)
    narrow = Classifier().eval()
    for m in narrow.modules():   # BatchNorm statistics that are not the identity
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.1, 0.1)
    x = torch.rand(4, 3, 64, 64)
    wide = widen_classifier(narrow, 1.5, noise=0.0).eval()
    assert classifier_width(wide.state_dict()) == 1.5
    assert sum(p.numel() for p in wide.parameters()) > 2 * sum(p.numel() for p in narrow.parameters())
    for a, b in zip(narrow(x), wide(x)):
        assert torch.allclose(a, b, atol=1e-5)
    noisy = widen_classifier(narrow, 1.5, noise=0.02, seed=1).eval()
    assert not torch.equal(noisy.body[0][0].weight, wide.body[0][0].weight)
    assert (noisy(x)[0] - narrow(x)[0]).abs().max() < 0.05
    with pytest.raises(ValueError, match="not wider"):
        widen_classifier(wide, 1.0)


def test_a_classifier_run_widens_its_init_and_exports_at_the_new_width(tmp_path):
    from visionlab.train.__main__ import main as train_main
    from visionlab.train.train import train_classifier
    rng = np.random.default_rng(5)
    sets = [{"crops": _crops(256, 5), "value": rng.integers(0, 6, 256), "colour": rng.integers(0, 6, 256),
             "die": np.ones(256, np.float32)}]
    narrow = tmp_path / "narrow.pt"
    torch.save(Classifier().state_dict(), narrow)
    train_classifier(sets, epochs=1, out=tmp_path / "wide.pt", batch=128, lr=1e-3, init=narrow, width=1.25,
                     log=lambda *_: None, ema_decay=0.9)
    state = torch.load(tmp_path / "wide_ema.pt")
    assert state["body.0.0.weight"].shape[0] == 30 and state["fc.weight"].shape[1] == 120 * 16
    train_main(["export", "--detector", str(DEFAULT_MODEL_DIR / "dice_detector.onnx"),
                "--classifier", str(tmp_path / "wide.pt"), "--out", str(tmp_path / "m")])
    rt = create_runtime(str(tmp_path / "m" / "dice_classifier.onnx"), backend="onnxruntime", threads=1)
    outs = rt.run({"crops": _as_input(_crops(3)).numpy()})
    assert np.asarray(outs["value_probs"]).shape == (3, 6) and np.asarray(outs["colour_probs"]).shape == (3, 6)
