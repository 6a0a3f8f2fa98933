import pytest

from companion.content.board import default_board


@pytest.fixture(autouse=True)
def _shipped_board(tmp_path, monkeypatch):
    """Engine tests see the shipped board constants, never a developer's own override."""
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(tmp_path))
    default_board.cache_clear()
    yield
    default_board.cache_clear()
