"""The engine's refusals and log lines in French and Italian (issue 17, item 4): the app's
tables (``companion/app/assets/i18n/engine/{fr,it}.json``) hold exactly the engine's keys
(none missing, none unused), the same placeholders and well-formed plural choices; every key
rendered with sample arguments leaves no English word; game words come from the screens' own
vocabulary."""

from __future__ import annotations

import re

import pytest

from companion.app.common.engine_text import APP_TERMS, engine_text, load_engine_table
from companion.app.common.i18n import load_game_strings
from companion.messages import Msg, TERM_ARGS, english_table, placeholders, plural_forms, render

EN = english_table()
LANGS = ("fr", "it")
#: English keys the app words with the game screens' vocabulary instead of its own table
APP_WORDED = {k for k in EN if k.startswith("term.") and k.split(".")[1] in APP_TERMS}

# sample arguments by placeholder name (game words as the engine passes them: ids)
SAMPLE = {
    "continent": "asia", "continent2": "oceania", "continent_ids": ["africa", "europe"],
    "colour": "purple", "colours": ["red", "green"], "dice_colour": "blue",
    "category": "mammal", "categories": ["bird", "carnivore", "aquatic", "hot"],
    "location": "academy", "row": "expedition", "token": "extra_die", "token_id": "coins",
    "token_ids": ["token", "nothing"],
    "seat": "Ana", "other": "Bruno", "owner": "Bruno", "first": "Ana", "name": "Safi Limbila",
    "held": "Pora Paniu", "names": ["Ana", Msg("log.automa_seat", name="Robot")],
    "who": Msg("who.seat", name="Ana", n=0), "verb": Msg("verb.take_die"), "what": Msg("what.embassy"),
    "pending": Msg("pending.research", who=Msg("who.seat", name="Ana", n=0), count=4, value=9),
    "card": Msg("card.unnamed", continent="africa", n=7), "hint": Msg("hint.did_you_mean", name="Safi Limbila"),
    "extra": Msg("spend.from_reputation", n=2), "fix": Msg("academy.fix_more", n=2), "at": Msg("take.at_position", n=1),
    "spend": Msg("log.spend", parts=[Msg("log.spend.colour_token", colour="red"), Msg("log.spend.coins", n=2)]),
    "die": Msg("log.die", colour="yellow", value=5),
    "dice": [Msg("log.die", colour="red", value=3), Msg("log.die", colour="blue", value=6)],
    "gain": [Msg("log.gain.coins", n=2)], "parts": [Msg("log.spend.coins", n=1), Msg("log.spend.seal_for_colour")],
    "cubes": [Msg("log.cube_on", category="reptile", card="Iguana")], "sepultus": Msg("log.with_sepultus"),
    "board": Msg("log.board_from_box", keys=["slot_effects"]), "up_to": Msg("log.publish_up_to", type=3),
    "keep": Msg("log.publish_keep", n=2), "to": Msg("log.automa_to", continent="europe"),
    "where": "take_die.slot", "got": 7, "field": "coins", "fields": ["'zz'"], "known": ["take_die", "roll_dice"],
    "choices": ["la-boudeuse", "l-astrolabe"], "keys": ["slot_effects"], "type": 2, "detail": "(3)",
    "names_": None,
}
#: per key, where a placeholder name means something else there
OVERRIDES = {
    "log.choose_expert": {"where": Msg("log.expert_slot", slot=2)},
    "log.bank": {"first": Msg("log.bank_first_player")},
    "log.publish": {"extra": Msg("log.publish_extra", n=3)},
    "log.round_token": {"what": Msg("log.token_effect.extra_die")},
    "hint.did_you_mean_several": {"names": ["'Safi Limbila'"], "last": "Rachel Mostinckx"},
    "json.action_not_object": {"type": "int"},
    "board.not_object": {"type": "int"},
    "log.action_type": {"type": "take_die"},
    "log.sepultus_fields": {"name": "Tyrannus", "die": 4, "cost": 9},
}


def sample_args(key: str) -> dict:
    args = {}
    for p in placeholders(EN[key]):
        v = OVERRIDES.get(key, {}).get(p, SAMPLE.get(p, 3))
        args[p] = v
    return args


def render_in(lang: str, key: str) -> str:
    return engine_text(Msg(key, **sample_args(key)), lang)


#: English words that must not be left in a French or Italian sentence (words that are also
#: French or Italian, e.g. "animal", "experts", "place", "face", "on", "reptile", "round",
#: "Africa", are not listed)
ENGLISH = set("""
the is are not and or of to with an this that these those has have needs need must got only already
slot slots die dice card cards seat seats coin coins token tokens seal seals reputation research researches
publish publishing publication expedition embassy bank university academy turn player players display deck
board value worth take takes taken enter choose give there no every all each from for it its be can
cannot first free top left right category categories colour colours red yellow purple blue green mammal bird
terrestrial arboreal aquatic hot cold temperate up than more less fewer once at by into out game new passes
rolls roll rolled draws draw reveals reveal uses use recruits studies gains gain nothing effect
wait waits now own their which whose covers cover down back set while when where what who one
animals isn't doesn't listed twice kept keeping made without spends taking""".split())

#: names of the samples and the words of records (a field, a type: shown as the record has them)
NAMES = {"Ana", "Bruno", "Safi", "Limbila", "Pora", "Paniu", "Robot", "Iguana", "Tyrannus", "Rachel", "Mostinckx",
         "spend", "Spend", "SeatConfig", "extra", "true", "false", "null", "JSON"}


def _words(text: str) -> set[str]:
    text = re.sub(r"'[^']*'", " ", text)  # quoted values as given ('pink', 'human')
    words = set()
    for tok in re.split(r"\s+", text):
        if re.search(r"[_.=/\[\]]", tok):
            continue  # a record's field or a code word (set_categories, spend.coins, Spend/SeatConfig)
        words |= set(re.findall(r"[A-Za-zÀ-ÿ']+", tok))
    return {w for w in words if w not in NAMES}


@pytest.mark.parametrize("lang", LANGS)
def test_the_tables_hold_exactly_the_engine_keys_with_the_same_placeholders(lang):
    table = load_engine_table(lang)
    need = set(EN) - APP_WORDED
    assert set(table) == need, f"missing {sorted(need - set(table))}, unused {sorted(set(table) - need)}"
    for k, t in table.items():
        assert t.strip(), k
        assert placeholders(t) == placeholders(EN[k]), f"{lang}:{k} placeholders differ"
        for field, spec in plural_forms(t):
            forms = spec.split("|")
            assert len(forms) == 2 and all(forms), f"{lang}:{k} plural {spec!r}: one|other"
        assert {f for f, _ in plural_forms(t)} <= placeholders(EN[k])


def test_game_words_the_screens_do_not_have_are_in_the_engine_tables():
    kinds = set(TERM_ARGS.values())
    for lang in LANGS:
        words = load_game_strings(lang)
        table = load_engine_table(lang)
        for k in EN:
            if not k.startswith("term."):
                continue
            _, kind, value = k.split(".", 2)
            assert kind in kinds
            if kind in APP_TERMS:
                assert APP_TERMS[kind] + value in words, f"{lang}: the screens have no word for {k}"
            else:
                assert k in table, f"{lang}: {k}"


#: keys whose French text is rightly the same as the English one (words shared by both)
SAME_AS_EN = {"fr": {"log.automa_seat", "term.token.expert", "term.token.animal", "term.token_id.expert",
                     "term.token_id.animal", *(f"term.pub_type.{t}" for t in range(5))}, "it": set()}


@pytest.mark.parametrize("lang", LANGS)
def test_every_key_rendered_in_french_and_italian_leaves_no_english(lang):
    table = load_engine_table(lang)
    left = {}
    same = []
    for key in sorted(set(EN) - APP_WORDED):
        text = render_in(lang, key)
        assert "{" not in text and "}" not in text, (key, text)
        english = _words(text) & ENGLISH
        if english:
            left[key] = (sorted(english), text)
        if table[key] == EN[key] and re.search(r"[A-Za-z]", re.sub(r"\{[^}]*\}", "", EN[key])) \
                and key not in SAME_AS_EN[lang]:
            same.append(key)
    assert not left, "\n".join(f"{k}: {w} in {t!r}" for k, (w, t) in left.items())
    assert not same, same


def test_samples_reach_every_placeholder_and_english_renders_as_the_engine_does():
    for key in EN:
        if key.startswith("term."):
            continue
        m = Msg(key, **sample_args(key))
        assert engine_text(m, "en") == str(m) == render(m, EN)
        text = str(m)
        assert "{" not in text, key


def test_french_uses_the_screens_words_and_plural_rule():
    m = Msg("spend.coins_short", need=1, seat="Ana", have=0, extra="")
    assert engine_text(m, "fr") == "il faut 1 Écu ; Ana en a 0"
    assert engine_text(Msg("spend.coins_short", need=3, seat="Ana", have=0, extra=""), "fr") == "il faut 3 Écus ; Ana en a 0"
    assert engine_text(Msg("log.spend.coins", n=0), "fr") == "0 Écu"  # French: 0 is singular
    assert engine_text(Msg("log.spend.coins", n=0), "it") == "0 Monete"
    assert engine_text(Msg("spend.coins_short", need=1, seat="Ana", have=0, extra=""), "it") == "serve 1 Moneta; Ana ne ha 0"
    e = Msg("expedition.colour", continent="africa", colour="yellow")
    assert engine_text(e, "fr") == ("une Expédition en Afrique demande un dé jaune : défaussez 1 jeton Expédition "
                                    "(ou un Sceau royal) pour changer sa couleur")
    assert engine_text(e, "it").startswith("una Spedizione in Africa richiede un dado giallo")
    assert engine_text(Msg("dice.bag_short", n=1, dice_colour="green", got=2), "fr") == \
        "dés verts dans le sac : 1 seulement, reçu 2"


def test_a_key_not_yet_translated_falls_back_to_english(monkeypatch):
    monkeypatch.delitem(load_engine_table("fr"), "turn.game_over")
    assert engine_text(Msg("turn.game_over"), "fr") == "the game is over: no more actions can be entered"
    assert engine_text(ValueError("plain"), "fr") == "plain"


@pytest.mark.parametrize("lang, up_to, refusal", [
    ("en", " up to Type III", "publishing up to Type IV needs a die of 6"),
    ("fr", " jusqu'au Type III", "publier jusqu'au Type IV demande un dé de 6"),
    ("it", " fino al Tipo III", "pubblicare fino al Tipo IV richiede un dado di 6"),
])
def test_publication_types_read_as_the_board_prints_them(lang, up_to, refusal):
    """Issue 41, item 10: the log said "up to Type 3"; the board prints Type I-IV and Continent."""
    assert engine_text(Msg("log.publish_up_to", type=3), lang) == up_to
    assert engine_text(Msg("publish.up_to_too_low", type=4, need=6, value=5, n=1), lang).startswith(refusal)
    continent = {"en": "Continent", "fr": "Continent", "it": "Continente"}[lang]
    assert engine_text(Msg("log.publish_up_to", type=0), lang).endswith(continent)
    wrong = engine_text(Msg("category.wrong_type", i=2, type=2, categories=["omnivore"], got="bird"), lang)
    assert {"en": "(Type II)", "fr": "(Type II)", "it": "(Tipo II)"}[lang] in wrong
    assert not re.search(r"(Type|Tipo) [0-4]\b", wrong + engine_text(Msg("publish.type_too_high", category="hot", type=4, top=2), lang))


def test_a_count_of_cubes_chooses_its_word():
    """Issue 41 (b): "il reste 1 cube(s)", "restano 1 cubi" were slips."""
    m = Msg("research.no_cubes_left", have=1, seat="Ana", n=2, hint="")
    assert engine_text(m, "fr") == "il reste 1 cube Recherche à Ana pour 2 cubes"
    assert engine_text(m, "it") == "a Ana resta 1 cubo Ricerca per 2 cubi"
    assert engine_text(Msg("cubes.swap_needs_five", seat="Ana", have=3, category="bird"), "it").startswith("Ana ha 3 cubi sulla")
