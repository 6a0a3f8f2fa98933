"""End-to-end: the web app in headless Chromium, driven through Flutter's semantics tree.

Skipped (with the reason) when /usr/bin/chromium or playwright is missing. Screenshots of each
screen go to ``test-artifacts/app/`` (gitignored).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import webapp  # tests/app/webapp.py (pytest puts this folder on sys.path: rootdir-relative import)

pytestmark = webapp.e2e_marks()

ARTIFACTS = webapp.REPO / "test-artifacts" / "app"


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    webapp.settle(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture(autouse=True)
def failure_shots(request, ctx):
    """When a browser test fails, keep a picture of every open tab in test-artifacts/app/."""
    yield
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        for i, page in enumerate(ctx.pages):
            try:
                shot(page, f"FAILED-{request.node.name}-{i}")
            except Exception:
                pass


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
    # import a shared animal catalogue through the file picker
    shared = data.parent / "friend-catalogue.json"
    shared.write_text(json.dumps({"format": "encyclopedia-catalogue", "version": 1, "animals": [
        {"kind": "animal", "name": "Aix galericulata", "continent": "europe",
         "categories": ["bird", "omnivore", "aquatic", "temperate"]}], "sepultus": []}))
    with page.expect_file_chooser() as chooser:
        B("Import a file").click()
    chooser.value.set_files(str(shared))
    webapp.shown(page, "In your catalogue: 1 animals").wait_for()
    assert "Aix galericulata" in (data / "catalogue.json").read_text()
    B("Français").click()
    B("Retour").wait_for()  # the whole app now speaks French
    assert (data / "app-settings.json").read_text().count('"fr"') == 1
    B("Retour").click()
    B("Reprendre une partie").wait_for()
    B("Réglages").click()
    B("English").click()
    B("Back").click()
    B("Resume a game").click()
    webapp.shown(page, "No saved game yet").wait_for()
    # bring a game from another device: import an exported game, then export it again
    with page.expect_file_chooser() as chooser:
        B("Import a game file").click()
    chooser.value.set_files(str(webapp.REPO / "samples" / "saves" / "finished-4-seats-automa.json"))
    webapp.shown(page, "finished · 452 steps").wait_for()
    shot(page, "04-saved-games")
    export = page.get_by_role("button", name=re.compile("^Export "))
    with page.expect_download() as download:
        export.first.click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["format"] == "encyclopedia-companion-game" and len(exported["actions"]) == 452
    page.close()


def test_score_pad_two_players(app, ctx):
    url, data = app
    page = webapp.open_app(ctx, url, width=1280, height=900)
    B = lambda name: webapp.button(page, name)
    B("Score pad").click()
    # wait for each step's effect before the next tap (a tap during a redraw can be lost,
    # as for a person tapping twice very fast)
    B("Add a player").click()
    webapp.textbox(page, "Seat 1 name").wait_for()
    B("Add a player").click()
    webapp.textbox(page, "Seat 2 name").wait_for()
    webapp.type_into(page, webapp.textbox(page, "Seat 1 name"), "Ann")
    webapp.type_into(page, webapp.textbox(page, "Seat 2 name"), "Bob")
    vp = page.get_by_role("textbox", name="Score track VP", exact=True)
    webapp.type_into(page, vp.nth(0), "72")
    webapp.type_into(page, vp.nth(1), "40")
    webapp.shown(page, "Ann wins with 72 VP").wait_for()  # true from Ann's 72 on, whatever Bob has
    webapp.shown(page, "40 VP").wait_for()  # Bob's live total: his last keystroke has landed
    B("Royal Seals +1").nth(1).click()   # Bob: 1 seal = 4 VP
    webapp.shown(page, "44 VP").wait_for()
    B("Royal Seals +1").nth(1).click()   # 2 seals = 8 VP
    webapp.shown(page, "48 VP").wait_for()  # Bob's live total: 40 + 2 seals x 4
    shot(page, "03-score-pad")
    with page.expect_download() as download:  # offered to the browser as well as saved
        B("Export as JSON").click()
    webapp.shown(page, "Saved:").wait_for()
    downloaded = json.loads(Path(download.value.path()).read_text())
    assert [p["total"] for p in downloaded["result"]["players"]] == [72, 48]
    exported = list((data / "score-sheets").glob("score-*.json"))
    assert len(exported) == 1
    doc = json.loads(exported[0].read_text())
    assert [p["total"] for p in doc["result"]["players"]] == [72, 48]
    assert doc["players"][1]["seals"] == 2
    page.close()
