"""Score pad: the final count from a score sheet, for people who only want the scores.

    python -m companion score SHEET.json [--json]
    python -m companion.scorepad SHEET.json [--json]

The sheet format is documented in docs/score-sheet.md. A bad sheet exits with status 2 and ONE
line on stderr naming the file, the place in the sheet and the problem, e.g.
``sheet.json: players[1].cubes.reptil: unknown category 'reptil' (did you mean 'reptile'?)``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence, TextIO

from companion.content.board import Board, default_board
from companion.content.experts import Expert, expert_by_name
from companion.content.vocab import CATEGORIES, CONTINENTS, ContentError, did_you_mean
from companion.scoring import (
    AUTOMA_SCORING_CARDS,
    AutomaScoreInput,
    HumanScoreInput,
    Ranking,
    ScoreBreakdown,
    final_ranking,
    score,
)

EXIT_OK = 0
EXIT_BAD_SHEET = 2
EXIT_INTERNAL = 3

HUMAN_KEYS = ("name", "kind", "vp", "cubes", "published", "sepultus", "experts", "seals", "coins", "tokens", "reputation")
AUTOMA_KEYS = ("name", "kind", "scoring", "vp", "animals", "experts", "coins", "tokens", "seals")


class SheetError(ValueError):
    """A problem in a score sheet: ``where`` is the JSON path, ``problem`` what is wrong."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


@dataclass(frozen=True)
class Sheet:
    inputs: tuple[HumanScoreInput | AutomaScoreInput, ...]
    warnings: tuple[str, ...] = ()


# ------------------------------------------------------------------------------ parsing


#: what a score sheet may be (issue 40): a real sheet is a few kB, nested 5 deep, with counts
#: in the tens or hundreds; beyond these a file is refused with a clear message
MAX_SHEET_BYTES = 1024 * 1024
MAX_SHEET_DEPTH = 32
#: the largest count a sheet may give (VP, coins, cubes of a category, animals...): far above
#: any game (a winner scores about 200-300 VP; the box holds a few dozen cubes of a colour)
MAX_COUNT = 9_999


def _depth(text: str) -> int:
    """How deeply ``text``'s JSON arrays and objects nest (strings skipped), without parsing."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_SHEET_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def loads_sheet(text: str) -> Any:
    """The JSON value of a sheet's text, refused with a ``SheetError`` when it is larger than
    ``MAX_SHEET_BYTES`` (in UTF-8), nests deeper than ``MAX_SHEET_DEPTH`` or is not JSON."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SHEET_BYTES:
        raise SheetError("", f"too large for a score sheet ({size} bytes; the limit is {MAX_SHEET_BYTES})")
    if _depth(text) > MAX_SHEET_DEPTH:
        raise SheetError("", f"nested too deeply for a score sheet (more than {MAX_SHEET_DEPTH} levels)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SheetError("", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # (the depth check comes first; kept for safety)
        raise SheetError("", f"nested too deeply for a score sheet (more than {MAX_SHEET_DEPTH} levels)") from None


def _count(where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SheetError(where, f"expected a whole number, got {json.dumps(v)[:40]}")
    if isinstance(v, float):
        if math.isfinite(v) and abs(v) > MAX_COUNT:
            raise SheetError(where, f"{v:g} is more than a game can reach (the limit is {MAX_COUNT})")
        if not math.isfinite(v) or not v.is_integer():
            raise SheetError(where, f"expected a whole number, got {v!r}")
        v = int(v)
    if v < 0:
        raise SheetError(where, f"cannot be negative ({v})")
    if v > MAX_COUNT:
        raise SheetError(where, f"{v} is more than a game can reach (the limit is {MAX_COUNT})")
    return v


def _count_map(where: str, v: Any, keys: Sequence[str], what: str) -> dict[str, int]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise SheetError(where, f"expected an object of {what} → count, got {json.dumps(v)[:40]}")
    out: dict[str, int] = {}
    for k, n in v.items():
        key = k.strip().casefold() if isinstance(k, str) else k
        if key not in keys:
            raise SheetError(f"{where}.{k}", f"unknown {what} {k!r}{did_you_mean(str(k), keys)}")
        if key in out:
            raise SheetError(f"{where}.{k}", f"{what} {key!r} given twice")
        out[key] = _count(f"{where}.{k}", n)
    return out


def _expert(where: str, name: Any) -> Expert:
    if not isinstance(name, str) or not name.strip():
        raise SheetError(f"{where}.name", f"expected an expert's name, got {json.dumps(name)}")
    try:
        return expert_by_name(name)
    except KeyError as exc:
        raise SheetError(f"{where}.name", exc.args[0]) from None


def _experts(where: str, v: Any, with_active: bool, owners: dict[str, str]) -> list:
    if v is None:
        return []
    if not isinstance(v, list):
        raise SheetError(where, "expected a list of experts like [{\"name\": \"Safi Limbila\", \"active\": true}]")
    out = []
    for i, item in enumerate(v):
        w = f"{where}[{i}]"
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict):
            raise SheetError(w, f"expected {{\"name\": ...}}, got {json.dumps(item)[:40]}")
        e = _expert(w, item.get("name"))
        if e.name in owners:
            raise SheetError(f"{w}.name", f"{e.name} is already listed at {owners[e.name]} (there is one card of each expert)")
        owners[e.name] = w
        if with_active:
            active = item.get("active", True)
            if not isinstance(active, bool):
                raise SheetError(f"{w}.active", f"expected true or false, got {json.dumps(active)}")
            out.append((e, active))
        else:
            out.append(e)
    return out


def _unknown_key_warnings(where: str, player: dict, known: Sequence[str]) -> list[str]:
    """Extra fields are allowed; one that looks like a misspelt known field gets a warning."""
    warnings = []
    for k in player:
        if k in known or not isinstance(k, str):
            continue
        hint = did_you_mean(k, known, n=1)
        if hint:
            warnings.append(f"{where}.{k}: ignored{hint}")
    return warnings


def parse_sheet(data: Any, board: Board | None = None) -> Sheet:
    """Validate a whole sheet (already decoded JSON). Raises ``SheetError`` at the first problem."""
    board = board or default_board()
    if not isinstance(data, dict):
        raise SheetError("", f"expected a JSON object with a \"players\" list, got {type(data).__name__}")
    if "players" not in data:
        raise SheetError("players", "missing: a sheet is {\"players\": [...]}")
    players = data["players"]
    if not isinstance(players, list):
        raise SheetError("players", "expected a list of players")
    if not players:
        raise SheetError("players", "no players")
    if len(players) > 8:
        raise SheetError("players", f"{len(players)} players; a game has at most {board.max_seats} boards")
    inputs: list[HumanScoreInput | AutomaScoreInput] = []
    warnings: list[str] = []
    names: dict[str, str] = {}
    expert_owners: dict[str, str] = {}
    for i, p in enumerate(players):
        w = f"players[{i}]"
        if not isinstance(p, dict):
            raise SheetError(w, f"expected an object, got {json.dumps(p)[:40]}")
        name = p.get("name", f"Player {i + 1}")
        if not isinstance(name, str) or not name.strip():
            raise SheetError(f"{w}.name", f"expected a non-empty name, got {json.dumps(name)}")
        name = " ".join(name.split())
        if name.casefold() in names:
            raise SheetError(f"{w}.name", f"{name!r} is also the name of {names[name.casefold()]}; names must differ")
        names[name.casefold()] = w
        kind = p.get("kind", "human")
        if kind not in ("human", "automa"):
            raise SheetError(f"{w}.kind", f"expected \"human\" or \"automa\", got {json.dumps(kind)}")
        if kind == "human":
            warnings += _unknown_key_warnings(w, p, HUMAN_KEYS)
            sepultus = _count(f"{w}.sepultus", p.get("sepultus", 0))
            if sepultus > board.sepultus_cards:
                raise SheetError(f"{w}.sepultus", f"{sepultus}, but the box has {board.sepultus_cards} Sepultus Creatura cards")
            reputation = _count(f"{w}.reputation", p.get("reputation", 0))
            if reputation >= board.reputation_track_length:
                raise SheetError(
                    f"{w}.reputation",
                    f"the reputation counter's space is 0..{board.reputation_track_length - 1}, got {reputation}",
                )
            inputs.append(HumanScoreInput(
                name=name,
                vp=_count(f"{w}.vp", p.get("vp", 0)),
                cubes=_count_map(f"{w}.cubes", p.get("cubes"), CATEGORIES, "category"),
                published=_count_map(f"{w}.published", p.get("published"), CONTINENTS, "continent"),
                sepultus=sepultus,
                experts=_experts(f"{w}.experts", p.get("experts"), True, expert_owners),
                seals=_count(f"{w}.seals", p.get("seals", 0)),
                coins=_count(f"{w}.coins", p.get("coins", 0)),
                tokens=_count(f"{w}.tokens", p.get("tokens", 0)),
                reputation=reputation,
            ))
        else:
            warnings += _unknown_key_warnings(w, p, AUTOMA_KEYS)
            card = p.get("scoring")
            if card is None:
                raise SheetError(f"{w}.scoring", f"missing: an automa needs its scoring card ({', '.join(AUTOMA_SCORING_CARDS)})")
            if card not in AUTOMA_SCORING_CARDS:
                raise SheetError(
                    f"{w}.scoring",
                    f"unknown scoring card {json.dumps(card)}{did_you_mean(str(card), AUTOMA_SCORING_CARDS)}; "
                    f"expected one of {', '.join(AUTOMA_SCORING_CARDS)}",
                )
            inputs.append(AutomaScoreInput(
                name=name,
                scoring=card,
                vp=_count(f"{w}.vp", p.get("vp", 0)),
                animals=_count_map(f"{w}.animals", p.get("animals"), CONTINENTS, "continent"),
                experts=_experts(f"{w}.experts", p.get("experts"), False, expert_owners),
                coins=_count(f"{w}.coins", p.get("coins", 0)),
                tokens=_count(f"{w}.tokens", p.get("tokens", 0)),
                seals=_count(f"{w}.seals", p.get("seals", 0)),
            ))
    if sum(1 for x in inputs if isinstance(x, AutomaScoreInput)) > board.max_automas:
        warnings.append(f"players: more than {board.max_automas} automas (the rules allow at most {board.max_automas})")
    if len(inputs) > board.max_seats:
        warnings.append(f"players: {len(inputs)} players; a game has at most {board.max_seats} boards")
    return Sheet(tuple(inputs), tuple(warnings))


def read_sheet(path: str, board: Board | None = None, stdin: TextIO | None = None) -> Sheet:
    """Read and parse a sheet file (``-`` = standard input). Errors are ``SheetError``."""
    if path == "-":
        text = (stdin or sys.stdin).read(MAX_SHEET_BYTES + 1)
    else:
        p = Path(path)
        try:
            if p.is_file() and p.stat().st_size > MAX_SHEET_BYTES:
                raise SheetError("", f"too large for a score sheet ({p.stat().st_size} bytes; the limit is "
                                     f"{MAX_SHEET_BYTES})")
            text = p.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise SheetError("", "file not found") from None
        except IsADirectoryError:
            raise SheetError("", "is a directory, not a score sheet") from None
        except UnicodeDecodeError:
            raise SheetError("", "not a UTF-8 text file") from None
        except OSError as exc:
            raise SheetError("", f"cannot read ({exc.strerror or exc})") from None
    return parse_sheet(loads_sheet(text), board)


# ------------------------------------------------------------------------------ results


def score_sheet(sheet: Sheet, board: Board | None = None) -> tuple[list[ScoreBreakdown], Ranking]:
    board = board or default_board()
    breakdowns = [score(inp, board) for inp in sheet.inputs]
    return breakdowns, final_ranking(breakdowns)


def result_json(breakdowns: list[ScoreBreakdown], ranking: Ranking) -> dict[str, Any]:
    """``{"players": [{"name", "total", "breakdown": {key: vp}, ...}], "winners": [names]}``.

    Players in sheet order; each also carries ``kind``, ``place``, ``published_animals`` and the
    detailed ``items`` (label and explanation of every line).
    """
    place = {b.name: p for b, p in zip(ranking.order, ranking.places)}
    players = []
    for b in breakdowns:
        d = {
            "name": b.name,
            "total": b.total,
            "breakdown": b.by_key(),
            "kind": b.kind,
            "place": place[b.name],
            "published_animals": b.published_animals,
            "items": [i.to_json() for i in b.items],
        }
        if b.kind == "human":
            d["wildcards"] = dict(b.wildcards)
        else:
            d["scoring"] = b.scoring_card
        players.append(d)
    return {"players": players, "winners": list(ranking.winners), "tie_break_note": ranking.tie_break_note}


def _row_order(board: Board, breakdowns: list[ScoreBreakdown]) -> list[tuple[str, str]]:
    """(key, label) rows in a fixed order, only those some player has."""
    present: dict[str, str] = {}
    for b in breakdowns:
        for i in b.items:
            present.setdefault(i.category_key, i.label)
    fixed = (["track"] + [f"category:{c}" for c in board.categories] + [f"continent:{c}" for c in board.continents])
    rows = [(k, present[k]) for k in fixed if k in present]
    rows += sorted(((k, v) for k, v in present.items() if k.startswith("expert:")), key=lambda kv: kv[1])
    rows += [(k, present[k]) for k in ("expert_group:1", "expert_group:2", "expert_group:3") if k in present]
    rows += [(k, present[k]) for k in ("seals", "coins", "tokens") if k in present]
    return rows


def render_table(breakdowns: list[ScoreBreakdown], ranking: Ranking, board: Board | None = None) -> str:
    board = board or default_board()
    headers = []
    for b in breakdowns:
        if b.kind == "automa":
            headers.append(f"{b.name} ({board.automa_scoring_cards[b.scoring_card].name})")
        else:
            headers.append(b.name)
    rows = _row_order(board, breakdowns)
    labels = [label for _, label in rows] + ["Published animals", "TOTAL"]
    lw = max(len(x) for x in labels)
    cw = [max(len(h), 5) for h in headers]
    group_labels = {"expert_group:1": "Experts, largest group", "expert_group:2": "Experts, 2nd group",
                    "expert_group:3": "Experts, 3rd group"}
    lw = max(lw, *(len(v) for v in group_labels.values())) if any(k in group_labels for k, _ in rows) else lw
    lines = ["  ".join([" " * lw] + [h.rjust(w) for h, w in zip(headers, cw)])]
    lines.append("  ".join(["-" * lw] + ["-" * w for w in cw]))
    for key, label in rows:
        label = group_labels.get(key, label)
        cells = []
        for b, w in zip(breakdowns, cw):
            has = any(i.category_key == key for i in b.items)
            cells.append((str(b.vp_of(key)) if has else "").rjust(w))
        lines.append("  ".join([label.ljust(lw)] + cells))
    lines.append("  ".join(["-" * lw] + ["-" * w for w in cw]))
    lines.append("  ".join(["TOTAL".ljust(lw)] + [str(b.total).rjust(w) for b, w in zip(breakdowns, cw)]))
    if ranking.tie_break_note:
        lines.append("  ".join(["Published animals".ljust(lw)]
                               + [str(b.published_animals).rjust(w) for b, w in zip(breakdowns, cw)]))
    lines.append("")
    if ranking.tie_break_note:
        lines.append(f"Tie: {ranking.tie_break_note}.")
    win = ranking.winners
    lines.append(("Winner: " if len(win) == 1 else "Shared win: ") + ", ".join(win))
    return "\n".join(lines)


# ------------------------------------------------------------------------------ CLI


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage block
        self.exit(EXIT_BAD_SHEET, f"{self.prog}: {message} (try --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m companion score",
        description="Final scores of an Encyclopedia game from a score sheet (format: docs/score-sheet.md).",
    )
    p.add_argument("sheet", metavar="SHEET.json", help="the score sheet ('-' reads standard input)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad sheet or usage, 3 internal error)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["score"]:
        argv = argv[1:]
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, message already printed)
        return int(exc.code or 0)
    where = "<stdin>" if args.sheet == "-" else args.sheet
    try:
        board = default_board()
    except ContentError as exc:
        print(f"board constants: {exc}", file=stderr)
        return EXIT_BAD_SHEET
    try:
        sheet = read_sheet(args.sheet, board)
        breakdowns, ranking = score_sheet(sheet, board)
    except SheetError as exc:
        print(f"{where}: {exc}", file=stderr)
        return EXIT_BAD_SHEET
    except ValueError as exc:  # ScoreInputError and friends: still the sheet's fault
        print(f"{where}: {exc}", file=stderr)
        return EXIT_BAD_SHEET
    except Exception as exc:  # never a traceback for the player
        print(f"{where}: internal error, please report: {type(exc).__name__}: {exc}", file=stderr)
        return EXIT_INTERNAL
    for w in sheet.warnings:
        print(f"{where}: warning: {w}", file=stderr)
    if args.json:
        stdout.write(json.dumps(result_json(breakdowns, ranking), ensure_ascii=False, indent=2) + "\n")
    else:
        stdout.write(render_table(breakdowns, ranking, board) + "\n")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
