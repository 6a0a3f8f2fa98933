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
    webapp.shown(page, "Ann wins with 72 VP").wait_for()
    B("Royal Seals +1").nth(1).click()   # Bob: 1 seal = 4 VP
    webapp.shown(page, "44 VP").wait_for()
    B("Royal Seals +1").nth(1).click()   # 2 seals = 8 VP
    webapp.shown(page, "48 VP").wait_for()  # Bob's live total: 40 + 2 seals x 4
    shot(page, "03-score-pad")
    B("Export as JSON").click()
    webapp.shown(page, "Saved:").wait_for()
    exported = list((data / "score-sheets").glob("score-*.json"))
    assert len(exported) == 1
    doc = json.loads(exported[0].read_text())
    assert [p["total"] for p in doc["result"]["players"]] == [72, 48]
    assert doc["players"][1]["seals"] == 2
    page.close()


#: six experts for the University display, typed in by their first name
EXPERTS = ("Alonso Rossette", "Audrey Morton", "Cristian Miller", "Elena Lewis", "Etienne Lebeau",
           "Adamu Ashenafi")
#: the dice in the synthetic photo of the human seat (vision.synth, seed [7, 1]; see dice_photo)
PHOTO_DICE = ("red 5", "blue 2", "blue 2", "green 3")
#: what the app may answer to a photo: dice read, or a refusal with its reason
PHOTO_ANSWER = re.compile(r"dice read|refused|could not be read|not available|no die was found")


def read_as_rolled(page) -> bool:
    """Whether the chips on screen are exactly PHOTO_DICE (in any order)."""
    if not webapp.shown(page, f"{len(PHOTO_DICE)} dice read").is_visible():
        return False
    for d in set(PHOTO_DICE):
        if page.get_by_role("button", name=f"die {d}").count() != PHOTO_DICE.count(d):
            return False
    return True


def dice_photo(folder: Path) -> Path:
    """A photo of four dice rendered by the vision team's scene renderer (no sample photo of
    real dice is in samples/ yet). Its dice are PHOTO_DICE."""
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    from vision.synth import SceneOptions, render_scene

    img, truth = render_scene(np.random.default_rng([7, 1]), SceneOptions(
        width=960, height=720, min_dice=4, max_dice=4, other_share=0.0, die_px=(0.09, 0.13)))
    assert tuple(f"{d.colour} {d.value}" for d in truth) == PHOTO_DICE
    path = folder / "four-dice.jpg"
    cv2.imwrite(str(path), img)
    return path


def test_solo_game_round_one(app, ctx):
    """A solo game against Carl von Linné: set-up, round 1 dice (a photo for the human seat,
    then by hand), one human turn, one automa turn, one undo; the numbers on screen checked."""
    url, data = app
    page = webapp.open_app(ctx, url, width=1280, height=1000)
    solo_game_flow(page, data.parent, lambda name: shot(page, name))
    page.close()


def solo_game_flow(page, folder: Path, snap) -> None:
    """The solo game of test_solo_game_round_one from the start screen (English); ``snap(name)``
    is called at each screen worth a picture (make_screenshots.py reuses this flow)."""
    B = lambda name: webapp.button(page, name)
    see = lambda text: webapp.shown(page, text).wait_for()

    B("New game").click()
    B("Start the game").wait_for()
    snap("10-new-game")
    B("Start the game").click()

    # set-up: the six experts of the University display, in slot order
    for i, name in enumerate(EXPERTS):
        see(f"Slot {i + 1} of 6: tap the expert")
        webapp.type_into(page, webapp.textbox(page, "Search by name"), name.split()[0])
        page.wait_for_timeout(600)  # each key press redraws the list: let it settle
        if i == 0:
            snap("11-expert-display")
        webapp.shown(page, name).click()
    # the six animals of the Academy display, by continent
    for i, cont in enumerate(("Africa", "Europe", "Asia", "America", "Oceania", "Africa")):
        see(f"Slot {i + 1} of 6: tap the continent")
        if i == 0:
            snap("12-animal-display")
        webapp.tap(page, f"{cont} (")
    # the automa takes its two starting animals (by its priorities), then the human two
    see("Move the automa's pieces as written")
    B("Done").click()
    for k in range(2):
        see("Player 1: take an animal")
        page.wait_for_timeout(300)
        page.get_by_text(re.compile(r"animal #\d")).first.click()
        page.get_by_role("checkbox", name="mammal").wait_for()
        if k == 0:
            snap("13-categories")
        for cat in ("mammal", "herbivore", "terrestrial", "hot"):
            page.get_by_role("checkbox", name=cat).click()
            page.wait_for_timeout(150)
        B("Save the categories").click()
    for cont in ("Europe", "Asia", "Oceania", "America"):  # refill the display
        see("tap the continent")
        page.wait_for_timeout(300)
        webapp.tap(page, f"{cont} (")

    # round 1: the round token, then the dice
    see("turn over the round token")
    page.wait_for_timeout(300)
    webapp.tap(page, "nothing (")
    see("Player 1 draws 4 dice")
    page.wait_for_timeout(300)
    with page.expect_file_chooser() as chooser:  # the human seat's dice by photo
        B("Photo of the dice").click()
    chooser.value.set_files(str(dice_photo(folder)))
    # the app answers with the dice it read (chips to confirm, unsure ones highlighted) or a
    # refusal saying why (more dice than the seat draws, too many of a colour, no reader)
    webapp.shown(page, PHOTO_ANSWER).wait_for()
    snap("14-dice-photo")
    if read_as_rolled(page):
        # the read is right: confirm the unsure chips one by one ("It is right")
        for _ in range(len(PHOTO_DICE)):
            if B("Confirm the dice").is_enabled():
                break
            B("It is right").click()
            page.wait_for_timeout(300)
    else:
        # a wrong read or a refusal: the dice reader's accuracy is tested in tests/vision; the
        # table corrects by hand, which is what this test then checks
        clear = B("Clear")
        if clear.is_enabled():
            clear.click()
            see("No dice entered yet")
        for d in PHOTO_DICE:
            webapp.tap(page, f"add {d}")
    B("Confirm the dice").click()
    see("Player 1: place your dice")
    for n, d in enumerate(PHOTO_DICE):
        webapp.tap(page, f"die {d}")
        webapp.tap(page, f"Slot {n + 1}")
    snap("15-place-dice")
    B("Confirm the board").click()
    see("Automa draws 4 dice")
    page.wait_for_timeout(300)
    for d in ("purple 4", "red 1", "yellow 6", "blue 4"):
        webapp.tap(page, f"add {d}")
    B("Confirm the dice").click()

    # the app places the automa's dice: lowest left, highest right
    see("Player 1's turn")
    see("slot 1: red 1")
    see("slot 4: yellow 6")
    page.wait_for_timeout(300)
    webapp.tap(page, "red 5 on Player 1's slot 1")
    see("+3 expedition tokens")  # Embassy with a 5: computed before choosing
    see("+5 coins")              # Bank
    snap("16-turn-options")
    webapp.shown(page, "Embassy").click()
    B("Confirm").click()
    see("1 coins · 4 tokens · 0 seals · 0 VP · reputation 0")  # 1 token + 3

    # the automa's turn: its highest die is its own yellow 6 -> row 6 of Carl von Linné:
    # Academy, one animal, +3 reputation (passing space 2: +1 expedition token)
    see("Take the yellow 6")
    see("Place it on the Academy")
    snap("17-automa-turn")
    B("Done").click()
    see("2 coins · 2 tokens · 0 seals · 0 VP · reputation 3")
    see("Player 1's turn")
    snap("18-after-automa")

    # undo one step: the automa's move is taken back, its card shows again
    B("Undo").click()
    see("Take the yellow 6")
    see("2 coins · 1 tokens · 0 seals · 0 VP · reputation 0")
    see("1 coins · 4 tokens")  # the human turn stays done
    snap("19-undone")
