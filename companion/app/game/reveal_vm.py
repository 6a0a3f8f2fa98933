"""The set-up and reveal questions (plain Python, no Flet): the next expert and the next animal
turned face up into the displays (by name, searchable; the catalogue suggests names), and the
round token. Drawn by ``reveal_view``.
"""

from __future__ import annotations

from companion.actions import RevealAnimal, RevealExpert, RevealRoundToken
from companion.app.game.steps import Step
from companion.content.experts import EXPERTS
from companion.content.vocab import name_key


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
