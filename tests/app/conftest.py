import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Every app test writes its settings, overrides and saves into its own folder."""
    d = tmp_path / "data"
    d.mkdir()
    monkeypatch.setenv("ENCYCLOPEDIA_DATA_DIR", str(d))
    from companion.content import board

    board.default_board.cache_clear()
    yield d
    board.default_board.cache_clear()
