"""Export documents: a game as one JSON file (``parse_export`` checks one, ``read_export`` and
``write_export`` read and write the file, atomically)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from companion.store.checks import _check_meta, _dumps, check_action_dict
from companion.store.errors import ImportFormatError, InvalidActionDataError, NewerSchemaError, SaveWriteError
from companion.store.schema import _GAME_ID_RE, EXPORT_FORMAT, EXPORT_SCHEMA, MAX_IMPORT_BYTES


def parse_export(document: Any) -> tuple[str | None, dict, list[dict]]:
    """Validate an export document; return (game id or None, meta, actions). Raises
    :class:`ImportFormatError` (or :class:`NewerSchemaError`) naming the first problem."""
    if not isinstance(document, dict):
        raise ImportFormatError(f"an exported game is a JSON object, this is a {type(document).__name__}")
    fmt = document.get("format")
    if fmt != EXPORT_FORMAT:
        raise ImportFormatError(f'this is not an exported Encyclopedia Companion game ("format" is {fmt!r}, '
                                f"expected {EXPORT_FORMAT!r})")
    schema = document.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise ImportFormatError(f'"schema" must be a positive whole number, not {schema!r}')
    if schema > EXPORT_SCHEMA:
        raise NewerSchemaError(f"this game was exported by a newer version of the companion (schema {schema}, "
                               f"this version reads up to {EXPORT_SCHEMA}); update the app to import it")
    meta = document.get("meta", {})
    if not isinstance(meta, dict):
        raise ImportFormatError(f'"meta" must be a JSON object, not {type(meta).__name__}')
    try:
        meta = _check_meta(meta, '"meta"')
    except InvalidActionDataError as e:
        raise ImportFormatError(str(e)) from None
    actions = document.get("actions")
    if not isinstance(actions, list):
        raise ImportFormatError('"actions" must be a list of actions')
    for i, action in enumerate(actions):
        try:
            check_action_dict(action, f"action {i + 1}")
        except InvalidActionDataError as e:
            raise ImportFormatError(str(e)) from None
    game_id = document.get("game_id")
    if game_id is not None and (not isinstance(game_id, str) or not _GAME_ID_RE.match(game_id)):
        game_id = None  # a strange id is not worth refusing the game for; a fresh one is chosen
    return game_id, meta, [json.loads(_dumps(a)) for a in actions]


def read_export(path: str | os.PathLike[str]) -> Any:
    """Read an export file as JSON; :class:`ImportFormatError` with the reason if it cannot be."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise ImportFormatError(f"{path.name} is too large to be an exported game ({size} bytes)")
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImportFormatError(f"there is no file {path}") from None
    except OSError as e:
        raise ImportFormatError(f"{path.name} cannot be read: {e.strerror or e}") from e
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ImportFormatError(f"{path.name} is not a text file (not UTF-8 at byte {e.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ImportFormatError(f"{path.name} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None


def write_export(document: dict, path: str | os.PathLike[str]) -> Path:
    """Write an export document as readable JSON, atomically (temporary file + rename)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(document, f, ensure_ascii=False, indent=1, sort_keys=False, allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise SaveWriteError(f"could not write {path}: {e.strerror or e}") from e
    return path
