"""End-to-end: the web app in headless Chromium, driven through Flutter's semantics tree.

Skipped (with the reason) when /usr/bin/chromium or playwright is missing. Screenshots of each
screen go to ``test-artifacts/app/`` (gitignored).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import webapp  # tests/app/webapp.py (pytest puts this folder on sys.path: rootdir-relative import)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(webapp.missing_requirements() is not None,
                       reason=str(webapp.missing_requirements())),
]

ARTIFACTS = webapp.REPO / "test-artifacts" / "app"


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    webapp.settle(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e-data")
    with webapp.running_app(data_dir=data) as (url, proc):
        yield url, data


@pytest.fixture(scope="module")
def ctx():
    with webapp.browser() as c:
        yield c


def test_start_screen_and_settings(app, ctx):
    url, data = app
    page = webapp.open_app(ctx, url)
    B = lambda name: webapp.button(page, name)
    B("Resume a game").wait_for()
    B("Settings").wait_for()
    shot(page, "01-start")

    B("Settings").click()
    B("Français").wait_for()
    shot(page, "02-settings")
    B("Français").click()
    B("Retour").wait_for()  # the whole app now speaks French
    assert (data / "app-settings.json").read_text().count('"fr"') == 1
    B("Retour").click()
    B("Reprendre une partie").wait_for()
    B("Réglages").click()
    B("English").click()
    B("Back").click()
    B("Resume a game").click()
    page.get_by_text("No saved game yet", exact=False).wait_for()
    page.close()
