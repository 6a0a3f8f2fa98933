"""The Automa's card in French and Italian (issue 41, item 1): its instructions are keyed
messages (``automa.words.AutomaMsg``, keys ``ai.*``) with the same keys and placeholders in
EN/FR/IT; whole seeded games' instructions rendered in French and Italian leave no English word
of the Automa's English table and pass a small grammar check (French élision, no "de le",
Italian articulated prepositions); ordinals and plurals are the language's."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from functools import lru_cache

import pytest

from automa import play as automa_play
from automa.decide import dice_message, gift_message
from automa.words import AutomaMsg, automa_table_en, take_die_msg
from companion.actions import TakeDie
from companion.app.common.engine_text import engine_text, load_automa_table, load_engine_table
from companion.engine import RandomPlayer
from companion.messages import SPECIAL_SPECS, english_table, parse, placeholders, plural_forms

EN = automa_table_en()
LANGS = ("fr", "it")

#: names with a vowel and a consonant first (the French élision "d'Anna" / "de Bruno")
NAMES = ("Anna", "Bruno", "Élodie", "Robot")


def test_tables_have_the_same_keys_and_placeholders():
    assert EN and all(k.startswith("ai.") for k in EN)
    assert not set(EN) & set(english_table()), "the Automa's keys are its own"
    for lang in LANGS:
        table = load_automa_table(lang)
        assert set(table) == set(EN), (lang, set(EN) ^ set(table))
        for k, en in EN.items():
            assert placeholders(table[k]) == placeholders(en), (lang, k)
            for field, spec in plural_forms(table[k]):
                assert len(spec.split("|")) == 2, (lang, k, spec)
            # an ordinal stays an ordinal (its gender is the language's: nth or nth_f)
            nth = {f for _, f, s, _ in parse(table[k]) if f and s in ("nth", "nth_f")}
            assert nth == {f for _, f, s, _ in parse(en) if f and s in ("nth", "nth_f")}, (lang, k)


def _names(seats):
    return [replace(s, name=NAMES[i]) for i, s in enumerate(seats)]


@lru_cache(maxsize=None)
def game_messages() -> tuple:
    """Every instruction of a few seeded games (turns, card choices, dice layouts, gifts)."""
    out: list = []

    class Human:
        def __init__(self, rng):
            self.inner = RandomPlayer(rng)

        def action(self, st):
            a = self.inner.action(st)
            if isinstance(a, TakeDie):
                g = gift_message(st, a)
                if g is not None:
                    out.append(g)
            return a

    def on_decision(st, d):
        out.extend(d.messages)
        for i, s in enumerate(st.seats):
            if s.kind == "automa" and any(s.slots):
                out.append(dice_message(st, i))

    for seed, (n_automas, n_humans) in enumerate([(1, 1), (2, 1), (1, 2), (2, 2)]):
        seats = _names(automa_play.random_table(random.Random(seed), n_automas, n_humans))
        automa_play.play(seats, seed, human_factory=lambda r, i: Human(r), on_decision=on_decision)
    return tuple(out)


def test_games_use_most_keys():
    used = set().union(*(m.keys() for m in game_messages()))
    assert all(isinstance(m, AutomaMsg) for m in game_messages())
    # the rare ones (a full expedition, an empty deck, unknown slot effects) are rendered below
    rare = {"ai.expedition.full", "ai.none_left.animal", "ai.none_left.expert", "ai.gain.other", "ai.card.at",
            "ai.card.unnamed.expert", "ai.take_nothing", "ai.gift.nothing", "ai.expedition.gain_none",
            "ai.expedition.none", "ai.rep.round", "ai.draw_that.expert", "ai.card.deck.expert", "ai.deck.expert",
            "ai.lead.round", "ai.layout.empty", "ai.gain.seals", "ai.gain.vp", "ai.gift.cards_later",
            "ai.card.deck.animal", "ai.sepultus_aside", "ai.draw_that.animal", "ai.deck.animal",
            "ai.expedition.discard", "ai.rep.cards.expert", "ai.rep.cards.animal", "ai.gain.coins"}
    assert set(EN) - rare <= used, sorted(set(EN) - rare - used)
    assert len(used & set(EN)) >= 35


def _english_words() -> set[str]:
    words: set[str] = set()
    for template in EN.values():
        text = re.sub(r"\{[^}]*\}", " ", template)
        words |= {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return words


#: words of the English table that are also words of the language (or names of the game)
SAME = {
    "fr": {"sepultus", "creatura", "animal", "expert", "a", "place", "bonus"},
    "it": {"sepultus", "creatura", "app", "round", "per", "a", "bonus"},
}

# grammar slips the templates must not produce
FR_SLIPS = [
    (r"\b[Dd]e [AEIOUYÉÈÊÀÂÎÔÛaeiouyéèêàâîôû]", "de before a vowel (d')"),
    (r"\b[Dd]e (le|les)\b", "de le / de les (du / des)"),
    (r"\b[Àà] (le|les)\b", "à le / à les (au / aux)"),
    (r"(?<![-\w])[Ll][ea] [AEIOUYÉÈÊÀÂÎÔÛaeiouyéèêàâîôû]", "le/la before a vowel (l'), not the pronoun of -la"),
    (r"\b1e\b|\b1ème\b|\b1st\b|\b2nd\b|\b3rd\b|\d+th\b", "ordinal"),
    (r"\bne \w+ pas rien\b|(?<!ne )\bgagne rien\b", "ne … rien"),
    (r"\b1 \w+s\b|\b0 \w+s\b", "plural after 0 or 1"),
    (r"\s[.,]", "space before . or ,"),
    (r"\S[:;]", "French colon/semicolon need a space before"),
]
IT_SLIPS = [
    (r"\b(a|di|da|su|in|con) (il|lo|la|i|gli|le|l')\b", "preposition + article (al, del, dal, sul, nel)"),
    (r"\b(dell|sull|all|dall|nell)'[^AEIOUaeiouÀàÈèÉéÌìÒòÙù]", "elided article before a consonant"),
    (r"\b(il|la) [AEIOUaeiou]", "il/la before a vowel (l')"),
    (r"\b1st\b|\b2nd\b|\b3rd\b|\d+th\b", "ordinal"),
    (r"\b1 (Monete|Punti|segnalini|Sigilli|animali|esperti|caselle)\b", "plural after 1"),
    (r"\s[.,;:]", "space before punctuation"),
]


def _check(lang: str, text: str, english: set[str]):
    names = set(NAMES)
    words = [w for w in re.findall(r"[A-Za-zÀ-ÿ]+", text) if w not in names]
    left = {w for w in words if w.lower() in english and w.lower() not in SAME[lang]}
    assert not left, (lang, text, left)
    for pattern, what in FR_SLIPS if lang == "fr" else IT_SLIPS:
        found = re.search(pattern, text)
        assert found is None, (lang, what, found.group(0), text)


@pytest.mark.parametrize("lang", LANGS)
def test_games_in_french_and_italian_have_no_english_and_no_slip(lang):
    english = _english_words()
    seen = set()
    for m in game_messages():
        text = engine_text(m, lang)
        if text in seen:
            continue
        seen.add(text)
        assert text != str(m)
        assert text[:1].isupper() or text[:1] == "(", text
        _check(lang, text, english)
    assert len(seen) > 100


@pytest.mark.parametrize("lang", LANGS)
def test_every_key_rendered_alone(lang):
    """Each key with sample arguments (the rare ones the games may not reach) in both genders
    of name: no English left, no slip, and nothing falls back to English."""
    english = _english_words()
    sample = {"actor": "Anna", "owner": "Élodie", "who": "Bruno", "name": "Safi Limbila", "continent": "america",
              "colour": "red", "location": "bank", "die": take_die_msg("blue", 5, owner_name="Anna", own=True,
                                                                       slot=0, actor="Anna").args["die"],
              "what": AutomaMsg("ai.gain.coins", n=1), "gift": AutomaMsg("ai.gain.vp", n=3),
              "pos": AutomaMsg("ai.pos.animal", n=1), "card": AutomaMsg("ai.the_animal", continent="africa"),
              "text": AutomaMsg("ai.takes", actor="Anna", what=AutomaMsg("ai.gain.seals", n=2)),
              "head": [AutomaMsg("ai.gain.coins", n=2)], "last": AutomaMsg("ai.gain.tokens", n=1),
              "a": AutomaMsg("ai.gift.cards_later"), "b": AutomaMsg("ai.first_player"),
              "dice": AutomaMsg("ai.layout.die", colour="green", value=4), "slots": AutomaMsg("ai.layout.empty", n=2),
              "round": AutomaMsg("ai.rep.round"), "hits": AutomaMsg("ai.rep.hit", pos=4, gains="x"),
              "gains": AutomaMsg("ai.rep.cards.expert", n=2)}
    table = {**load_engine_table(lang), **load_automa_table(lang)}
    for key in EN:
        args = {p: sample.get(p, 2) for p in placeholders(EN[key])}
        if key == "ai.gain.other":
            args["what"] = "x"
        if key.startswith("ai.place."):
            args["location"] = key.split(".")[-1]
        msg = AutomaMsg(key, **args)
        text = engine_text(msg, lang)
        assert text != str(msg) or table[key] == EN[key], (lang, key)
        _check(lang, text, english)


def test_ordinals_plurals_and_elision():
    turn = AutomaMsg("ai.expedition.place", n=1, continent="america")
    assert str(turn) == "Place it on the 1st Expedition space of America."
    assert engine_text(turn, "fr") == "Placez-le sur le 1er emplacement Expédition d'Amérique."
    assert engine_text(turn, "it") == "Mettetelo sulla 1ª casella Spedizione dell'America."
    two = AutomaMsg("ai.expedition.place", n=2, continent="europe")
    assert engine_text(two, "fr") == "Placez-le sur le 2e emplacement Expédition d'Europe."
    assert engine_text(two, "it") == "Mettetelo sulla 2ª casella Spedizione dell'Europa."
    take = take_die_msg("blue", 5, owner_name="Joëlle", own=False, slot=0, actor="Robot")
    assert str(take) == "Take the blue 5 from Joëlle's board (Joëlle gains nothing)."
    assert engine_text(take, "fr") == "Prenez le 5 bleu sur le plateau de Joëlle (Joëlle ne gagne rien)."
    assert engine_text(take, "it") == "Prendete il dado blu da 5 dalla plancia di Joëlle (Joëlle non ottiene niente)."
    take = take_die_msg("red", 3, owner_name="Anna", own=False, slot=1, actor="Robot")
    assert engine_text(take, "fr") == "Prenez le 3 rouge sur le plateau d'Anna (Anna gagne 2 Écus)."
    assert engine_text(take, "it") == "Prendete il dado rosso da 3 dalla plancia di Anna (Anna ottiene 2 Monete)."
    one = AutomaMsg("ai.expedition.discard", actor="Robot", n=1, vp=4, per=4)
    assert engine_text(one, "fr") == "Robot défausse 1 jeton Expédition et marque 4 PV (4 par jeton)."
    assert engine_text(one, "it") == "Robot scarta 1 segnalino Spedizione e guadagna 4 PV (4 per segnalino)."
    pos = AutomaMsg("ai.pos.expert", n=3)
    assert (str(pos), engine_text(pos, "fr"), engine_text(pos, "it")) == (
        "3rd expert from the left", "3e expert en partant de la gauche", "3° esperto da sinistra")


def test_the_app_tables_are_flat_json():
    for lang in LANGS:
        with open(f"companion/app/assets/i18n/automa/{lang}.json", encoding="utf-8") as f:
            assert json.load(f) == load_automa_table(lang)


def test_the_italian_card_speaks_to_the_table_as_its_hint_does():
    """Issue 41 (b): the card's hint said "Muovete ... toccate" (voi, as the rulebook) and its
    lines "Prendi ... Mettilo ... Sposta" (tu), in one card."""
    from companion.app.common.engine_text import load_automa_table

    tu = re.compile(r"\b(Prendi|Mettilo|Metti|Sposta|Disponi|Pesca|pescala|mostrala|mettila|pesca|inseriscila|scopri)\b")
    left = {k: v for k, v in load_automa_table("it").items() if tu.search(v)}
    assert not left, left
