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


@pytest.fixture(scope="module")
def app(request, tmp_path_factory):
    """A browser test module's web app, served from a data folder of its own: (url, folder)."""
    import webapp

    name = request.module.__name__.rpartition(".")[2].removeprefix("test_").replace("_", "-")
    data = tmp_path_factory.mktemp(f"{name}-data")  # test_e2e_game: e2e-game-data
    with webapp.running_app(data_dir=data) as (url, _proc):
        yield url, data


@pytest.fixture(scope="module")
def ctx():
    """A browser test module's headless Chromium (a playwright browser context)."""
    import webapp

    with webapp.browser() as c:
        yield c


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Lets a browser test's teardown know whether the test failed (see test_e2e.failure_shots)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
