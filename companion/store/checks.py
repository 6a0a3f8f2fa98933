"""What the log accepts: plain JSON data (actions, meta) and game ids; the stored (canonical)
JSON text and the time stamps."""

from __future__ import annotations

import json
import math
import secrets
from datetime import datetime, timezone
from typing import Any, Mapping

from companion.store.errors import InvalidActionDataError, StoreError
from companion.store.schema import _GAME_ID_RE, _STORE_MANAGED_META


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dumps(value: Any) -> str:
    """Canonical JSON text (sorted keys, no NaN/Infinity) — the stored form."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _json_problem(value: Any, where: str) -> str | None:
    """Why ``value`` is not plain JSON data (dict with str keys, list, str, int, float, bool,
    None), or ``None`` if it is. Tuples are refused: they would come back as lists."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is {value!r}, which JSON cannot hold"
    if isinstance(value, list):
        for i, item in enumerate(value):
            problem = _json_problem(item, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where} has a key {key!r} that is not a string"
            problem = _json_problem(item, f"{where}.{key}")
            if problem:
                return problem
        return None
    return f"{where} is a {type(value).__name__}, which is not JSON data"


def check_action_dict(action: Any, where: str = "the action") -> None:
    """Raise :class:`InvalidActionDataError` unless ``action`` is a JSON object with a
    non-empty string ``"type"`` whose values are all plain JSON data."""
    if not isinstance(action, dict):
        raise InvalidActionDataError(f"{where} must be a JSON object, not {type(action).__name__}")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise InvalidActionDataError(f'{where} has no "type" (a non-empty string is required)')
    problem = _json_problem(action, where)
    if problem:
        raise InvalidActionDataError(problem)


def _check_meta(meta: Mapping[str, Any] | None, where: str = "meta") -> dict:
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise InvalidActionDataError(f"{where} must be a JSON object, not {type(meta).__name__}")
    meta = dict(meta)
    problem = _json_problem(meta, where)
    if problem:
        raise InvalidActionDataError(problem)
    for key in _STORE_MANAGED_META:
        meta.pop(key, None)
    if "title" in meta and not isinstance(meta["title"], str):
        raise InvalidActionDataError(f"{where}.title must be a string")
    return meta


def _new_game_id() -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def _check_game_id(game_id: str) -> str:
    if not isinstance(game_id, str) or not _GAME_ID_RE.match(game_id):
        raise StoreError(
            f"{game_id!r} is not a valid game id (letters, digits, '-' and '_', at most 64)",
            game_id=game_id if isinstance(game_id, str) else None,
        )
    return game_id
