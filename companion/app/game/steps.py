"""The base of the game's questions (plain Python, no Flet).

``Step`` is one question of the game (who answers it, its title, how its answer is confirmed);
``_try`` tries actions on a copy of the state with the checked ``apply``, so only legal choices
are offered. The questions themselves live beside their panel (``reveal_vm``, ``dice_vm``,
``turn_vm``, ``cards_vm``, ``automa_vm``, ``endgame_vm``); ``vm.GameVM.step`` picks the one the
engine's ``state.pending`` asks for.
"""

from __future__ import annotations

from companion.actions import Action, UseExpert
from companion.app.game.texts import GameText
from companion.engine import EXPERT, State, apply
from companion.errors import RuleError
from companion.messages import Msg

#: the engine's words for what a slot's owner gains (its log lines' parts)
_GAIN_KEYS = {"coins": "log.gain.coins", "reputation": "log.gain.reputation", "vp": "log.gain.vp",
              "tokens": "log.gain.tokens", "seals": "log.gain.seals", "expert": "log.gain.expert",
              "animal": "log.gain.animal"}


def owner_gain_note(st: State, take, t: GameText) -> str | None:
    """What a human owner gains when another seat takes a die from their board ("Carl: take
    2 coins"), said on screen after the step is confirmed (BEFORE ``take`` is applied to
    ``st``). None: the taker's own die, an automa's board (its own instructions say it:
    ``automa.decide.gift_message``) or a slot without effect."""
    if take is None or take.owner == take.seat or not 0 <= take.owner < len(st.seats):
        return None
    owner = st.seats[take.owner]
    if owner.kind == "automa" or not 0 <= take.slot < len(st.board.slot_effects):
        return None
    eff = st.board.slot_effects[take.slot]
    if not eff:
        return None
    gain = ", ".join(t.engine(Msg(_GAIN_KEYS[k], n=n)) for k, n in eff.items() if k in _GAIN_KEYS)
    return t("g.gift.human", owner=owner.name, gain=gain) if gain else None


def _try(st: State, actions, t: GameText | None = None) -> tuple[State | None, str | None]:
    """``st`` after ``actions`` (checked, on a copy) or the engine's refusal (worded by ``t``,
    in its language; English without it)."""
    trial = st.copy()
    try:
        for a in actions:
            apply(trial, a)
    except RuleError as exc:
        return None, t.engine(exc) if t is not None else str(exc)
    return trial, None


class Step:
    """One question of the game. ``kind`` names it; ``seat`` is who answers (None: the table)."""

    kind = ""

    def __init__(self, vm: "GameVM"):
        self.vm = vm
        self.t = vm.t
        #: the version of the shared game this question was asked at (None: not shared) and its
        #: state, read as one pair (``GameVM.asked``); an answer to an older question is refused
        #: (docs/app.md, "Many phones, one game")
        self.seen, self.state = vm.asked()
        self.pending = self.state.pending
        self.seat = self.pending.seat

    def _confirm(self, action: Action) -> bool:
        return self.vm.confirm_all([action], seen=self.seen)

    def _confirm_all(self, actions) -> bool:
        return self.vm.confirm_all(actions, seen=self.seen)

    def one_shots(self) -> list[str]:
        """The face-up one-shot (⚡) experts the seat may use now: whenever the engine accepts
        ``use_expert`` (its own turn: taking a die, the action, the research, a bonus card
        chosen at the end of the turn, the die of a seal action; issue 39)."""
        if self.seat is None or "use_expert" not in self.pending.accepts:
            return []
        s = self.state.seats[self.seat]
        return [n for n in s.face_up if n is not None and EXPERT[n].duration == "oneshot"]

    def use_expert(self, name: str) -> bool:
        return self._confirm(UseExpert(self.seat, name))

    @property
    def seat_name(self) -> str | None:
        return self.state.seats[self.seat].name if self.seat is not None else None

    def title(self) -> str:
        return self.t(f"g.step.{self.kind}", name=self.seat_name or "")
