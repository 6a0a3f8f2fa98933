"""Every threshold of the dice-reading pipeline, in one place (no literals scattered in code).

``ReaderConfig`` (reading a still image), ``LiveConfig`` (when a video scene counts as still),
``ImageLimits`` (loading).  All are frozen dataclasses; build a modified copy with
``dataclasses.replace(DEFAULT_READER, unsure_below=0.8)``.

``user_data_dir()`` duplicates the few lines of ``companion.content.paths.user_data_dir`` on
purpose: ``vision`` imports no game code (docs/architecture.md), so it cannot import
``companion``.  Keep the two in step: ``$ENCYCLOPEDIA_DATA_DIR`` wins; Windows
``%APPDATA%/EncyclopediaCompanion``; macOS ``~/Library/Application Support/EncyclopediaCompanion``;
elsewhere ``$XDG_DATA_HOME`` (absolute only, else ``~/.local/share``) ``/encyclopedia-companion``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

APP_DIR_NAME = "EncyclopediaCompanion"  # Windows and macOS
XDG_DIR_NAME = "encyclopedia-companion"  # elsewhere
DATA_DIR_ENV = "ENCYCLOPEDIA_DATA_DIR"
CALIBRATION_FILE = "dice-calibration.json"
PROFILE_DIR_NAME = "table-profile"  # the table profile (vision/profile.py), beside the calibration

# The five Encyclopedia dice colours, in the order of the model's colour output (then "other").
DICE_COLOURS: tuple[str, ...] = ("red", "yellow", "purple", "blue", "green")
MODEL_COLOURS: tuple[str, ...] = DICE_COLOURS + ("other",)
UNKNOWN_COLOUR = "unknown"


def user_data_dir() -> Path:
    """The per-user data directory: a copy of ``companion.content.paths.user_data_dir``
    (vision may not import game code; keep the two in step)."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    if sys.platform.startswith("win"):
        base = os.environ.get("APPDATA", "").strip()
        return (Path(base) if base else Path.home() / "AppData" / "Roaming") / APP_DIR_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_DIR_NAME
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / XDG_DIR_NAME


def default_calibration_path() -> Path:
    return user_data_dir() / CALIBRATION_FILE


def default_profile_dir() -> Path:
    """The table profile's folder (docs/vision.md, "The table profile"): in the same user data
    directory as the app's saves and the colour calibration."""
    return user_data_dir() / PROFILE_DIR_NAME


@dataclass(frozen=True)
class ImageLimits:
    """Loading limits: what is decoded, how large the working copy is."""

    # The working copy's longer side; larger images are downscaled (boxes map back exactly).
    # 2048 from issue 38 (item 6): a 4032x3024 JPEG is decoded at half size by libjpeg (about 26 ms
    # instead of 60 on one core, the difference between meeting the 150 ms budget of a 12 MP read
    # and not); the classifier's 64 px crop spans 1.3 die sides, so a die of 98 px or more in the
    # photo (49 px in the working copy) still gives it a crop at its own resolution, and the dice
    # the reader can find in such a photo are about that size or larger (docs/vision.md, "Small dice
    # in a large photo": on the large-photo domain the reads are the same as at 4096). Until then
    # 4096 (the photo at full resolution).
    work_max_side: int = 2048
    # Refuse to decode more pixels than this (checked from the header when the format allows).
    # JPEGs above it are decoded at 1/2, 1/4 or 1/8 scale instead (libjpeg DCT scaling).
    max_decode_pixels: int = 120_000_000
    # Refuse files larger than this without reading them.
    max_file_bytes: int = 256 * 1024 * 1024
    # Images whose shorter side is below this cannot show a readable die: empty read, no model.
    min_side: int = 16


# The pip check's floor on the model's value probability, chosen with v10 (ReaderConfig.pip_confirm_from).
PIP_CONFIRM_FROM = 0.4


@dataclass(frozen=True)
class ReaderConfig:
    """Decisions taken on the model's raw output."""

    # A die whose confidence is below this is reported with ``unsure: true``. 0.95 for model v4:
    # on its tuning set (seed 515151) 1 sure-and-wrong read against 6 at 0.90 (docs/vision.md).
    # Model v10: calibrated on Blender scenes it never trained on (pbr-tune-515151): 0.92 is the
    # first value under 1 % sure-and-wrong there (0.93 %), one step of margin gives 0.95 (0.78 %).
    # Models v11-v15 kept v10's threshold. Model v16 (pip check off): calibrated by the same rule
    # on LuxCore scenes of a renderer it never trained on (the tuning pool lux-train-889001 to
    # 889004, 1 786 dice, other games' dice counted): 0.85 is the first grid value under 1 %
    # (11 of 1 206, 0.91 %), one step of margin gives 0.88 (9 of 1 165); on the first half of the
    # pool it gave 0.90; docs/vision-history.md, v16. Stop 30 (with turned_doubt_low 0.8): the pool grown
    # by 889011/889012 (2 775 dice) gives 0.88 again (0.85 the first value under 1 %, 16 of 1 919).
    # Model v21 (stop 31, its classifier trained on a GPU): the same rule on the same pool gives 0.85
    # (0.80 the first value under 1 %, 20 of 2 097; 0.85: 12 of 2 039); the pool grown by 889015/889016
    # (3 742 dice) gives 0.85 again (0.80: 26 of 2 849).
    unsure_below: float = 0.85
    # Detector scores at or above this count as "certainly a die"; below it the confidence is
    # scaled down in proportion (dropping weak detections is the model's job, ModelConfig).
    det_confident_at: float = 0.5
    # With calibration: weight of the calibration's vote in the geometric pooling with the
    # model's colour probabilities (0 = ignore calibration, 1 = calibration alone).
    calibration_weight: float = 0.7
    # Calibration: softmax temperature on negative Lab distances (in 8-bit Lab units).
    calibration_temperature: float = 6.0
    # Calibration: weight of lightness (L) in the Lab distance; light intensity moves L most,
    # hue and chroma (a, b) tell the dice colours apart.
    calibration_lightness_weight: float = 0.5
    # Calibration: a die further than this (Lab units) from every calibrated colour gets no
    # calibration vote (the model decides alone).
    calibration_max_distance: float = 45.0
    # Overlapping boxes with IoU above this are merged (a die read twice is one die).
    duplicate_iou: float = 0.6
    # The nadir check (ModelConfig.turned_check_from): a die near the bottom of a top-down photo
    # shows a side face ABOVE its top face, which the upright classifier can read as the top
    # (docs/vision.md). When the crop turned 180 degrees reads ANOTHER value with at least this
    # probability, the two views contradict each other: the value of the surer view is kept (the
    # turned one only when it is surer by ``turned_swap_margin``) and its confidence is multiplied
    # by one minus the other view's probability for ITS value.
    turned_doubt_from: float = 0.7
    turned_swap_margin: float = 0.2
    # Where the turned view may doubt: only a die whose box centre lies at or below this share
    # of the image height (RawDie.centre_y_share; 0 = top, 1 = bottom). Above it, in the rest of
    # the turned band, the turned view can only swap the value. None = doubt wherever turned
    # (up to 2026-11-26). 0.8 from then: on LuxCore scenes of a renderer the model never saw the
    # doubt there was mostly wrong (steep views turned show a side face on top); on 230 new
    # pool scenes 25 more dice sure and right, none fewer right (docs/vision-history.md, stop 30).
    turned_doubt_low: float | None = 0.8
    # Where the turned view reads the SAME value, the value's probability is the surer view's
    # (stop 66): low in a top-down photo the turned crop is the view the classifier knows (side
    # face below the top face), and it can be the surer of the two. Kept by rule A on far sets
    # never read before: hands-free 73.75 -> 77.92 %, no sure read wrong either way
    # (docs/vision-history.md, "Stop 66"). False = the upright view's probability, as before.
    turned_agreement_lifts: bool = True
    # Two reads of the same colour whose boxes overlap by at least this IoU are both unsure: one
    # die boxed twice (whole die and top face, read as two dice) or two dice one behind the other,
    # half hidden; either way worth a look. None = off.
    same_colour_unsure_iou: float | None = 0.3
    # The pip check (vision.pips, docs/vision.md), on when ``pip_confirm_from`` is set: an unsure
    # read whose value probability is at least ``pip_confirm_from`` is looked at again by a plain
    # OpenCV pip counter; when the counter finds the same face, checked by its pattern
    # (``pip_confirm_min`` pips or more: 1 and 2 pips fit any layout), the value's doubt
    # (1 - P(value)) is multiplied by ``pip_doubt_factor``. It only confirms: a count that
    # disagrees, or no count, changes nothing. The gates were chosen on the Blender tuning set with
    # the Blender-free model v10 (``pip_confirm_from`` = ``PIP_CONFIRM_FROM``); models v11-v15 used
    # it. Off (None) from v16: on the LuxCore pool it confirmed side faces of steep views (a 6 or 5
    # read as the 3 on its side), and the calibration rule gives v16 more sure and right reads
    # without it (577 against 308 of 906; docs/vision-history.md, v16). ``python -m vision bench
    # --pip-check`` measures with it (``PIP_CONFIRM_FROM``). On again since stop 69 (rule Q): on real
    # photos (the real white dice, and the same photos with their dice painted) it made 0.4-3.1
    # points more hands-free with no sure read wrong more; on fresh LuxCore sets it changed 1-2 reads
    # a set, none wrong (docs/vision-history.md, stop 69). ``--no-pip-check`` reads without it.
    pip_confirm_from: float | None = PIP_CONFIRM_FROM
    pip_doubt_factor: float = 0.05
    pip_confirm_min: int = 3


@dataclass(frozen=True)
class LiveConfig:
    """When the scene counts as still (dice stopped rolling), and when it is a new scene."""

    # Frames are compared as grey images downscaled to this width.
    diff_width: int = 160
    # Gaussian blur kernel (odd) applied before differencing, to ignore sensor noise.
    blur_kernel: int = 5
    # A pixel "moved" when its grey level changed by more than this (0..255).
    pixel_threshold: int = 18
    # A frame pair is still when the fraction of moved pixels is at most this.
    still_fraction: float = 0.002
    # The scene is stable after this many seconds of consecutive still frame pairs.
    still_seconds: float = 0.5
    # ... but at least this many consecutive still pairs (for low frame rates).
    min_still_frames: int = 3
    # A stable scene is NEW (gets read and printed) when it differs from the last read scene
    # by more than this fraction of moved pixels (so a camera left on a still table prints once).
    new_scene_fraction: float = 0.01
    # Cameras: assumed frame rate when the device reports none.
    default_fps: float = 15.0
    # Cameras: give up after this many failed frame grabs in a row (webcams often fail a few
    # grabs while starting up; a video file simply ends at its first failed grab).
    camera_max_failed_reads: int = 30


DEFAULT_LIMITS = ImageLimits()
DEFAULT_READER = ReaderConfig()
DEFAULT_LIVE = LiveConfig()
