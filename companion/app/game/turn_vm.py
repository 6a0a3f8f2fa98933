"""A human's turn (plain Python, no Flet): pick a die from any board, then one of its legal
actions, adjusted in a ``Draft`` (spends, University slot, publication choices) whose computed
result is shown before it is confirmed; and the research that follows an expedition. Drawn by
``turn_view``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from automa.decide import gift_message
from companion.engine import queries
from companion.actions import Action, Research, Spend, SwapCubes, TakeDie
from companion.app.game.steps import Step, _try, owner_gain_note
from companion.engine import EXPERT, State, cube_swaps, cubes_left, place_gains
from companion.errors import RuleError


@dataclass
class OptionView:
    """One legal action for the die, with its computed result."""

    index: int
    kind: str
    label: str
    result: str
    action: Action


#: an option's kind -> the board location its die is placed on
_LOCATION = {"publish": "publication"}


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
        # coins the die's placement gives (experts such as Gao Zhelan) may raise this die too
        placed = place_gains(self.turn.trial, s, _LOCATION.get(self.kind, self.kind))[0] \
            if self.kind != "expedition" else 0
        return {
            "coins": s.coins + placed + sp.seals_for_coins * b.seal_coins,
            "tokens": s.tokens if self.kind == "expedition" else 0,
            "seals": s.seals - sp.seals_for_coins,
            "seals_for_coins": s.seals - sp.seals,
        }

    # -- university ---------------------------------------------------------------------
    def set_slot(self, slot: int | None) -> None:
        self.action = dataclasses.replace(self.action, slot=slot, use_now=False, under=False)

    def set_under(self) -> None:
        """Every slot taken: place the new expert under an existing one (no effect; issue 39)."""
        self.action = dataclasses.replace(self.action, slot=None, use_now=False, under=True)

    def set_use_now(self, on: bool) -> None:
        self.action = dataclasses.replace(self.action, use_now=on, under=False,
                                          slot=None if on else self.action.slot)

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
        """Publish from ``typ``: sets the cheapest spend whose value starts exactly there (a
        publication starts at the highest type the die reaches, EN p.15: raising the die is
        the only choice, so a type below the die's own is not offered). ``up_to`` stays None
        (the engine takes the highest type of the value)."""
        sp = self.publishable().get(typ)
        if sp is None:
            return
        self.action = dataclasses.replace(self.action, up_to=None, spend=sp)
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
        top = self.top_type()
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
        if getattr(action, "under", False):
            gains.append(t("g.res.under"))
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
            gift = gift_message(self.state, self.take) or owner_gain_note(self.state, self.take, self.t)
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

    # -- the cube supply (30 per colour; issue 39, item 5) -----------------------------------
    def cubes_left(self) -> int:
        """Research cubes left in the seat's supply."""
        return cubes_left(self.state, self.state.seats[self.seat])

    def swaps(self) -> list[str]:
        """Publication spaces where a "5 cubes" token may replace 5 of the seat's cubes."""
        return cube_swaps(self.state, self.state.seats[self.seat])

    def out_of_cubes(self) -> bool:
        """Fewer cubes left than those chosen + one more: the screen offers the swap."""
        return self.cubes_left() <= len(self.chosen)

    def swap(self, category: str) -> bool:
        """Replace 5 cubes on ``category``'s Publication space with a "5 cubes" token."""
        ok = self._confirm(SwapCubes(self.seat, category))
        if ok:
            self.vm.note(self.t("g.research.swapped", category=self.t.category(category)))
        return ok

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
        elif self.affordable(cube) and len(self.chosen) < self.cubes_left():
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
