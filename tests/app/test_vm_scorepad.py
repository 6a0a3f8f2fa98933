import json

import pytest

from companion.app.common.i18n import Translator
from companion.app.scorepad.vm import PadError, ScorePad
from companion.scorepad import parse_sheet, result_json, score_sheet
from tests_app_paths import SAMPLES  # noqa: F401  (see conftest: samples folder)


@pytest.fixture
def pad():
    return ScorePad(Translator("en"))


def enter_jeremie(pad: ScorePad, i: int) -> None:
    """The rulebook's final-scoring example, entered the way a user taps it in."""
    pad.set_name(i, "Jeremie")
    pad.set_count(i, "vp", 72)
    for cat, n in {"hot": 5, "carnivore": 8, "reptile": 10}.items():
        pad.set_count(i, "cubes", n, key=cat)
    pad.set_count(i, "published", 6, key="oceania")
    for name in ("Akona Wikiriwhi", "egbert rensing", "Emilia Morris", "Etano Palamo",
                 "Matilda Glenn", "Paipau Piripi"):
        pad.add_expert(i, name)
    pad.set_expert_active(i, "Emilia Morris", False)
    pad.set_expert_active(i, "Matilda Glenn", False)
    pad.set_count(i, "seals", 6)
    pad.set_count(i, "coins", 4)


def test_jeremie_scores_188_live(pad):
    pad.add_human()
    assert pad.view.totals == (0,)
    enter_jeremie(pad, 0)
    assert pad.error is None
    assert pad.view.totals == (188,)
    rows = {r.key: r for r in pad.view.rows}
    assert rows["track"].vps == (72,) and rows["track"].label == "Score track"
    assert rows["category:reptile"].vps == (28,) and rows["category:reptile"].label == "Reptiles"
    assert rows["continent:oceania"].vps == (40,)
    assert rows["seals"].vps == (24,) and rows["coins"].vps == (2,)
    assert pad.view.verdict == "Jeremie wins with 188 VP"


def test_two_players_and_the_sheet_is_the_documented_format(pad):
    pad.add_human("Ann")
    pad.add_automa("hms-resolution")
    pad.set_count(0, "vp", 50)
    pad.set_count(1, "vp", 40)
    pad.set_count(1, "animals", 3, key="europe")
    pad.add_expert(1, "Cristian Miller")
    sheet = pad.sheet()
    # the sheet re-scores through the CLI's own parser to the same totals
    breakdowns, ranking = score_sheet(parse_sheet(sheet))
    assert tuple(b.total for b in breakdowns) == pad.view.totals
    assert sheet["players"][1] == {
        "name": "Automa 2", "kind": "automa", "scoring": "hms-resolution", "vp": 40, "seals": 0,
        "coins": 0, "tokens": 0, "animals": {"europe": 3}, "experts": [{"name": "Cristian Miller"}]}
    assert pad.view.names == ("Ann", "Automa 2")


def test_tie_break_is_explained_in_the_users_language():
    fr = ScorePad(Translator("fr"))
    data = json.loads((SAMPLES / "three-seats-tie.json").read_text())
    fr.load_sheet(data)
    assert fr.view.totals == (113, 113, 88)
    assert fr.view.winners == ("Bruno",)
    assert fr.view.verdict == ("Bruno et Ana sont à égalité avec 113 PV ; Bruno a publié le plus "
                               "d'animaux (7, contre 5 pour Ana) et gagne")
    it = ScorePad(Translator("it"))
    it.load_sheet(data)
    assert it.view.verdict.endswith("(7, contro 5 di Ana) e vince")
    assert [b.winner for b in fr.view.bars] == [False, True, False]
    assert fr.view.bars[1].fraction == 1.0 and fr.view.bars[2].fraction == pytest.approx(88 / 113)


def test_shared_win(pad):
    pad.add_human("A")
    pad.add_human("B")
    pad.set_count(0, "vp", 10)
    pad.set_count(1, "vp", 10)
    assert pad.view.winners == ("A", "B")
    assert "A and B share the win" in pad.view.verdict


def test_bad_entries_are_refused_and_change_nothing(pad):
    pad.add_human("Ann")
    with pytest.raises(PadError, match="not a count"):
        pad.set_count(0, "coins", -1)
    with pytest.raises(PadError):
        pad.set_count(0, "cubes", 2, key="reptil")
    with pytest.raises(PadError):
        pad.set_count(0, "animals", 2, key="europe")  # humans publish, automas hold
    with pytest.raises(PadError, match="unknown expert"):
        pad.add_expert(0, "Rogerio Lus")
    with pytest.raises(PadError, match="scoring card"):
        pad.add_automa("la-boudeze")
    assert pad.sheet()["players"] == [pad.seats[0].to_sheet()]
    assert pad.seats[0].counts == {} and pad.seats[0].experts == []


def test_one_card_of_each_expert_across_seats(pad):
    pad.add_human("Ann")
    pad.add_human("Bob")
    pad.add_expert(0, "Safi Limbila")
    with pytest.raises(PadError, match="already with Ann"):
        pad.add_expert(1, "safi limbila")


def test_same_names_give_an_error_naming_the_seat_and_no_result(pad):
    pad.add_human("Ann")
    pad.add_human("Bob")
    pad.set_name(1, "ann")
    assert pad.view is None
    assert pad.error.startswith("Seat 2 (ann): name:")
    with pytest.raises(PadError):
        pad.export_document()
    pad.set_name(1, "Bob")
    assert pad.error is None and pad.view is not None


def test_at_most_four_seats(pad):
    for _ in range(4):
        pad.add_human()
    with pytest.raises(PadError, match="at most 4"):
        pad.add_automa()
    assert len(pad.seats) == 4


def test_default_names_are_unique(pad):
    a = pad.add_human()
    b = pad.add_automa()
    pad.remove(0)
    c = pad.add_human()
    assert len({a.name, b.name, c.name}) == 3


def test_export_is_a_sheet_with_its_result_and_loads_back(pad, _private_data_dir):
    pad.add_human()
    enter_jeremie(pad, 0)
    doc = pad.export_document()
    breakdowns, ranking = score_sheet(parse_sheet(doc))  # extra fields are allowed by the format
    assert doc["result"] == result_json(breakdowns, ranking)
    assert doc["result"]["players"][0]["total"] == 188
    path = pad.save_copy()
    assert path.parent == _private_data_dir / "score-sheets"
    again = ScorePad(Translator("it"))
    again.load_sheet(json.loads(path.read_text()))
    assert again.view.totals == (188,)
    assert again.view.verdict == "Jeremie vince con 188 PV"


def test_loading_a_bad_sheet_keeps_the_pad(pad):
    pad.add_human("Ann")
    with pytest.raises(ValueError, match="players"):
        pad.load_sheet({"players": []})
    assert [s.name for s in pad.seats] == ["Ann"]


def test_expert_suggestions_forgive_accents(pad):
    assert "Rogério Luz" in pad.expert_suggestions("rogerio")
    assert pad.expert_suggestions("") == []


def test_automa_has_no_face_up_choice_and_only_automa_cards(pad):
    pad.add_human("Ann")
    with pytest.raises(PadError, match="only an automa"):
        pad.set_scoring(0, "l-astrolabe")


def test_open_a_sheet_file(pad):
    pad.load_sheet_bytes((SAMPLES / "jeremie-188.json").read_bytes(), "jeremie-188.json")
    assert pad.view.totals == (188,)
    with pytest.raises(PadError, match=r"x.json: not valid JSON \(line 1"):
        pad.load_sheet_bytes(b"{", "x.json")
    with pytest.raises(PadError, match="y.json: players\\[0\\].cubes.reptil: unknown category"):
        pad.load_sheet_bytes(b'{"players": [{"cubes": {"reptil": 2}}]}', "y.json")
    assert pad.view.totals == (188,)  # a bad file changes nothing


def test_the_tiles_in_all_summaries_follow_every_change():
    """Issue 41, item 4: "N in all" of the cubes, published cards, automa animals and experts,
    from the pad itself after each change (the screen redraws them from here)."""
    pad = ScorePad(Translator("en"))
    pad.add_human()
    pad.add_automa()
    assert pad.summary(0, "cubes") == "0 in all"
    pad.set_count(0, "cubes", 2, key="mammal")
    pad.set_count(0, "cubes", 3, key="bird")
    assert pad.summary(0, "cubes") == "5 in all"
    pad.set_count(0, "cubes", 1, key="bird")
    assert pad.summary(0, "cubes") == "3 in all"
    pad.set_count(1, "animals", 4, key="asia")
    assert pad.summary(1, "animals") == "4 in all"
    pad.add_expert(0, pad.expert_suggestions("a")[0])
    assert pad.summary(0, "experts") == "1 in all"
    assert ScorePad(Translator("fr")).tr("pad.count_sum", n=2) == "2 au total"
    with pytest.raises(PadError):
        pad.summary(0, "vp")
    with pytest.raises(PadError):
        pad.summary(5, "cubes")
