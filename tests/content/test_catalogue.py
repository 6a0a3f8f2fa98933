import json

import pytest

from companion.content.catalogue import (
    AnimalCard,
    Catalogue,
    CatalogueError,
    SepultusCard,
    card_from_json,
    import_into_local,
)

AIX = AnimalCard("europe", ("bird", "omnivore", "aquatic", "temperate"), "Aix galericulata")
LEMUR = AnimalCard("africa", ("mammal", "herbivore", "arboreal", "hot"), "Lemur catta")
BONES = SepultusCard(3, 9, ("carnivore", "cold"), "Gigantus")


def test_animal_card_normalises_and_roundtrips():
    a = AnimalCard(" Europe ", ["temperate", "aquatic", "omnivore", "bird"], "  Aix   galericulata ")
    assert a == AIX
    assert a.category(1) == "bird" and a.category(4) == "temperate"
    assert card_from_json(json.loads(json.dumps(a.to_json()))) == a
    assert a.kind == "animal" and a.complete


def test_partial_and_unnamed_animal():
    a = AnimalCard("asia")
    assert a.categories is None and a.name is None and not a.complete
    assert a.category(2) is None and not a.has_category("bird")
    assert card_from_json({"continent": "asia"}) == a
    assert a.label() == "unnamed asia animal"


def test_sepultus_roundtrip():
    assert card_from_json(BONES.to_json()) == BONES
    assert BONES.continent is None and BONES.has_category("cold")
    assert hash(BONES) == hash(SepultusCard(3, 9, ["carnivore", "cold"], "Gigantus"))


@pytest.mark.parametrize("d,needle", [
    ({"continent": "antarctica"}, "card.continent: unknown continent 'antarctica'"),
    ({"continent": "asia", "categories": ["bird", "omnivore", "aquatic"]}, "expected 4 categories"),
    ({"continent": "asia", "categories": ["bird", "mammal", "aquatic", "hot"]}, "two Type I categories 'bird' and 'mammal'"),
    ({"continent": "asia", "categories": ["bird", "omnivore", "aquatik", "hot"]}, "card.categories[2]: unknown category 'aquatik' (did you mean 'aquatic'?)"),
    ({"continent": "asia", "colour": "red"}, "unexpected key(s) colour"),
    ({"kind": "dragon", "continent": "asia"}, "expected 'animal' or 'sepultus'"),
    ({"kind": "sepultus", "die_value": 7, "expedition_value": 5, "categories": ["hot"]}, "card.die_value: expected an integer 1..6"),
    ({"kind": "sepultus", "die_value": 2, "expedition_value": 0, "categories": ["hot"]}, "card.expedition_value"),
    ({"kind": "sepultus", "die_value": 2, "expedition_value": 5, "categories": []}, "non-empty list"),
    ({"kind": "sepultus", "die_value": 2, "expedition_value": 5, "categories": ["hot", "hot"]}, "listed twice"),
    ({"kind": "sepultus", "die_value": True, "expedition_value": 5, "categories": ["hot"]}, "die_value"),
    ([1], "expected an object"),
])
def test_bad_cards(d, needle):
    with pytest.raises(CatalogueError) as ei:
        card_from_json(d)
    assert needle in str(ei.value)


def test_constructor_validates_too():
    with pytest.raises(CatalogueError):
        AnimalCard("mars")
    with pytest.raises(CatalogueError):
        SepultusCard(0, 5, ("hot",))


def test_lookup_forgives_and_suggests():
    c = Catalogue([AIX, LEMUR, BONES])
    assert c.lookup("aix galericulata") is AIX
    assert c.lookup("LÉMUR-CATTA") is LEMUR
    assert c.lookup("gigantus") is BONES
    assert "Lemur catta" in c and "Panda" not in c
    with pytest.raises(KeyError) as ei:
        c.lookup("Lemur cata")
    assert "Lemur catta" in ei.value.args[0]
    assert c.search("le") == (LEMUR,)
    assert c.animals == (AIX, LEMUR) and c.sepultus == (BONES,)


def test_unnamed_card_cannot_go_in_catalogue():
    with pytest.raises(CatalogueError, match="named"):
        Catalogue().add(AnimalCard("asia"))


def test_save_load_roundtrip_in_user_dir(isolated_data_dir):
    c = Catalogue([AIX, LEMUR, BONES])
    p = c.save()
    assert p == isolated_data_dir / "catalogue.json"
    assert Catalogue.load() == c
    assert json.loads(p.read_text())["format"] == "encyclopedia-catalogue"


def test_load_missing_is_empty_and_corrupt_is_reported_not_overwritten(isolated_data_dir):
    assert len(Catalogue.load()) == 0
    isolated_data_dir.mkdir()
    p = isolated_data_dir / "catalogue.json"
    p.write_text("{not json")
    with pytest.raises(CatalogueError, match="not valid JSON"):
        Catalogue.load()
    with pytest.raises(CatalogueError):
        import_into_local(Catalogue([AIX]).export(isolated_data_dir / "x.json"))
    assert p.read_text() == "{not json"


def test_foreign_or_future_file(tmp_path):
    p = tmp_path / "f.json"
    p.write_text(json.dumps({"players": []}))
    with pytest.raises(CatalogueError, match="not an Encyclopedia catalogue"):
        Catalogue.read(p)
    p.write_text(json.dumps({"format": "encyclopedia-catalogue", "version": 99}))
    with pytest.raises(CatalogueError, match="newer"):
        Catalogue.read(p)


def test_bad_entry_in_file_names_file_and_entry(tmp_path):
    p = tmp_path / "f.json"
    d = Catalogue([AIX]).to_json()
    d["animals"].append({"name": "X", "continent": "asia", "categories": ["bird"]})
    p.write_text(json.dumps(d))
    with pytest.raises(CatalogueError) as ei:
        Catalogue.read(p)
    assert str(p) in str(ei.value) and "animals[1].categories" in str(ei.value)
    d["animals"][1] = dict(d["animals"][0])
    p.write_text(json.dumps(d))
    with pytest.raises(CatalogueError, match="appears twice"):
        Catalogue.read(p)


def test_merge_by_name(tmp_path):
    local = Catalogue([AnimalCard("europe", None, "Aix galericulata"), LEMUR])
    shared = Catalogue([AIX, LEMUR, BONES, AnimalCard("asia", None, "Panda")])
    report = local.import_file(shared.export(tmp_path / "share.json"))
    assert report.added == ("Gigantus", "Panda")
    assert report.completed == ("Aix galericulata",)
    assert report.unchanged == ("Lemur catta",)
    assert local.lookup("Aix galericulata") == AIX
    # a partial incoming card does not erase known categories
    assert local.merge([AnimalCard("europe", None, "Aix galericulata")]).unchanged == ("Aix galericulata",)


def test_merge_conflict_changes_nothing_unless_told(tmp_path):
    local = Catalogue([LEMUR])
    other = AnimalCard("asia", ("mammal", "herbivore", "arboreal", "hot"), "Lemur catta")
    with pytest.raises(CatalogueError, match="Lemur catta.*already in the catalogue"):
        local.merge([AIX, other])
    assert local == Catalogue([LEMUR])  # AIX not added either: all or nothing
    assert local.merge([AIX, other], on_conflict="keep").kept == ("Lemur catta",)
    assert local.lookup("lemur catta") == LEMUR
    assert local.merge([other], on_conflict="replace").replaced == ("Lemur catta",)
    assert local.lookup("lemur catta") == other


def test_import_into_local_saves(isolated_data_dir, tmp_path):
    f = Catalogue([AIX, BONES]).export(tmp_path / "share.json")
    assert import_into_local(f).added == ("Aix galericulata", "Gigantus")
    assert Catalogue.load() == Catalogue([AIX, BONES])
    assert not import_into_local(f).changed
