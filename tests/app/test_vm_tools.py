import json

import pytest

from companion.app.settings.tools_vm import (CALIBRATION_ORDER, CalibrationStatus, CalibrationTools, CatalogueSummary,
                                    CatalogueTools, ToolError)
from companion.content.catalogue import AnimalCard, Catalogue
from vision.reader import Die, ReadResult

DUCK = AnimalCard("europe", ("bird", "omnivore", "aquatic", "temperate"), name="Aix galericulata")
LEMUR = AnimalCard("africa", ("mammal", "herbivore", "arboreal", "hot"), name="Lemur catta")


def shared_file(*cards) -> bytes:
    return json.dumps(Catalogue(cards).to_json()).encode()


# -- catalogue -------------------------------------------------------------------------------
def test_import_then_export_round_trip(_private_data_dir):
    tools = CatalogueTools()
    assert tools.summary() == CatalogueSummary(0, 0, None)
    report = tools.import_bytes(shared_file(DUCK, LEMUR), "friend.json")
    assert report.added == ("Aix galericulata", "Lemur catta")
    assert tools.summary().animals == 2
    again = Catalogue.from_json(json.loads(tools.export_bytes()))
    assert set(c.name for c in again) == {"Aix galericulata", "Lemur catta"}
    assert tools.export_name().startswith("animal-catalogue-")


def test_conflicting_card_stops_the_import_unless_the_user_chooses(_private_data_dir):
    tools = CatalogueTools()
    tools.import_bytes(shared_file(DUCK), "a.json")
    other_duck = AnimalCard("europe", ("bird", "herbivore", "aquatic", "temperate"), name="Aix galericulata")
    with pytest.raises(ToolError, match="keep or replace"):
        tools.import_bytes(shared_file(other_duck, LEMUR), "b.json")
    assert tools.summary().animals == 1  # all or nothing: Lemur not added either
    report = tools.import_bytes(shared_file(other_duck, LEMUR), "b.json", on_conflict="keep")
    assert report.kept == ("Aix galericulata",) and report.added == ("Lemur catta",)
    report = tools.import_bytes(shared_file(other_duck), "b.json", on_conflict="replace")
    assert report.replaced == ("Aix galericulata",)
    assert Catalogue.load().lookup("aix galericulata").categories[1] == "herbivore"


@pytest.mark.parametrize("data,words", [
    (b"\xff\xfe\x00", "not a UTF-8"),
    (b"{oops", "not valid JSON"),
    (b'{"format": "something-else", "version": 1}', "not an Encyclopedia catalogue"),
])
def test_bad_files_are_refused_with_the_reason(_private_data_dir, data, words):
    with pytest.raises(ToolError, match=words):
        CatalogueTools().import_bytes(data, "x.json")
    assert not Catalogue.local_path().exists()


def test_a_corrupt_local_catalogue_is_reported_not_overwritten(_private_data_dir):
    Catalogue.local_path().write_text("{broken")
    tools = CatalogueTools()
    assert "not valid JSON" in tools.summary().problem
    with pytest.raises(ToolError):
        tools.import_bytes(shared_file(DUCK), "a.json")
    assert Catalogue.local_path().read_text() == "{broken"


# -- calibration -----------------------------------------------------------------------------
LAB = {"red": (45.0, 60.0, 40.0), "yellow": (85.0, 0.0, 80.0), "purple": (35.0, 40.0, -40.0),
       "blue": (40.0, 10.0, -50.0), "green": (55.0, -50.0, 30.0)}


class FakeReader:
    def __init__(self, dice=(), error=None):
        self.result = ReadResult(dice=tuple(dice), error=error)
        self.calls = 0

    def read(self, image):
        self.calls += 1
        return self.result


def row(colours=CALIBRATION_ORDER, lab=LAB):
    # left to right in the photo; the reader's colour guess is deliberately wrong: the user's
    # stated order is what calibrates
    return [Die("red", 3, (100 * i, 10, 50, 50), 0.9, False, body_colour_lab=lab[c])
            for i, c in enumerate(colours)]


def test_calibrate_from_one_photo_of_five_dice(tmp_path):
    tools = CalibrationTools(lambda: FakeReader(row()), path=tmp_path / "cal.json")
    assert tools.status() == CalibrationStatus((), "", None)
    st = tools.calibrate(b"jpeg bytes")
    assert st.colours == CALIBRATION_ORDER and st.problem is None
    from vision.calibration import Calibration

    assert Calibration.load(tmp_path / "cal.json").centroids["blue"] == LAB["blue"]
    assert tools.clear() is True and tools.status().colours == ()
    assert tools.clear() is False


def test_wrong_number_of_dice_is_refused_and_nothing_saved(tmp_path):
    tools = CalibrationTools(lambda: FakeReader(row()[:4]), path=tmp_path / "cal.json")
    with pytest.raises(ToolError, match="found 4 dice but 5 colours"):
        tools.calibrate(b"x")
    assert not (tmp_path / "cal.json").exists()


def test_unreadable_photo_gives_the_readers_reason(tmp_path):
    tools = CalibrationTools(lambda: FakeReader(error="not an image (unknown format)"), path=tmp_path / "c.json")
    with pytest.raises(ToolError, match="not an image"):
        tools.calibrate(b"x")


def test_reader_that_cannot_start_is_reported(tmp_path):
    def broken():
        raise FileNotFoundError("models/dice.onnx not found")

    with pytest.raises(ToolError, match="cannot start: models/dice.onnx not found"):
        CalibrationTools(broken, path=tmp_path / "c.json").calibrate(b"x")


def test_recalibrating_some_colours_keeps_the_others(tmp_path):
    p = tmp_path / "cal.json"
    CalibrationTools(lambda: FakeReader(row()), path=p).calibrate(b"x")
    newer = dict(LAB, blue=(42.0, 12.0, -48.0))
    tools = CalibrationTools(lambda: FakeReader(row(("blue", "green"), newer)), path=p)
    st = tools.calibrate(b"y", colours=("blue", "green"))
    assert st.colours == CALIBRATION_ORDER
    from vision.calibration import Calibration

    cal = Calibration.load(p)
    assert cal.centroids["blue"] == (42.0, 12.0, -48.0) and cal.centroids["red"] == LAB["red"]


def test_corrupt_calibration_file_is_reported(tmp_path):
    p = tmp_path / "cal.json"
    p.write_text("{nope")
    assert "not valid JSON" in CalibrationTools(lambda: FakeReader(), path=p).status().problem
