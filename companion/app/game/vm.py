"""The game view-model: what the screen asks now, and the engine action each answer becomes.

Plain Python (no Flet): ``GameVM`` wraps an open ``companion.session.GameSession``. The game
engine's ``state.pending`` decides the step; ``GameVM.step`` is one small object per kind of
question (reveal an expert, enter dice, take a die, research, an automa's turn, ...). Every
answer is turned into an engine action and confirmed through ``GameSession.confirm``, which
saves it to disk before it returns; only then does the screen move on. A refused action (a
``RuleError``) sets ``GameVM.error`` to the engine's message, in the player's language, and
changes nothing.

Only legal choices are offered: they come from ``companion.queries`` (die options, research
options, publishable types), from the engine's own checks (a choice is tried on a copy of the
state with the checked ``apply`` before it is shown as possible), and from the automa module
(``automa.decide``) for automa seats. Decisions are written down in docs/app-game.md.
"""

from __future__ import annotations

import dataclasses
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable

from automa.decide import decide, dice_instructions, gift_instructions
from companion import queries
from companion.actions import (
    Action, AutomaAction, ChooseAnimal, ChooseExpert, DrawAnimal, Pass, PlaceDice,
    Research, RevealAnimal, RevealExpert, RevealRoundToken, RollDie, SealAction,
    SetCategories, Spend, TakeDie, UseExpert,
)
from companion.app.game.dice import DiceEntry
from companion.app.game.texts import GameText
from companion.content.experts import EXPERTS
from companion.content.vocab import CATEGORIES, CATEGORIES_BY_TYPE, name_key
from companion.engine import EXPERT, animal_deck_left, apply
from companion.errors import RuleError
from companion.session import GameSession
from companion.shared_session import StaleViewError
from companion.state import State
from companion.store import StoreError

AUTOMA_KINDS = ("take_die", "action", "choose_animal", "choose_expert")
TYPE_ROMAN = ("0", "I", "II", "III", "IV")


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


# --------------------------------------------------------------------------- the catalogue


class LocalCatalogue:
    """The local animal catalogue (``<user data dir>/catalogue.json``), loaded lazily.

    A corrupt file is reported (``problem``) and never overwritten: the game goes on without
    remembering names."""

    def __init__(self, path=None):
        self.path = path
        self._cat = None
        self.problem: str | None = None

    def _load(self):
        if self._cat is None and self.problem is None:
            from companion.content.catalogue import Catalogue, CatalogueError

            try:
                self._cat = Catalogue.load(self.path)
            except (CatalogueError, OSError) as exc:
                self.problem = str(exc)
        return self._cat

    def get(self, name: str):
        cat = self._load()
        return cat.get(name) if cat is not None and name else None

    def search(self, prefix: str, continent: str | None = None, sepultus: bool = False) -> list:
        """Cards whose name starts with ``prefix`` (accents, case, spaces forgiven), by name;
        then those with a later word that starts with it ("gal" finds Aix galericulata)."""
        cat = self._load()
        if cat is None:
            return []
        from companion.content.catalogue import SepultusCard

        key = name_key(prefix or "")
        first, later = [], []
        for c in cat:
            if sepultus != isinstance(c, SepultusCard):
                continue
            if continent and not sepultus and c.continent != continent:
                continue
            if name_key(c.name).startswith(key):
                first.append(c)
            elif key and any(name_key(w).startswith(key) for w in c.name.split()[1:]):
                later.append(c)
        return sorted(first, key=lambda c: name_key(c.name)) + sorted(later, key=lambda c: name_key(c.name))

    def remember(self, name: str, continent: str, categories=None) -> str | None:
        """Save an animal under its name (its categories, when known: a card already known
        with its categories is kept as it is); returns a problem or None."""
        if not name or not continent:
            return None
        cat = self._load()
        if cat is None:
            return self.problem
        from companion.content.catalogue import AnimalCard, CatalogueError

        try:
            fate = cat.add(AnimalCard(continent, tuple(categories) if categories else None, name))
            if fate != "unchanged":
                cat.save(self.path)
        except (CatalogueError, OSError) as exc:
            return str(exc)
        return None

    def remember_sepultus(self, name: str, die: int, cost: int, categories) -> str | None:
        if not name:
            return None
        cat = self._load()
        if cat is None:
            return self.problem
        from companion.content.catalogue import CatalogueError, SepultusCard

        try:
            cat.add(SepultusCard(die, cost, tuple(categories), name))
            cat.save(self.path)
        except (CatalogueError, OSError) as exc:
            return str(exc)
        return None


# --------------------------------------------------------------------------- steps


class Step:
    """One question of the game. ``kind`` names it; ``seat`` is who answers (None: the table)."""

    kind = ""

    def __init__(self, vm: "GameVM"):
        self.vm = vm
        self.t = vm.t
        self.state = vm.state
        self.pending = vm.state.pending
        self.seat = self.pending.seat
        #: the version of the shared game this question was asked at (None: not shared); an
        #: answer to an older question is refused (docs/app.md, "Many phones, one game")
        self.seen = vm.seen_version

    def _confirm(self, action: Action) -> bool:
        return self.vm.confirm_all([action], seen=self.seen)

    def _confirm_all(self, actions) -> bool:
        return self.vm.confirm_all(actions, seen=self.seen)

    @property
    def seat_name(self) -> str | None:
        return self.state.seats[self.seat].name if self.seat is not None else None

    def title(self) -> str:
        return self.t(f"g.step.{self.kind}", name=self.seat_name or "")


class RevealExpertStep(Step):
    """The next expert turned face up into the display: by name, searchable, filterable."""

    kind = "reveal_expert"

    def __init__(self, vm):
        super().__init__(vm)
        d = self.state.expert_display
        self.slot = d.index(None) if None in d else len(d)
        self.size = len(d)
        self.query = ""
        self.continent: str | None = None

    def candidates(self) -> list[str]:
        seen = set(self.state.experts_seen)
        q = name_key(self.query)
        out = []
        for e in EXPERTS:
            if e.name in seen:
                continue
            if self.continent and e.continent != self.continent:
                continue
            if q and q not in name_key(e.name):
                continue
            out.append(e.name)
        return out

    def reveal(self, name: str) -> bool:
        return self._confirm(RevealExpert(name))


class RevealAnimalStep(Step):
    """The next animal card into the display: its continent (one tap), optionally its name."""

    kind = "reveal_animal"

    def __init__(self, vm):
        super().__init__(vm)
        d = self.state.animal_display
        self.slot = d.index(None) if None in d else len(d)
        self.size = len(d)
        self.name = ""
        self.sepultus_allowed = self.state.sepultus and sum(1 for c in self.state.cards if c.sepultus) < self.state.board.sepultus_cards

    def continents_left(self) -> dict[str, int]:
        b = self.state.board
        seen: dict[str, int] = {}
        for c in self.state.cards:
            if not c.sepultus:
                seen[c.continent] = seen.get(c.continent, 0) + 1
        return {c: b.animals_per_continent - seen.get(c, 0) for c in b.continents}

    def suggestions(self, continent: str | None = None) -> list:
        """Catalogue cards whose name starts with what was typed (``name``), at most 8: not
        already in this game, of a continent with cards left (Sepultus cards when they are in
        play and some are left). Each is one tap away: ``pick(card)``."""
        if not self.name.strip():
            return []
        in_game = {name_key(c.name) for c in self.state.cards if c.name}
        left = self.continents_left()
        cards = [c for c in self.vm.catalogue.search(self.name, continent)
                 if name_key(c.name) not in in_game and left.get(c.continent, 0) > 0]
        if self.sepultus_allowed and continent is None:
            cards += [c for c in self.vm.catalogue.search(self.name, sepultus=True) if name_key(c.name) not in in_game]
        return cards[:8]

    def suggestion_label(self, card) -> str:
        """"Aix galericulata · Europe · Bird, Omnivore, Aquatic, Temperate": what the catalogue
        fills in, so the table checks it against the card before the tap."""
        t = self.t
        if getattr(card, "kind", "") == "sepultus":
            return t("g.reveal.suggestion_sepultus", name=card.name, what=t("g.sepultus"),
                     die=card.die_value, cost=card.expedition_value)
        if card.categories:
            return t("g.reveal.suggestion_full", name=card.name, continent=t.continent(card.continent),
                     categories=", ".join(t.category(c) for c in card.categories))
        return t("g.reveal.suggestion", name=card.name, continent=t.continent(card.continent))

    def pick(self, card) -> bool:
        """One tap on a suggestion: the card is revealed with its name, continent and categories
        from the catalogue."""
        if getattr(card, "kind", "") == "sepultus":
            return self.reveal_sepultus(card.die_value, card.expedition_value, card.categories, card.name)
        return self.reveal(card.continent, card.name)

    def reveal(self, continent: str, name: str | None = None) -> bool:
        """The card's continent (one tap), with the name typed when there is one: a catalogue
        name brings its categories; a new name is added to the catalogue."""
        name = (self.name if name is None else name).strip()
        cats = None
        known = self.vm.catalogue.get(name)
        if known is not None and getattr(known, "kind", "") == "animal":
            if known.continent != continent:
                self.vm.error = self.t("g.err.catalogue_continent", name=known.name,
                                       continent=self.t.continent(known.continent))
                return False
            name = known.name
            cats = known.categories
        ok = self._confirm(RevealAnimal(continent, name, cats))
        if ok and name and known is None:
            self.vm.note(self.vm.catalogue.remember(name, continent))
        return ok

    def reveal_sepultus(self, die: int, cost: int, categories, name: str = "") -> bool:
        name = name.strip()
        ok = self._confirm(RevealAnimal(None, name, tuple(categories), True, die, cost))
        if ok and name:
            self.vm.note(self.vm.catalogue.remember_sepultus(name, die, cost, categories))
        return ok


class RoundTokenStep(Step):
    kind = "reveal_round_token"

    def choices(self) -> list[tuple[str, int]]:
        b = self.state.board
        out = []
        for e in b.round_token_effects:
            left = b.round_token_counts.get(e, 0) - self.state.round_tokens.count(e)
            out.append((e, left))
        return out

    def reveal(self, effect: str) -> bool:
        return self._confirm(RevealRoundToken(effect))


class RollDiceStep(Step):
    """A seat's dice drawn and rolled: tapped in, or read from a photo (see ``dice.DiceEntry``)."""

    kind = "roll_dice"

    def __init__(self, vm):
        super().__init__(vm)
        self.entry = DiceEntry(self.seat_name, self.pending.count, dict(self.state.bag), self.t)
        self.automa = self.state.seats[self.seat].kind == "automa"

    def read_photo(self, source) -> bool:
        reader, problem = self.vm.dice_reader()
        if reader is None:
            self.entry.message = problem
            self.entry.message_is_error = True
            return False
        return self.entry.load_read(reader.read(source))

    def submit(self) -> bool:
        problem = self.entry.problem()
        if problem:
            self.vm.error = problem
            return False
        seat = self.seat
        ok = self._confirm(self.entry.action(seat))
        if ok and self.automa:
            self.vm.note(dice_instructions(self.vm.state, seat))
        return ok


class PlaceDiceStep(Step):
    """A human puts each rolled die on a slot: tap a die, then a slot."""

    kind = "place_dice"

    def __init__(self, vm):
        super().__init__(vm)
        self.rolled = list(self.state.seats[self.seat].rolled)
        self.slots: list[int | None] = [None] * len(self.rolled)
        self.selected: int | None = 0 if self.rolled else None

    def select(self, i: int) -> None:
        self.selected = i

    def put(self, slot: int) -> None:
        """Put the selected die on ``slot`` (a die already there goes back to the unplaced ones,
        except with the extra die, when two dice may share a slot)."""
        if self.selected is None:
            return
        share = len(self.rolled) > 4
        if not share:
            for j, s in enumerate(self.slots):
                if s == slot and j != self.selected:
                    self.slots[j] = None
        self.slots[self.selected] = slot
        nxt = [j for j, s in enumerate(self.slots) if s is None]
        self.selected = nxt[0] if nxt else None

    def clear(self) -> None:
        self.slots = [None] * len(self.rolled)
        self.selected = 0 if self.rolled else None

    def in_slot(self, slot: int) -> list[int]:
        return [j for j, s in enumerate(self.slots) if s == slot]

    def ready(self) -> bool:
        return all(s is not None for s in self.slots)

    def submit(self) -> bool:
        if not self.ready():
            self.vm.error = self.t("g.err.place_all")
            return False
        return self._confirm(PlaceDice(self.seat, tuple(self.slots)))


@dataclass
class OptionView:
    """One legal action for the die, with its computed result."""

    index: int
    kind: str
    label: str
    result: str
    action: Action


class Draft:
    """An action being adjusted: spends with steppers, University slot, publication choices.

    ``result()`` is recomputed after each change by trying the action (with the ``TakeDie`` in
    front when the die is not taken yet) on a copy of the state: the text is what the engine
    would do, or the engine's refusal."""

    def __init__(self, turn: "TurnStep", option: OptionView):
        self.turn = turn
        self.t = turn.t
        self.kind = option.kind
        self.action = option.action
        self.label = option.label

    # -- spends -------------------------------------------------------------------------
    @property
    def spend(self) -> Spend:
        return getattr(self.action, "spend")

    def set_spend(self, **kw) -> None:
        sp = dataclasses.replace(self.spend, **kw)
        if sp.colour is None or sp.colour == self.turn.die[0]:
            sp = dataclasses.replace(sp, colour=None, colour_by=None)
        self.action = dataclasses.replace(self.action, spend=sp)

    def set_colour(self, colour: str | None, by: str = "token") -> None:
        sp = self.spend
        seals = sp.seals
        if sp.colour_by == "seal" and by != "seal":
            seals = max(0, seals - 1)
        if by == "seal" and sp.colour_by != "seal" and colour and colour != self.turn.die[0]:
            seals += 1
        self.set_spend(colour=colour, colour_by=("seal" if by == "seal" else None), seals=seals)

    def limits(self) -> dict[str, int]:
        s = self.turn.trial.seats[self.turn.seat]
        b = self.turn.trial.board
        sp = self.spend
        return {
            "coins": s.coins + sp.seals_for_coins * b.seal_coins,
            "tokens": s.tokens if self.kind == "expedition" else 0,
            "seals": s.seals - sp.seals_for_coins,
            "seals_for_coins": s.seals - sp.seals,
        }

    # -- university ---------------------------------------------------------------------
    def set_slot(self, slot: int | None) -> None:
        self.action = dataclasses.replace(self.action, slot=slot, use_now=False)

    def set_use_now(self, on: bool) -> None:
        self.action = dataclasses.replace(self.action, use_now=on, slot=None if on else self.action.slot)

    # -- publication --------------------------------------------------------------------
    def reference(self):
        return self.turn.trial.cards[self.action.reference]

    def top_type(self) -> int | None:
        """Highest type the die (with the current spend) publishes."""
        st = self.turn.trial
        s = st.seats[self.turn.seat]
        sp = self.spend
        die = self.turn.die
        colour = sp.colour or die[0]
        v = die[1] + s.fx.die_bonus.get(colour, 0) + sp.coins * st.board.coin_value + sp.seals * st.board.seal_value
        return st.board.publish_max_type(v)

    def publishable(self) -> dict[int, Spend]:
        return queries.publishable_types(self.turn.trial, self.turn.seat, self.action.reference, self.turn.die)

    def set_up_to(self, typ: int) -> None:
        """Publish up to ``typ``: also sets the cheapest spend that reaches it."""
        sp = self.publishable().get(typ)
        if sp is not None:
            self.action = dataclasses.replace(self.action, up_to=typ, spend=sp)
        else:
            self.action = dataclasses.replace(self.action, up_to=typ)
        self._prune()

    def _prune(self) -> None:
        allowed = set(self.extra_choices())
        extra = tuple(x for x in self.action.extra if x in allowed)
        givers = {c for c, _ in extra}
        keep = tuple(c for c in self.action.keep if c not in givers)
        self.action = dataclasses.replace(self.action, extra=extra, keep=keep)

    def extra_choices(self) -> list[tuple[int, str]]:
        """Cubes of other animals that may join: a category the reference publishes."""
        st = self.turn.trial
        s = st.seats[self.turn.seat]
        ref = st.cards[self.action.reference]
        top = self.action.up_to if self.action.up_to is not None else self.top_type()
        if top is None or ref.categories is None:
            return []
        have = s.cubes.get(ref.id, [])
        cats = [cat for t, cat in enumerate(ref.categories, 1) if t <= top and cat in have]
        out = []
        for cid in s.animals:
            if cid == ref.id:
                continue
            for cat in s.cubes.get(cid, []):
                if cat in cats:
                    out.append((cid, cat))
        return out

    def keep_choices(self) -> list[int]:
        st = self.turn.trial
        s = st.seats[self.turn.seat]
        ref = st.cards[self.action.reference]
        givers = {c for c, _ in self.action.extra}
        return [cid for cid in s.animals if cid != ref.id and cid not in givers
                and (st.cards[cid].sepultus or st.cards[cid].continent == ref.continent)]

    def toggle_extra(self, cube: tuple[int, str]) -> None:
        extra = list(self.action.extra)
        if cube in extra:
            extra.remove(cube)
        else:
            extra.append(cube)
        keep = tuple(c for c in self.action.keep if c not in {x for x, _ in extra})
        self.action = dataclasses.replace(self.action, extra=tuple(extra), keep=keep)

    def toggle_keep(self, cid: int) -> None:
        keep = list(self.action.keep)
        if cid in keep:
            keep.remove(cid)
        else:
            keep.append(cid)
        self.action = dataclasses.replace(self.action, keep=tuple(keep))

    def preview(self):
        """``PublicationPreview`` of the publication as drafted, or None when refused."""
        if self.kind != "publish":
            return None
        try:
            return queries.preview_publication(self.turn.trial, self.action)
        except RuleError:
            return None

    # -- result -------------------------------------------------------------------------
    def result(self) -> tuple[bool, str]:
        """(legal, text): the computed result of the action as drafted, or the refusal."""
        after, problem = _try(self.turn.trial, [self.action], self.t)
        if after is None:
            return False, problem
        return True, self.turn.describe(self.kind, self.action, after)

    def confirm(self) -> bool:
        return self.turn.confirm(self.action)


class TurnStep(Step):
    """A human's turn: pick a die from any board, then one of its legal actions.

    While no die is taken (``take_die``) the options of a die are computed on a copy of the
    state where it is taken (``trial``); confirming sends ``TakeDie`` and the action, one after
    the other, each saved. With the die already in hand (``action``: after a reopen, or the
    die of an end-of-round seal action) only the action is sent."""

    kind = "turn"

    def __init__(self, vm):
        super().__init__(vm)
        self.in_hand = self.pending.kind == "action"
        self.take: TakeDie | None = None
        self.trial: State | None = self.state if self.in_hand else None
        self.die = self.state.hand if self.in_hand else None
        self.draft: Draft | None = None
        self._options: list[OptionView] | None = None

    def title(self) -> str:
        return self.t("g.step.turn", name=self.seat_name)

    def dice(self) -> list[queries.DieSpot]:
        return [] if self.in_hand else queries.dice_on_boards(self.state)

    def select_die(self, owner: int, slot: int, index: int = 0) -> bool:
        take = TakeDie(self.seat, owner, slot, index)
        trial, problem = _try(self.state, [take], self.t)
        if trial is None:
            self.vm.error = problem
            return False
        self.take, self.trial, self.die = take, trial, trial.hand
        self.draft, self._options = None, None
        return True

    def one_shots(self) -> list[str]:
        s = self.state.seats[self.seat]
        return [n for n in s.face_up if n is not None and EXPERT[n].duration == "oneshot"]

    def use_expert(self, name: str) -> bool:
        return self._confirm(UseExpert(self.seat, name))

    def options(self) -> list[OptionView]:
        if self.trial is None:
            return []
        if self._options is None:
            out = []
            for i, o in enumerate(queries.die_options(self.trial, self.seat, self.die)):
                after, problem = _try(self.trial, [o.action])
                if after is None:  # queries offer only legal actions; keep the screen honest anyway
                    continue
                out.append(OptionView(i, o.kind, self.option_label(o), self.describe(o.kind, o.action, after), o.action))
            self._options = out
        return self._options

    def option_label(self, o) -> str:
        t, st = self.t, self.trial
        if o.kind in ("embassy", "bank"):
            return t(f"g.loc.{o.kind}")
        if o.kind == "university":
            e = EXPERT[o.target]
            return t("g.opt.university", name=o.target, continent=t.continent(e.continent))
        if o.kind == "academy":
            return t("g.opt.academy", card=self.vm.card_label(o.target, st))
        if o.kind == "expedition":
            return t("g.opt.expedition", continent=t.continent(o.target))
        if o.kind == "publish":
            return t("g.opt.publish", card=self.vm.card_label(o.target, st))
        return o.kind

    def open(self, index: int) -> Draft:
        opt = next(o for o in self.options() if o.index == index)
        self.draft = Draft(self, opt)
        return self.draft

    def close_draft(self) -> None:
        self.draft = None

    def describe(self, kind: str, action: Action, after: State) -> str:
        """The computed result: what the seat pays and gains, in numbers."""
        t = self.t
        st = self.trial
        s0, s1 = st.seats[self.seat], after.seats[self.seat]
        b = st.board
        sp: Spend = getattr(action, "spend", Spend())
        colour_token = 1 if sp.colour and sp.colour != self.die[0] and sp.colour_by != "seal" else 0
        paid = {
            "coins": sp.coins - sp.seals_for_coins * b.seal_coins,
            "tokens": sp.tokens + colour_token,
            "seals": sp.seals + sp.seals_for_coins,
        }
        parts: list[str] = []
        if kind == "expedition":
            p = after.pending
            value = p.value if p.kind == "research" else None
            if value is None:
                for tk in reversed(after.tasks):
                    if tk[0] == "research" and tk[1] == self.seat:
                        value = tk[2]
                        break
            parts.append(t("g.res.expedition", value=value if value is not None else "?"))
        if kind == "publish":
            pv = self.publication_preview(action)
            if pv is not None:
                parts.append(t("g.res.publish", vp=pv.vp, kept=len(pv.kept), seals=pv.seals))
                if pv.discarded:
                    parts.append(t("g.res.discarded", n=len(pv.discarded)))
        gains = []
        for k in ("coins", "tokens", "seals"):
            d = getattr(s1, k) - getattr(s0, k) + paid[k]
            if kind == "publish" and k == "seals":
                d -= b.publish_seals
            if d:
                gains.append(t(f"g.gain.{k}", n=f"{d:+d}"))
        dvp = s1.vp - s0.vp
        if kind == "publish":
            pv = self.publication_preview(action)
            dvp -= pv.vp if pv is not None else 0
        if dvp:
            gains.append(t("g.gain.vp", n=f"{dvp:+d}"))
        if s1.rep != s0.rep:
            gains.append(t("g.res.rep", a=s0.rep, b=s1.rep))
        new_animals = [c for c in s1.animals if c not in s0.animals]
        for c in new_animals:
            gains.append(self.vm.card_label(c, after))
        for e in s1.experts:
            if e not in s0.experts:
                gains.append(e)
        if after.first_player != st.first_player:
            gains.append(t("g.res.first_player"))
        if gains:
            parts.append(", ".join(gains))
        cost = self.vm.spend_text(sp, self.die)
        if cost:
            parts.append(t("g.res.pays", what=cost))
        if after.pending.kind in ("choose_animal", "choose_expert") and after.pending.seat == self.seat \
                and after.pending.reason == "reputation":
            parts.append(t("g.res.bonus_card"))
        return " · ".join(parts) if parts else t("g.res.nothing")

    def publication_preview(self, action):
        try:
            return queries.preview_publication(self.trial, action)
        except RuleError:
            return None

    def confirm(self, action: Action) -> bool:
        actions = [action] if self.in_hand else [self.take, action]
        if any(a is None for a in actions):
            self.vm.error = self.t("g.err.pick_die")
            return False
        gift = None
        if not self.in_hand:
            gift = gift_instructions(self.state, self.take)
        ok = self._confirm_all(actions)
        if ok and gift:
            self.vm.note(gift)
        return ok


class ResearchStep(Step):
    """Research cubes for the expedition just placed: tap cubes within the value."""

    kind = "research"

    def __init__(self, vm):
        super().__init__(vm)
        self.value = self.pending.value
        self.continent = self.pending.continent
        self.chosen: list[tuple[int, str]] = []

    def options(self) -> list[tuple[int, str, int]]:
        return queries.research_options(self.state, self.seat)

    def cost_of(self, cube) -> int:
        for cid, cat, cost in self.options():
            if (cid, cat) == cube:
                return cost
        return 0

    def spent(self) -> int:
        return sum(self.cost_of(c) for c in self.chosen)

    def left(self) -> int:
        return self.value - self.spent()

    def affordable(self, cube) -> bool:
        return cube in self.chosen or self.cost_of(cube) <= self.left()

    def toggle(self, cid: int, cat: str) -> None:
        cube = (cid, cat)
        if cube in self.chosen:
            self.chosen.remove(cube)
        elif self.affordable(cube):
            self.chosen.append(cube)

    def result(self) -> tuple[bool, str]:
        action = Research(self.seat, tuple(self.chosen))
        after, problem = _try(self.state, [action], self.t)
        if after is None:
            return False, problem
        s0, s1 = self.state.seats[self.seat], after.seats[self.seat]
        return True, self.t("g.res.research", n=len(self.chosen), spent=self.spent(), value=self.value,
                            vp=s1.vp - s0.vp, coins=s1.coins - s0.coins)

    def submit(self) -> bool:
        return self._confirm(Research(self.seat, tuple(self.chosen)))


class CardEntry:
    """What the table reads off a card drawn from a deck: continent (+ name), or a Sepultus card."""

    def __init__(self):
        self.name = ""


class ChooseAnimalStep(Step):
    kind = "choose_animal"

    def cards(self) -> list[int]:
        return [c for c in self.state.animal_display if c is not None]

    def take(self, card: int) -> bool:
        return self._confirm(ChooseAnimal(self.seat, card))

    def draw(self, continent: str | None, name: str = "", sepultus: dict | None = None) -> bool:
        """The display is empty: the seat takes the top card of the deck (entered here)."""
        name = name.strip()
        if sepultus:
            return self._confirm(DrawAnimal(self.seat, None, name, tuple(sepultus["categories"]), True,
                                              sepultus["die"], sepultus["cost"]))
        known = self.vm.catalogue.get(name)
        cats = known.categories if known is not None and getattr(known, "kind", "") == "animal" else None
        ok = self._confirm(DrawAnimal(self.seat, continent, name, cats))
        if ok and name and known is None:
            self.vm.note(self.vm.catalogue.remember(name, continent))
        return ok


class ChooseExpertStep(Step):
    kind = "choose_expert"

    def __init__(self, vm):
        super().__init__(vm)
        self.query = ""

    def names(self) -> list[str]:
        if self.pending.from_deck:
            seen = set(self.state.experts_seen)
            q = name_key(self.query)
            return [e.name for e in EXPERTS if e.name not in seen and (not q or q in name_key(e.name))]
        return [n for n in self.state.expert_display if n is not None]

    def needs_slot(self) -> bool:
        s = self.state.seats[self.seat]
        return s.kind == "human" and all(x is not None for x in s.face_up)

    def take(self, name: str, slot: int | None = None, use_now: bool = False) -> bool:
        return self._confirm(ChooseExpert(self.seat, name, slot, use_now))


class SealStep(Step):
    """End of round: a human may spend a royal seal to take a die from the central board."""

    kind = "seal_action"

    def colours(self) -> list[tuple[str, int]]:
        return [(c, k) for c, k in self.state.central.items() if k]

    def take(self, colour: str) -> bool:
        return self._confirm(SealAction(self.seat, colour))

    def pass_(self) -> bool:
        return self._confirm(Pass(self.seat))


class RollDieStep(Step):
    kind = "roll_die"

    def colour(self) -> str | None:
        for tk in reversed(self.state.tasks):
            if tk[0] == "roll_die":
                return tk[2]
        return None

    def roll(self, value: int) -> bool:
        return self._confirm(RollDie(self.seat, value))


class CategoriesStep(Step):
    """A human took an animal whose four categories are not known yet: ask them now (and
    remember them in the local catalogue when the card has a name)."""

    kind = "categories"

    def __init__(self, vm, card_id: int, owner: int):
        super().__init__(vm)
        self.card_id = card_id
        self.seat = owner
        self.card = self.state.cards[card_id]
        self.name = self.card.name
        self.chosen: list[str | None] = [None, None, None, None]

    def title(self) -> str:
        return self.t("g.step.categories", card=self.vm.card_label(self.card_id), name=self.seat_name)

    def choices(self, typ: int) -> tuple[str, ...]:
        return CATEGORIES_BY_TYPE[typ]

    def choose(self, typ: int, category: str) -> None:
        if category not in CATEGORIES_BY_TYPE[typ]:
            raise ValueError(f"{category!r} is not a Type {typ} category")
        self.chosen[typ - 1] = category

    def submit(self) -> bool:
        if any(c is None for c in self.chosen):
            self.vm.error = self.t("g.err.four_categories")
            return False
        ok = self._confirm(SetCategories(self.card_id, tuple(self.chosen)))
        if ok and self.name:
            self.vm.note(self.vm.catalogue.remember(self.name, self.card.continent, self.chosen))
        return ok


class AutomaStep(Step):
    """An automa's input: ONE card with the physical instructions and a single "Done".

    When the automa takes the top card of a deck the card shows what to draw, and the table
    enters the card that came up (continent and name, or the expert's name) before "Done"."""

    kind = "automa"

    def __init__(self, vm):
        super().__init__(vm)
        self.decision = decide(self.state, self.seat)
        self.name = ""  # the deck card entered by the table
        self.query = ""

    def title(self) -> str:
        return self.t("g.step.automa", name=self.seat_name)

    @property
    def instructions(self) -> tuple[str, ...]:
        return self.decision.instructions

    @property
    def waits_for(self) -> str | None:
        return self.decision.waits_for

    def expert_names(self) -> list[str]:
        seen = set(self.state.experts_seen)
        q = name_key(self.query)
        return [e.name for e in EXPERTS if e.name not in seen and (not q or q in name_key(e.name))]

    def done(self, continent: str | None = None, expert: str | None = None, sepultus: dict | None = None) -> bool:
        """Confirm the decision's actions (each saved); with a deck draw, also the card drawn."""
        actions = list(self.decision.actions)
        new_name = None
        wf = self.waits_for
        if wf == "animal_from_deck":
            name = self.name.strip()
            if sepultus:
                actions.append(DrawAnimal(self.seat, None, name, tuple(sepultus["categories"]), True,
                                          sepultus["die"], sepultus["cost"]))
            else:
                if continent is None:
                    self.vm.error = self.t("g.err.enter_drawn_animal")
                    return False
                known = self.vm.catalogue.get(name)
                cats = known.categories if known is not None and getattr(known, "kind", "") == "animal" else None
                actions.append(DrawAnimal(self.seat, continent, name, cats))
                if name and known is None:
                    new_name = (name, continent)
        elif wf == "expert_from_deck":
            if not expert:
                self.vm.error = self.t("g.err.enter_drawn_expert")
                return False
            actions.append(ChooseExpert(self.seat, expert))
        if not actions:
            self.vm.error = self.t("g.err.nothing_to_do")
            return False
        ok = self._confirm_all(actions)
        if ok and new_name:
            self.vm.note(self.vm.catalogue.remember(*new_name))
        return ok


class GameOverStep(Step):
    kind = "game_over"

    def scores(self):
        return queries.final_scores(self.state)

    def at_a_glance(self, scores=None):
        """The end-of-game charts' data (``endgame.EndGame``): points by source, the score
        track over the rounds replayed from the log, the scoring cards by name."""
        from companion.app.game.endgame import build_endgame

        return build_endgame(self.vm, *(scores or self.scores()))


# --------------------------------------------------------------------------- the game


class GameVM:
    """One open game on screen. ``step`` is the current question; answering it confirms
    actions through the session (saved before returning). ``error``: the last refusal;
    ``notes``: instructions for the table that follow a confirmed step (an automa's dice
    layout, what an automa gains when its die is taken)."""

    def __init__(self, session: GameSession, text: GameText | None = None, catalogue: LocalCatalogue | None = None,
                 reader_factory: Callable[[], object] | None = None):
        self.session = session
        self.t = text or GameText()
        self.catalogue = catalogue or LocalCatalogue()
        self._reader_factory = reader_factory
        self._reader = None
        self._reader_problem: str | None = None
        self.error: str | None = None
        self.notes: list[str] = []
        self._step: Step | None = None
        self._version = 0
        self._listeners: list[Callable[[], None]] = []
        self._seen: int | None = getattr(session, "version", None)
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
        were already replaced; ``companion.app.flet_events``): the stale message, the fresh state."""
        return self._stale()

    def _stale(self) -> bool:
        self.error = self.t("g.err.stale")
        self.notes = []
        self._changed()  # the fresh state
        return False

    def detach(self) -> None:
        """The page is gone: stop hearing about the shared game."""
        unsub = getattr(self.session, "unsubscribe", None)
        if unsub is not None:
            unsub(self._remote)

    def note(self, text: str | None) -> None:
        if text:
            self.notes.append(text)

    def dice_reader(self):
        """(reader, None) or (None, why the photo reader is not available)."""
        if self._reader is None and self._reader_problem is None:
            try:
                if self._reader_factory is not None:
                    self._reader = self._reader_factory()
                else:
                    from vision.reader import DiceReader

                    self._reader = DiceReader.from_files()
            except Exception as exc:  # a missing model must not stop the game: dice by hand
                self._reader_problem = self.t("g.err.no_reader", why=f"{type(exc).__name__}: {exc}")
        return self._reader, self._reader_problem

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

    def categories_needed(self) -> tuple[int, int] | None:
        """(card, owner) of a human's animal whose categories are still unknown."""
        for si, s in enumerate(self.state.seats):
            if s.kind != "human":
                continue
            for cid in s.animals:
                c = self.state.cards[cid]
                if not c.sepultus and c.categories is None:
                    return cid, si
        return None

    def _make_step(self) -> Step:
        st = self.state
        p = st.pending
        if p.kind == "game_over":
            return GameOverStep(self)
        need = self.categories_needed()
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
        st = st or self.state
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


__all__ = ["GameVM", "LocalCatalogue", "Step", "TurnStep", "Draft", "OptionView", "AutomaStep", "CATEGORIES"]
