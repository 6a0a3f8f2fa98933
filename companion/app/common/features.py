"""Which parts the app can offer, depending on what is installed.

The app only calls the engine, the automa and the dice reader. While a part is missing (a
partial install, or during development), the screens that need it say so instead of failing.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache


@lru_cache(maxsize=None)
def available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def game_play_ready() -> bool:
    """New game / resume need the engine and the session."""
    return all(available(m) for m in ("companion.engine", "companion.session"))


def scorepad_ready() -> bool:
    return all(available(m) for m in ("companion.scoring", "companion.scorepad"))


def dice_reader_ready() -> bool:
    return available("vision.reader")


def catalogue_ready() -> bool:
    return available("companion.content.catalogue")
