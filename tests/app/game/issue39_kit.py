"""A game screen over a state set up through the rules kit (tests/rules/rulekit.py), without a
saved game: the view-models read ``vm.state`` and confirm through the checked ``apply``, as
``GameVM`` does (issue 39's app tests)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "rules"))

import rulekit  # noqa: E402
from companion.app.game.texts import GameText  # noqa: E402
from companion.app.game.vm import GameVM  # noqa: E402
from companion.engine import apply  # noqa: E402
from companion.errors import RuleError  # noqa: E402


class FakeVM:
    """The part of ``GameVM`` a question uses: state, texts, confirm, error, notes, words."""

    def __init__(self, table: "rulekit.Table"):
        self.table = table
        self.t = GameText()
        self.seen_version = None
        self.error = None
        self.notes = []

    @property
    def state(self):
        return self.table.st

    def asked(self):
        """(version, state) of a new question, as ``GameVM.asked``."""
        return self.seen_version, self.state

    def confirm_all(self, actions, seen=None) -> bool:
        trial = self.state.copy()
        try:
            for a in actions:
                apply(trial, a)
        except RuleError as e:
            self.error = self.t.engine(e)
            return False
        self.table.st = trial
        return True

    def note(self, text) -> None:
        self.notes.append(text)

    card_label = GameVM.card_label
    spend_text = GameVM.spend_text
