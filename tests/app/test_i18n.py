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


# --------------------------------------------------------------------------- issue 41 (b)
# The rulebooks' words, the same on every screen: French "Écu(s)" and Italian "Moneta/Monete"
# (capitalised, as the rulebooks print them) for the coins, never "pièce(s)" or "monete"; the
# Italian rulebook's "IA" for the automa, as the engine's Italian table already says.


def _every_table(lang):
    from companion.app.common.engine_text import load_automa_table, load_engine_table
    from companion.app.common.i18n import load_game_strings

    for name, table in (("shell", load_shell_table(lang)), ("game", load_game_strings(lang)),
                        ("engine", load_engine_table(lang)), ("automa", load_automa_table(lang))):
        for k, v in table.items():
            yield f"{name}:{k}", re.sub(r"\{[a-z_0-9]*\}", "", v)  # words, not placeholders' names


@pytest.mark.parametrize("lang, wrong, right", [
    ("fr", r"\bpi[èe]ces?\b", r"\bÉcus?\b"),
    ("it", r"\bmonet[ae]\b", r"\bMonet[ae]\b"),
])
def test_the_coins_have_the_rulebooks_name_everywhere(lang, wrong, right):
    texts = dict(_every_table(lang))
    # "wrong" case-sensitively: the lower-case Italian word, any French "pièce"
    left = {k: v for k, v in texts.items() if re.search(wrong, v, 0 if lang == "it" else re.I)}
    assert not left, left
    coins = {k: v for k, v in texts.items() if k.rsplit(".", 1)[-1] in ("coins", "starting_coins") or "seals_for_coins" in k}
    assert coins and all(re.search(right, v) for v in coins.values()), coins
    from companion.app.game.texts import GameText

    gt = GameText(lang)
    assert gt("g.sb.coins", n=2) == {"fr": "2 Écus", "it": "2 Monete"}[lang]
    assert gt("g.sb.coins", n=1) == {"fr": "1 Écu", "it": "1 Moneta"}[lang]


def test_italian_says_ia_for_the_automa_as_its_rulebook():
    # ('automa' in quotes is a value of a game file, as written there)
    left = {k: v for k, v in _every_table("it") if re.search(r"\bautom[ai]\b", re.sub(r"'[a-z_]+'", "", v), re.I)}
    assert not left, left


def test_a_plural_choice_has_two_forms():
    """``{n:one|expert|experts}`` showed "Reveal 1 one" (the first form is the singular word)."""
    from companion.app.common.i18n import load_game_strings
    from companion.app.game.texts import GameText

    for lang in LANGUAGES:
        for k, v in {**load_shell_table(lang), **load_game_strings(lang)}.items():
            for _, field, spec, _ in string.Formatter().parse(v):
                assert not spec or "|" not in spec or spec.count("|") == 1, f"{lang}:{k} {spec}"
    assert [GameText(x)("g.reveal.typed_button", n=1) for x in LANGUAGES] == ["Reveal 1 expert", "Révéler 1 expert", "Rivela 1 esperto"]


def test_a_signed_gain_takes_the_singular_of_its_size():
    """The turn's preview writes gains as "+1": "+1 coins", "+1 Écus", "+1 Monete" were shown."""
    from companion.app.game.texts import GameText

    assert [GameText(x)("g.gain.coins", n="+1") for x in LANGUAGES] == ["+1 coin", "+1 Écu", "+1 Moneta"]
    assert [GameText(x)("g.gain.coins", n="+2") for x in LANGUAGES] == ["+2 coins", "+2 Écus", "+2 Monete"]
    assert GameText("fr")("g.gain.coins", n="-1") == "-1 Écu"


@pytest.mark.parametrize("lang, wrong", [
    ("fr", r"\b[tT]uiles? de manche\b|\bjetons? (de )?manche\b|\bjetons? premier joueur\b|\bjeton Premier joueur\b"),
    ("it", r"\b[tT]esser[ae] round\b|\bsegnalin[oi] round\b|\bsegnalino primo giocatore\b|\bsegnalino Primo giocatore\b"),
])
def test_the_round_and_first_player_tokens_have_the_rulebooks_names(lang, wrong):
    """"Tuile de manche" / "Tessera round" on the screens, "jeton Manche" / "segnalino Round" in
    the engine's log and the rulebooks; "jeton Premier Joueur" / "segnalino Primo Giocatore"."""
    left = {k: v for k, v in _every_table(lang) if re.search(wrong, v)}
    assert not left, left


def test_italian_speaks_to_the_table_in_the_plural_on_the_game_screens():
    """The game screens, the engine's messages and the Automa's card speak to the table (voi,
    as the rulebook: "Toccate un dado"); the shell's screens to the person at the screen (tu).
    "Ana: piazza i tuoi dadi" above "Toccate un dado", "I vostri dadi" among "correggili",
    "Hai finito i cubi Ricerca" were mixed. (Buttons keep the imperative: "Prendi", "Conferma".)"""
    from companion.app.common.engine_text import load_automa_table, load_engine_table
    from companion.app.common.i18n import load_game_strings

    tu = re.compile(r"\b(tu|tuo|tuoi|tua|tue|te|hai|Hai|inserisci|Inserisci|scegli|sostituisci|aspetta un|riprova|"
                    r"aprila|scatta|ometti|piazza i tuoi|prendi un|lancia il)\b")
    for name, table in (("game", load_game_strings("it")), ("engine", load_engine_table("it")),
                        ("automa", load_automa_table("it"))):
        left = {k: v for k, v in table.items() if not k.startswith(("g.choose.", "g.seal.take", "g.sep.add", "g.dice.correct"))
                and tu.search(v)}
        assert not left, (name, left)
    left = {k: v for k, v in load_shell_table("it").items() if re.search(r"\b(vostr[oaie]|confermate)\b", v)}
    assert not left, left
