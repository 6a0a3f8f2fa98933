"""The scene sets the benchmark reads: the held-out synthetic set, the real photos, and the domain
directories (issue 16), each read by a reader and scored with ``visionlab.bench.scoring``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TextIO

from .scoring import Tally, match_by_centre_distance, match_by_iou, reader_threshold, score_real_image, score_synthetic_image

HELD_OUT_SEED = 424242  # docs/vision-model.md: never used for training
DEFAULT_COUNT = 300
DEFAULT_SIZES = "webcam"
REPO = Path(__file__).resolve().parents[2]
DEFAULT_REAL = REPO.parent / "shared" / "datasets" / "real-dice"


def _tally_scenes(reader: Any, scenes: Iterable[tuple[Any, Sequence[Any], str]], count: int, label: str,
                  match: Callable = match_by_iou, progress: TextIO | None = None) -> Tally:
    """Read each (image, truths, name) of ``scenes`` (``count`` of them, for the progress
    lines) and score it with ``score_synthetic_image``."""
    tally = Tally(unsure_below=reader_threshold(reader))
    for k, (image, truths, name) in enumerate(scenes):
        result = reader.read(image)
        if result.error is not None:
            tally.failed_images += 1
        tally.ms.append(result.ms)
        score_synthetic_image(tally, result.dice, truths, name=name, match=match)
        if progress is not None and (k + 1) % 50 == 0:
            progress.write(f"  {label} {k + 1}/{count}\n")
            progress.flush()
    return tally


def bench_synthetic(reader: Any, count: int, seed: int, sizes: str, progress: TextIO | None = None) -> dict[str, Any]:
    from visionlab.render.synth import render_indexed

    scenes = ((img, truths, f"seed {seed} scene {i}")
              for i in range(count) for img, truths, _ in [render_indexed(seed, i, sizes)])
    tally = _tally_scenes(reader, scenes, count, "synthetic", progress=progress)
    out = tally.summary(with_colour=True)
    out.update({"seed": seed, "sizes": sizes})
    return out


def read_yolo_labels(path: Path, width: int, height: int) -> list[tuple[int, float, float]]:
    """YOLO ``class cx cy w h`` (normalised) -> [(value = class + 1, cx px, cy px)]."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        cls, cx, cy = int(float(parts[0])), float(parts[1]), float(parts[2])
        out.append((cls + 1, cx * width, cy * height))
    return out


def real_splits(root: Path) -> dict[str, list[tuple[Path, Path]]]:
    """{split: [(image, label)]} for every dataset folder under ``root`` with images/ labels/."""
    splits: dict[str, list[tuple[Path, Path]]] = {}
    if not root.is_dir():
        return splits
    for ds in sorted(p for p in root.iterdir() if (p / "images").is_dir()):
        for split_dir in sorted(p for p in (ds / "images").iterdir() if p.is_dir()):
            pairs = []
            for img in sorted(split_dir.iterdir()):
                if img.suffix.lower() in (".jpg", ".jpeg", ".png", ".bmp"):
                    pairs.append((img, ds / "labels" / split_dir.name / (img.stem + ".txt")))
            if pairs:
                splits[f"{ds.name}/{split_dir.name}"] = pairs
    return splits


def bench_real(reader: Any, root: Path) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for split, pairs in real_splits(root).items():
        tally = Tally(unsure_below=reader_threshold(reader))
        for img_path, label_path in pairs:
            result = reader.read(img_path)
            if result.error is not None:
                tally.failed_images += 1
                tally.add_image(False)
                continue
            tally.ms.append(result.ms)
            w, h = result.image_size
            score_real_image(tally, result.dice, read_yolo_labels(label_path, w, h), name=img_path.name)
        results[split] = tally.summary(with_colour=False)
    return results



# ------------------------------------------------------------------------------------------
# Domains (issue 16): the same reader measured on scenes from different sources
# ------------------------------------------------------------------------------------------

#: where rendered domain sets live (git-ignored; ``python -m visionlab.render.blender render ... --out``)
DOMAIN_ROOT = REPO / "data" / "domains"
#: what the shipped model was trained on (models/training.json: {"trained_on": [domain, ...]})
TRAINING_FILE = REPO / "models" / "training.json"
SYNTH_RANDOM = "synth-random"


@dataclass(frozen=True)
class DomainTruth:
    colour: str | None  # COLOURS or "other"; None where the set has no colour labels
    value: int
    box: tuple[float, float, float, float]
    partial: bool = False
    top_box: tuple[float, float, float, float] | None = None


def load_domain_dir(folder: Path) -> tuple[dict[str, Any], list[tuple[Path, list[DomainTruth]]]]:
    """A domain directory: ``domain.json`` and one ``NNNNN.json`` per image (``{"image",
    "dice": [{"colour", "value", "box", "partial", "top_box"}]}``) beside its image. Returns
    (domain info, [(image path, truths)]) sorted by name; raises ValueError on a bad file."""
    folder = Path(folder)
    info_path = folder / "domain.json"
    if not info_path.is_file():
        raise ValueError(f"{folder} is not a domain directory (no domain.json)")
    try:
        info = json.loads(info_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{info_path}: {exc}") from None
    scenes = []
    for js in sorted(folder.glob("[0-9]*.json")):
        try:
            rec = json.loads(js.read_text())
            truths = [DomainTruth(colour=d.get("colour"), value=int(d["value"]),
                                  box=tuple(float(v) for v in d["box"]), partial=bool(d.get("partial", False)),
                                  top_box=tuple(float(v) for v in d["top_box"]) if d.get("top_box") else None)
                      for d in rec["dice"]]
            image = folder / rec["image"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{js}: not a scene record ({exc})") from None
        if image.is_file():
            scenes.append((image, truths))
    return info, scenes


def domain_dirs(root: Path = DOMAIN_ROOT) -> dict[str, Path]:
    """{name: folder} of every domain directory under ``root`` (name = the folder's name)."""
    if not Path(root).is_dir():
        return {}
    return {p.name: p for p in sorted(Path(root).iterdir()) if (p / "domain.json").is_file()}


def trained_domains(path: Path = TRAINING_FILE) -> list[str]:
    """Domain names (or prefixes ending in ``*``) the shipped model was trained on."""
    try:
        return list(json.loads(Path(path).read_text()).get("trained_on", []))
    except (OSError, json.JSONDecodeError, AttributeError):
        return []


def was_trained_on(domain: str, trained: Sequence[str]) -> bool:
    return any(domain == t or (t.endswith("*") and domain.startswith(t[:-1])) for t in trained)


def bench_domain_dir(reader: Any, folder: Path, progress: TextIO | None = None, limit: int | None = None) -> dict[str, Any]:
    info, scenes = load_domain_dir(folder)
    scenes = scenes[:limit] if limit is not None else scenes
    with_colour = all(t.colour is not None for _, ts in scenes for t in ts)
    named = ((image, truths, f"{folder.name}/{image.name}") for image, truths in scenes)
    tally = _tally_scenes(reader, named, len(scenes), folder.name, match_by_centre_distance, progress)
    out = tally.summary(with_colour=with_colour)
    out.update({"source": info.get("renderer") or info.get("source") or info.get("domain"), "folder": str(folder)})
    return out


def bench_synth_random(reader: Any, count: int, seed: int, sizes: str, progress: TextIO | None = None) -> dict[str, Any]:
    """Our own renderer in its randomised style (``SceneOptions.style = "random"``), scored with
    the domain matching."""
    from visionlab.render.synth import render_indexed
    from visionlab.render.synth.scene import SceneOptions

    base = SceneOptions(style="random")
    scenes = ((img, truths, f"random seed {seed} scene {i}")
              for i in range(count) for img, truths, _ in [render_indexed(seed, i, sizes, base)])
    tally = _tally_scenes(reader, scenes, count, SYNTH_RANDOM, match_by_centre_distance, progress)
    out = tally.summary(with_colour=True)
    out.update({"source": f"vision.synth style random, seed {seed}, sizes {sizes}"})
    return out
