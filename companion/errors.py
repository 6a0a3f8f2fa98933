"""Errors the engine raises when an action breaks a rule.

Every rejected action raises a subclass of :class:`RuleError` (a ``ValueError``) and leaves the
state untouched. Messages are written for the person at the table: what is wrong and, where
there is one, what would fix it.

A refusal is raised with a message key and its arguments, ``NotEnoughError("spend.coins_short",
need=3, seat="Ann", have=1, extra=None)``: ``err.msg`` is that :class:`companion.messages.Msg`
(``err.key``, ``err.params``), which the app renders in the player's language; ``str(err)``
and ``err.args[0]`` are the English sentence (companion/data/messages-en.json).
"""

from __future__ import annotations

from companion.messages import Msg


class RuleError(ValueError):
    """An action the rules do not allow in the current state."""

    def __init__(self, key: str, /, **params):
        self.msg = Msg(key, **params)
        super().__init__(str(self.msg))

    @property
    def key(self) -> str:
        return self.msg.key

    @property
    def params(self) -> dict:
        return self.msg.args

    def __reduce__(self):  # copy / pickle rebuild it from its key, not from its English text
        return _rebuild, (type(self), self.msg.key, self.msg.args)


def _rebuild(cls, key: str, params: dict) -> RuleError:
    return cls(key, **params)


class BadActionError(RuleError):
    """The action itself is malformed (unknown type, bad field, impossible value)."""


class NotYourTurnError(RuleError):
    """The game waits for another seat, or for another kind of action."""


class GameOverError(NotYourTurnError):
    """The game has ended; nothing more can be applied."""


class NotEnoughError(RuleError):
    """The seat cannot pay: coins, expedition tokens or royal seals are short."""


class WrongColourError(RuleError):
    """The die's colour does not fit the action (change it with a token or a seal)."""


class DieValueError(RuleError):
    """The die's value is too low (or, for a Sepultus card, not exactly right)."""


class NoSuchDieError(RuleError):
    """The named die is not where the action says it is."""


class CardUnavailableError(RuleError):
    """The named card is not in the display, not the seat's, or not in the deck any more."""


class ExpertSlotError(RuleError):
    """An expert cannot go in / be used from that slot."""


class ExpeditionError(RuleError):
    """An expedition or its research breaks a rule (full continent, wrong card, over budget)."""


class PublicationError(RuleError):
    """A publication breaks DIGEST §4 (reference, mandatory cubes, categories)."""


class SetupError(RuleError):
    """The game set-up (seats, automa cards) is not valid."""


class ChanceError(RuleError):
    """A chance event (dice rolled, card revealed, round token) is impossible: e.g. a fifth
    red die, or a sixteenth African animal."""


__all__ = [
    "RuleError",
    "BadActionError",
    "NotYourTurnError",
    "GameOverError",
    "NotEnoughError",
    "WrongColourError",
    "DieValueError",
    "NoSuchDieError",
    "CardUnavailableError",
    "ExpertSlotError",
    "ExpeditionError",
    "PublicationError",
    "SetupError",
    "ChanceError",
]
