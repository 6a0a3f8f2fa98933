"""python -m visionlab.train {cache,domain-cache,detector,classifier,real-crops,hard-crops,export} ...

The recipe of the shipped model (the exact command sequence) is in models/README.md.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from visionlab.render.synth.scene import SceneOptions as SceneOptionsDefaults
from vision.model import CLASSIFIER_VIEWS

CACHE_ROOT = Path("/tmp/dice_cache")
RUN_ROOT = Path("/tmp/dice_runs")
MODELS = Path(__file__).resolve().parents[2] / "models"


def log(msg):
    print(msg, flush=True)


def cmd_cache(a):
    from dataclasses import replace
    from visionlab.render.synth.scene import SceneOptions
    from .data import build_cache
    base = replace(SceneOptions(), distractor_rate=a.distractor_rate, touching_rate=a.touching_rate,
                   steep_share=a.steep_share, style=a.style, coloured_other_rate=a.coloured_other_rate,
                   other_share=a.other_share)
    build_cache(a.out, a.seed, a.count, workers=a.workers, base=base, negatives_from=a.negatives_from)


def cmd_domain_cache(a):
    from .domain import build_domain_cache
    build_domain_cache(a.out, a.src, workers=a.workers, negatives_from=a.negatives_from, limit=a.limit,
                       seed=a.seed, log=log)


def cmd_detector(a):
    from .train import train_detector
    train_detector(a.cache, a.epochs, a.out, seed=a.seed, lr=a.lr, init=a.init, log=log, mirror=a.mirror,
                   ema_decay=a.ema, stop_after=a.stop_after)


def cmd_classifier(a):
    import numpy as np
    from .data import load_cache
    from .train import train_classifier
    sets = []
    for c in a.cache:
        d = load_cache(c)
        sets.append({k: d[k] for k in ("crops", "value", "colour", "die")})
    for r in a.real or []:
        d = np.load(r)
        for _ in range(a.real_repeat):
            sets.append({k: d[k] for k in ("crops", "value", "colour", "die")})
    train_classifier(sets, a.epochs, a.out, seed=a.seed, lr=a.lr, init=a.init, log=log, upright=a.upright,
                     ema_decay=a.ema, stop_after=a.stop_after, photo=a.photo_aug, width=a.width)


def cmd_real_crops(a):
    from .real import build_real_crops
    build_real_crops(a.out, a.split, model_dir=a.model_dir, seed=a.seed, log=log)


def cmd_hard_crops(a):
    from .hard import build_hard_crops
    build_hard_crops(a.out, a.seed, a.count, model_dir=a.model_dir, hard_only=a.hard_only, views=a.views,
                     hard_only_out=a.hard_only_out, log=log)


def cmd_online(a):
    from dataclasses import fields
    from .online import OnlineConfig, train_online
    from .stream import StreamOptions
    names = {f.name for f in fields(OnlineConfig)}
    stream_names = {f.name for f in fields(StreamOptions)}
    stream = StreamOptions(**{k: tuple(v) for k, v in vars(a).items() if k in stream_names and v is not None})
    train_online(OnlineConfig(**{k: v for k, v in vars(a).items() if k in names}, stream=stream), log=log)


def cmd_real_mosaic(a):
    import numpy as np
    from .data import load_cache
    from .online import save_real_mosaic
    keys = ("crops", "value", "colour", "die")
    parts = []
    for src in a.src:
        d = load_cache(src) if src.is_dir() else np.load(src)
        parts.append({k: np.asarray(d[k]) for k in keys})
    d = {k: np.concatenate([p[k] for p in parts]) for k in keys}
    if a.negatives_keep < 1.0:   # a share of the not-a-die crops, drawn with --seed (a smaller file)
        rng = np.random.default_rng(a.seed)
        keep = (d["die"] == 1) | (rng.random(len(d["die"])) < a.negatives_keep)
        d = {k: v[keep] for k, v in d.items()}
    save_real_mosaic(a.out, d["crops"], d["value"], d["colour"], d["die"], quality=a.quality)
    log(f"{len(d['value'])} crops ({int((d['die'] == 1).sum())} dice) -> {a.out}")


def cmd_export(a):
    """Each network from a checkpoint (.pt, exported and checked) or an ONNX file (.onnx, copied
    as it is: e.g. a round that retrains only the classifier keeps the shipped detector)."""
    import shutil
    from .export import export_classifier, export_detector
    from .nets import Classifier, Detector, from_state
    a.out.mkdir(parents=True, exist_ok=True)
    diffs = {}
    for name, src, net, fn in (("detector", a.detector, Detector, export_detector),
                               ("classifier", a.classifier, Classifier, export_classifier)):
        dst = a.out / f"dice_{name}.onnx"
        if Path(src).suffix == ".onnx":
            if Path(src).resolve() != dst.resolve():
                shutil.copyfile(src, dst)
            diffs[name] = f"copied {src}"
            continue
        diffs[name] = fn(from_state(net, torch.load(src)), dst)
    log(json.dumps({"max_abs_diff_onnxruntime_vs_torch": diffs}))


def cmd_distill(a):
    from .distill import DistillConfig, DistillInputs, distill
    inputs = DistillInputs(seed=a.seed, image_dirs=tuple(str(d) for d in a.images), image_share=a.image_share)
    distill(DistillConfig(out=a.out, minutes=a.minutes, workers=a.workers, threads=a.threads,
                          channels=tuple(a.channels), head=a.head, inputs=inputs, lr=a.lr, init=a.init), log=log)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m visionlab.train")
    ap.add_argument("--threads", type=int, default=2, help="torch CPU threads (default 2)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("cache", help="render a training cache of synthetic scenes")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--distractor-rate", type=float, default=SceneOptionsDefaults.distractor_rate)
    p.add_argument("--touching-rate", type=float, default=SceneOptionsDefaults.touching_rate,
                   help="chance each die is placed against an earlier one (more merged-dice cases)")
    p.add_argument("--steep-share", type=float, default=SceneOptionsDefaults.steep_share,
                   help="share of scenes seen at a steep angle (45-58 degrees; more slanted top faces)")
    p.add_argument("--negatives-from", type=Path, default=None,
                   help="model dir whose detector proposes hard negatives (its proposals away from dice)")
    p.add_argument("--style", choices=("classic", "random"), default="classic",
                   help="scene style: classic (v1-v9) or random (domain randomisation, issue 16)")
    p.add_argument("--other-share", type=float, default=SceneOptionsDefaults.other_share,
                   help="chance a scene has 'other' (non-Encyclopedia) dice")
    p.add_argument("--coloured-other-rate", type=float, default=SceneOptionsDefaults.coloured_other_rate,
                   help="random style: chance an 'other' die has a game colour's body and black or gold pips")
    p.set_defaults(fn=cmd_cache)
    p = sub.add_parser("domain-cache", help="a training cache from domain directories (e.g. Blender scenes of visionlab.render.blender)")
    p.add_argument("--src", type=Path, nargs="+", required=True, help="domain directories (domain.json + NNNNN.json)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--limit", type=int, default=None, help="at most this many scenes per directory")
    p.add_argument("--seed", type=int, default=0, help="seed of the crop jitter")
    p.add_argument("--negatives-from", type=Path, default=None,
                   help="model dir whose detector proposes hard negatives and cuts one more crop per die")
    p.set_defaults(fn=cmd_domain_cache)
    for name, fn in (("detector", cmd_detector), ("classifier", cmd_classifier)):
        p = sub.add_parser(name)
        p.add_argument("--cache", type=Path, nargs="+", required=True)
        p.add_argument("--epochs", type=int, default=6)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--lr", type=float, default=3e-3)
        p.add_argument("--init", type=Path, default=None,
                       help="start from a checkpoint (.pt) or a shipped model file (.onnx, e.g. models/...)")
        p.add_argument("--ema", type=float, default=None,
                       help="also keep a moving average of the weights with this decay (saved as <out>_ema.pt)")
        p.add_argument("--stop-after", type=int, default=None,
                       help="stop after this many epochs, the learning rate following the --epochs schedule")
        p.add_argument("--out", type=Path, required=True)
        if name == "detector":
            p.add_argument("--mirror", action="store_true", help="mirror half of each batch left-right (v5)")
        if name == "classifier":
            p.add_argument("--real", type=Path, nargs="*", help="real-photo crop files (.npz) to add")
            p.add_argument("--real-repeat", type=int, default=1)
            p.add_argument("--upright", action="store_true",
                           help="no 90-degree turns in the augmentation (keeps the image's up: v5)")
            p.add_argument("--photo-aug", action="store_true",
                           help="also lose resolution, blur, add noise and a contrast curve (issue 16)")
            p.add_argument("--width", type=float, default=None,
                           help="channel width factor (default: --init's, else 1); a narrower --init is widened")
        p.set_defaults(fn=fn)
    p = sub.add_parser("real-crops", help="classifier crops from the real photos' train split")
    p.add_argument("--split", default="train")
    p.add_argument("--model-dir", type=Path, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(fn=cmd_real_crops)
    p = sub.add_parser("hard-crops", help="classifier crops where a model's detector puts its boxes, hard ones flagged")
    p.add_argument("--model-dir", type=Path, default=None)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--views", choices=CLASSIFIER_VIEWS, default=None,
                   help="classifier views of the mining model (default: ModelConfig's)")
    p.add_argument("--hard-only", action="store_true", help="keep only misread, low-scored, missed or false-detection crops")
    p.add_argument("--hard-only-out", type=Path, default=None, help="also write the hard crops alone to this file")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(fn=cmd_hard_crops)
    p = sub.add_parser("online", help="train both networks on freshly rendered scenes (a GPU machine)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--minutes", type=float, default=8.5)
    p.add_argument("--steps", type=int, default=10 ** 9)
    p.add_argument("--device", default="cuda")
    p.add_argument("--workers", type=int, default=14)
    p.add_argument("--seed", type=int, default=7000, help="worker w renders dataset seed + w")
    p.add_argument("--det-init", type=Path, default=None, help=".onnx (e.g. models/dice_detector.onnx) or .pt")
    p.add_argument("--cls-init", type=Path, default=None)
    p.add_argument("--det-lr", type=float, default=1e-3)
    p.add_argument("--cls-lr", type=float, default=1e-3)
    p.add_argument("--det-batch", type=int, default=64)
    p.add_argument("--cls-batch", type=int, default=512)
    p.add_argument("--det-capacity", type=int, default=60000)
    p.add_argument("--cls-capacity", type=int, default=1500000)
    p.add_argument("--min-scenes", type=int, default=256)
    p.add_argument("--max-reuse", type=float, default=12.0)
    p.add_argument("--ema-decay", type=float, default=0.999)
    p.add_argument("--real", type=Path, default=None, help="real-crop mosaic .jpg (real-mosaic command)")
    p.add_argument("--real-share", type=float, default=0.06)
    p.add_argument("--mining-model", type=Path, default=None, help="model dir whose detector cuts crops in the workers")
    p.add_argument("--domain", type=Path, default=None,
                   help="other renderers' crops as a mosaic .jpg (real-mosaic of a domain-cache's crops)")
    p.add_argument("--domain-share", type=float, default=0.0)
    p.add_argument("--classifier-only", dest="train_detector", action="store_false",
                   help="train the classifier alone (no detector buffer, steps or files)")
    p.add_argument("--cls-width", type=float, default=None,
                   help="classifier width (default: --cls-init's, else 1); a narrower .pt init is widened")
    p.add_argument("--photo-aug", action="store_true", help="the classifier's photo-fault augmentation")
    p.add_argument("--ema-only", dest="save_raw", action="store_false",
                   help="save the moving averages alone (cls_ema.pt, det_ema.pt) and log.json")
    for flag, typ in (("--styles", str), ("--steep-shares", float), ("--other-shares", float),
                      ("--coloured-other-rates", float), ("--touching-rates", float)):
        p.add_argument(flag, type=typ, nargs="+", default=None,
                       help="drawn per scene (stream.StreamOptions); default: the stream's")
    p.add_argument("--save-every", type=float, default=2.0)
    p.add_argument("--log-every", type=int, default=200)
    p.set_defaults(fn=cmd_online)
    p = sub.add_parser("real-mosaic", help="crops (real-crops .npz files, cache dirs) -> one JPEG mosaic + labels "
                                           "(small, for a training machine)")
    p.add_argument("src", type=Path, nargs="+", help="real-crops .npz files or cache directories")
    p.add_argument("out", type=Path)
    p.add_argument("--negatives-keep", type=float, default=1.0, help="keep this share of the not-a-die crops")
    p.add_argument("--seed", type=int, default=0, help="seed of the --negatives-keep draw")
    p.add_argument("--quality", type=int, default=93, help="JPEG quality")
    p.set_defaults(fn=cmd_real_mosaic)
    p = sub.add_parser("distill", help="a narrower detector taught by the shipped one (visionlab/train/distill.py)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="processes drawing inputs")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--channels", type=int, nargs=5, default=[16, 16, 32, 64, 96])
    p.add_argument("--head", type=int, default=16)
    p.add_argument("--images", type=Path, nargs="+", default=[],
                   help="folders of photos or renders to draw inputs from as well (the real train split: "
                        "../shared/datasets/real-dice/matteo-white/images/train; Blender or Mitsuba training "
                        "scenes); never a bench domain")
    p.add_argument("--image-share", type=float, default=0.2, help="share of inputs drawn from --images (default 0.2)")
    p.add_argument("--init", type=Path, default=None,
                   help="continue from an earlier run's student.pt (its widths; --channels and --head are then ignored)")
    p.set_defaults(fn=cmd_distill)
    p = sub.add_parser("export", help="export both networks to ONNX and compare with torch")
    p.add_argument("--detector", type=Path, required=True, help=".pt checkpoint, or an .onnx file to copy")
    p.add_argument("--classifier", type=Path, required=True, help=".pt checkpoint, or an .onnx file to copy")
    p.add_argument("--out", type=Path, default=MODELS)
    p.set_defaults(fn=cmd_export)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    a.fn(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
