"""How many taps a table makes to set up round 1 and round 2 of a 2-seat game (issue 41, item 16).

Counted through the game's view-models (``companion/app/game/*_vm.py``), no browser: a returning
table (a human and an automa; its local catalogue already knows the game's animals by name with
their categories) sets up a game, plays round 1 (the turns themselves are not counted: dice, die,
action) and sets up round 2. Each view-model action a player must make is one tap:

- wizard: the human's name typed (1), the automa's Behavior and Scoring cards picked from a list
  (2 each: open, pick), "Start" (1); the app's shuffled Continent order is used as it is;
- an expert turned up: its first letters typed in the search (1) and a tap on the name (1); or,
  where the step takes the whole display as one typed list (``RevealExpertStep.reveal_typed``),
  the list typed once (1: "saf,gao,pora,...") and its one Confirm (1);
- an animal turned up: a tap on its continent (1; naming it would cost a typed name more);
- the round token: 1; an automa's card: "Done" (1); a card taken from the display: 1;
- an animal's four categories when a human takes it: one chip per type and "Save" (5), or, where
  the step offers the catalogue (``CategoriesStep.suggestions``), its name typed (1) and one tap
  on the suggestion (1).

The table always takes the cheapest path the view-models offer, so the same script counts the
code before and after a change. Prints the counts per step kind and in all.

    python benchmarks/setup_taps.py
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "app" / "game")]

from game_play import answer  # noqa: E402

from companion.app.game.catalogue import LocalCatalogue  # noqa: E402
from companion.app.game.texts import GameText  # noqa: E402
from companion.app.game.vm import GameVM  # noqa: E402
from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft  # noqa: E402
from companion.content.vocab import CATEGORIES_BY_TYPE, CONTINENTS, name_key  # noqa: E402
from companion.store import GameStore  # noqa: E402

T = GameText()


def fill_catalogue(cat: LocalCatalogue, rng: random.Random) -> dict[str, list[str]]:
    """The returning table's catalogue: 12 named animals per continent, with categories."""
    names: dict[str, list[str]] = {}
    for c in CONTINENTS:
        for k in range(12):
            name = f"{c.capitalize()} animal {k + 1}"
            cats = tuple(rng.choice(CATEGORIES_BY_TYPE[t]) for t in (1, 2, 3, 4))
            assert cat.remember(name, c, cats) is None
            names.setdefault(c, []).append(name)
    return names


def prefix(name: str, names: list[str]) -> str:
    """The fewest first letters of ``name`` that no other of ``names`` starts with."""
    key = name_key(name)
    for i in range(1, len(key) + 1):
        if sum(1 for n in names if name_key(n).startswith(key[:i])) == 1:
            return key[:i]
    return key


class Table:
    def __init__(self, folder: Path, seed: int = 7):
        self.rng = random.Random(seed)
        self.folder = folder
        self.catalogue = LocalCatalogue(folder / "catalogue.json")
        self.names = fill_catalogue(self.catalogue, self.rng)
        self.store = GameStore(folder / "games")
        self.taps: Counter[str] = Counter()
        self.keys = 0  # letters typed into the experts' search, for the record (not taps)

    # -- the wizard -----------------------------------------------------------------------
    def wizard(self) -> GameVM:
        w = NewGameVM(T, random.Random(1))
        last = getattr(w, "same_as_last", None)
        if last is not None and w.same_as_last(self.store):
            self.taps["wizard"] += 1  # "Same as last game"
        else:
            w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(AUTOMA, "Automa")]
            self.taps["wizard"] += 1  # the name
            w.set_behaviour(1, "carl-von-linne")
            w.set_scoring(1, "la-boudeuse")
            self.taps["wizard"] += 4  # two lists: open, pick
            w.shuffle_all()
        s = w.create(self.store)
        assert s is not None, w.error
        self.taps["wizard"] += 1  # Start
        return GameVM(s, T, self.catalogue, reader_factory=lambda: None)

    # -- one set-up question ----------------------------------------------------------------
    def answer(self, vm: GameVM) -> str:
        step = vm.step
        k = step.kind
        if k == "reveal_expert":
            if hasattr(step, "reveal_typed"):  # the whole display in one typed list + Confirm
                names = self.rng.sample(step.candidates(), step.slots_left())
                typed = ",".join(prefix(n, step.candidates()) for n in names)
                self.keys += len(typed)
                ok = step.reveal_typed(typed)
                self.taps[k] += 2
            else:
                name = self.rng.choice(step.candidates())
                self.keys += len(prefix(name, step.candidates()))
                ok = step.reveal(name)
                self.taps[k] += 2
        elif k == "reveal_animal":
            left = [c for c, n in step.continents_left().items() if n > 0]
            ok = step.reveal(self.rng.choice(left))
            self.taps[k] += 1
        elif k == "categories":
            cont = step.card.continent
            true_name = self.rng.choice(self.names[cont])
            if hasattr(step, "suggestions"):
                step.query = true_name[:4]
                sug = [c for c in step.suggestions() if c.name == true_name]
                if not sug:  # a longer prefix: still one typed name
                    step.query = true_name
                    sug = [c for c in step.suggestions() if c.name == true_name]
                ok = step.pick(sug[0])
                self.taps[k] += 2
            else:
                known = self.catalogue.get(true_name)
                for typ, cat in zip((1, 2, 3, 4), known.categories):
                    step.choose(typ, cat)
                ok = step.submit()
                self.taps[k] += 5
        else:  # round token, automa's Done, a card from the display: one tap each
            k = answer(vm, self.rng)
            self.taps[k] += 1
            return k
        assert ok, f"{k}: {vm.error}"
        return k


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        table = Table(Path(d))
        # a first game, so that "the last game" exists (not counted)
        first = table.wizard()
        table.taps.clear()
        table.keys = 0
        vm = table.wizard()
        assert vm.session is not first.session
        per_round: dict[int, Counter] = {}
        playing, rnd = False, 1
        for _ in range(5000):
            if max(vm.state.round, 1) != rnd:  # a new round: its set-up until its dice are rolled
                rnd, playing = max(vm.state.round, 1), False
            if rnd > 2:
                break
            if vm.step.kind == "roll_dice":
                playing = True
            if playing:
                answer(vm, table.rng)  # the round's play: not set-up, not counted
                continue
            before = Counter(table.taps)
            table.answer(vm)
            per_round.setdefault(rnd, Counter()).update(Counter(table.taps) - before)
        wiz = table.taps["wizard"]
        r1 = sum(per_round.get(1, Counter()).values()) + wiz
        r2 = sum(per_round.get(2, Counter()).values())
        print(f"round 1 set-up: {r1} taps (wizard {wiz}; " + ", ".join(
            f"{k} {n}" for k, n in sorted(per_round.get(1, Counter()).items())) + ")")
        print(f"round 2 set-up: {r2} taps (" + ", ".join(
            f"{k} {n}" for k, n in sorted(per_round.get(2, Counter()).items())) + ")")
        print(f"in all: {r1 + r2} taps (and {table.keys} letters typed into the experts' search)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
