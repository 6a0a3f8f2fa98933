"""The Flet screens draw every step of whole games (built as control trees, no display), and
open games through the shell's controller as the start screen does."""

from __future__ import annotations

import random

import flet as ft
from control_tree import every_control, find_controls, strings
from game_play import FakeReader, answer

from companion.app.common.prefs import Prefs
from companion.app.game.holder import GAME_KEY, game_vm, holder
from companion.app.game.texts import GameText
from companion.app.game.view import GameScreen
from companion.app.game.wizard_view import NewGameScreen
from companion.app.game.wizard_vm import NewGameVM
from companion.app.shell.controller import AppController
from companion.app.shell.view import build_screen


class FakeShell:
    def __init__(self, width=412, lang="en"):
        self.ctl = AppController(prefs=Prefs(language=lang), save=False)
        self.ctl.set_width(width)
        self.page = None
        self.renders = 0
        self._picker = ft.FilePicker()

    def render(self):
        self.renders += 1

    def file_picker(self):
        return self._picker

    def toast(self, text, error=False):
        pass

    def start_new_game(self):
        """A new game started from the wizard's screen as it opens (its defaults); its view-model."""
        self.ctl.new_game()
        build_screen("/new", self).start()
        return game_vm(self.ctl)


def _no_control_in_tooltip(c):
    # ft.Semantics(x) puts x in ``tooltip`` (its first argument) and Flutter draws a grey box
    assert not isinstance(getattr(c, "tooltip", None), ft.BaseControl), c


def texts(control) -> list[str]:
    """Every string value in a control tree (labels, titles, texts)."""
    return strings(control, ("value", "label", "text", "title", "subtitle", "content", "controls", "leading",
                             "trailing"), check=_no_control_in_tooltip)


def test_wizard_to_game_screen_and_whole_game_drawn(monkeypatch, game_dir):
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell()
    shell.ctl.new_game()
    # seeded automa priorities: the whole game below is the same on every run (unseeded, about
    # one run in ten had no research at all and failed the check of the kinds drawn)
    shell.ctl.screen_state("/new", lambda: NewGameVM(GameText(), random.Random(2)))
    screen = build_screen("/new", shell)
    assert isinstance(screen, NewGameScreen)
    body = screen.view()
    assert "Start the game" in texts(body) and "Automa" in " ".join(texts(body))
    screen.start()
    assert shell.ctl.nav.current == "/game" and shell.ctl.game_id
    vm = game_vm(shell.ctl)
    reader = FakeReader()
    vm._reader_factory = lambda: reader
    rng = random.Random(11)
    kinds = set()
    for n in range(3000):
        for width in (412, 1280) if n % 7 == 0 else (412,):
            shell.ctl.set_width(width)
            scr = build_screen("/game", shell)
            assert scr.vm is vm  # the open game is reused, never opened twice
            words = " ".join(texts(scr.view()))
            assert scr.vm.step.title() in words
            scr.actions()
        k = answer(vm, rng, reader)
        kinds.add(k)
        if k == "game_over":
            break
    assert {"automa", "turn", "research", "categories", "game_over"} <= kinds
    assert "wins" in " ".join(texts(build_screen("/game", shell).view()))


def test_resume_opens_the_saved_game_and_reports_a_bad_one(monkeypatch, game_dir):
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell(width=1280, lang="fr")
    vm = shell.start_new_game()
    gid = shell.ctl.game_id
    vm.step.reveal(vm.step.candidates()[0])
    # a new window (a fresh controller) resumes the same game from disk
    other = FakeShell()
    other.ctl.nav.go("/resume")
    other.ctl.open_game(gid)
    vm2 = game_vm(other.ctl)
    assert vm2 is not vm and vm2.state.to_json() == vm.state.to_json()
    assert "Présentoir des experts" in " ".join(texts(GameScreen(shell).view()))  # the French tables
    # a game id that does not exist: the screen says why, nothing crashes
    third = FakeShell()
    third.ctl.open_game("20990101-000000-abcdef")
    body = GameScreen(third).view()
    assert game_vm(third.ctl) is None and holder(third.ctl).problem
    problem = holder(third.ctl).problem
    assert problem[:1].upper() + problem[1:] in texts(body)  # shown as a sentence (issue 41, item 15)
    assert GAME_KEY in third.ctl._screens


def test_wizard_name_typed_updates_in_place_without_a_redraw(monkeypatch, game_dir):
    """A redraw on leaving the name field swallowed the next tap ("Start the game" had to be
    tapped twice in the browser): typing now updates the first-player list, the set-up problem
    and Start in place."""
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell()
    shell.ctl.new_game()
    screen = build_screen("/new", shell)
    body = screen.view()
    renders = shell.renders
    name_field = next(c for c in _walk(body) if isinstance(c, ft.TextField) and c.label == "Name")
    assert name_field.on_blur is None
    screen.set_name(0, "")
    assert screen.start_button.disabled and screen.problem_note.visible and screen.problem_note.value
    screen.set_name(0, "Ana")
    assert not screen.start_button.disabled and not screen.problem_note.visible
    assert screen.first_dropdown.options[0].text == "Ana"
    assert shell.renders == renders  # no redraw while typing
    screen.start()
    assert shell.ctl.nav.current == "/game"
    assert game_vm(shell.ctl).state.seats[0].name == "Ana"


def _walk(control):
    return every_control(control, ("content", "controls", "title"))


def test_words_plurals_capitals_and_accessible_names(monkeypatch, game_dir):
    """Issue 41, item 15: "1 die read" / "1 animal" (proper plurals in the three languages, no
    "(s)"), messages shown as sentences, and the accessibility tree names the wrong-code message,
    "Take <expert>" and each category chip with its category group."""
    import json
    import re
    from importlib import resources
    from types import SimpleNamespace

    from companion.app.game import view as game_view
    from companion.engine import EXPERT

    words = {lang: GameText(lang) for lang in ("en", "fr", "it")}
    assert [words[x]("g.dice.read_ok", n=1) for x in words] == ["1 die read.", "1 dé lu.", "1 dado letto."]
    assert [words[x]("g.dice.read_ok", n=3) for x in words] == ["3 dice read.", "3 dés lus.", "3 dadi letti."]
    assert [words[x]("g.bd.gain.animal", n=2) for x in words] == ["2 animals", "2 animaux", "2 animali"]
    assert [words[x]("g.bd.gain.animal", n=1) for x in words] == ["1 animal", "1 animal", "1 animale"]
    assert words["fr"]("g.spend.coins", n=0) == "0 Écu"  # French: 0 is singular
    assert words["en"]("g.setup.seat_gets", name="Ana", coins=1, tokens=2) == "Ana: 1 coin and 2 expedition tokens."
    for lang in ("en", "fr", "it"):
        for folder in (("companion.app.game", "i18n"), ("companion.app", "assets/i18n")):
            table = json.loads(resources.files(folder[0]).joinpath(folder[1], f"{lang}.json").read_text("utf-8"))
            left = {k: v for k, v in table.items() if re.search(r"\w\((s|x|e|es|aux)\)|\w/[ie]\b", v)}
            assert not left, (lang, left)

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell(width=412, lang="fr")
    vm = shell.start_new_game()
    screen = GameScreen(shell)
    # an engine refusal (written lower-case, to be built into sentences) is shown as a sentence
    vm.error = "il faut 44 Écus ; Ana en a 4"
    shown = [c for c in _walk(ft.Column(screen.head_controls())) if isinstance(c, ft.Text) and c.value]
    assert any(c.value == "Il faut 44 Écus ; Ana en a 4" and c.semantics_label == c.value for c in shown)
    vm.error = None
    # "Take <expert>": each button named with its expert
    names = list(EXPERT)[:3]
    step = SimpleNamespace(pending=SimpleNamespace(reason="round", from_deck=False), needs_slot=lambda: False,
                           names=lambda: names, seat=0, one_shots=lambda: [])
    buttons = [c for c in _walk(ft.Column(screen.draw_choose_expert(step))) if isinstance(c, ft.TextButton)]
    labels = {b.content.semantics_label for b in buttons}
    assert {f"Prendre {n}" for n in names} <= labels
    # category chips carry their group
    step = SimpleNamespace(choices=lambda typ: ["mammal", "bird"] if typ == 1 else ["hot"], chosen=[None] * 4)
    chips = [c for c in _walk(ft.Column(screen.draw_categories(step))) if isinstance(c, ft.Chip)]
    assert "Type I · classe : mammifère" in {c.label.semantics_label for c in chips}
    # the wrong join code's message has an accessible name
    monkeypatch.setattr(game_view, "join_game", lambda ctl, code: "g.join.wrong")
    form = screen.join_form()
    field = next(c for c in _walk(form) if isinstance(c, ft.TextField))
    try:
        field.on_submit(None)
    except RuntimeError:  # no page in this test: update() cannot send it
        pass
    problem = next(c for c in _walk(form) if isinstance(c, ft.Text) and c.color == ft.Colors.ERROR)
    assert problem.visible and problem.value == GameText("fr")("g.join.wrong") == problem.semantics_label


def test_the_log_reads_top_down_left_aligned_newest_first_said(monkeypatch, game_dir):
    """Issue 41, item 13: the log is left-aligned, its order in time is said and numbered
    (newest first, numbered from the first action), each line a sentence."""
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    shell = FakeShell(width=412, lang="en")
    vm = shell.start_new_game()
    rng = random.Random(5)
    for _ in range(25):
        answer(vm, rng)
    count, rows = vm.log_rows(40)
    full = vm.log()
    assert count == len(full) and len(rows) == min(40, count)
    assert [k for k, _ in rows] == list(range(count, count - len(rows), -1))  # newest first
    assert rows[0][1].lower() == full[-1].lower() and rows[-1][1].lower() == full[count - len(rows)].lower()
    assert all(x[:1].isupper() for _, x in rows)
    tile = GameScreen(shell).log_panel()
    assert tile.expanded_cross_axis_alignment == ft.CrossAxisAlignment.START
    assert tile.title.value == f"Action log ({count})"
    assert tile.subtitle.value == f"Newest first: {count} is the latest action"
    assert [c.value for c in tile.controls] == [f"{k}. {x}" for k, x in rows]
    assert all(c.text_align == ft.TextAlign.LEFT and c.semantics_label == c.value for c in tile.controls)
    answer(vm, rng)
    again = GameScreen(shell).log_panel(tile)  # in place: the same tile, the new texts
    assert again is tile and tile.controls[0].value.startswith(f"{vm.log_rows(1)[0]}. ")


def _buttons(control) -> dict[str, ft.Control]:
    kinds = (ft.FilledButton, ft.OutlinedButton, ft.Button, ft.TextButton)
    return {c.content: c for c in find_controls(control, kinds) if isinstance(c.content, str)}


def test_a_finished_game_offers_a_new_game_and_the_start_screen(monkeypatch, game_dir):
    """Issue 41, item 14: the end of a game offers "New game" and "Back to start"."""
    import json
    from pathlib import Path

    from companion.session import GameSession
    from companion.store import GameStore

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    sample = Path(__file__).resolve().parents[3] / "samples" / "saves" / "finished-4-seats-automa.json"
    s = GameSession.import_game(GameStore(game_dir), json.loads(sample.read_text(encoding="utf-8")))
    gid = s.game_id
    s.close()
    for lang, new, start in (("en", "New game", "Back to start"), ("fr", "Nouvelle partie", "Retour à l'accueil"),
                             ("it", "Nuova partita", "Torna all'inizio")):
        shell = FakeShell(lang=lang)
        shell.ctl.nav.go("/resume")
        shell.ctl.open_game(gid)
        found = _buttons(build_screen("/game", shell).view())
        assert new in found and start in found, sorted(found)
    found[start].on_click(None)
    assert shell.ctl.nav.current == "/"
    shell.ctl.open_game(gid)
    _buttons(build_screen("/game", shell).view())[new].on_click(None)
    assert shell.ctl.nav.current == "/new"


def test_the_saved_games_list_renames_and_deletes_after_asking(monkeypatch, game_dir):
    """Issue 41, item 14, on the screen: each saved game has Rename and Delete; Delete asks
    first; an imported game says so."""
    import json
    from pathlib import Path

    from companion.session import GameSession
    from companion.store import GameStore

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))
    sample = Path(__file__).resolve().parents[3] / "samples" / "saves" / "finished-4-seats-automa.json"
    s = GameSession.import_game(GameStore(game_dir), json.loads(sample.read_text(encoding="utf-8")))
    gid, title = s.game_id, s.title
    s.close()
    shell = FakeShell(lang="en")
    shell.ctl.nav.go("/resume")

    def labelled(control) -> dict[str, ft.Control]:
        return {c.label: c.content for c in find_controls(control, ft.Semantics, ("content", "controls", "trailing"))
                if c.label}

    body = build_screen("/resume", shell).view()
    assert "imported" in " ".join(texts(body))
    named = labelled(body)
    assert f"Rename {title}" in named and f"Delete {title}" in named
    named[f"Delete {title}"].on_click(None)
    body = build_screen("/resume", shell).view()
    assert "Delete this game?" in texts(body) and GameStore(game_dir).exists(gid)  # asked, not deleted
    _buttons(body)["Cancel"].on_click(None)
    assert GameStore(game_dir).exists(gid)
    labelled(build_screen("/resume", shell).view())[f"Delete {title}"].on_click(None)
    _buttons(build_screen("/resume", shell).view())["Delete"].on_click(None)
    assert not GameStore(game_dir).exists(gid)


def test_after_a_confirm_the_next_step_is_scrolled_into_view(monkeypatch, game_dir):
    """Issue 41, item 6: a tap that moves the game on asks the shell to bring the step (drawn
    under ``STEP_KEY``) on screen; a refused tap leaves the page where it is."""
    from companion.app.game.view import STEP_KEY

    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(game_dir))

    class ScrollingShell(FakeShell):
        def __init__(self):
            super().__init__()
            self.scrolls = []

        def scroll_to_key(self, key):
            self.scrolls.append(key)

    shell = ScrollingShell()
    shell.start_new_game()
    screen = build_screen("/game", shell)
    body = screen.view()
    keyed = [c for c in every_control(body) if isinstance(c.key, ft.ScrollKey) and c.key.value == STEP_KEY]
    assert len(keyed) == 1 and screen.vm.step.title() in " ".join(texts(body))
    step = screen.vm.step
    screen.run(step.reveal, "no such expert")  # refused: no scroll
    assert screen.vm.error and shell.scrolls == []
    screen.run(screen.vm.step.reveal, screen.vm.step.candidates()[0])
    assert screen.vm.error is None and shell.scrolls == [STEP_KEY]
