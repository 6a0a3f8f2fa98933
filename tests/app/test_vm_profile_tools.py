"""Settings' table profile section as a view-model (issue 38): how many dice, export to the data
directory, import, clear asked first; a phone's page (``table=False``) is refused."""

import cv2
import numpy as np
import pytest

from companion.app.game.learning import TableLearning
from companion.app.settings.tools_vm import ProfileStatus, ProfileTools, ToolError
from companion.app.settings.vm import TABLE_ONLY


def _learning(tmp_path, name="profile"):
    return TableLearning(tmp_path / "data" / name, starter=lambda job: job(), learner=lambda f: 0)


def _with_dice(tmp_path):
    img = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    p = tmp_path / "photo.png"
    cv2.imwrite(str(p), img)
    learning = _learning(tmp_path)
    learning.add_photo(p, [((20, 100, 40, 40), "red", 2), ((120, 100, 40, 40), "blue", 6)])
    return learning


def test_count_export_import_and_clear(tmp_path):
    tools = ProfileTools(_with_dice(tmp_path))
    assert tools.status() == ProfileStatus(2, 1, 0, None)
    zipped = tools.export()
    assert zipped.parent == tmp_path / "data" and zipped.name.startswith("table-profile-") and zipped.suffix == ".zip"
    # clear: asked first
    with pytest.raises(ToolError, match="confirmed first"):
        tools.clear()
    assert tools.status().dice == 2
    tools.ask_clear()
    tools.cancel_clear()
    with pytest.raises(ToolError):
        tools.clear()
    tools.ask_clear()
    assert tools.clear() is True
    assert tools.status() == ProfileStatus(0, 0, 0, None)
    # import the export back
    assert tools.import_bytes(zipped.read_bytes(), "table-profile.zip") == ProfileStatus(2, 1, 0, None)
    with pytest.raises(ToolError, match="nothing to export"):
        ProfileTools(_learning(tmp_path, "empty")).export()


def test_a_bad_import_changes_nothing(tmp_path):
    tools = ProfileTools(_with_dice(tmp_path))
    with pytest.raises(ToolError, match="not a table profile export") as exc:
        tools.import_bytes(b"not a zip", "friend.zip")
    assert "friend.zip" in str(exc.value)
    assert tools.status().dice == 2
    assert not list((tmp_path / "data").glob(".profile-import-*"))


def test_a_broken_profile_is_reported(tmp_path):
    learning = _learning(tmp_path)
    learning.profile.path.mkdir(parents=True)
    (learning.profile.path / "profile.json").write_text("{torn")
    st = ProfileTools(learning).status()
    assert st.dice == 0 and "profile.json" in st.problem


def test_a_phone_is_refused(tmp_path):
    learning = _with_dice(tmp_path)
    phone = ProfileTools(learning, table=False)
    assert phone.status().dice == 2  # it may know; it may not change
    for act in (phone.export, phone.ask_clear, phone.clear, lambda: phone.import_bytes(b"x", "x.zip")):
        with pytest.raises(ToolError, match="only the table"):
            act()
    assert learning.profile.dice() and not list((tmp_path / "data").glob("table-profile-*.zip"))
    assert TABLE_ONLY.startswith("only the table")
