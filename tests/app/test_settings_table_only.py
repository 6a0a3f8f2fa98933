"""The table's settings are the table's (issue 40): a phone's page (``ctl.remote_client``, from
``common.gate.is_phone``) is offered its own language and theme only; the box constants ("check
your box", e.g. starting coins), the dice calibration and the animal catalogue's import and
export are refused to it by the view-models too, and it is shown no server path."""

from __future__ import annotations

import json

import pytest

from companion.app.common.prefs import load_prefs
from companion.app.settings.tools_vm import CalibrationTools, CatalogueTools, ToolError
from companion.app.settings.vm import TABLE_ONLY, BoxConstantsForm, SettingsAccess
from companion.app.shell.view import build_screen
from companion.content import board as board_mod
from companion.content.catalogue import AnimalCard, Catalogue
from test_screens import FakeShell, texts

DUCK = AnimalCard("europe", ("bird", "omnivore", "aquatic", "temperate"), name="Aix galericulata")


def phone_shell(lang="en", width=390):
    shell = FakeShell(lang, width)
    shell.ctl.remote_client = True
    return shell


def test_access_follows_the_page():
    table, phone = FakeShell(), phone_shell()
    assert SettingsAccess.of(table.ctl).sections == ("language", "theme", "box", "calibration", "profile", "catalogue")
    assert SettingsAccess.of(phone.ctl).sections == ("language", "theme")
    assert SettingsAccess.of(table.ctl).saves_prefs and not SettingsAccess.of(phone.ctl).saves_prefs


def test_a_phone_cannot_change_starting_coins(_private_data_dir):
    form = BoxConstantsForm(table=False)
    form.set_text("starting_coins", "[40, 40, 40, 40]")
    assert form.save() is False and form.error == TABLE_ONLY
    assert not (_private_data_dir / board_mod.OVERRIDE_FILE_NAME).exists()
    assert board_mod.default_board().starting_coins == (1, 2, 3, 4)
    # the control: the table's form writes it
    table = BoxConstantsForm()
    table.set_text("starting_coins", "[2, 3, 4, 5]")
    assert table.save() is True
    assert json.loads((_private_data_dir / board_mod.OVERRIDE_FILE_NAME).read_text())["starting_coins"] == [2, 3, 4, 5]


def test_a_phone_cannot_import_or_export_the_catalogue(_private_data_dir):
    data = json.dumps(Catalogue((DUCK,)).to_json()).encode()
    phone = CatalogueTools(table=False)
    with pytest.raises(ToolError, match="table's screen"):
        phone.import_bytes(data, "a.json")
    with pytest.raises(ToolError, match="table's screen"):
        phone.export_bytes()
    assert not Catalogue.local_path().exists()
    assert CatalogueTools().import_bytes(data, "a.json").changed  # the table's page may


def test_a_phone_cannot_calibrate_or_forget_the_calibration(tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text("{}")

    def reader():
        raise AssertionError("a phone's photo must not even be read")

    phone = CalibrationTools(reader, path=cal, table=False)
    with pytest.raises(ToolError, match="table's screen"):
        phone.calibrate(b"jpeg bytes")
    with pytest.raises(ToolError, match="table's screen"):
        phone.clear()
    assert cal.exists()
    assert CalibrationTools(reader, path=cal).clear() is True


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_phones_settings_screen_shows_language_and_theme_only(_private_data_dir, lang):
    from companion.app.common.i18n import Translator

    tr = Translator(lang)
    (_private_data_dir / board_mod.OVERRIDE_FILE_NAME).write_text(json.dumps({"starting_coins": [2, 3, 4, 5]}))
    phone = " ".join(texts(build_screen("/settings", phone_shell(lang)).view()))
    table = " ".join(texts(build_screen("/settings", FakeShell(lang, 390)).view()))
    for key in ("board.starting_coins", "settings.calibration", "settings.catalogue", "settings.catalogue_export",
                "settings.profile", "settings.profile_export", "settings.profile_clear"):
        assert tr(key) in table, key  # the control: the table's page shows them
        assert tr(key) not in phone, key
    assert tr("settings.language") in phone and tr("settings.table_only") in phone
    assert str(_private_data_dir) not in phone


def test_a_phones_language_stays_on_its_page(_private_data_dir):
    from companion.app.shell.controller import AppController

    ctl = AppController()
    ctl.remote_client = True
    ctl.keep_prefs_on_page()
    ctl.set_language("it")
    assert ctl.prefs.language == "it"
    assert load_prefs()[0].language != "it"  # the table's preferences file is untouched
    table = AppController()
    table.set_language("fr")
    assert load_prefs()[0].language == "fr"
