"""Issue 17, item 3: cards by name. A revealed card is named by typing the first letters of its
Latin name and tapping it in the catalogue's suggestions (continent and categories filled in
from the catalogue), or by its continent only; a named card is shown by its name everywhere;
the catalogue grows as the table plays. Through the view-model (no display); the taps are
counted as the view-model calls a screen's taps make."""

from __future__ import annotations

import random

import flet as ft
from control_tree import find_controls
from game_play import answer, play_to_end

from companion.app.game.texts import GameText
from companion.app.game.view import GameScreen
from companion.app.game.vm import GameVM, LocalCatalogue
from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
from companion.content.catalogue import AnimalCard, Catalogue, SepultusCard
from companion.store import GameStore

AIX = AnimalCard("europe", ("bird", "omnivore", "aquatic", "temperate"), "Aix galericulata")
SPONSA = AnimalCard("america", ("bird", "omnivore", "aquatic", "temperate"), "Aix sponsa")
AILURUS = AnimalCard("asia", ("mammal", "herbivore", "arboreal", "cold"), "Ailurus fulgens")
LEO = AnimalCard("africa", None, "Panthera leo")  # known by its continent only
GIGANTUS = SepultusCard(3, 9, ("carnivore", "cold"), "Gigantus")


class Taps:
    """Counts the taps: every view-model call a button of the screen makes."""

    def __init__(self):
        self.n = 0

    def __call__(self, fn, *args, **kw):
        self.n += 1
        return fn(*args, **kw)


def catalogue_file(game_dir, cards=(AIX, SPONSA, AILURUS, LEO, GIGANTUS)):
    path = game_dir / "catalogue.json"
    Catalogue(cards).save(path)
    return path


def new_vm(game_dir, seats=((HUMAN, "Ana"), (AUTOMA, "Robot")), seed=0, sepultus=False, lang="en"):
    t = GameText(lang)
    w = NewGameVM(t, random.Random(seed))
    w.seats = [SeatDraft(k, n) for k, n in seats]
    w.shuffle_all()
    w.sepultus = sepultus
    s = w.create(GameStore(game_dir))
    assert s is not None, w.error
    return GameVM(s, t, LocalCatalogue(game_dir / "catalogue.json"))


def to_reveal_animal(vm):
    while vm.step.kind == "reveal_expert":
        assert vm.step.reveal(vm.step.candidates()[0])
    assert vm.step.kind == "reveal_animal"
    return vm.step


def test_three_letters_of_a_catalogue_name_and_one_tap_reveal_the_card(game_dir):
    catalogue_file(game_dir)
    vm = new_vm(game_dir)
    step = to_reveal_animal(vm)
    taps = Taps()
    step.name = "aix"  # three letters typed (case forgiven)
    sugg = step.suggestions()
    assert [c.name for c in sugg] == ["Aix galericulata", "Aix sponsa"]
    # each suggestion shows what the catalogue fills in, to check against the card before the tap
    assert step.suggestion_label(sugg[0]) == "Aix galericulata · Europe · bird, omnivore, aquatic, temperate"
    assert taps(step.pick, sugg[0])
    assert taps.n <= 2  # the done-when: at most 2 taps after the letters (here: 1)
    card = vm.state.cards[vm.state.animal_display[0]]
    assert (card.name, card.continent, card.categories) == ("Aix galericulata", "europe", AIX.categories)
    # the next slot: a card already in this game is not offered again; a later word matches too
    step = vm.step
    step.name = "gal"
    assert step.suggestions() == []
    step.name = "ful"
    assert [c.name for c in step.suggestions()] == ["Ailurus fulgens"]
    # a card known by its continent only: one tap too, its categories stay to be asked
    step.name = "Pan"
    assert taps(step.pick, step.suggestions()[0]) and taps.n == 2
    leo = vm.state.cards[vm.state.animal_display[1]]
    assert (leo.name, leo.continent, leo.categories) == ("Panthera leo", "africa", None)


def test_the_screen_reveals_a_suggestion_with_one_tap(monkeypatch, game_dir):
    """The same through the drawn screen: the suggestion button is one tap."""
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    catalogue_file(game_dir)
    from test_game_views import FakeShell

    shell = FakeShell(width=390, lang="fr")
    vm = shell.start_new_game()
    step = to_reveal_animal(vm)
    step.name = "Ail"
    buttons = [c for c in find_controls(GameScreen(shell).view(), ft.TextButton) if c.on_click is not None]
    found = [b for b in buttons if "Ailurus fulgens" in str(b.content)]
    assert len(found) == 1 and "Asie" in str(found[0].content) and "arboricole" in str(found[0].content)
    found[0].on_click(None)  # the one tap
    card = vm.state.cards[vm.state.animal_display[0]]
    assert (card.name, card.continent, card.categories) == ("Ailurus fulgens", "asia", AILURUS.categories)


def test_continent_only_still_works_and_a_new_name_grows_the_catalogue(game_dir):
    catalogue_file(game_dir)
    vm = new_vm(game_dir)
    step = to_reveal_animal(vm)
    assert step.reveal("oceania")  # one tap, no name: as before
    first = vm.state.cards[vm.state.animal_display[0]]
    assert not first.name and first.continent == "oceania"
    assert vm.card_label(first.id) == "Oceania animal #1"
    # a name the catalogue does not know, then the continent: the card is named and remembered
    step = vm.step
    step.name = "Ornithorhynchus  anatinus "
    assert step.reveal("oceania")
    cat = LocalCatalogue(game_dir / "catalogue.json")
    known = cat.get("ornithorhynchus anatinus")
    assert known is not None and (known.name, known.continent, known.categories) == ("Ornithorhynchus anatinus", "oceania", None)
    assert len(Catalogue.load(game_dir / "catalogue.json")) == 6
    # a known name with another continent is refused and changes nothing
    step = vm.step
    n = vm.state.n_actions
    step.name = "Aix galericulata"
    assert not step.reveal("asia") and "catalogue" in vm.error and vm.state.n_actions == n


def test_categories_entered_later_complete_the_catalogue_card(game_dir):
    """A name entered with its continent only is completed when a human takes the card and
    the table enters its four categories; the next game gets them from the catalogue."""
    catalogue_file(game_dir, cards=())
    vm = new_vm(game_dir, seats=((HUMAN, "Ana"), (HUMAN, "Ben")), seed=3)
    names = [f"Testudo graeca {i}" for i in range(100)]
    rng = random.Random(3)
    for _ in range(400):
        if vm.step.kind == "categories":
            break
        answer(vm, rng, names=names)
    step = vm.step
    assert step.kind == "categories" and step.name
    for typ in (1, 2, 3, 4):
        step.choose(typ, step.choices(typ)[0])
    assert step.submit()
    cat = LocalCatalogue(game_dir / "catalogue.json")
    assert cat.get(step.name).categories == tuple(step.choices(t)[0] for t in (1, 2, 3, 4))
    # every name revealed so far is in the catalogue, with its continent
    named = [c for c in vm.state.cards if c.name]
    assert named and all(cat.get(c.name).continent == c.continent for c in named)


def test_a_sepultus_card_from_the_catalogue_in_one_tap(game_dir):
    catalogue_file(game_dir)
    vm = new_vm(game_dir, sepultus=True)
    step = to_reveal_animal(vm)
    step.name = "gig"
    sugg = step.suggestions()
    assert [c.name for c in sugg] == ["Gigantus"]
    assert step.suggestion_label(sugg[0]) == "Gigantus · Sepultus Creatura · die 3, expedition 9"
    assert step.pick(sugg[0])
    card = vm.state.cards[vm.state.animal_display[0]]
    assert card.sepultus and card.name == "Gigantus" and (card.die, card.cost) == (3, 9)


def test_a_named_card_is_shown_by_its_name_in_displays_log_and_final_scoring(game_dir):
    catalogue_file(game_dir, cards=())
    vm = new_vm(game_dir, seed=5)
    names = [f"Animalia {i:02d}" for i in range(200)]
    play_to_end(vm, random.Random(5), names=names)
    st = vm.state
    named = {c.id: c.name for c in st.cards if c.name}
    assert len(named) == len([c for c in st.cards if not c.sepultus])  # every card was named
    # displays: the screens' label of a card is its name
    cid, name = next(iter(named.items()))
    assert vm.card_label(cid).startswith(name)
    # log: the reveal and every later line about the card
    log = "\n".join(vm.log())
    assert all(n in log for n in named.values())
    # final scoring: the cards each seat scored, by name
    eg = vm.step.at_a_glance()
    for sc, seat in zip(eg.cards, st.seats):
        ids = seat.published if seat.kind == "human" else seat.animals
        assert sorted(sc.cards) == sorted(vm.card_label(c) for c in ids)
        assert all(named[c] in " ".join(sc.cards) for c in ids)
    assert any(sc.cards for sc in eg.cards)


def test_a_named_card_in_french_displays(game_dir):
    catalogue_file(game_dir)
    vm = new_vm(game_dir, lang="fr")
    step = to_reveal_animal(vm)
    step.name = "aix g"
    assert step.pick(step.suggestions()[0])
    cid = vm.state.animal_display[0]
    assert vm.card_label(cid) == "Aix galericulata (Europe)"
    assert "Aix galericulata" in vm.log()[-1]


def test_the_log_counts_unnamed_animals_from_1_like_the_screens(game_dir):
    """Issue 41, item 2: the action log said "Oceania animal #0" where the screens say #1."""
    import re

    vm = new_vm(game_dir)
    step = to_reveal_animal(vm)
    assert step.reveal("oceania")
    first = vm.state.cards[vm.state.animal_display[0]]
    label = vm.card_label(first.id)
    assert label == "Oceania animal #1"
    assert first.label() == label  # the engine's own label (queries' option texts, the CLI)
    rng = random.Random(2)
    for _ in range(300):
        log = "\n".join(vm.log())
        if label in log:
            break
        answer(vm, rng)
    assert label in log, log
    # every "<Continent> animal #N" of the log is the card the screens call so
    found = re.findall(r"\b(Africa|America|Asia|Europe|Oceania) animal #(\d+)\b", log)
    assert found
    for cont, n in found:
        assert vm.card_label(int(n) - 1) == f"{cont} animal #{n}", (cont, n)
    assert not re.search(r"animal #0\b", log)
