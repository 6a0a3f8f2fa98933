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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Lets a browser test's teardown know whether the test failed (see test_e2e.failure_shots)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
