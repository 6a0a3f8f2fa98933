"""The local animal catalogue as the game screens use it (plain Python, no Flet): names
remembered across games, searched as the table types (``RevealAnimalStep.suggestions``).
"""

from __future__ import annotations

from companion.content.vocab import name_key


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
