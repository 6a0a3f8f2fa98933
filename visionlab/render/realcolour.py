"""Real photos of white dice, the dice painted in the game's colours: a domain directory whose
desk, light, camera, blur, JPEG and dice shapes are real and whose colours are not (stop 69).

    python -m visionlab.render.realcolour render --split valid --pips light --seed 1 \\
        --out data/realcol/real-painted-valid-light-1 [--source ../shared/datasets/real-dice/matteo-white]

Per photo of ``SOURCE/images/SPLIT`` (YOLO labels around the pip pattern, values only): the shipped
reader's whole-die boxes are matched to the labels (the bench's real-photo rule); each die's body is
cut out by GrabCut seeded with its box (:func:`die_mask`; the pips are the dark pixels inside it) and
painted (:func:`paint_die`): every body pixel multiplied by a colour's albedo over the die's own white,
so the photo's light, shading and colour cast stay; the pips stay dark (``--pips dark``) or are painted
light (``--pips light``), or each colour's pips one way (``--pips mixed``: :func:`pip_styles`, a box
where the shipped reader knows some colours and calls the others "other"). One palette per seed (:func:`table_palette`: the five game colours, each
shade moved a little, as one table's box of dice), colours drawn per die from the seed. A photo
where a label has no box or a die no body is left out (counted); a photo without dice is kept as it
is. The truth of each die: the reader's box, the label's value, the painted colour.

Never copies the public photos into the repository: the output goes under ``data/`` (git-ignored),
like every rendered set. Reads the shipped reader (``vision``); nothing outside the lab imports this.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

#: the five game colours' albedo (R, G, B in 0..1) before a palette's shift
BASE_ALBEDO = {"red": (0.80, 0.10, 0.10), "yellow": (0.95, 0.80, 0.12), "purple": (0.45, 0.18, 0.62),
               "blue": (0.12, 0.32, 0.82), "green": (0.15, 0.58, 0.22)}
COLOURS = tuple(BASE_ALBEDO)
#: the box is widened by this share of its size on each side for GrabCut's background
MARGIN = 0.25
#: a pixel inside the body darker than this share of the die's white is a pip
PIP_DARK = 0.55


def table_palette(seed: int) -> dict[str, tuple[float, float, float]]:
    """The five colours of one table's dice: each base albedo scaled by 0.85-1.1 and its channels
    moved by up to 0.06 (seeded), clipped to 0.03..0.97."""
    rng = np.random.default_rng([seed, 69])
    out = {}
    for name in COLOURS:
        a = np.asarray(BASE_ALBEDO[name]) * rng.uniform(0.85, 1.1) + rng.uniform(-0.06, 0.06, 3)
        out[name] = tuple(float(v) for v in np.clip(a, 0.03, 0.97))
    return out


def pip_styles(seed: int, pips: str) -> dict[str, str]:
    """Each colour's pip paint: all ``pips`` ("dark" or "light"), or for "mixed" drawn per colour from
    the seed, at least one colour each way."""
    if pips in ("dark", "light"):
        return {name: pips for name in COLOURS}
    if pips != "mixed":
        raise ValueError(f"pips must be 'dark', 'light' or 'mixed', not {pips!r}")
    rng = np.random.default_rng([seed, 70])
    while True:
        styles = {name: ("dark", "light")[int(rng.integers(2))] for name in COLOURS}
        if len(set(styles.values())) == 2:
            return styles


def die_mask(image: np.ndarray, box: Sequence[float], iterations: int = 4
             ) -> tuple[tuple[int, int, int, int], np.ndarray, np.ndarray, float] | None:
    """The die in ``box`` (x, y, w, h) of a BGR photo: (region x0, y0, x1, y1; its body mask, pips
    included; its pip mask; the die's white, the 95th percentile of the body's grey), or None where
    GrabCut finds no body. Seeds: outside the box background, the box probably the die, an ellipse
    over its middle the die."""
    x, y, w, h = (float(v) for v in box)
    H, W = image.shape[:2]
    if w < 4 or h < 4:
        return None
    x0, y0 = max(0, int(x - MARGIN * w)), max(0, int(y - MARGIN * h))
    x1, y1 = min(W, int(x + w * (1 + MARGIN)) + 1), min(H, int(y + h * (1 + MARGIN)) + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    roi = np.ascontiguousarray(image[y0:y1, x0:x1])
    seeds = np.full(roi.shape[:2], cv2.GC_BGD, np.uint8)
    bx0, by0 = max(0, int(x - x0)), max(0, int(y - y0))
    bx1, by1 = int(x + w - x0), int(y + h - y0)
    seeds[by0:by1, bx0:bx1] = cv2.GC_PR_FGD
    cv2.ellipse(seeds, ((bx0 + bx1) // 2, (by0 + by1) // 2), (max(1, int(0.28 * w)), max(1, int(0.28 * h))),
                0, 0, 360, cv2.GC_FGD, -1)
    bg, fg = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(roi, seeds, None, bg, fg, iterations, cv2.GC_INIT_WITH_MASK)
    body = ((seeds == cv2.GC_FGD) | (seeds == cv2.GC_PR_FGD)).astype(np.uint8)
    body = cv2.morphologyEx(body, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(body)
    if n <= 1:
        return None
    body = (labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
    # a die is convex: its hull fills the pips (holes in the body) and a shaded side face GrabCut
    # gave to the desk (a die painted half white is no die of a table's box)
    contours, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.fillPoly(body, [cv2.convexHull(np.vstack(contours))], 1)
    grey = roi.astype(np.float32).mean(axis=2)
    white = float(np.percentile(grey[body > 0], 95))
    if white <= 0:
        return None
    pips = ((grey < PIP_DARK * white) & (body > 0)).astype(np.uint8)
    return (x0, y0, x1, y1), body, pips, white


def paint_die(image: np.ndarray, box: Sequence[float], rgb: Sequence[float], pips: str = "dark") -> bool:
    """Paint the white die in ``box`` of the BGR ``image`` (in place) with albedo ``rgb``; ``pips``
    "dark" (as they are) or "light" (painted near white, their shading kept). False (nothing
    changed) where :func:`die_mask` finds no body."""
    if pips not in ("dark", "light"):
        raise ValueError(f"pips must be 'dark' or 'light', not {pips!r}")
    got = die_mask(image, box)
    if got is None:
        return False
    (x0, y0, x1, y1), body, pip_mask, white = got
    roi = image[y0:y1, x0:x1].astype(np.float32)
    albedo = np.asarray(rgb[::-1], np.float32)   # BGR
    painted = np.clip(roi / white * albedo * 255.0, 0, 255)
    soft = cv2.GaussianBlur(body.astype(np.float32), (3, 3), 0)[..., None]
    out = soft * painted + (1 - soft) * roi
    if pips == "light":
        # a dark pip becomes light; its darkest part (the hole's shadow) stays a little darker
        shade = np.clip(roi.mean(axis=2) / white, 0, 1)
        light = (0.78 + 0.2 * shade)[..., None] * np.float32(240.0)
        ps = cv2.GaussianBlur(cv2.dilate(pip_mask, np.ones((3, 3), np.uint8)).astype(np.float32), (3, 3), 0)[..., None]
        out = ps * light + (1 - ps) * out
    image[y0:y1, x0:x1] = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    return True


def paint_photo(image: np.ndarray, boxes: Sequence[Sequence[float]], values: Sequence[int],
                palette: dict[str, tuple[float, float, float]], rng: np.random.Generator,
                pips: str | dict[str, str]) -> list[dict[str, Any]] | None:
    """Paint every die of a photo (each its colour drawn from ``rng`` among ``palette``'s); the truth
    records, or None (the photo left out) where a die has no body. ``image`` is changed only when
    every die paints. ``pips``: one paint for every die, or each colour's (:func:`pip_styles`)."""
    work = image.copy()
    truths = []
    names = [c for c in COLOURS if c in palette]
    for box, value in zip(boxes, values):
        colour = names[int(rng.integers(len(names)))]
        if not paint_die(work, box, palette[colour], pips if isinstance(pips, str) else pips[colour]):
            return None
        truths.append({"colour": colour, "value": int(value), "box": [round(float(v), 2) for v in box],
                       "partial": False})
    image[...] = work
    return truths


def shipped_boxes(reader: Any) -> Callable[[Path, list[tuple[int, float, float]]], list[tuple[list[float], int]] | None]:
    """(photo, labels) -> [(whole-die box, value)] for every label, by the shipped reader's boxes
    matched to the labels (the bench's real-photo rule), or None where a label has no box."""
    from visionlab.bench.scoring import match_by_centre

    def boxes(path: Path, labels: list[tuple[int, float, float]]) -> list[tuple[list[float], int]] | None:
        result = reader.read(str(path))
        if result.error is not None:
            return None
        pairs = match_by_centre([d.box for d in result.dice], [(cx, cy) for _, cx, cy in labels])
        if len(pairs) != len(labels):
            return None
        return [(list(result.dice[i].box), labels[j][0]) for i, j in sorted(pairs, key=lambda p: p[1])]

    return boxes


def render(source: Path, split: str, out: Path, seed: int, pips: str, quality: int,
           boxes_for: Callable[[Path, list[tuple[int, float, float]]], list[tuple[list[float], int]] | None],
           colours: Sequence[str] = COLOURS, mosaic: int = 1) -> dict[str, int]:
    """Write the domain directory (module doc); returns counts: photos written, dice painted,
    photos left out. ``colours``: the colours drawn (e.g. only "blue": a photo set of one colour);
    ``mosaic`` K > 1: every K x K painted photos of the first one's size become one photo (the
    dice K times smaller to the detector's first pass, as in a phone photo of the whole table; a
    last incomplete mosaic and photos of another size are left out)."""
    from visionlab.bench.sets import read_yolo_labels

    images = sorted((source / "images" / split).glob("*.jpg"))
    if not images:
        raise ValueError(f"{source / 'images' / split}: no .jpg photos")
    bad = [c for c in colours if c not in COLOURS]
    if bad or not colours:
        raise ValueError(f"colours must be among {', '.join(COLOURS)}, not {', '.join(bad) or 'none'}")
    if mosaic < 1:
        raise ValueError(f"mosaic must be 1 or more, not {mosaic}")
    palette = table_palette(seed)
    styles = pip_styles(seed, pips)
    out.mkdir(parents=True, exist_ok=True)
    (out / "domain.json").write_text(json.dumps(
        {"domain": "real-painted", "renderer": "real photos, dice painted (visionlab.render.realcolour)",
         "source": f"{source.name}/{split}", "seed": seed, "pips": pips, "pip_styles": styles, "palette": palette,
         "colours": list(colours), "mosaic": mosaic}, indent=1) + "\n")
    counts = {"photos": 0, "dice": 0, "left_out": 0}
    batch: list[tuple[np.ndarray, list[dict[str, Any]], str]] = []

    def write(image: np.ndarray, truths: list[dict[str, Any]], what: str) -> None:
        stem = f"{counts['photos']:05d}"
        cv2.imwrite(str(out / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        record = {"image": f"{stem}.jpg", "source": f"{what} painted, seed {seed}, pips {pips}",
                  "width": image.shape[1], "height": image.shape[0], "dice": truths}
        (out / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n")
        counts["photos"] += 1
        counts["dice"] += len(truths)

    for n, path in enumerate(images):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            counts["left_out"] += 1
            continue
        H, W = image.shape[:2]
        labels = read_yolo_labels(source / "labels" / split / f"{path.stem}.txt", W, H)
        found = boxes_for(path, labels) if labels else []
        rng = np.random.default_rng([seed, n])
        truths = None if found is None else paint_photo(image, [b for b, _ in found], [v for _, v in found],
                                                        {c: palette[c] for c in colours}, rng, styles)
        if truths is None or (batch and image.shape != batch[0][0].shape):
            counts["left_out"] += 1
            continue
        if mosaic == 1:
            write(image, truths, f"{source.name}/{split}/{path.name}")
            continue
        batch.append((image, truths, path.name))
        if len(batch) == mosaic * mosaic:
            canvas = np.concatenate([np.concatenate([im for im, _, _ in batch[r * mosaic:(r + 1) * mosaic]], axis=1)
                                     for r in range(mosaic)], axis=0)
            moved = [dict(t, box=[round(t["box"][0] + (k % mosaic) * W, 2), round(t["box"][1] + (k // mosaic) * H, 2),
                                  *t["box"][2:]]) for k, (_, ts, _) in enumerate(batch) for t in ts]
            write(canvas, moved, f"{source.name}/{split}/{batch[0][2]}..{batch[-1][2]} ({mosaic}x{mosaic})")
            batch = []
    counts["left_out"] += len(batch)
    return counts


def build_parser() -> argparse.ArgumentParser:
    """The CLI's parser (``render`` and its options)."""
    from visionlab.bench.sets import DEFAULT_REAL

    ap = argparse.ArgumentParser(prog="python -m visionlab.render.realcolour", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="paint the dice of a split of real white-dice photos")
    r.add_argument("--source", type=Path, default=Path(DEFAULT_REAL) / "matteo-white")
    r.add_argument("--split", default="valid")
    r.add_argument("--pips", choices=["dark", "light", "mixed"], default="light")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--quality", type=int, default=95, help="JPEG quality of the painted photos")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--colours", default=",".join(COLOURS), help="the colours drawn, comma-separated (default: all five)")
    r.add_argument("--mosaic", type=int, default=1, metavar="K", help="K x K photos make one (dice K times smaller)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from vision.reader import DiceReader

    counts = render(args.source, args.split, args.out, args.seed, args.pips, args.quality,
                    shipped_boxes(DiceReader.from_files(threads=1)),
                    colours=[c.strip() for c in args.colours.split(",") if c.strip()], mosaic=args.mosaic)
    print(f"{args.out}: {counts['photos']} photos, {counts['dice']} dice painted, {counts['left_out']} photos left out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
