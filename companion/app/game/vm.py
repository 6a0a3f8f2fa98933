"""The game view-model: what the screen asks now, and the engine action each answer becomes.

Plain Python (no Flet): ``GameVM`` wraps an open ``companion.session.GameSession``. The game
engine's ``state.pending`` decides the step; ``GameVM.step`` is one small object per kind of
question (reveal an expert, enter dice, take a die, research, an automa's turn, ...), each kept
beside its panel (``reveal_vm``, ``dice_vm``, ``turn_vm``, ``cards_vm``, ``automa_vm``,
``endgame_vm``; their base is ``steps.Step``). Every answer is turned into an engine action and
confirmed through ``GameSession.confirm``, which saves it to disk before it returns; only then
does the screen move on. A refused action (a ``RuleError``) sets ``GameVM.error`` to the
engine's message, in the player's language, and changes nothing.

Only legal choices are offered: they come from ``companion.engine.queries`` (die options, research
options, publishable types), from the engine's own checks (a choice is tried on a copy of the
state with the checked ``apply`` before it is shown as possible), and from the automa module
(``automa.decide``) for automa seats. Decisions are written down in docs/app-game.md.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from typing import Callable

from companion.actions import (
    Action, AutomaAction, ChooseAnimal, ChooseExpert, DrawAnimal, Spend, TakeDie, UseExpert,
)
from companion.app.game.automa_vm import AutomaStep
from companion.app.game.cards_vm import CategoriesStep, ChooseAnimalStep, ChooseExpertStep, SealStep
from companion.app.game.catalogue import LocalCatalogue
from companion.app.game.dice_vm import PlaceDiceStep, RollDiceStep, RollDieStep
from companion.app.game.endgame_vm import GameOverStep
from companion.app.game.reveal_vm import RevealAnimalStep, RevealExpertStep, RoundTokenStep
from companion.app.game.steps import Step, _try
from companion.app.game.texts import GameText
from companion.app.game.turn_vm import ResearchStep, TurnStep
from companion.engine import State, animal_deck_left
from companion.errors import RuleError
from companion.messages import Msg
from companion.session import GameSession
from companion.shared_session import StaleViewError
from companion.store import StoreError

AUTOMA_KINDS = ("take_die", "action", "choose_animal", "choose_expert")
TYPE_ROMAN = ("0", "I", "II", "III", "IV")


# --------------------------------------------------------------------------- the game


class GameVM:
    """One open game on screen. ``step`` is the current question; answering it confirms
    actions through the session (saved before returning). ``error``: the last refusal;
    ``notes``: instructions for the table that follow a confirmed step (an automa's dice
    layout, what an automa gains when its die is taken)."""

    def __init__(self, session: GameSession, text: GameText | None = None, catalogue: LocalCatalogue | None = None,
                 reader_factory: Callable[[], object] | None = None, learning=None):
        self.session = session
        self.t = text or GameText()
        self.catalogue = catalogue or LocalCatalogue()
        self._reader_factory = reader_factory
        self._reader = None
        self._reader_problem: str | None = None
        #: the table profile (``learning.TableLearning``); None: confirmed photos are not kept
        self.learning = learning
        self._reader_model = None  # the adapted model folder the reader was built with (None: shipped)
        self.error: str | None = None
        self.notes: list[str] = []
        #: (round, seat, dice, boxes) of the dice this page last confirmed from a photo: that
        #: seat's ``PlaceDiceStep`` of that round starts with them on the slots the photo shows
        self.photo_layout: tuple | None = None
        self._step: Step | None = None
        self._version = 0
        self._listeners: list[Callable[[], None]] = []
        self._seen: int | None = getattr(session, "version", None)
        self._asking = threading.local()  # the (version, state) of the question being made
        #: ``_remote`` (another page's thread) checks and clears ``error`` under it, ``_stale`` sets
        #: it under it: the stale notice is never cleared between that check and that clear
        self._error_lock = threading.Lock()
        #: called after another page changed the shared game (the screen redraws)
        self.on_remote: Callable[[], None] | None = None
        sub = getattr(session, "subscribe", None)
        if sub is not None:  # a SharedSession: redraw when another page changes the game
            sub(self._remote)

    # -- plumbing -----------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.session.state

    def subscribe(self, fn: Callable[[], None]) -> None:
        self._listeners.append(fn)

    def unsubscribe(self, fn: Callable[[], None]) -> None:
        self._listeners = [f for f in self._listeners if f != fn]

    @property
    def seen_version(self) -> int | None:
        """The version of the shared game this view-model shows (None: a session of its own)."""
        return self._seen

    def _changed(self) -> None:
        self._version += 1
        self._seen = getattr(self.session, "version", None)
        self._step = None
        for fn in list(self._listeners):
            fn()

    def _remote(self, version: int) -> None:
        """Another page changed the shared game: forget the question, tell the screen."""
        if version == self._seen:
            return  # our own change, already shown
        with self._error_lock:  # one step with ``_stale``'s write: a stale notice set meanwhile is kept
            if self.error != self.t("g.err.stale"):
                # a refusal of the game as it was goes; "another phone changed the game first:
                # nothing of your tap was applied" stays true, and stays until this page acts
                self.error = None
        self.notes = []
        self._changed()
        if self.on_remote is not None:
            self.on_remote()

    def _guard(self, seen: int | None):
        """The shared game's lock, refusing a view older than ``seen`` (the version the page
        showed; default: the one this view-model last knew); no lock for a session of its own."""
        tx = getattr(self.session, "transaction", None)
        if tx is None:
            return nullcontext()
        return tx(self._seen if seen is None else seen)

    def refuse_stale(self) -> bool:
        """A tap on a view the game has left, which reached no question (the page's controls
        were already replaced; ``companion.app.common.flet_events``): the stale message, the fresh state."""
        return self._stale()

    def _stale(self) -> bool:
        with self._error_lock:
            self.error = self.t("g.err.stale")
        self.notes = []
        self._changed()  # the fresh state
        return False

    def detach(self) -> None:
        """The page is gone: stop hearing about the shared game."""
        unsub = getattr(self.session, "unsubscribe", None)
        if unsub is not None:
            unsub(self._remote)

    def note(self, text) -> None:
        """A note for the table: a string, or a message (an automa's instruction) rendered in
        the table's language."""
        if isinstance(text, Msg):
            text = self.t.engine(text)
        if text:
            self.notes.append(text)

    def dice_reader(self):
        """(reader, None) or (None, why the photo reader is not available). With a table profile,
        the reader is rebuilt when the profile's adapted model changed (the learner switched a new
        one in); a broken profile or an adapted model that cannot load reads with the shipped one."""
        adapted = self.learning.adapted() if self.learning is not None else None
        key = None if adapted is None else adapted.folder
        if self._reader is not None and key != self._reader_model:
            self._reader, self._reader_problem = None, None
        if self._reader is None and self._reader_problem is None:
            try:
                self._reader, self._reader_model = self._build_reader(adapted), key
            except Exception as exc:  # a missing model must not stop the game: dice by hand
                self._reader_problem = self.t("g.err.no_reader", why=f"{type(exc).__name__}: {exc}")
        return self._reader, self._reader_problem

    def _build_reader(self, adapted):
        if self._reader_factory is not None:  # tests: their reader, built again when the model changed
            return self._reader_factory()
        from vision.reader import DiceReader

        if adapted is not None:
            try:
                return DiceReader.from_files(config=adapted.reader_config(), **adapted.files)
            except Exception as exc:  # noqa: BLE001 - the adapted model cannot load: the shipped one reads
                self.learning._report(f"the adapted model cannot load: {exc}")
        return DiceReader.from_files()

    def learned_from(self) -> int:
        """How many of the table's dice the reader learned from (0: none, or no profile)."""
        return self.learning.learned_from() if self.learning is not None else 0

    def keep_confirmed_photo(self, source, dice, removed=(), complete: bool = True) -> None:
        """A photo's dice were confirmed: keep them in the table profile and learn, in the
        background (never blocks the tap; a broken profile is reported there and ignored).
        ``complete``: every die of the photo is among ``dice`` with its box."""
        if self.learning is None:
            return
        try:
            self.learning.add_photo(source, dice, removed, complete)
        except Exception as exc:  # noqa: BLE001 - the game never stops for the profile
            self.learning._report(str(exc))

    # -- confirming ---------------------------------------------------------------------
    def confirm(self, action: Action, seen: int | None = None) -> bool:
        return self.confirm_all([action], seen=seen)

    def confirm_all(self, actions, seen: int | None = None) -> bool:
        """Confirm each action in order (each saved before the next). The whole chain is tried
        on a copy first, so a refusal changes nothing; a failed write stops at that action.
        On a shared game the chain applies under the game's lock, and only if the game is still
        at ``seen`` (the version the page showed): otherwise nothing is applied, ``error`` says
        why and the view shows the fresh state."""
        actions = list(actions)
        done = 0
        try:
            with self._guard(seen):
                _, problem = _try(self.state, actions, self.t)
                if problem is not None:
                    self.error = problem
                    return False
                self.error = None
                self.notes = []
                try:
                    for a in actions:
                        self.session.confirm(a)
                        done += 1
                except (RuleError, StoreError) as exc:
                    self.error = self.t.engine(exc)
                    self._seen = getattr(self.session, "version", None)
                    ok = False
                else:
                    self._seen = getattr(self.session, "version", None)
                    ok = True
        except StaleViewError:
            return self._stale()
        if done:
            self._changed()
        return ok

    def undo(self, seen: int | None = None) -> bool:
        """Undo the last step as the user confirmed it: a human's die and its action together,
        an automa's whole turn (its take, action and cards) together."""
        try:
            with self._guard(seen):
                if not self.session.can_undo:
                    self.error = self.t("g.err.nothing_to_undo")
                    return False
                try:
                    last = self.session.undo()
                    while self.session.can_undo and self._continues(self.session.actions[-1], last):
                        last = self.session.undo()
                except StoreError as exc:
                    self.error = str(exc)
                    ok = False
                else:
                    self.error = None
                    self.notes = []
                    ok = True
                self._seen = getattr(self.session, "version", None)
        except StaleViewError:
            return self._stale()
        self._changed()
        return ok

    def _continues(self, prev: Action, nxt: Action) -> bool:
        """Whether ``nxt`` belongs to the same user step as ``prev`` (for undo/redo)."""
        st = self.state
        seat = getattr(prev, "seat", None)
        if seat is None or seat != getattr(nxt, "seat", None) or seat >= len(st.seats):
            return False
        if isinstance(nxt, TakeDie):
            return False  # taking a die starts a turn
        if st.seats[seat].kind == "automa":
            kinds = (TakeDie, AutomaAction, ChooseAnimal, ChooseExpert, DrawAnimal)
            return isinstance(prev, kinds) and isinstance(nxt, kinds)
        return isinstance(prev, TakeDie) and not isinstance(nxt, UseExpert)

    def redo(self, seen: int | None = None) -> bool:
        try:
            with self._guard(seen):
                if not self.session.can_redo:
                    self.error = self.t("g.err.nothing_to_redo")
                    return False
                try:
                    last = self.session.redo()
                    while self.session.can_redo and self._continues(last, self.session.next_redo()):
                        last = self.session.redo()
                except (StoreError, RuleError) as exc:
                    self.error = self.t.engine(exc)
                    ok = False
                else:
                    self.error = None
                    ok = True
                self._seen = getattr(self.session, "version", None)
        except StaleViewError:
            return self._stale()
        self._changed()
        return ok

    @property
    def can_undo(self) -> bool:
        return self.session.can_undo

    @property
    def can_redo(self) -> bool:
        return self.session.can_redo

    def log(self) -> list[str]:
        """The readable action log, oldest first, in the player's language."""
        return [self.t.engine(m) for m in self.session.log_messages()]

    def log_rows(self, n: int) -> tuple[int, list[tuple[int, str]]]:
        """The log as the screen lists it: (how many lines it has, its last ``n`` lines NEWEST
        FIRST as (number, sentence)): numbered from 1 = the first action, so the order in time
        reads off the numbers; each line a sentence (upper-case first letter)."""
        count, last = self.log_tail(n)
        return count, [(count - i, x[:1].upper() + x[1:]) for i, x in enumerate(reversed(last))]

    def log_tail(self, n: int) -> tuple[int, list[str]]:
        """(how many lines the log has, its last ``n`` lines worded): what the screen shows,
        without wording the whole log at every step."""
        msgs = self.session.log_messages()
        return len(msgs), [self.t.engine(m) for m in msgs[-n:]]

    # -- the current question -----------------------------------------------------------
    @property
    def step(self) -> Step:
        if self._step is None:
            self._step = self._make_step()
        return self._step

    def asked(self) -> tuple[int | None, State]:
        """(version, state) a new question is asked at: the pair ``_make_step`` chose the
        question's kind on, or, outside it, the version read BEFORE the state. Another page's
        change landing between the two reads then leaves an older version with a newer state
        (the answer is refused as stale), never a newer version with an older state or a kind of
        question the state no longer asks (an answer to a game the page never showed, checked
        against the game as it is; docs/app.md, "Many phones, one game")."""
        pair = getattr(self._asking, "pair", None)
        if pair is not None:
            return pair
        seen = self._seen
        return seen, self.session.state

    def categories_needed(self, st: State | None = None) -> tuple[int, int] | None:
        """(card, owner) of a human's animal whose categories are still unknown."""
        st = self.state if st is None else st
        for si, s in enumerate(st.seats):
            if s.kind != "human":
                continue
            for cid in s.animals:
                c = st.cards[cid]
                if not c.sepultus and c.categories is None:
                    return cid, si
        return None

    def _make_step(self) -> Step:
        self._asking.pair = pair = self.asked()
        try:
            return self._step_for(pair[1])
        finally:
            self._asking.pair = None

    def _step_for(self, st: State) -> Step:
        p = st.pending
        if p.kind == "game_over":
            return GameOverStep(self)
        need = self.categories_needed(st)
        if need is not None:
            return CategoriesStep(self, *need)
        if p.seat is not None and p.kind in AUTOMA_KINDS and st.seats[p.seat].kind == "automa":
            return AutomaStep(self)
        cls = {
            "reveal_expert": RevealExpertStep,
            "reveal_animal": RevealAnimalStep,
            "reveal_round_token": RoundTokenStep,
            "roll_dice": RollDiceStep,
            "place_dice": PlaceDiceStep,
            "take_die": TurnStep,
            "action": TurnStep,
            "research": ResearchStep,
            "choose_animal": ChooseAnimalStep,
            "choose_expert": ChooseExpertStep,
            "seal_action": SealStep,
            "roll_die": RollDieStep,
        }.get(p.kind)
        if cls is None:
            raise LookupError(f"the game waits for {p.kind!r}, which this screen cannot ask")
        return cls(self)

    # -- words --------------------------------------------------------------------------
    def card_label(self, cid: int, st: State | None = None) -> str:
        st = self.state if st is None else st
        c = st.cards[cid]
        if c.sepultus:
            return c.name or self.t("g.card.sepultus", n=cid + 1)
        cont = self.t.continent(c.continent)
        return self.t("g.card.named", name=c.name, continent=cont) if c.name else self.t("g.card.unnamed", continent=cont, n=cid + 1)

    def spend_text(self, sp: Spend, die) -> str:
        t = self.t
        bits = []
        if sp.colour and sp.colour != die[0]:
            bits.append(t("g.spend.colour_seal" if sp.colour_by == "seal" else "g.spend.colour_token",
                          colour=t.colour(sp.colour)))
        if sp.seals_for_coins:
            bits.append(t("g.spend.seals_for_coins", n=sp.seals_for_coins))
        if sp.coins:
            bits.append(t("g.spend.coins", n=sp.coins))
        if sp.tokens:
            bits.append(t("g.spend.tokens", n=sp.tokens))
        seals = sp.seals - (1 if sp.colour_by == "seal" else 0)
        if seals > 0:
            bits.append(t("g.spend.seals", n=seals))
        return ", ".join(bits)

    def status_line(self) -> str:
        st = self.state
        if st.round == 0:
            return self.t("g.status.setup")
        return self.t("g.status.round", round=st.round, rounds=st.board.rounds,
                      first=st.seats[st.first_player].name)

    def deck_left(self) -> int:
        return animal_deck_left(self.state)


__all__ = ["GameVM", "LocalCatalogue", "Step", "TurnStep", "AutomaStep"]
