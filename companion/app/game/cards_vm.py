"""Cards taken or drawn (plain Python, no Flet): an animal or an expert chosen from a display
or drawn from a deck, the end-of-round seal action, and the four categories of an animal whose
card was not named. Drawn by ``cards_view``.
"""

from __future__ import annotations

from companion.actions import ChooseAnimal, ChooseExpert, DrawAnimal, Pass, SealAction, SetCategories
from companion.app.game.steps import Step, _try
from companion.content.experts import EXPERTS
from companion.content.vocab import CATEGORIES_BY_TYPE, name_key


class CardEntry:
    """What the table reads off a card drawn from a deck: continent (+ name), or a Sepultus card."""

    def __init__(self):
        self.name = ""


class ChooseAnimalStep(Step):
    kind = "choose_animal"

    def cards(self) -> list[int]:
        """The cards the seat may take: on its own expedition's bonus, only those that let the
        expedition be completed (the engine refuses the others; issue 39)."""
        cards = [c for c in self.state.animal_display if c is not None]
        if self.pending.reason == "reputation":
            ok = [c for c in cards if _try(self.state, [ChooseAnimal(self.seat, c)])[0] is not None]
            return ok or cards
        return cards

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
        names = [n for n in self.state.expert_display if n is not None]
        if self.pending.reason == "reputation":
            ok = [n for n in names if any(_try(self.state, [a])[0] is not None for a in self._ways(n))]
            return ok or names
        return names

    def _ways(self, name: str) -> list[ChooseExpert]:
        """Every way to take ``name``: first free slot / cover a slot, under, used at once."""
        if not self.needs_slot():
            return [ChooseExpert(self.seat, name), ChooseExpert(self.seat, name, use_now=True)]
        return ([ChooseExpert(self.seat, name, k) for k in range(4)] + [ChooseExpert(self.seat, name, under=True),
                                                                         ChooseExpert(self.seat, name, use_now=True)])

    def needs_slot(self) -> bool:
        s = self.state.seats[self.seat]
        return s.kind == "human" and all(x is not None for x in s.face_up)

    def take(self, name: str, slot: int | None = None, use_now: bool = False, under: bool = False) -> bool:
        """Take ``name``: into the first free slot, covering ``slot``, used at once, or (all
        slots taken) placed ``under`` an existing expert, where it has no effect (issue 39)."""
        return self._confirm(ChooseExpert(self.seat, name, slot, use_now, under))


class SealStep(Step):
    """End of round: a human may spend a royal seal to take a die from the central board."""

    kind = "seal_action"

    def colours(self) -> list[tuple[str, int]]:
        return [(c, k) for c, k in self.state.central.items() if k]

    def take(self, colour: str) -> bool:
        return self._confirm(SealAction(self.seat, colour))

    def pass_(self) -> bool:
        return self._confirm(Pass(self.seat))


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
