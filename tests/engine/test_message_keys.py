"""Every refusal and every log line of the engine is a message key with arguments (issue 17,
item 4): the keys the engine can produce are exactly the keys of its English table
(``companion/data/messages-en.json``), found statically (a scan of the engine's code) and
dynamically (random and mutated actions through the checked ``apply``, and every log line of
random games); ``str()`` stays the English sentence."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

import companion
from companion import errors
from companion.actions import ACTION_TYPES, StartGame, action_from_json
from companion.content.board import default_board
from companion.content.vocab import CATEGORIES, COLOURS, CONTINENTS
from companion.engine import (
    BEHAVIOURS, ChanceSource, RandomPlayer, State, apply, describe, describe_action, new_game, next_action,
)
from companion.errors import RuleError
from companion.messages import (
    PLURAL_RULES, TERM_ARGS, Msg, english, english_table, placeholders, plural_forms, render,
)
from companion.simulate import seat_configs

from .test_fuzz_refusals import _mutated, _random_action

ENGINE = Path(companion.__file__).parent
#: the engine's modules (the app, the content loaders and the vision code raise no RuleError)
ENGINE_FILES = sorted([*ENGINE.glob("*.py"), *ENGINE.glob("engine/*.py"), *ENGINE.glob("store/*.py")])
EN = english_table()
KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")
PREFIXES = {k.split(".")[0] for k in EN}
RULE_ERRORS = set(errors.__all__)


def _constants():
    """(string constant, file) of every dotted lowercase word in the engine's code."""
    out = []
    for path in ENGINE_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY.match(node.value):
                out.append((node.value, path.name))
    return out


def _calls():
    """(call node, file) of every ``SomeRuleError(...)`` and ``Msg(...)`` in the engine's code."""
    out = []
    for path in ENGINE_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                    node.func.id in RULE_ERRORS or node.func.id == "Msg"):
                out.append((node, path.name))
    return out


def _term_values() -> dict[str, set[str]]:
    row_kinds = {row["kind"] for rows in BEHAVIOURS.values() for row in rows.values()}
    return {
        "continent": set(CONTINENTS), "continent_id": set(CONTINENTS),
        "colour": set(COLOURS), "dice_colour": set(COLOURS),
        "category": set(CATEGORIES),
        "location": row_kinds, "row": row_kinds,
        "token": set(default_board().round_token_effects), "token_id": set(default_board().round_token_effects),
        "pub_type": {"0", "1", "2", "3", "4"},  # the publication types: Continent, Type I-IV (issue 41, item 10)
    }


# --------------------------------------------------------------------------- static


def test_every_refusal_is_raised_with_a_key_of_the_english_table():
    calls = _calls()
    assert len(calls) > 200  # the scan finds the raise sites
    bad = []
    for node, name in calls:
        if node.func.id == "RuleError" and name == "errors.py":
            continue
        if not node.args:
            bad.append(f"{name}:{node.lineno} {node.func.id}() without a key")
            continue
        first = node.args[0]
        choices = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
        for c in choices:
            if isinstance(c, ast.Constant):
                if c.value not in EN:
                    bad.append(f"{name}:{node.lineno} unknown key {c.value!r}")
            elif not isinstance(c, (ast.Name, ast.Subscript)):  # a variable holding a key (checked below)
                bad.append(f"{name}:{node.lineno} {node.func.id} with {ast.unparse(c)} (text, not a key)")
    assert not bad, "\n".join(bad)


def test_every_key_written_in_the_engine_exists_and_every_english_key_is_used():
    consts = _constants()
    written = {v for v, _ in consts if v.split(".")[0] in PREFIXES}
    missing = sorted(f"{v} ({f})" for v, f in consts if v in written and v not in EN)
    assert not missing, missing
    unused = sorted(k for k in EN if not k.startswith("term.") and k not in written)
    assert not unused, unused


def test_game_words_have_an_english_term_for_every_value():
    values = _term_values()
    assert set(TERM_ARGS.values()) == set(values)
    for kind, vals in values.items():
        have = {k.split(".", 2)[2] for k in EN if k.startswith(f"term.{kind}.")}
        assert have == vals, kind
    kinds = {k.split(".")[1] for k in EN if k.startswith("term.")}
    assert kinds == set(values)


def test_english_templates_are_well_formed():
    for k, t in EN.items():
        assert t == t.strip() or k in {"hint.did_you_mean", "hint.did_you_mean_several", "spend.from_reputation",
                                       "take.at_position", "log.with_sepultus", "log.board_from_box",
                                       "log.expert_used_at_once", "log.expert_slot", "log.expert_under", "log.spend",
                                       "log.publish_up_to", "log.automa_to"}, k
        for field, spec in plural_forms(t):
            assert len(spec.split("|")) == 2 and all(spec.split("|")), (k, spec)


# --------------------------------------------------------------------------- dynamic


def _drive(seeds):
    """Every message key of the refusals and log lines met in fuzzed random games."""
    keys: set[str] = set()
    refusals = lines = 0
    for seed in seeds:
        rng, fuzz = random.Random(500 + seed), random.Random(seed)
        seats = 2 + seed % 3
        st = State()
        for _ in range(40):
            try:
                apply(State(), _mutated(fuzz, st, StartGame(seat_configs(seats, 1, fuzz))))
            except RuleError as e:
                keys |= e.msg.keys()
                assert str(e) == english(e.msg) == e.args[0]
        start = StartGame(seat_configs(seats, seed % 3 if seed % 3 < seats else 0, rng), rng.randrange(seats), True)
        keys |= describe(st, start).keys()
        apply(st, start)
        chance = ChanceSource(rng, unknown_categories=0.1)
        players = [RandomPlayer(rng) for _ in range(seats)]
        while not st.finished:
            legal = next_action(st, chance, players)
            for _ in range(4):
                bad = _random_action(fuzz, st) if fuzz.random() < 0.5 else _mutated(fuzz, st, legal)
                try:
                    apply(st.copy(), bad)
                except RuleError as e:
                    refusals += 1
                    keys |= e.msg.keys()
            m = describe(st, legal)
            assert str(m) == describe_action(st, legal)
            keys |= m.keys()
            lines += 1
            apply(st, legal)
    return keys, refusals, lines


def test_refusals_and_log_lines_of_random_games_use_table_keys():
    keys, refusals, lines = _drive(range(3))
    assert refusals > 300 and lines > 1000
    assert keys <= set(EN), sorted(keys - set(EN))
    assert len({k for k in keys if not k.startswith("log.")}) >= 70  # most kinds of refusal are met
    assert len({k for k in keys if k.startswith("log.")}) >= 25


def test_records_that_cannot_be_read_are_refused_with_keys():
    rng = random.Random(3)
    values = [None, 1, -1, "x", [], {}, [["red", 1]], [[1, "x"]], [1, 2], True, {"coins": -1}, [{"name": 1}]]
    keys = set()
    for _ in range(600):
        cls = rng.choice(list(ACTION_TYPES.values()))
        d = {"type": cls.TYPE, **{f: rng.choice(values) for f in cls.__dataclass_fields__ if rng.random() < 0.7}}
        if rng.random() < 0.1:
            d["zz"] = 1
        try:
            action_from_json(d)
        except RuleError as e:
            keys |= e.msg.keys()
    for bad in (1, {"type": "nope"}):
        with pytest.raises(RuleError) as ei:
            action_from_json(bad)
        keys |= ei.value.msg.keys()
    assert keys <= set(EN) and len(keys) >= 12


def test_a_refusal_keeps_its_english_and_carries_key_and_arguments():
    st = new_game()
    with pytest.raises(RuleError) as ei:
        apply(st, action_from_json({"type": "take_die", "seat": 0, "owner": 0, "slot": 0}))
    e = ei.value
    assert e.key == "turn.not_now" and isinstance(e.params["pending"], Msg)
    assert str(e) == "taking a die is not possible now: the game waits for the game set-up"
    assert e.msg.keys() == {"turn.not_now", "what.take_die", "pending.start_game", "who.table"}


# --------------------------------------------------------------------------- rendering


def test_plural_choice_follows_each_language_rule():
    table = {"k": "{n} {n:coin|coins}"}
    assert [render(Msg("k", n=n), table, "en") for n in (0, 1, 2)] == ["0 coins", "1 coin", "2 coins"]
    assert [render(Msg("k", n=n), table, "it") for n in (0, 1, 2)] == ["0 coins", "1 coin", "2 coins"]
    assert [render(Msg("k", n=n), table, "fr") for n in (0, 1, 2)] == ["0 coin", "1 coin", "2 coins"]
    assert PLURAL_RULES["fr"](0) == "one" and PLURAL_RULES["en"](0) == "other"


def test_nested_messages_lists_and_game_words():
    table = {"a": "{who} sees {colours} ({got!r}) in {continent}", "b": "<{n}>", "term.colour.red": "RED",
             "term.continent.asia": "ASIA"}
    m = Msg("a", who=Msg("b", n=1), colours=["red", "pink"], got="red", continent="asia")
    assert render(m, table) == "<1> sees RED, pink ('red') in ASIA"
    assert render(m, table, term=lambda kind, v: v.upper() + "!" if kind == "colour" else None) == \
        "<1> sees RED!, PINK! ('red') in ASIA"
    assert placeholders("{a} {b:x|y} {c!r}") == {"a", "b", "c"}


def test_publication_types_are_the_boards_words_in_english_too():
    """Issue 41, item 10: "up to Type 3" -> "up to Type III"; a publish option's label the same."""
    from companion.engine.queries import PUB_TYPE
    from companion.messages import Msg, english

    assert english(Msg("log.publish_up_to", type=3)) == " up to Type III"
    assert english(Msg("log.publish_up_to", type=0)) == " up to Continent"
    assert PUB_TYPE == tuple(EN[f"term.pub_type.{t}"] for t in range(5))
