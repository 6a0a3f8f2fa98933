"""``python -m vision bench --adapt``: the table profile's learning curve (issue 38, item 4).

Per domain (domains no model trained on first): its photos in a fixed shuffled order (seed
``POOL_SEED``); the first ``max(ks)`` with a die to confirm are the pool of photos a player
confirms, all the others are read.
One temporary profile per domain grows as a table's does: at each k of ``ks`` (0, 1, 2, 5, 10, 20)
the pool photos confirmed since the last k are added and the learner runs (``python -m vision learn
--profile TMP LABELS.jsonl``, a child process, its wall time is the learning time, pinned to one
core where ``taskset`` exists, the first of the bench's own (``learn_core``); it always trains from
the shipped classifier on ALL the profile's dice). A model the learner does not adopt leaves the profile's last good one, as in the app, so
the row of k reads with the model a table has after k confirmed photos (k = 0: the shipped one).
The domain's other photos are read and scored with the bench's own matching
(``visionlab.bench.scoring``): hands-free, sure-and-wrong, recall, value, colour. (Until stop 36 each
k had a fresh profile: the same figures where every learn is adopted.)

The confirmations are the ground truth as a player would give it:
* a domain directory (rendered sets, e.g. LuxCore under ``data/domains/``): every wholly framed
  die with its whole-die box, value and colour ("other" for other games' dice);
* real photos (``../shared/datasets/real-dice/<set>/images/<split>``: value-only labels around the
  pip pattern, not the whole die): the shipped reader's boxes matched to the labels by the
  bench's real-photo rule, with the label's value and colour null; a labelled die the reader
  missed has no whole-die box and is left out (in the app the player types it in).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence, TextIO

import numpy as np

from .scoring import Tally, match_by_centre, match_by_centre_distance, reader_threshold, score_real_image, \
    score_synthetic_image
from .sets import DEFAULT_REAL, DOMAIN_ROOT, REPO, domain_dirs, load_domain_dir, read_yolo_labels, real_splits, \
    trained_domains, was_trained_on

KS = (0, 1, 2, 5, 10, 20)
POOL_SEED = 38


def real_items(pairs: Sequence[tuple[Path, Path]]) -> list[dict[str, Any]]:
    return [{"image": img, "labels": lab} for img, lab in pairs]


def confirmation(item: dict[str, Any], kind: str, shipped: Any, values_only: bool = False) -> dict[str, Any]:
    """The labels line a player's confirmation of this photo gives (module doc); ``values_only``:
    the player confirms the values alone (every colour null), as the maintainers' second check
    does ("50 photos confirmed with values only")."""
    if kind == "domain":
        dice = [{"box": [round(v, 2) for v in t.box], "value": t.value, "colour": None if values_only else t.colour}
                for t in item["truths"] if not t.partial]
        return {"image": str(Path(item["image"]).resolve()), "dice": dice}  # the labels file is elsewhere
    result = shipped.read(item["image"])
    if result.error is not None:
        return {"image": str(item["image"]), "dice": []}
    w, h = result.image_size
    labels = read_yolo_labels(item["labels"], w, h)
    pairs = match_by_centre([d.box for d in result.dice], [(cx, cy) for _, cx, cy in labels])
    dice = [{"box": list(result.dice[i].box), "value": labels[j][0], "colour": None} for i, j in pairs]
    # the dice the shipped reader missed are not in it: the detector must not learn them as background
    return {"image": str(Path(item["image"]).resolve()), "dice": dice, "complete": len(pairs) == len(labels)}


def score(reader: Any, items: Sequence[dict[str, Any]], kind: str) -> dict[str, Any]:
    tally = Tally(unsure_below=reader_threshold(reader))
    with_colour = kind == "domain" and all(t.colour is not None for it in items for t in it["truths"])
    for it in items:
        result = reader.read(it["image"])
        if result.error is not None:
            tally.failed_images += 1
            tally.add_image(False)
            continue
        tally.ms.append(result.ms)
        if kind == "domain":
            score_synthetic_image(tally, result.dice, it["truths"], name=str(it["image"]),
                                  match=match_by_centre_distance)
        else:
            w, h = result.image_size
            score_real_image(tally, result.dice, read_yolo_labels(it["labels"], w, h), name=Path(it["image"]).name)
    out = tally.summary(with_colour=with_colour)
    out["value_by_truth"] = dict(tally.value_by_truth)
    return out


def value_on_common(now: dict[Any, bool], before: dict[Any, bool]) -> dict[str, Any]:
    """Value right on the dice two reads of the same photos both found (``Tally.value_by_truth``
    of each): a reader that finds more dice, with their values read worse, lowers the value figure
    (a share of the dice found) while reading the others' values as well or better (stop 59)."""
    common = [key for key in now if key in before]
    return {"dice": len(common), "right": sum(now[key] for key in common),
            "right_before": sum(before[key] for key in common),
            "found_only_now": len(now) - len(common), "right_only_now": sum(v for key, v in now.items() if key not in before)}


def learn_core() -> int:
    """The core a learn is pinned to: the lowest this process may run on (0 where that is unknown)."""
    try:
        return min(os.sched_getaffinity(0))
    except (AttributeError, OSError, ValueError):
        return 0


def learn_profile(profile: Path, labels: list[dict[str, Any]], cache: Path, err: TextIO,
                  steps: int | None = None) -> tuple[float, float, str]:
    """``python -m vision learn`` adding ``labels`` to ``profile`` (made when new); (wall seconds,
    CPU seconds of the child processes, their output)."""
    lab = profile.parent / f"{profile.name}.jsonl"
    lab.write_text("".join(json.dumps(line) + "\n" for line in labels))
    cmd = [sys.executable, "-m", "vision", "learn", "--profile", str(profile), str(lab), "--cache", str(cache)]
    if steps is not None:
        cmd += ["--steps", str(steps)]
    if shutil.which("taskset"):
        # one core: the first this process may use (a bench pinned to core 1 learns on core 1, so two
        # benches side by side do not learn on one core)
        cmd = ["taskset", "-c", str(learn_core()), *cmd]
    env = dict(os.environ, PYTHONPATH=str(REPO) + (os.pathsep + os.environ["PYTHONPATH"]
                                                   if os.environ.get("PYTHONPATH") else ""))
    import resource

    t0, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    secs = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"vision learn failed (exit {proc.returncode}): {proc.stderr.strip()[-800:]}")
    return secs, cpu, proc.stdout


def _model_folder(profile: Path) -> Path | None:
    """The folder of the profile's model in use (a learn that adopts switches in a new one)."""
    from vision.profile import TableProfile

    if not TableProfile(profile).exists():
        return None
    model = TableProfile(profile).current_model()
    return None if model is None else model.folder


def _model_parts(profile: Path) -> list[str]:
    """The parts of the profile's model in use ("classifier", "detector"); [] without one."""
    from vision.profile import TableProfile

    model = TableProfile(profile).current_model()
    return [] if model is None else list(model.files)


def adapted_reader(profile: Path, backend: str = "auto", base: Any = None, threads: int = 1) -> Any:
    """The reader of ``profile``'s adapted model (None without one): ``base`` (the shipped
    reader's settings, default ``DEFAULT_READER``) with the model's own sure threshold, on the
    shipped reader's runtime (``backend``, ``threads``)."""
    from vision.config import DEFAULT_READER
    from vision.profile import TableProfile
    from vision.reader import DiceReader

    model = TableProfile(profile).current_model()
    if model is None:
        return None
    return DiceReader.from_files(backend=backend, threads=threads, config=model.reader_config(base or DEFAULT_READER),
                                 **model.files)


def run_domain(name: str, items: list[dict[str, Any]], kind: str, shipped: Any, ks: Sequence[int], work: Path,
               cache: Path, err: TextIO, steps: int | None = None, values_only: bool = False,
               backend: str = "auto", threads: int = 1) -> list[dict[str, Any]]:
    order = np.random.default_rng(POOL_SEED).permutation(len(items))
    pool_n = max(ks)
    # the pool: the first photos of the order with a die to confirm (a photo of no dice teaches nothing)
    pool_idx, labels = [], []
    for i in order:
        if len(pool_idx) == pool_n:
            break
        line = confirmation(items[i], kind, shipped, values_only)
        if line["dice"]:
            pool_idx.append(i)
            labels.append(line)
    rest = [items[i] for i in order if i not in set(pool_idx)]
    if len(pool_idx) < pool_n or not rest:
        raise ValueError(f"{name}: {len(items)} photos, the curve needs {pool_n} with dice and more to read")
    rows = []
    first_values: dict[Any, bool] | None = None  # the k = 0 row's (the shipped reader's) value per die found
    profile = work / f"{name.replace('/', '_').replace(' ', '_')}-profile"
    added = 0
    for k in ks:
        row: dict[str, Any] = {"k": k, "confirmed_dice": sum(len(lab["dice"]) for lab in labels[:k])}
        reader = shipped
        if k:
            # the table's profile as it grows: the photos confirmed since the last point are added
            # and the learner runs (a model it does not adopt leaves the last good one, as in the app)
            before = _model_folder(profile)
            secs, cpu, text = learn_profile(profile, labels[added:k], cache, err, steps)
            added = k
            row["learn_seconds"] = round(secs, 1)
            row["learn_cpu_seconds"] = round(cpu, 1)
            err.write(f"  {name} k={k}: learned in {secs:.1f} s\n{text}")
            reader = adapted_reader(profile, backend=backend, base=shipped.config, threads=threads) or shipped
            now = _model_folder(profile)
            row["parts"] = _model_parts(profile)  # the adapted parts the row reads with
            row["adopted"] = now is not None and now != before  # this learn switched a model in
            row["model"] = "this learn's" if row["adopted"] else ("an earlier learn's" if reader is not shipped
                                                                  else "the shipped one")
        row["unsure_below"] = reader_threshold(reader)
        s = score(reader, rest, kind)
        row.update({key: s[key] for key in ("images", "dice", "hands_free", "taps_per_photo", "sure_wrong_rate", "confident_reads",
                                            "confident_wrong", "recall", "false_detections", "value_accuracy",
                                            "colour_accuracy")})
        # (stop 56) sure / sure-and-wrong at each grid threshold, for choosing a threshold rule from one run
        row["threshold_sweep"] = s.get("threshold_sweep", [])
        if k == 0:
            first_values = s["value_by_truth"]
        elif first_values is not None:  # (stop 59) value on the dice the shipped reader found too, and on the others
            row["value_common"] = value_on_common(s["value_by_truth"], first_values)
        row["confident_wrong_examples"] = s.get("confident_wrong_examples", [])   # up to 20, as the bench keeps them
        rows.append(row)
        err.write(f"  {name} k={k}: hands-free {row['hands_free']}, sure-and-wrong {row['confident_wrong']} of "
                  f"{row['confident_reads']}\n")
        err.flush()
    return rows


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"


#: the issue's bar on a learning curve (issue 38, "done when"): with ``BAR_K`` confirmed photos,
#: hands-free and value better than with none, and sure-and-wrong at most ``BAR_SURE_WRONG``
BAR_K = 10
BAR_SURE_WRONG = 0.01


def curve_bar(rows: list[dict[str, Any]], k: int = BAR_K) -> dict[str, Any] | None:
    """Whether a curve's row with ``k`` photos meets the bar against its row with none: hands-free
    higher; value higher, or 100 % in both (a value already right cannot rise); sure-and-wrong at
    most 1 % of its sure reads. None without both rows. ``misses``: what fails, in words."""
    by_k = {r["k"]: r for r in rows}
    if 0 not in by_k or k not in by_k:
        return None
    r0, rk = by_k[0], by_k[k]
    misses = []
    if not rk["hands_free"] > r0["hands_free"]:
        misses.append(f"hands-free {_pct(rk['hands_free'])}, not above {_pct(r0['hands_free'])}")
    v0, vk = r0["value_accuracy"], rk["value_accuracy"]
    if v0 is not None and vk is not None and not (vk > v0 or vk == v0 == 1.0):
        why = f"value {_pct(vk)}, not above {_pct(v0)}"
        vc = rk.get("value_common")
        if vc and vc["dice"]:
            why += (f" (on the {vc['dice']} dice both find, {vc['right_before']} → {vc['right']} read right; "
                    f"{vc['right_only_now']} of the {vc['found_only_now']} dice only k = {k} finds)")
        misses.append(why)
    if rk["confident_wrong"] > BAR_SURE_WRONG * rk["confident_reads"]:
        misses.append(f"sure-and-wrong {rk['confident_wrong']} of {rk['confident_reads']}, over 1 %")
    return {"k": k, "met": not misses, "misses": misses}


def _model_note(r: dict[str, Any]) -> str:
    """The threshold column: the threshold of the model the row reads with, and which model
    (with an adapted detector: "+ detector")."""
    det = " + detector" if "detector" in r.get("parts", ()) else ""
    if r.get("adopted", True):
        return f"{r['unsure_below']}{det}"
    if r.get("model") == "an earlier learn's":
        return f"{r['unsure_below']}{det} (not adopted: an earlier learn's model)"
    return f"{r['unsure_below']} (not adopted: the shipped model)"


def format_curves(curves: dict[str, Any]) -> str:
    lines = []
    for name, c in curves.items():
        lines.append(f"{name} ({'trained on' if c['trained_on'] else 'NO model trained on it'}; {c['note']})")
        lines.append("| k photos (dice) | hands-free | taps a photo | sure-and-wrong | recall | false det. | value | colour "
                     "| learn s (CPU s) | threshold |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in c["rows"]:
            sw = f"{_pct(r['sure_wrong_rate'])} ({r['confident_wrong']} / {r['confident_reads']})"
            taps = "-" if r.get("taps_per_photo") is None else f"{r['taps_per_photo']:.2f}"
            lines.append(f"| {r['k']} ({r['confirmed_dice']}) | {_pct(r['hands_free'])} | {taps} | {sw} | {_pct(r['recall'])} | "
                         f"{r.get('false_detections', '-')} | {_pct(r['value_accuracy'])} | {_pct(r['colour_accuracy'])} | "
                         f"{r.get('learn_seconds', '-')} ({r.get('learn_cpu_seconds', '-')}) | {_model_note(r)} |")
        bar = curve_bar(c["rows"])
        if bar is not None:
            lines.append(f"k = {bar['k']} against k = 0: " + ("meets the bar (hands-free higher, value higher or 100 % "
                                                           "at both, sure-and-wrong at most 1 %)" if bar["met"] else
                                                           "misses the bar: " + "; ".join(bar["misses"])))
        lines.append("")
    return "\n".join(lines)


def run_adapt(args: Any, out: TextIO, err: TextIO) -> int:
    from vision.cli import CliError, threads_of, with_pip_check
    from vision.config import DEFAULT_READER
    from vision.reader import DiceReader

    if getattr(args, "unsure_below", None) is not None:
        # each adapted model reads at the threshold its profile's held-back dice set
        raise CliError("error: --unsure-below cannot be used with --adapt (each adapted model has its own "
                       "sure threshold, set on its profile's held-back dice)")
    if getattr(args, "model_dir", None) is not None:
        # `vision learn` adapts the shipped models (models/): a curve read from another folder's
        # k = 0 would join the shipped model's adapted rows
        raise CliError("error: --model-dir cannot be used with --adapt (the learner adapts the shipped models "
                       "in models/)")
    threads = threads_of(args)
    # --pip-check / --no-pip-check, --backend, --threads: the shipped reader and every adapted one
    # (built on its settings) alike
    shipped = DiceReader.from_files(backend=args.backend, threads=threads, config=with_pip_check(DEFAULT_READER, args))
    trained = args.trained_on.split(",") if getattr(args, "trained_on", None) else trained_domains()
    sets: list[tuple[str, str, list[dict[str, Any]], str]] = []
    folders = dict(domain_dirs(getattr(args, "domain_root", None) or DOMAIN_ROOT))
    for extra in getattr(args, "domain_dir", None) or []:
        folders[Path(extra).name] = Path(extra)
    for name, folder in folders.items():
        _, scenes = load_domain_dir(folder)
        sets.append((name, "domain", [{"image": img, "truths": ts} for img, ts in scenes], f"rendered, {folder}"))
    if not folders:
        err.write(f"no rendered domain sets (LuxCore, ...) under {getattr(args, 'domain_root', None) or DOMAIN_ROOT} "
                  "on this machine: none measured\n")
    root = args.real or DEFAULT_REAL
    if not args.no_real:
        for split, pairs in real_splits(root).items():
            note = "real photos, value only"
            if split.startswith("matteo-white/"):
                note += "; white dice (colour 'other', never sure: scored on the value); shares near-duplicate " \
                        "scenes with the train split the shipped model saw"
            sets.append((f"real {split}", "real", real_items(pairs), note))
    ks = tuple(sorted(set(args.adapt_ks))) if getattr(args, "adapt_ks", None) else KS
    values_only = getattr(args, "adapt_values_only", False)
    curves: dict[str, Any] = {}
    work = Path(tempfile.mkdtemp(prefix="vision-adapt-"))
    cache = work / "replay-cache"
    try:
        ordered = sorted(sets, key=lambda s: was_trained_on(s[0], trained))  # held-out domains first
        for name, kind, items, note in ordered:
            if was_trained_on(name, trained) and not getattr(args, "adapt_trained", False):
                err.write(f"skipping {name}: the shipped model trained on it (--adapt-trained to measure it)\n")
                continue
            err.write(f"learning curve of {name} ({len(items)} photos)...\n")
            try:
                rows = run_domain(name, items, kind, shipped, ks, work, cache, err, getattr(args, "adapt_steps", None),
                                  values_only=values_only, backend=args.backend, threads=threads)
            except ValueError as exc:
                err.write(f"skipping {name}: {exc}\n")
                continue
            if values_only:
                note += "; confirmed with values only (every colour null)"
            curves[name] = {"trained_on": was_trained_on(name, trained), "note": note, "rows": rows,
                            "photos": len(items), "bar": curve_bar(rows)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        out.write(json.dumps({"adapt": curves}) + "\n")
    else:
        out.write(format_curves(curves) + "\n")
    return 0
