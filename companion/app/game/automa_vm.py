"""An automa's turn (plain Python, no Flet): one card with the physical instructions that
``automa.decide`` gives, and a single "Done". Drawn by ``automa_view``.
"""

from __future__ import annotations

from automa.decide import decide
from companion.actions import ChooseExpert, DrawAnimal, TakeDie
from companion.app.game.steps import Step, owner_gain_note
from companion.content.experts import EXPERTS
from companion.content.vocab import name_key


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
        """The decision's sentences in the table's language."""
        return tuple(self.vm.t.engine(m) for m in self.decision.messages)

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
        gifts = [owner_gain_note(self.state, a, self.t) for a in actions if isinstance(a, TakeDie)]
        ok = self._confirm_all(actions)
        for g in gifts if ok else ():
            if g:
                self.vm.note(g)
        if ok and new_name:
            self.vm.note(self.vm.catalogue.remember(*new_name))
        return ok
