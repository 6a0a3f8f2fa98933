"""The stand-alone score pad as a view-model (plain Python).

The user enters each seat (human, or automa with its scoring card) and what is on the table at
the end; the pad keeps that as a score sheet (docs/score-sheet.md) and scores it with
``companion.scorepad`` / ``companion.scoring`` after every change. A sheet the scoring refuses
(two seats with the same name, an expert listed twice...) gives ``error`` with the reason and
no result, and the entries stay as typed so the user can fix them.

Export writes the sheet in the documented format, plus the computed ``"result"`` (the
``--json`` output of ``python -m companion score``), which the sheet format allows (other
fields are ignored), so the file can be scored again by the CLI.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from companion.app.common.i18n import Translator
from companion.app.score.vm import ScoreView, build_view
from companion.content.board import default_board
from companion.content.experts import EXPERTS, expert_by_name
from companion.content.paths import user_data_dir
from companion.content.vocab import CATEGORIES, CONTINENTS, ContentError
from companion.scorepad import MAX_COUNT, SheetError, parse_sheet, result_json, score_sheet
from companion.scoring import AUTOMA_SCORING_CARDS, ScoreInputError

HUMAN_COUNTS = ("vp", "seals", "coins", "tokens", "reputation", "sepultus")
AUTOMA_COUNTS = ("vp", "seals", "coins", "tokens")
SHEET_FORMAT_NOTE = "score sheet (docs/score-sheet.md) with the computed result"


class PadError(ValueError):
    """A score pad entry that cannot be accepted (the message says why)."""


@dataclass
class PadSeat:
    kind: str                      # "human" | "automa"
    name: str
    scoring: str | None = None     # automa scoring card
    counts: dict[str, int] = field(default_factory=dict)   # vp, seals, coins, tokens, ...
    cubes: dict[str, int] = field(default_factory=dict)    # human: category -> published cubes
    published: dict[str, int] = field(default_factory=dict)  # human: continent -> cards
    animals: dict[str, int] = field(default_factory=dict)  # automa: continent -> cards
    experts: list[tuple[str, bool]] = field(default_factory=list)  # (name, active)

    def to_sheet(self) -> dict:
        c = self.counts
        if self.kind == "human":
            return {
                "name": self.name, "kind": "human",
                **{k: c.get(k, 0) for k in HUMAN_COUNTS},
                "cubes": {k: v for k, v in self.cubes.items() if v},
                "published": {k: v for k, v in self.published.items() if v},
                "experts": [{"name": n, "active": a} for n, a in self.experts],
            }
        return {
            "name": self.name, "kind": "automa", "scoring": self.scoring,
            **{k: c.get(k, 0) for k in AUTOMA_COUNTS},
            "animals": {k: v for k, v in self.animals.items() if v},
            "experts": [{"name": n} for n, _ in self.experts],
        }


class ScorePad:
    def __init__(self, tr: Translator):
        self.tr = tr
        self.seats: list[PadSeat] = []
        self.error: str | None = None
        self.view: ScoreView | None = None
        self._result: dict | None = None

    # -- seats -------------------------------------------------------------------------------
    def _next_name(self, base: str) -> str:
        used = {s.name.casefold() for s in self.seats}
        n = len(self.seats) + 1
        while f"{base} {n}".casefold() in used:
            n += 1
        return f"{base} {n}"

    def add_human(self, name: str | None = None) -> PadSeat:
        return self._add(PadSeat("human", name or self._next_name(self.tr("pad.player"))))

    def add_automa(self, scoring: str = "la-boudeuse", name: str | None = None) -> PadSeat:
        self._check_card(scoring)
        return self._add(PadSeat("automa", name or self._next_name(self.tr("pad.automa")), scoring=scoring))

    def _add(self, seat: PadSeat) -> PadSeat:
        board = default_board()
        if len(self.seats) >= board.max_seats:
            raise PadError(self.tr("pad.too_many", n=board.max_seats))
        self.seats.append(seat)
        self.recompute()
        return seat

    def remove(self, i: int) -> None:
        self._seat(i)
        del self.seats[i]
        self.recompute()

    def _seat(self, i: int) -> PadSeat:
        if not 0 <= i < len(self.seats):
            raise PadError(f"no seat {i + 1}")
        return self.seats[i]

    @staticmethod
    def _check_card(card: str) -> None:
        if card not in AUTOMA_SCORING_CARDS:
            raise PadError(f"unknown scoring card {card!r}; expected one of {', '.join(AUTOMA_SCORING_CARDS)}")

    # -- entries -----------------------------------------------------------------------------
    def set_name(self, i: int, name: str) -> None:
        self._seat(i).name = " ".join(name.split())
        self.recompute()

    def set_scoring(self, i: int, card: str) -> None:
        seat = self._seat(i)
        if seat.kind != "automa":
            raise PadError("only an automa has a scoring card")
        self._check_card(card)
        seat.scoring = card
        self.recompute()

    def set_count(self, i: int, what: str, value: int, key: str | None = None) -> None:
        """``what``: a count (``vp``, ``coins``...) or a table (``cubes``/``published``/``animals``
        with ``key`` = category / continent). Negative or non-whole values are refused."""
        seat = self._seat(i)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > MAX_COUNT:
            raise PadError(self.tr("pad.bad_count", value=value))
        if key is None:
            allowed = HUMAN_COUNTS if seat.kind == "human" else AUTOMA_COUNTS
            if what not in allowed:
                raise PadError(f"{seat.kind} seats have no {what!r} count")
            seat.counts[what] = value
        else:
            tables = {"human": {"cubes": CATEGORIES, "published": CONTINENTS},
                      "automa": {"animals": CONTINENTS}}[seat.kind]
            if what not in tables or key not in tables[what]:
                raise PadError(f"{seat.kind} seats have no {what}[{key!r}]")
            getattr(seat, what)[key] = value
        self.recompute()

    def add_expert(self, i: int, name: str) -> str:
        """Add an expert by name (accents and case forgiven); returns the card's exact name."""
        seat = self._seat(i)
        try:
            expert = expert_by_name(name)
        except (KeyError, ContentError) as exc:
            raise PadError(str(exc.args[0]) if exc.args else str(exc)) from None
        for j, s in enumerate(self.seats):
            if any(n == expert.name for n, _ in s.experts):
                raise PadError(self.tr("pad.expert_taken", expert=expert.name, seat=s.name))
        seat.experts.append((expert.name, True))
        self.recompute()
        return expert.name

    def remove_expert(self, i: int, name: str) -> None:
        seat = self._seat(i)
        seat.experts = [(n, a) for n, a in seat.experts if n != name]
        self.recompute()

    def set_expert_active(self, i: int, name: str, active: bool) -> None:
        seat = self._seat(i)
        if not any(n == name for n, _ in seat.experts):
            raise PadError(f"{seat.name} has no expert {name!r}")
        seat.experts = [(n, active if n == name else a) for n, a in seat.experts]
        self.recompute()

    @staticmethod
    def expert_suggestions(text: str, limit: int = 8) -> list[str]:
        """Expert names containing ``text`` (accents and case forgiven), for the search field."""
        from companion.content.vocab import name_key

        k = name_key(text)
        if not k:
            return []
        return [e.name for e in EXPERTS if k in name_key(e.name)][:limit]

    def summary(self, i: int, what: str) -> str:
        """"N in all" of a seat's table (``cubes``, ``published``, ``animals``) or its experts:
        what the folded tiles show, updated after every change."""
        seat = self._seat(i)
        if what == "experts":
            n = len(seat.experts)
        elif what in ("cubes", "published", "animals"):
            n = sum(getattr(seat, what).values())
        else:
            raise PadError(f"no summary of {what!r}")
        return self.tr("pad.count_sum", n=n)

    # -- results -----------------------------------------------------------------------------
    def sheet(self) -> dict:
        return {"players": [s.to_sheet() for s in self.seats]}

    def recompute(self) -> None:
        self.error, self.view, self._result = None, None, None
        if not self.seats:
            return
        try:
            sheet = parse_sheet(self.sheet())
            breakdowns, ranking = score_sheet(sheet)
        except (SheetError, ScoreInputError, ContentError) as exc:
            self.error = self._explain(exc)
            return
        self.view = build_view(breakdowns, ranking, self.tr)
        self._result = result_json(breakdowns, ranking)

    def _explain(self, exc: Exception) -> str:
        """``players[1].name: ...`` -> ``Seat 2 (Bob): name: ...``."""
        msg = str(exc)
        m = re.match(r"players\[(\d+)\]\.?(.*)", msg)
        if m:
            i = int(m.group(1))
            who = self.seats[i].name if i < len(self.seats) else ""
            return self.tr("pad.seat_problem", n=i + 1, name=who, problem=m.group(2))
        return msg

    def export_document(self) -> dict:
        if self._result is None:
            raise PadError(self.error or self.tr("pad.nothing_to_export"))
        return {**self.sheet(), "result": self._result,
                "_about": f"Encyclopedia Companion score pad, {SHEET_FORMAT_NOTE}"}

    def export_bytes(self) -> bytes:
        return (json.dumps(self.export_document(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")

    def export_name(self) -> str:
        return datetime.now().strftime("score-%Y-%m-%d-%H%M.json")

    def save_copy(self, folder: Path | None = None) -> Path:
        """Write the export into ``<user data dir>/score-sheets/`` (atomically); returns the path."""
        data = self.export_bytes()
        folder = folder or (user_data_dir(create=True) / "score-sheets")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / self.export_name()
        fd, tmp = tempfile.mkstemp(prefix=".score-", suffix=".json", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        return path

    def load_sheet_bytes(self, data: bytes, source: str) -> None:
        """Load a score sheet file's bytes; ``PadError("<file>: <where>: <problem>")`` if it is bad."""
        from companion.scorepad import MAX_SHEET_BYTES, loads_sheet

        if len(data) > MAX_SHEET_BYTES:
            raise PadError(f"{source}: too large for a score sheet ({len(data)} bytes; the limit is {MAX_SHEET_BYTES})")
        try:
            doc = loads_sheet(data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise PadError(f"{source}: not a UTF-8 text file") from None
        except SheetError as exc:
            raise PadError(f"{source}: {exc}") from None
        try:
            self.load_sheet(doc)
        except (SheetError, ScoreInputError, ContentError) as exc:
            raise PadError(f"{source}: {exc}") from None

    def load_sheet(self, data) -> None:
        """Replace the pad with a score sheet (an exported one, or one written by hand)."""
        sheet = parse_sheet(data)  # SheetError tells where the file is wrong; nothing changes then
        seats = []
        for inp in sheet.inputs:
            if hasattr(inp, "cubes"):
                seats.append(PadSeat(
                    "human", inp.name,
                    counts={k: getattr(inp, k) for k in HUMAN_COUNTS},
                    cubes=dict(inp.cubes), published=dict(inp.published),
                    experts=[(e.name, a) for e, a in inp.experts]))
            else:
                seats.append(PadSeat(
                    "automa", inp.name, scoring=inp.scoring,
                    counts={k: getattr(inp, k) for k in AUTOMA_COUNTS},
                    animals=dict(inp.animals), experts=[(e.name, True) for e in inp.experts]))
        self.seats = seats
        self.recompute()
