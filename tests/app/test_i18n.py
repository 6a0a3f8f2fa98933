import re
import string
from pathlib import Path

import pytest

from companion.app.common import i18n
from companion.app.common.i18n import LANGUAGES, Translator, load_shell_table, load_table
from companion.app.common.prefs import THEMES
from companion.content.board import shipped_unverified_keys

APP = Path(i18n.__file__).parents[1]  # companion/app


def _fields(text):
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_three_tables_have_the_same_keys_and_placeholders():
    en = load_shell_table("en")
    for lang in LANGUAGES:
        t = load_shell_table(lang)
        assert set(t) == set(en), f"{lang}: missing {set(en) - set(t)}, extra {set(t) - set(en)}"
        for k in en:
            assert _fields(t[k]) == _fields(en[k]), f"{lang}:{k} placeholders differ"
            assert t[k].strip(), f"{lang}:{k} is empty"


#: entries that are rightly the same as in English (names; Italian boxes say "round")
SAME_AS_EN = {"app.title", "resume.round", "resume.automas", "score.expert"}


def test_french_and_italian_are_translated_not_copied():
    en, fr, it = load_shell_table("en"), load_shell_table("fr"), load_shell_table("it")
    same_fr = [k for k in en if en[k] == fr[k] and len(en[k]) > 12 and k not in SAME_AS_EN]
    same_it = [k for k in en if en[k] == it[k] and len(en[k]) > 12 and k not in SAME_AS_EN]
    assert not same_fr and not same_it


def _literal_keys():
    pat = re.compile(r"""\btr?\(\s*["']([a-z_]+\.[a-z0-9_.]+)["']""")
    keys = set()
    for py in APP.rglob("*.py"):
        if "game" in py.relative_to(APP).parts:
            continue  # the game screens' keys are checked by tests/app/game
        keys |= {(m, py.name) for m in pat.findall(py.read_text(encoding="utf-8"))}
    return keys


def test_every_key_the_code_uses_exists():
    en = load_shell_table("en")
    used = _literal_keys()
    assert len(used) > 20  # the scan does find the calls
    missing = sorted(f"{k} ({f})" for k, f in used if k not in en)
    assert not missing


def test_computed_keys_exist():
    en = load_table("en")
    for key in shipped_unverified_keys():
        assert f"board.{key}" in en and f"board.{key}_help" in en
    for theme in THEMES:
        assert f"settings.theme_{theme}" in en
    from companion.app.settings.tools_vm import CALIBRATION_ORDER
    from companion.content.vocab import CATEGORIES, CONTINENTS

    for c in CALIBRATION_ORDER:
        assert f"colour.{c}" in en
    for c in CATEGORIES:
        assert f"cat.{c}" in en
    for c in CONTINENTS:
        assert f"continent.{c}" in en
    for v in ("error", "keep", "replace"):
        assert f"settings.catalogue_conflict_{v}" in en
    from companion.app.scorepad.vm import AUTOMA_COUNTS, HUMAN_COUNTS

    for c in HUMAN_COUNTS + AUTOMA_COUNTS + ("cubes", "published", "animals"):
        assert f"pad.{c}" in en


def test_translator_formats_and_falls_back(monkeypatch):
    tr = Translator("fr")
    assert tr("resume.round", round=3) == "manche 3"
    tr.set_language("it")
    assert tr.t("settings.title") == "Impostazioni"
    # a key only in English (a translation being written) falls back to English
    monkeypatch.setitem(load_table("en"), "zz.only_en", "only {x}")
    assert tr("zz.only_en", x=1) == "only 1"
    with pytest.raises(KeyError):
        tr("zz.nowhere")


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="en, fr, it"):
        Translator("de")


def test_game_strings_are_merged_without_clashes():
    for lang in LANGUAGES:
        merged = load_table(lang)
        assert set(load_shell_table(lang)) <= set(merged)
    # the shell keeps no "g." keys: that prefix is the game screens'
    assert not [k for k in load_shell_table("en") if k.startswith("g.")]
