import json

import pytest

from companion.app.common import layout
from companion.app.common.nav import Navigator
from companion.app.common.prefs import Prefs, PrefsError, load_prefs, prefs_path, save_prefs
from companion.app.shell.controller import ROUTES, AppController


# -- prefs ---------------------------------------------------------------------------------
def test_prefs_round_trip(tmp_path):
    p = tmp_path / "s.json"
    save_prefs(Prefs("fr", "dark"), p)
    assert load_prefs(p) == (Prefs("fr", "dark"), None)


def test_bad_prefs_values_are_refused():
    with pytest.raises(PrefsError, match="language"):
        Prefs(language="de")
    with pytest.raises(PrefsError, match="theme"):
        Prefs().with_(theme="pink")
    with pytest.raises(PrefsError, match="unknown preference"):
        Prefs().with_(font="big")


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"language": "klingon"}'])
def test_unreadable_prefs_file_gives_defaults_and_a_reason(tmp_path, content):
    p = tmp_path / "s.json"
    p.write_text(content)
    prefs, problem = load_prefs(p)
    assert prefs == Prefs()
    assert problem and str(p) in problem


def test_missing_prefs_file_is_not_a_problem(tmp_path):
    assert load_prefs(tmp_path / "none.json") == (Prefs(), None)


# -- navigation -----------------------------------------------------------------------------
def test_navigator_stack():
    seen = []
    nav = Navigator(ROUTES)
    nav.subscribe(seen.append)
    assert nav.current == "/" and not nav.can_go_back
    assert nav.back() is False and seen == []
    nav.go("/settings")
    nav.go("/settings")  # same screen: no change
    nav.go("/scorepad")
    assert nav.stack == ("/", "/settings", "/scorepad")
    nav.go("/settings")  # already open: unwind to it
    assert nav.stack == ("/", "/settings")
    nav.replace("/resume")
    assert nav.stack == ("/", "/resume")
    assert nav.back() is True and nav.current == "/"
    nav.go("/scorepad")
    nav.home()
    assert nav.stack == ("/",)
    assert seen == ["/settings", "/scorepad", "/settings", "/resume", "/", "/scorepad", "/"]


def test_navigator_refuses_unknown_screens():
    nav = Navigator(ROUTES)
    with pytest.raises(ValueError, match="unknown screen '/nowhere'"):
        nav.go("/nowhere")
    assert nav.stack == ("/",)


# -- layout ----------------------------------------------------------------------------------
@pytest.mark.parametrize("width,cls,cols", [
    (None, "phone", 1), (0, "phone", 1), (360, "phone", 1), (599, "phone", 1),
    (600, "tablet", 2), (800, "tablet", 2), (1023, "tablet", 2),
    (1024, "desktop", 3), (1920, "desktop", 3),
])
def test_size_classes(width, cls, cols):
    assert layout.size_class(width) == cls
    assert layout.columns(width) == cols


def test_content_width_is_capped_on_desktop_only():
    assert layout.content_width(400) is None
    assert layout.content_width(1200) == layout.MAX_CONTENT_WIDTH
    assert layout.content_width(1050) == 1050


# -- controller ------------------------------------------------------------------------------
def test_controller_saves_language_and_theme(_private_data_dir):
    ctl = AppController()
    seen = []
    ctl.subscribe(seen.append)
    assert ctl.tr("settings.title") == "Settings"
    ctl.set_language("fr")
    ctl.set_theme("dark")
    ctl.set_theme("dark")  # no change, no event
    assert ctl.tr("settings.title") == "Réglages"
    assert seen == ["language", "theme"]
    assert json.loads(prefs_path().read_text()) == {"language": "fr", "theme": "dark"}
    assert AppController().prefs == Prefs("fr", "dark")  # the next start reads them


def test_controller_refuses_bad_values_and_changes_nothing(_private_data_dir):
    ctl = AppController()
    with pytest.raises(ValueError):
        ctl.set_language("de")
    with pytest.raises(ValueError):
        ctl.set_theme("pink")
    assert ctl.prefs == Prefs() and not prefs_path().exists()


def test_controller_size_class_changes_are_reported():
    ctl = AppController(prefs=Prefs(), save=False)
    seen = []
    ctl.subscribe(seen.append)
    assert ctl.set_width(390) is False  # None -> 390: still a phone
    assert ctl.set_width(800) is True
    assert ctl.set_width(900) is False
    assert ctl.set_width(1280) is True
    assert seen == ["size", "size"] and ctl.size_class == "desktop"


def test_screen_state_is_kept_while_the_app_runs():
    ctl = AppController(prefs=Prefs(), save=False)
    a = ctl.screen_state("x", dict)
    assert ctl.screen_state("x", list) is a
    ctl.drop_screen_state("x")
    assert ctl.screen_state("x", list) == []


def test_open_game_from_resume_and_from_the_wizard():
    ctl = AppController(prefs=Prefs(), save=False)
    ctl.nav.go("/resume")
    ctl.open_game("abc")
    assert ctl.game_id == "abc" and ctl.nav.stack == ("/", "/resume", "/game")
    ctl.nav.home()
    ctl.new_game()
    ctl.screen_state("/new", dict)["seats"] = 2
    ctl.open_game("def")  # the wizard finished: its screen is replaced by the game
    assert ctl.nav.stack == ("/", "/game") and ctl.game_id == "def"
    assert ctl.screen_state("/new", dict) == {}  # a fresh wizard next time
    with pytest.raises(ValueError):
        ctl.open_game("")
