import json
from pathlib import Path

import pytest

from companion.app.settings.vm import BoxConstantsForm
from companion.app.start.vm import GameFileError, export_game, import_game, saved_games
from companion.content import board as board_mod
from companion.store import GameStore


def test_form_shows_the_unverified_constants_with_their_defaults(_private_data_dir):
    form = BoxConstantsForm()
    assert set(form.keys) == set(board_mod.shipped_unverified_keys())
    assert form.fields["starting_coins"].text == "[1, 2, 3, 4]"
    assert all(f.is_default for f in form.fields.values())
    assert form.error is None


def test_saving_a_correction_writes_only_the_changed_key(_private_data_dir):
    form = BoxConstantsForm()
    form.set_text("starting_coins", "[0, 1, 2, 3]")
    assert form.save() is True and form.error is None
    data = json.loads((_private_data_dir / "board.json").read_text())
    assert {k: v for k, v in data.items() if not k.startswith("_")} == {"starting_coins": [0, 1, 2, 3]}
    assert board_mod.default_board().starting_coins == (0, 1, 2, 3)  # the engine reads it
    assert BoxConstantsForm().fields["starting_coins"].text == "[0, 1, 2, 3]"


@pytest.mark.parametrize("key,text,words", [
    ("starting_coins", "[1, 2, 3]", "one entry per seat"),
    ("starting_coins", "[1, 2,", "not a valid value"),
    ("reputation_track_length", "10", "beyond the track"),
])
def test_a_bad_value_is_refused_with_the_reason_and_nothing_is_written(_private_data_dir, key, text, words):
    form = BoxConstantsForm()
    form.set_text(key, text)
    assert form.save() is False
    assert words in form.error
    assert not (_private_data_dir / "board.json").exists()


def test_bad_value_error_lands_on_its_field(_private_data_dir):
    form = BoxConstantsForm()
    form.set_text("starting_coins", "[1, 2, 3]")
    form.save()
    assert "one entry per seat" in form.fields["starting_coins"].error
    assert form.fields["research_vp"].error is None


def test_back_to_defaults_removes_the_override(_private_data_dir):
    form = BoxConstantsForm()
    form.set_text("research_vp", '{"1": 0, "2": 1, "3": 3, "4": 6}')
    assert form.save()
    assert (_private_data_dir / "board.json").exists()
    form.reset("research_vp")
    assert form.save()
    assert not (_private_data_dir / "board.json").exists()
    assert board_mod.default_board().research_vp[4] == 5


def test_a_broken_override_file_is_reported_not_fatal(_private_data_dir):
    (_private_data_dir / "board.json").write_text('{"rounds": 7}')
    form = BoxConstantsForm()
    assert "cannot be overridden" in form.error
    assert form.fields["starting_coins"].text == "[1, 2, 3, 4]"


def test_unknown_key_is_refused():
    with pytest.raises(KeyError):
        BoxConstantsForm().set_text("rounds", "7")


def test_saved_games_listing(_private_data_dir):
    assert saved_games() == ([], [], None)
    store = GameStore()
    store.create(meta={"title": "Friday", "seats": [{"name": "Ann"}, {"name": "Automa"}], "round": 3},
                 actions=[{"type": "x"}])
    (store.games_dir / "junk.sqlite").write_bytes(b"not a database")
    games, broken, problem = saved_games()
    assert problem is None
    assert len(games) == 1
    g = games[0]
    assert (g.title, g.seats, g.round, g.actions) == ("Friday", "Ann, Automa", 3, 1)
    assert g.finished is False and g.automas == ()
    assert len(g.when) == 16  # "YYYY-MM-DD HH:MM"
    assert [b.file_name for b in broken] == ["junk.sqlite"]


def test_saved_games_marks_finished_games_and_automas(_private_data_dir):
    store = GameStore()
    store.create(meta={"title": "Solo", "finished": True, "round": 6,
                       "seats": [{"name": "Ann", "kind": "human"}, {"name": "Linne", "kind": "automa"}]})
    (g,), _, _ = saved_games()
    assert g.finished is True and g.automas == ("Linne",) and g.round == 6


SAVES = Path(__file__).resolve().parents[2] / "samples" / "saves"


def test_import_then_export_a_game(_private_data_dir):
    data = (SAVES / "finished-4-seats-automa.json").read_bytes()
    gid = import_game(data, "finished-4-seats-automa.json")
    (g,), broken, _ = saved_games()
    assert g.game_id == gid and g.finished and g.automas == ("Automa 3",) and g.actions == 452
    name, out = export_game(gid)
    assert name.startswith("encyclopedia-") and name.endswith(".json")
    doc = json.loads(out)
    assert doc["format"] == "encyclopedia-companion-game" and len(doc["actions"]) == 452
    # the exported file imports again as a second game (never over the first)
    gid2 = import_game(out, name)
    assert gid2 != gid and len(saved_games()[0]) == 2


@pytest.mark.parametrize("data,words", [
    (b"\xff\xfe", "not a UTF-8"),
    (b"{", "not valid JSON"),
    (b'{"format": "other"}', "x.json: "),
])
def test_bad_game_files_are_refused_and_nothing_is_written(_private_data_dir, data, words):
    with pytest.raises(GameFileError, match=words):
        import_game(data, "x.json")
    assert saved_games()[0] == []


def test_a_game_with_an_illegal_action_is_refused(_private_data_dir):
    doc = json.loads((SAVES / "finished-4-seats-automa.json").read_text())
    doc["actions"] = doc["actions"][:40] + [doc["actions"][5]] + doc["actions"][40:]
    with pytest.raises(GameFileError, match="x.json: "):
        import_game(json.dumps(doc).encode(), "x.json")
    assert saved_games()[0] == []


def test_exporting_a_missing_game_says_so(_private_data_dir):
    with pytest.raises(GameFileError):
        export_game("nope")


def _game(title="Friday"):
    from companion.actions import SeatConfig, StartGame
    from companion.session import GameSession

    s = GameSession.create(GameStore(), [StartGame((SeatConfig("Ann", "human"), SeatConfig("Bob", "human")), 0, False)],
                           title=title)
    gid = s.game_id
    s.close()
    return gid


def test_an_imported_game_is_marked_as_imported(_private_data_dir):
    """Issue 41, item 14."""
    _game("Mine")
    import_game((SAVES / "finished-4-seats-automa.json").read_bytes(), "finished-4-seats-automa.json")
    games, _, _ = saved_games()
    assert sorted((g.title == "Mine", g.imported) for g in games) == [(False, True), (True, False)]


def test_a_saved_game_is_renamed_and_bad_names_change_nothing(_private_data_dir):
    """Issue 41, item 14: rename from the list; a bad name is refused with the reason."""
    from companion.app.common.i18n import Translator
    from companion.app.start.vm import SavedGamesVM
    from companion.shared_session import LiveGames

    gid = _game()
    live = LiveGames(GameStore())
    vm = SavedGamesVM(Translator("en"), GameStore(), live)
    vm.ask_rename(gid)
    assert vm.renaming == gid
    for bad, words in (("   ", "needs a name"), ("x" * 81, "at most 80"), ("a\nb", "one line")):
        assert not vm.rename(gid, bad) and words in vm.error
        assert [g.title for g in saved_games()[0]] == ["Friday"] and vm.renaming == gid
    assert vm.rename(gid, "  Saturday night ") and vm.error is None and vm.renaming is None
    assert [g.title for g in saved_games()[0]] == ["Saturday night"] and vm.done == "Renamed: Saturday night"
    # open on a page: renamed through its live session (the file stays open, its lock kept)
    shared = live.acquire(gid)
    assert vm.rename(gid, "Sunday")
    assert shared.title == "Sunday" and not shared.closed
    live.release(shared)
    assert [g.title for g in saved_games()[0]] == ["Sunday"]


def test_a_delete_asks_first_and_an_open_game_is_not_deleted(_private_data_dir):
    """Issue 41, item 14: a delete asks for confirmation; a game a page has open stays."""
    from companion.app.common.i18n import Translator
    from companion.app.start.vm import SavedGamesVM
    from companion.shared_session import LiveGames

    gid, other = _game("Friday"), _game("Saturday")
    live = LiveGames(GameStore())
    vm = SavedGamesVM(Translator("fr"), GameStore(), live)
    assert not vm.confirm_delete() and "Choisissez" in vm.error  # nothing asked: nothing deleted
    question = vm.ask_delete(gid)
    assert "Friday" in question and "corbeille" in question
    assert len(saved_games()[0]) == 2  # asking deletes nothing
    vm.cancel()
    assert vm.deleting is None and not vm.confirm_delete() and len(saved_games()[0]) == 2
    shared = live.acquire(gid)  # another page has it open
    vm.ask_delete(gid)
    assert not vm.confirm_delete() and "ouverte sur un écran" in vm.error
    assert len(saved_games()[0]) == 2 and not shared.closed
    shared.rename("Still open")  # the open game still writes to its file
    live.release(shared)
    assert "Still open" in [g.title for g in saved_games()[0]]
    vm.ask_delete(gid)
    assert vm.confirm_delete() and vm.error is None and "Still open" in vm.done
    assert [g.game_id for g in saved_games()[0]] == [other]
    assert (GameStore().games_dir / "trash").is_dir()
    # a page that still had its address opens nothing and says why
    with pytest.raises(Exception):
        live.acquire(gid)


def test_check_your_box_is_a_form_of_labelled_numbers(_private_data_dir):
    """Issue 41, item 12: each constant is its numbers in labelled fields, not a JSON text."""
    from companion.app.common.i18n import Translator
    from companion.app.settings.vm import cell_label

    form = BoxConstantsForm()
    tr = Translator("en")
    coins = form.cells("starting_coins")
    assert [(cell_label(tr, c.key, c.path), c.value, c.default) for c in coins] == [
        ("Seat 1", 1, 1), ("Seat 2", 2, 2), ("Seat 3", 3, 3), ("Seat 4", 4, 4)]
    assert [cell_label(tr, "slot_effects", c.path) for c in form.cells("slot_effects")] == [
        "Slot 2: coins", "Slot 3: reputation", "Slot 4: VP"]
    assert cell_label(Translator("it"), "research_vp", ("3",)) == "Tipo III"
    every = {k: [cell_label(tr, k, c.path) for c in form.cells(k)] for k in form.keys}
    assert all(every.values()) and not any("[" in x or "{" in x for xs in every.values() for x in xs)
    # a typed number goes in its place; letters or a negative are refused there and change nothing
    for bad in ("x", "-1", "1.5", "1000", ""):
        assert not form.set_cell("starting_coins", (0,), bad)
        assert form.cell_errors[("starting_coins", (0,))] == "settings.cell.bad"
        assert form.fields["starting_coins"].text == "[1, 2, 3, 4]"
    assert form.set_cell("starting_coins", (0,), " 0 ") and ("starting_coins", (0,)) not in form.cell_errors
    assert form.set_cell("reputation_bonuses", ("4", "coins"), "2")
    assert form.save() is True
    data = json.loads((_private_data_dir / "board.json").read_text())
    assert data["starting_coins"] == [0, 2, 3, 4] and data["reputation_bonuses"]["4"] == {"coins": 2}
    with pytest.raises(KeyError):
        form.set_cell("starting_coins", (9,), "1")
    # the engine's own check still decides: a track bonus beyond the track is refused on save
    form.set_cell("reputation_track_length", (), "10")
    assert form.save() is False and "beyond the track" in form.error


def test_the_settings_screen_shows_no_json(_private_data_dir):
    """Issue 41, item 12, on the screen: no field holds a JSON text like "[1, 2, 3, 4]"."""
    import flet as ft
    from control_tree import find_controls

    from companion.app.common.prefs import Prefs
    from companion.app.shell.controller import AppController
    from companion.app.shell.view import build_screen

    class Shell:
        def __init__(self):
            self.ctl = AppController(prefs=Prefs(language="fr"), save=False)
            self.ctl.set_width(412)
            self.page = None

        def render(self):
            pass

        def file_picker(self, *a):
            return ft.FilePicker()

        def toast(self, *a, **k):
            pass

    body = build_screen("/settings", Shell()).view()
    fields = find_controls(body, ft.TextField)
    numbers = [f for f in fields if str(f.value).isdigit()]
    assert len(numbers) >= 30
    assert not any(str(f.value).startswith(("[", "{")) for f in fields)
    assert "Place 1" in [f.label for f in fields]
