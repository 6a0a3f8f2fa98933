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

    # -- the whole display at once (issue 41, item 16) ------------------------------------
    def slots_left(self) -> int:
        """Empty slots of the display, this one included: how many one list may reveal."""
        return sum(1 for x in self.state.expert_display if x is None)

    def match(self, piece: str) -> list[str]:
        """The unseen experts that ``piece`` names: their name starts with it, or one of their
        words does; when exactly one name starts with it, that one alone."""
        q = name_key(piece)
        if not q:
            return []
        seen = set(self.state.experts_seen)
        names = [e.name for e in EXPERTS if e.name not in seen]
        first = [n for n in names if name_key(n).startswith(q)]
        if len(first) == 1:
            return first
        return first + [n for n in names if n not in first
                        and any(name_key(w).startswith(q) for w in n.split()[1:])]

    def names_typed(self, text: str) -> tuple[list[str], list[str]]:
        """The experts a typed list names, in order ("saf, gao, pora ..."): pieces split at
        commas, semicolons and line ends, or at spaces when the piece as a whole names no one
        expert. Returns (the experts found, the pieces that name none or several)."""
        import re

        found: list[str] = []
        unclear: list[str] = []
        for piece in re.split(r"[,;\n]+", text or ""):
            if not piece.strip():
                continue
            hits = self.match(piece)
            parts = [piece] if len(hits) == 1 or len(piece.split()) < 2 else piece.split()
            for part in parts:
                hits = self.match(part)
                if len(hits) == 1:
                    if hits[0] not in found:
                        found.append(hits[0])
                else:
                    unclear.append(part.strip())
        return found, unclear

    def reveal_typed(self, text: str) -> bool:
        """The whole display (or what is left of it) in one Confirm: the experts the typed list
        names, in slot order. Refused, revealing nothing, when a piece names none or several, or
        when it names more experts than there are empty slots."""
        found, unclear = self.names_typed(text)
        if unclear:
            self.vm.error = self.t("g.err.experts_unclear", pieces=", ".join(unclear))
            return False
        if not found:
            self.vm.error = self.t("g.err.experts_none")
            return False
        if len(found) > self.slots_left():
            self.vm.error = self.t("g.err.experts_too_many", n=len(found), slots=self.slots_left())
            return False
        return self._confirm_all([RevealExpert(n) for n in found])


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
