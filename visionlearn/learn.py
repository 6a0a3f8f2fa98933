"""Fine-tune the shipped classifier (and, where it misses dice, the detector) on a table profile's
confirmed dice (issue 38, item 2).

``learn(profile_dir)``:

1. the profile's photos in the order added; every ``HOLD_EVERY``-th photo (the 4th, 8th, ...) is
   held back, and the last one when that holds none back and there are two or more; nothing is
   trained until the photos learned from hold confirmed dice of ``MIN_TRAIN_COLOURS`` game colours
   (a profile confirmed with values only is not held to it);
2. the WHOLE classifier (every layer, value and colour heads) starts from the shipped ONNX weights
   (``visionlab.train.warmstart``), BatchNorm statistics frozen, and trains ``steps`` steps on
   batches that are half the table's crops (``JITTERS`` jittered re-cuts of each confirmed die,
   as the reader cuts them) and half replay crops of the shipped training distribution
   (``visionlab.render.synth`` scenes of a training seed, cached), so it does not forget other
   dice; a die confirmed with colour null trains the value only (the colour loss is masked);
3. the held-back dice are read by the adapted and the shipped network; the threshold comes from
   the held-back reads (``visionlearn.threshold``); the adapted model is adopted only when it
   reads the held-back dice better than the shipped one: more of them right, or as many right and
   more of them sure and right (at its threshold; the shipped one at its 0.85), or as many right where
   the shipped one reads the values of the dice trained on badly (``TIE_VALUES_WRONG``). A model whose
   threshold from fewer than 40 held-back dice is above ``NO_EVIDENCE`` (one of them read wrong at
   0.92 or more: overconfident on this table) does not replace an adapted model in use (stop 49);
   a first one is adopted, the shipped reader having read the held-back dice worse. Held-back dice
   read alike by both are no reason to change the reader, and without held-back dice (a profile
   of one photo) nothing could show it better: the learner then does not train at all;
4. the adapted weights are folded into a copy of the shipped ONNX graph (same graph, so a read
   costs what a shipped read costs), checked against torch with onnxruntime, and switched in
   atomically (``TableProfile.switch_model``) with the model in use's detector: the classifier is
   what makes the next photo cheaper, and it comes first, within the learn's time budget;
5. then the detector learns where the shipped one misses confirmed dice of the profile's photos,
   and is adopted when it loses no held-back die and reads no more boxes that are no die
   (``visionlearn.detector``); adopted, it is switched in as a second model folder with the
   classifier in use. A part a learn does not adopt is the model in use's own (copied over, with
   its threshold for the classifier), so each part stays the last good one. Any failure before a
   switch leaves the last good model.

Seeds are fixed: the same profile gives the same model.
"""
from __future__ import annotations

import hashlib
import io
import lzma
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from vision.model import COLOUR_CLASSES, DEFAULT_MODEL_DIR, ModelConfig, crop_for_classifier
from vision.profile import (CACHE_DIR, CLASSIFIER_FILE, DETECTOR_FILE, LOCK_FILE, ConfirmedDie, ProfileBusy, ProfileError,
                            TableProfile)
from visionlab.train.data import CONTEXT, CROP, _jitter_box
from visionlab.train.nets import Classifier
from visionlab.train.train import classifier_loss
from visionlab.train.warmstart import load_onnx_weights

from .threshold import MIN_HELD_BACK, NO_EVIDENCE, SHIPPED, choose_threshold, sure_counts
from .tuning import fine_tune

HOLD_EVERY = 4
#: a learn trains only once its training photos hold confirmed dice of this many game colours (dice
#: confirmed with a colour; a profile confirmed with values only is not held to it): trained on one
#: colour, a model pulls the table's other colours into it (stop 48: 6 of 26 sure reads wrong on a
#: table after one photo of three blue dice, every one a green die read as blue)
MIN_TRAIN_COLOURS = 3
JITTERS = 8
#: the classifier's steps: ``STEPS`` up to ``STEPS_PHOTOS`` photos learned from, then as many passes
#: over the table's crops as there, at most ``MAX_STEPS`` (stop 70, rule S: at 50 photos 80 steps were
#: one pass, and a values-only profile's learn read its held-back dice no better): ``steps_for``
STEPS = 80
STEPS_PHOTOS = 10
MAX_STEPS = 320
BATCH_TABLE = 16
BATCH_REPLAY = 16
LR = 3e-4
#: (stop 74, rule W) where the adapted model reads as many held-back dice right as the shipped one
#: (not more), it is adopted, whatever the count of sure and right reads among those few dice, when the
#: shipped classifier reads the values of at least this share of the dice the learn trained on wrong,
#: and at least ``TIE_VALUES_WRONG_MIN`` of them: a table whose pips the shipped reader does not know
#: (light pips on coloured dice: value 94.7-95.6 % on the painted stand-ins, where a learn forced in
#: read 96.1-98.2 %), so that 4-9 easy held-back dice do not keep it out; the colours' record is not
#: counted (stop 56, rule U: ties won on colours added other games' dice read sure)
TIE_VALUES_WRONG = 0.03
TIE_VALUES_WRONG_MIN = 2
REPLAY_SEED = 1900  # a training seed of our renderer (docs/vision-model.md: training uses 1000-1999)
REPLAY_SCENES = 60
REPLAY_VERSION = 1
SHIPPED_REPLAY = "learner-replay"  # models/learner-replay-1900-60-v1.npz.xz: the replay, rendered by replay_crops


class LearnError(Exception):
    """Learning cannot run (nothing to learn, a broken profile); the last good model stays."""


def split_photos(photos: list[int]) -> tuple[list[int], list[int]]:
    """(trained on, held back) photo numbers, in the order added."""
    held = [p for i, p in enumerate(photos) if i % HOLD_EVERY == HOLD_EVERY - 1]
    if not held and len(photos) >= 2:
        held = [photos[-1]]
    return [p for p in photos if p not in held], held


#: the shipped replay's compression (``SHIPPED_REPLAY``): xz with a byte delta over the pixels,
#: 3.7 MB against 5.4 MB for the profile cache's zip (read back in about 0.3 s)
XZ_FILTERS = [{"id": lzma.FILTER_DELTA, "dist": 3}, {"id": lzma.FILTER_LZMA2, "preset": 9}]


def _load_replay(path: Path) -> dict[str, np.ndarray]:
    """A replay file: the profile cache's ``.npz``, or the shipped ``.npz.xz`` (an uncompressed
    ``.npz`` in xz, ``XZ_FILTERS``)."""
    if path.suffix == ".xz":
        try:
            source: Any = io.BytesIO(lzma.decompress(path.read_bytes()))
        except lzma.LZMAError as exc:
            raise ValueError(f"not an xz file ({exc})") from None
    else:
        source = path
    with np.load(source) as z:
        out = {k: z[k] for k in ("crops", "value", "colour", "die")}
    n = len(out["crops"])
    if n == 0 or out["crops"].shape[1:] != (CROP, CROP, 3) or any(len(out[k]) != n for k in ("value", "colour", "die")):
        raise ValueError(f"crops {out['crops'].shape} and labels {[len(out[k]) for k in ('value', 'colour', 'die')]} "
                         "do not match")
    return out


def shipped_replay_file(model_dir: Path | None = None) -> Path:
    """The classifier's replay as the learner renders it (``replay_crops``), shipped beside the
    model files (``SHIPPED_REPLAY``) so that a first learn does not render it (stop 59)."""
    return Path(model_dir or DEFAULT_MODEL_DIR) / f"{SHIPPED_REPLAY}-{REPLAY_SEED}-{REPLAY_SCENES}-v{REPLAY_VERSION}.npz.xz"


def replay_crops(cache_dir: Path, log: Callable[[str], None] = print,
                 shipped: Path | None = None) -> dict[str, np.ndarray]:
    """Crops of ``REPLAY_SCENES`` scenes of our renderer (dice of every colour, other dice,
    negatives): the profile's cache in ``cache_dir`` when there is one, else the ``shipped`` copy
    (``shipped_replay_file``), else rendered once and cached in ``cache_dir``. All three hold the
    same crops."""
    path = Path(cache_dir) / f"replay-{REPLAY_SEED}-{REPLAY_SCENES}-v{REPLAY_VERSION}.npz"
    if path.is_file():
        try:
            return _load_replay(path)
        except (OSError, ValueError, KeyError, EOFError) as exc:
            log(f"replay cache {path} unreadable ({exc}); rendering it again")
    if shipped is not None and shipped.is_file():
        try:
            return _load_replay(shipped)
        except (OSError, ValueError, KeyError, EOFError) as exc:
            log(f"shipped replay {shipped} unreadable ({exc}); rendering it")
    from visionlab.train.data import render_sample

    t0 = time.perf_counter()
    parts = [render_sample(REPLAY_SEED, i, "train") for i in range(REPLAY_SCENES)]
    out = {"crops": np.concatenate([p[2] for p in parts]), "value": np.concatenate([p[3] for p in parts]),
           "colour": np.concatenate([p[4] for p in parts]), "die": np.concatenate([p[5] for p in parts])}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **out)
        tmp.replace(path)
    except OSError as exc:
        log(f"replay cache not kept ({exc})")
    log(f"replay: {len(out['crops'])} crops of {REPLAY_SCENES} scenes rendered in {time.perf_counter() - t0:.1f} s")
    return out


def _labels(d: ConfirmedDie) -> tuple[int, int]:
    if not d.die:
        return -1, -1
    return d.value - 1, (-1 if d.colour is None else COLOUR_CLASSES.index(d.colour))


def table_bank(profile: TableProfile, dice: list[ConfirmedDie], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``JITTERS`` classifier crops per confirmed die (the first as the box was confirmed, the
    others with the box jittered as detector boxes are), with their labels."""
    crops, values, colours, dies = [], [], [], []
    for d in dice:
        img = profile.load_crop(d)
        v, c = _labels(d)
        for j in range(JITTERS if d.die else 2):
            box = d.crop_box if j == 0 else _jitter_box(rng, d.crop_box)
            crops.append(crop_for_classifier(img, box, CROP, CONTEXT))
            values.append(v)
            colours.append(c)
            dies.append(int(d.die))
    return {"crops": np.stack(crops), "value": np.array(values, np.int8), "colour": np.array(colours, np.int8),
            "die": np.array(dies, np.int8)}


def _confirmed_crops(profile: TableProfile, dice: list[ConfirmedDie]) -> np.ndarray:
    """The classifier's crops of confirmed dice, each cut as its box was confirmed."""
    return np.stack([crop_for_classifier(profile.load_crop(d), d.crop_box, CROP, CONTEXT) for d in dice])


@torch.no_grad()
def classify(model: torch.nn.Module, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value probs, colour probs) of uint8 crops [N,64,64,3], each averaged with its mirror
    image, as the reader does (``ModelConfig.classifier_tta`` 2)."""
    model.eval()
    x = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255
    v1, c1, _ = model(x)
    v2, c2, _ = model(x.flip(3))
    return ((v1 + v2) / 2).numpy(), ((c1 + c2) / 2).numpy()


def held_back_reads(model: torch.nn.Module, profile: TableProfile, dice: list[ConfirmedDie]) -> list[dict[str, Any]]:
    """Per held-back die: confidence as the reader computes it (P(value) x P(colour); P(value)
    alone for a value-only die; the detector's share is not known for a confirmed box and is
    taken as 1), right or not, and whether it can be sure at all (a die of no game colour
    never is: a die confirmed "other" is left out, though the reader makes another game's die
    read in a game colour sure; counting those changed nothing on 21 tables, stop 52)."""
    if not dice:
        return []
    vp, cp = classify(model, _confirmed_crops(profile, dice))
    out = []
    other = COLOUR_CLASSES.index("other")
    for d, v, c in zip(dice, vp, cp):
        vi, ci = int(np.argmax(v)), int(np.argmax(c))
        want_v, want_c = _labels(d)
        right = vi == want_v and (want_c < 0 or ci == want_c)
        can_be_sure = want_c != other and (want_c < 0 or ci != other)
        conf = float(v[vi]) * (1.0 if want_c < 0 else float(c[ci]))
        out.append({"confidence": conf, "right": bool(right), "can_be_sure": bool(can_be_sure)})
    return out


def values_wrong(model: torch.nn.Module, profile: TableProfile, dice: list[ConfirmedDie]) -> tuple[int, int]:
    """(values read wrong, dice read) of the confirmed dice among ``dice`` (a die confirmed "not a
    die" has no value to read)."""
    dice = [d for d in dice if d.die]
    if not dice:
        return 0, 0
    vp, _ = classify(model, _confirmed_crops(profile, dice))
    return int(sum(int(np.argmax(v)) != d.value - 1 for d, v in zip(dice, vp))), len(dice)


def values_tie_won(base: torch.nn.Module, profile: TableProfile, train_dice: list[ConfirmedDie]) -> tuple[bool, str]:
    """Rule W (``TIE_VALUES_WRONG``): whether the adapted model, reading as many held-back dice right
    as the shipped one, is adopted, and why, from the shipped classifier's values on the dice the
    learn trained on."""
    wrong, n = values_wrong(base, profile, train_dice)
    won = n > 0 and wrong >= TIE_VALUES_WRONG_MIN and wrong / n >= TIE_VALUES_WRONG
    return won, (f"the shipped model reads {wrong} of the {n} trained-on dice's values wrong; adopted on that "
                 f"from {TIE_VALUES_WRONG:.0%} of them and {TIE_VALUES_WRONG_MIN} dice: "
                 + ("adopted" if won else "not enough"))


def train(model: torch.nn.Module, bank: dict[str, np.ndarray], replay: dict[str, np.ndarray], steps: int,
          seed: int) -> float:
    """Fine-tune ``model`` in place; returns the last steps' mean loss."""
    def step_loss(rng: np.random.Generator, gen: torch.Generator) -> torch.Tensor:
        ti = rng.integers(0, len(bank["crops"]), BATCH_TABLE)
        ri = rng.integers(0, len(replay["crops"]), BATCH_REPLAY)
        batch = {k: torch.from_numpy(np.concatenate([bank[k][ti], replay[k][ri]]))
                 for k in ("crops", "value", "colour", "die")}
        return classifier_loss(model, batch, gen, upright=True, photo=True)[0]
    return fine_tune(model, steps, seed, LR, step_loss)


class _Lock:
    """One learner per profile: the profile's lock (``vision.profile.LOCK_FILE``: the learner's pid),
    held for the whole learn, so an import or a clear in Settings waits for the end (it refuses
    meanwhile) and a model is never switched into a profile cleared or replaced under it; a lock
    whose process is gone is stale and taken over."""

    def __init__(self, folder: Path) -> None:
        self.profile = TableProfile(folder)
        self.path = self.profile.path / LOCK_FILE
        self._held = None

    def __enter__(self) -> "_Lock":
        self._held = self.profile.hold("learn")
        try:
            self._held.__enter__()
        except ProfileBusy as exc:
            who = f" (process {exc.pid})" if exc.pid else ""
            what = "another learn is running" if exc.doing == "learn" else str(exc)
            raise LearnError(f"{what} on {self.profile.path}{who}; the last good model stays") from None
        except ProfileError as exc:
            raise LearnError(f"{exc}; the last good model stays") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self._held.__exit__(*exc)


def _model_in_use(profile: TableProfile) -> bool:
    """Whether the profile reads with an adapted model now (a torn one counts as none)."""
    try:
        return profile.current_model() is not None
    except ProfileError:
        return False


def steps_for(photos: int) -> int:
    """The classifier's training steps for a learn from ``photos`` photos (held-back ones not counted)."""
    if photos <= STEPS_PHOTOS:
        return STEPS
    return min(MAX_STEPS, int(round(STEPS * photos / STEPS_PHOTOS)))


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def learn(profile_dir: str | Path, cache_dir: str | Path | None = None, seed: int = 0, steps: int | None = None,
          model_dir: str | Path | None = None, threads: int = 1,
          log: Callable[[str], None] = print) -> dict[str, Any]:
    """Adapt the classifier to the profile's dice (module doc). Returns the report (also the
    adopted model's ``model.json``); raises ``LearnError`` when nothing can be learned or another
    learner holds the profile. ``steps``: the classifier's training steps (None: ``steps_for`` the
    photos learned from)."""
    if not TableProfile(profile_dir).exists():
        raise LearnError(f"no table profile at {Path(profile_dir)}")
    with _Lock(Path(profile_dir)):
        return _learn(profile_dir, cache_dir, seed, steps, model_dir, threads, log)


def _learn(profile_dir, cache_dir, seed, steps, model_dir, threads, log) -> dict[str, Any]:
    import tempfile

    from .detector import learn_detector

    t0, cpu0 = time.perf_counter(), time.process_time()
    torch.set_num_threads(max(1, threads))
    profile = TableProfile(profile_dir)
    if not profile.exists():
        raise LearnError(f"no table profile at {profile.path}")
    try:
        dice = profile.dice()
    except ProfileError as exc:
        raise LearnError(str(exc)) from None
    photos = list(dict.fromkeys(d.photo for d in dice))
    train_photos, held_photos = split_photos(photos)
    train_dice = [d for d in dice if d.photo in set(train_photos)]
    held_dice = [d for d in dice if d.photo in set(held_photos) and d.die]
    if not any(d.die for d in train_dice):
        raise LearnError(f"{profile.path}: no confirmed dice to learn from")
    trained_on = {"photos": len(train_photos), "dice": sum(d.die for d in train_dice),
                  "not_dice": sum(not d.die for d in train_dice)}
    if steps is None:
        steps = steps_for(len(train_photos))
    cache = Path(cache_dir) if cache_dir is not None else profile.path / CACHE_DIR
    with tempfile.TemporaryDirectory(prefix="learn-") as tmp:
        report, classifier = _learn_classifier(profile, train_dice, held_dice, held_photos, trained_on, cache, seed,
                                               steps, model_dir, log, t0, Path(tmp) / CLASSIFIER_FILE)
        report["classifier_adopted"] = classifier is not None
        parts: list[str] = []
        if classifier is not None:
            # first the classifier: it is what makes the next photo cheaper, and it switches in
            # within the learn's budget; the detector's learn (where it runs) follows
            parts = _switch_in(profile, report, classifier, None, t0, cpu0)
            report["classifier_seconds"] = report["seconds"]
            log(f"classifier switched in after {report['seconds']:.1f} s")
        try:
            report["detector"] = learn_detector(profile, dice, train_photos, held_photos, cache, Path(tmp) / DETECTOR_FILE,
                                                seed=seed, model_dir=model_dir, log=log)
        except ProfileError as exc:
            report["detector"] = {"adopted": False, "reason": f"the photos' views cannot be read ({exc}): the "
                                                              "detector stays"}
        if report["detector"]["adopted"]:
            parts = _switch_in(profile, report, None, Path(tmp) / DETECTOR_FILE, t0, cpu0)
            report["detector"]["switched_in_after"] = report["seconds"]
        report.update(adopted=bool(parts), seconds=round(time.perf_counter() - t0, 2),
                      cpu_seconds=round(time.process_time() - cpu0, 2))
        if parts:
            report["parts"] = parts
    return report


def _switch_in(profile: TableProfile, report: dict[str, Any], classifier: Path | None, detector: Path | None,
               t0: float, cpu0: float) -> list[str]:
    """Switch in a new model folder holding ``classifier`` and ``detector``; a part not given is
    the model in use's own (the last good one, with its threshold for the classifier). Sets
    ``report``'s seconds; returns the parts the folder holds."""
    import shutil

    try:
        current = profile.current_model()
    except ProfileError:
        current = None
    info = dict(report)
    if classifier is None:
        info["unsure_below"] = current.unsure_below if current is not None and current.classifier else SHIPPED
        info["classifier_from"] = "an earlier learn" if current is not None and current.classifier else "shipped"
        classifier = current.classifier if current is not None else None
    if detector is None:
        info["detector_from"] = "an earlier learn" if current is not None and current.detector else "shipped"
        detector = current.detector if current is not None else None
    parts = [p for p, f in (("classifier", classifier), ("detector", detector)) if f is not None]
    info["parts"] = parts
    folder = profile.new_model_folder()
    try:
        for f, name in ((classifier, CLASSIFIER_FILE), (detector, DETECTOR_FILE)):
            if f is not None:
                shutil.copyfile(f, folder / name)
        report.update(seconds=round(time.perf_counter() - t0, 2), cpu_seconds=round(time.process_time() - cpu0, 2))
        info.update(adopted=True, seconds=report["seconds"], cpu_seconds=report["cpu_seconds"])
        profile.switch_model(folder, info)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return parts


def _learn_classifier(profile, train_dice, held_dice, held_photos, trained_on, cache, seed, steps, model_dir, log,
                      t0, out: Path) -> tuple[dict[str, Any], Path | None]:
    """The classifier's learn (module doc): (its report, ``out`` when adopted, else None)."""
    from .onnxout import write_classifier_onnx

    def untrained(reason: str) -> dict[str, Any]:
        """The report of a learn that trains nothing (the last good model stays)."""
        return {"made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "trained_on": trained_on,
                "held_back": {"photos": len(held_photos), "dice": len(held_dice)}, "seed": seed, "steps": 0,
                "adopted": False, "seconds": round(time.perf_counter() - t0, 2), "reason": reason}

    colours = sorted({d.colour for d in train_dice if d.die and d.colour not in (None, "other")})
    coloured = any(d.die and d.colour is not None for d in train_dice)
    if coloured and len(colours) < MIN_TRAIN_COLOURS:
        return untrained(f"the photos to learn from hold dice of {len(colours)} game colour"
                         f"{'' if len(colours) == 1 else 's'} ({', '.join(colours) or 'none'}); learning starts "
                         f"with {MIN_TRAIN_COLOURS} (trained on fewer, a model pulls the others into them): "
                         "nothing learned, the last good model stays"), None
    if not held_dice:  # nothing could show an adapted model better: no training to throw away
        return untrained("no held-back die to check an adapted model on yet (it comes with the second confirmed "
                         "photo): nothing learned, the last good model stays"), None
    shipped = Path(model_dir or DEFAULT_MODEL_DIR) / ModelConfig().classifier_file
    rng = np.random.default_rng(seed)
    bank = table_bank(profile, train_dice, rng)
    replay = replay_crops(cache, log, shipped_replay_file(Path(model_dir) if model_dir else None))
    base = load_onnx_weights(Classifier(), shipped).eval()
    model = load_onnx_weights(Classifier(), shipped)
    t_train = time.perf_counter()
    loss = train(model, bank, replay, steps, seed)
    train_s = time.perf_counter() - t_train
    shipped_reads = held_back_reads(base, profile, held_dice)
    reads = held_back_reads(model, profile, held_dice)
    sure_reads = [(r["confidence"], r["right"]) for r in reads if r["can_be_sure"]]
    threshold, why = choose_threshold(sure_reads)
    sure, wrong = sure_counts(sure_reads, threshold)
    shipped_sure, shipped_wrong = sure_counts([(r["confidence"], r["right"]) for r in shipped_reads
                                               if r["can_be_sure"]], SHIPPED)
    right, shipped_right = sum(r["right"] for r in reads), sum(r["right"] for r in shipped_reads)
    report: dict[str, Any] = {
        "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "unsure_below": threshold, "threshold_rule": why, "trained_on": trained_on,
        "held_back": {"photos": len(held_photos), "dice": len(held_dice), "right": right,
                      "right_shipped": shipped_right, "sure": sure, "sure_wrong": wrong,
                      "sure_right": sure - wrong, "sure_right_shipped": shipped_sure - shipped_wrong},
        "seed": seed, "steps": steps, "final_loss": round(loss, 4), "train_seconds": round(train_s, 2),
        "base_classifier_sha256": _sha256(shipped),
    }
    refused = None
    no_better = (right, sure - wrong) <= (shipped_right, shipped_sure - shipped_wrong)
    if no_better and right == shipped_right:  # only there does rule W decide
        report["tie_won"], report["tie_why"] = values_tie_won(base, profile, train_dice)
    if len(sure_reads) < MIN_HELD_BACK and threshold > NO_EVIDENCE and _model_in_use(profile):
        refused = (f"the adapted model reads a held-back die wrong at {NO_EVIDENCE} or more (threshold "
                   f"{threshold} from only {len(sure_reads)} held-back dice): overconfident on this "
                   "table, it does not replace the adapted model in use, which stays")
    elif no_better and not report.get("tie_won"):
        refused = (f"the adapted model read {right} of {len(held_dice)} held-back dice right and "
                   f"{sure - wrong} sure and right, the shipped one {shipped_right} and "
                   f"{shipped_sure - shipped_wrong}: no better, not adopted, the last good model stays")
    if refused is not None:
        report.update(adopted=False, reason=refused)
        return report, None
    report["onnx_max_diff"] = write_classifier_onnx(model, shipped, out, bank["crops"][: min(16, len(bank["crops"]))])
    return report, out
