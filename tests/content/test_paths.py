import sys
from pathlib import Path

from companion.content import paths


def test_env_var_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path / "x"))
    assert paths.user_data_dir() == tmp_path / "x"
    assert not (tmp_path / "x").exists()
    assert paths.user_data_dir(create=True).is_dir()
    assert paths.user_file("board.json") == tmp_path / "x" / "board.json"


def test_platform_defaults(tmp_path, monkeypatch):
    monkeypatch.delenv("ENCYCLOPEDIA_DATA_DIR", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path / "home"))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert paths.user_data_dir() == tmp_path / "xdg" / "encyclopedia-companion"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert paths.user_data_dir() == tmp_path / "home" / ".local" / "share" / "encyclopedia-companion"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert paths.user_data_dir() == tmp_path / "home" / "Library" / "Application Support" / "EncyclopediaCompanion"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "roaming"))
    assert paths.user_data_dir() == tmp_path / "roaming" / "EncyclopediaCompanion"
    monkeypatch.delenv("APPDATA")
    assert paths.user_data_dir() == tmp_path / "home" / "AppData" / "Roaming" / "EncyclopediaCompanion"
