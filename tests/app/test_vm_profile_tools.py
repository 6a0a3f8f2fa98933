"""Settings' table profile section as a view-model (issue 38): how many dice, export to the data
directory, import, clear asked first; a phone's page (``table=False``) is refused."""

import cv2
import numpy as np
import pytest

from companion.app.game.learning import TableLearning
from companion.app.settings.tools_vm import ProfileBusyError, ProfileStatus, ProfileTools, ToolError
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


def _adapted_model(profile, trained_on: int):
    """What the learner does at its end: a complete model folder switched in."""
    folder = profile.new_model_folder()
    (folder / "dice_classifier.onnx").write_bytes(b"weights")
    return profile.switch_model(folder, {"unsure_below": 0.9, "trained_on": {"dice": trained_on}})


def test_import_and_clear_wait_for_a_learner_of_another_process(tmp_path):
    """A learner (``python -m visionlearn``, another process) holds the profile's lock for its
    whole run: import and clear refuse and change nothing, so its model lands in the profile it
    learned; once it has finished both work, and the cleared model does not come back."""
    import subprocess
    import sys

    learning = _with_dice(tmp_path)
    tools = ProfileTools(learning)
    zipped = tools.export()
    lock = learning.profile.path / ".learn.lock"
    learner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{learner.pid}\n")  # what visionlearn writes (its pid first)
        assert learning.busy
        tools.ask_clear()
        with pytest.raises(ProfileBusyError, match="learn"):
            tools.clear()
        assert tools.clear_asked  # the question stays open
        with pytest.raises(ProfileBusyError, match="learn"):
            tools.import_bytes(zipped.read_bytes(), "table-profile.zip")
        assert learning.profile.dice() and lock.exists()
        # the learner ends: its model is switched in, then it lets go of the lock
        _adapted_model(learning.profile, 2)
        lock.unlink()
    finally:
        learner.kill()
        learner.wait()
    assert not learning.busy and tools.status() == ProfileStatus(2, 1, 2, None)
    assert tools.clear() is True
    assert tools.status() == ProfileStatus(0, 0, 0, None) and not learning.profile.path.exists()
    assert tools.import_bytes(zipped.read_bytes(), "table-profile.zip") == ProfileStatus(2, 1, 0, None)


def test_a_stale_learn_lock_does_not_block(tmp_path):
    learning = _with_dice(tmp_path)
    (learning.profile.path / ".learn.lock").write_text("999999999\n")  # no such process
    tools = ProfileTools(learning)
    assert not learning.busy
    tools.ask_clear()
    assert tools.clear() is True and not learning.profile.path.exists()


def test_import_and_clear_wait_for_this_process_learning(tmp_path):
    """A confirmed photo being added and learned from in this process (the worker is busy, the
    learner not started yet) also refuses import and clear: the player is told to wait."""
    jobs = []
    learning = TableLearning(tmp_path / "data" / "profile", starter=jobs.append, learner=lambda f: 0)
    img = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    p = tmp_path / "photo.png"
    cv2.imwrite(str(p), img)
    learning.add_photo(p, [((20, 100, 40, 40), "red", 2)])
    learning.add_photo(p, [((20, 100, 40, 40), "red", 2)])
    tools = ProfileTools(learning)
    assert learning.busy and len(jobs) == 1
    tools.ask_clear()
    with pytest.raises(ProfileBusyError, match="learning"):
        tools.clear()
    with pytest.raises(ProfileBusyError, match="learning"):
        tools.import_bytes(b"PK", "x.zip")
    jobs[0]()
    assert not learning.busy and learning.profile.dice()
    assert tools.clear() is True


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_settings_says_to_wait_for_the_learner(tmp_path, lang):
    """Settings' clear while the table's learner runs: the player is told, in the page's language,
    to try again when it has finished; the question stays; nothing is forgotten."""
    import flet as ft
    from test_screens import FakeShell, _find

    from companion.app.common.i18n import Translator
    from companion.app.shell.view import build_screen

    jobs = []
    learning = TableLearning(tmp_path / "data" / "profile", starter=jobs.append, learner=lambda f: 0)
    img = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "photo.png"), img)
    learning.add_photo(tmp_path / "photo.png", [((20, 100, 40, 40), "red", 2)])
    jobs.pop()()  # the dice are kept; a second photo keeps the worker busy
    learning.add_photo(tmp_path / "photo.png", [((60, 100, 40, 40), "blue", 3)])
    assert learning.busy
    tr = Translator(lang)
    shell = FakeShell(lang, 1280)
    tools = shell.ctl.screen_state("settings.profile", lambda: ProfileTools(learning))

    def tap(text):
        body = build_screen("/settings", shell).view()
        button = next(b for b in _find(body, (ft.OutlinedButton, ft.FilledButton)) if b.content == text)
        button.on_click(None)

    tap(tr("settings.profile_clear"))
    tap(tr("settings.profile_clear_yes"))
    assert shell.toasts[-1] == (tr("settings.profile_busy"), True)
    assert tools.clear_asked and learning.profile.dice()
    jobs.pop()()  # the learn ends: yes again forgets them
    tap(tr("settings.profile_clear_yes"))
    assert shell.toasts[-1] == (tr("settings.profile_cleared"), False) and not learning.profile.exists()
