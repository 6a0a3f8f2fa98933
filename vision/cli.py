"""Pieces of the command line that ``python -m vision`` shares with the lab's benchmark
(``python -m visionlab.bench``): the error with its exit code, the runtime options every
command has, and the factory of the shipped reader.  Runtime only: imports no lab code."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable

from vision.config import default_calibration_path

ReaderFactory = Callable[[argparse.Namespace, Any], Any]


class CliError(Exception):
    """An error to print on stderr, with the exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def add_common_options(p: argparse.ArgumentParser, calibration: bool = True) -> None:
    """``--backend``, ``--model-dir``, ``--threads`` (and, with ``calibration``, ``--calibration``
    and ``--no-calibration``)."""
    p.add_argument("--backend", choices=["auto", "onnxruntime", "opencv"], default="auto",
                   help="inference runtime (default: onnxruntime when installed, else OpenCV)")
    p.add_argument("--model-dir", type=Path, default=None, help="folder with the ONNX models (default: models/)")
    p.add_argument("--threads", type=int, default=1, help="CPU threads for inference (default 1)")
    if calibration:
        p.add_argument("--calibration", type=Path, default=None,
                       help=f"colour calibration file (default: {default_calibration_path()})")
        p.add_argument("--no-calibration", action="store_true", help="ignore any colour calibration")


def add_profile_options(p: argparse.ArgumentParser) -> None:
    """``--profile DIR`` / ``--no-profile``: read with a table profile's adapted model (default:
    the user's own profile when it holds one; docs/vision.md, "The table profile")."""
    which = p.add_mutually_exclusive_group()
    which.add_argument("--profile", type=Path, default=None,
                       help="table profile folder whose adapted model reads (default: your own profile, when it has one)")
    which.add_argument("--no-profile", action="store_true", help="read with the shipped model, ignoring any profile")


#: the start of the warning a read prints when it ignores a broken table profile
PROFILE_IGNORED = "warning: ignoring the table profile, reading with the shipped model: "


def resolve_profile(args: argparse.Namespace, err: Any) -> Any:
    """The adapted model ``args`` asks for (``vision.profile.AdaptedModel``) or None; sets
    ``args.adapted``. A broken profile is reported on ``err`` and ignored (the shipped model
    reads); a ``--profile`` folder that does not exist is an error (a typo, not a table)."""
    from vision.profile import ProfileError, TableProfile

    args.adapted = None
    if getattr(args, "no_profile", False) or getattr(args, "model_dir", None) is not None and args.profile is None:
        return None
    explicit = getattr(args, "profile", None)
    if explicit is not None and not Path(explicit).is_dir():
        raise CliError(f"error: no table profile folder at {explicit}")
    try:
        args.adapted = TableProfile(explicit).current_model()
    except ProfileError as exc:
        err.write(f"{PROFILE_IGNORED}{exc}\n")
    return args.adapted


def build_reader(args: argparse.Namespace, factory: Any, calibration: Any, err: Any) -> Any:
    """``factory``'s reader for ``args``. When the table profile's adapted model cannot load (a
    torn or foreign file in the profile), that is reported on ``err`` and the shipped model reads,
    as for any broken profile (issue 38 item 1; the app does the same: companion/app/game/vm.py)."""
    try:
        return factory(args, calibration)
    except CliError as exc:
        if getattr(args, "adapted", None) is None:
            raise
        reason = str(exc).removeprefix("error: cannot load the dice model: ").removeprefix("error: ")
        err.write(f"{PROFILE_IGNORED}its adapted model cannot load ({reason})\n")
        args.adapted = None
        return factory(args, calibration)


def with_pip_check(config: Any, args: argparse.Namespace) -> Any:
    """``config`` (a ReaderConfig) with ``--pip-check`` / ``--no-pip-check`` applied; neither: as it is."""
    from dataclasses import replace

    from vision.config import PIP_CONFIRM_FROM

    pip_check = getattr(args, "pip_check", None)
    if pip_check is None:
        return config
    return replace(config, pip_confirm_from=PIP_CONFIRM_FROM if pip_check else None)


def threads_of(args: argparse.Namespace) -> int:
    """``--threads`` (1 when the command has none); CliError(2) below 1."""
    threads = getattr(args, "threads", 1)
    if threads < 1:
        raise CliError("error: --threads must be at least 1")
    return threads


def default_reader_factory(args: argparse.Namespace, calibration: Any) -> Any:
    """Build the shipped reader; raise CliError(2) with the reason when the model is unusable."""
    from vision.reader import DiceReader
    from vision.runtime import ModelLoadError

    threads = threads_of(args)
    from dataclasses import replace

    from vision.config import DEFAULT_READER

    config = with_pip_check(DEFAULT_READER, args)
    adapted = getattr(args, "adapted", None)
    if adapted is not None:
        config = adapted.reader_config(config)
    unsure_below = getattr(args, "unsure_below", None)
    if unsure_below is not None:
        if not 0.0 <= unsure_below <= 1.0:
            raise CliError("error: --unsure-below must lie between 0 and 1")
        config = replace(config, unsure_below=unsure_below)
    try:
        return DiceReader.from_files(
            model_dir=args.model_dir, backend=args.backend, threads=threads, calibration=calibration,
            config=config, **({} if adapted is None else adapted.files),
        )
    except (ModelLoadError, FileNotFoundError, ImportError, ValueError, OSError) as exc:
        raise CliError(f"error: cannot load the dice model: {exc}") from None
