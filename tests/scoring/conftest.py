import pytest


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path, monkeypatch):
    """Scoring must never read a real user's board override."""
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path / "userdata"))
    from companion.content.board import default_board

    default_board.cache_clear()
    yield
    default_board.cache_clear()
