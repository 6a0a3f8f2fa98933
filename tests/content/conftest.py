import pytest


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path, monkeypatch):
    """Every content test gets an empty user data dir (never the real one)."""
    d = tmp_path / "userdata"
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(d))
    from companion.content.board import default_board

    default_board.cache_clear()
    yield d
    default_board.cache_clear()
