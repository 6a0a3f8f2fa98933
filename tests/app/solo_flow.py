"""A solo game against Carl von Linné driven through the browser, for make_screenshots.py.

The issue's solo-game browser test is ``tests/app/test_e2e_game.py`` (the app-game e2e
engineer's). This flow, run by ``tests/app/make_screenshots.py``, plays the same kind of game
to reach the game screens in every language and theme: set-up (six experts typed and tapped,
six animals by continent, starting animals with their categories, refill, round token), round
1 dice (the human seat by a photo through the file picker, confirmed when read right, else
corrected by hand), placing, the automa's dice, an Embassy turn, the automa's turn, one undo.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import webapp

#: the human seat's name, typed in the wizard: a name reads the same on the French and Italian
#: screens (the wizard's default, "Player 1", is English: the game is set up in an English tab)
PLAYER = "Ana"
#: the game's name in the saved-games list (the seats' names)
TITLE = f"{PLAYER}, Automa"
#: six experts for the University display, typed in by their first name
EXPERTS = ("Alonso Rossette", "Audrey Morton", "Cristian Miller", "Elena Lewis", "Etienne Lebeau",
           "Adamu Ashenafi")
#: the stored render of the human seat's dice (see dice_photo)
SAMPLE_PHOTO = Path(__file__).resolve().parents[2] / "samples" / "app" / "four-dice.jpg"
#: the dice in it
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
    """A photo of four dice rendered by our scene renderer (``samples/app/four-dice.jpg``:
    ``visionlab.render.synth``, seed [7, 1], 960x720, stored so the app's tests never import the
    lab). Its dice are PHOTO_DICE."""
    path = folder / "four-dice.jpg"
    shutil.copyfile(SAMPLE_PHOTO, path)
    return path


def solo_game_flow(page, folder: Path, snap) -> None:
    """A solo game from the start screen (English) to one undo; ``snap(name)`` is called at
    each screen worth a picture. Checks the numbers on the way (it raises if a screen differs)."""
    B = lambda name: webapp.button(page, name)
    see = lambda text: webapp.shown(page, text).wait_for()

    B("New game").click()
    B("Start the game").wait_for()
    webapp.type_into(page, page.get_by_role("textbox", name="Name", exact=True).first, PLAYER)
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
        see(f"{PLAYER}: take an animal")
        page.wait_for_timeout(300)
        page.get_by_text(re.compile(r"animal #\d")).first.click()
        page.get_by_role("checkbox", name="mammal").wait_for()
        if k == 0:
            snap("13-categories")
        for _ in range(5):  # a tap lost on a loaded machine is tapped again
            for cat in ("mammal", "herbivore", "terrestrial", "hot"):
                box = page.get_by_role("checkbox", name=cat)
                if not box.is_checked():
                    box.click()
                    page.wait_for_timeout(300)
            page.wait_for_timeout(500)
            if B("Save the categories").is_enabled():
                break
        B("Save the categories").click()
    for cont in ("Europe", "Asia", "Oceania", "America"):  # refill the display
        see("tap the continent")
        page.wait_for_timeout(300)
        webapp.tap(page, f"{cont} (")

    # round 1: the round token, then the dice
    see("turn over the round token")
    page.wait_for_timeout(300)
    webapp.tap(page, "nothing (")
    see(f"{PLAYER} draws 4 dice")
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
        for _ in range(4 * len(PHOTO_DICE)):  # a tap lost on a loaded machine is tapped again
            if B("Confirm the dice").is_enabled():
                break
            right = B("It is right")
            if right.count() and right.is_enabled():
                right.click()
            page.wait_for_timeout(800)
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
    see(f"{PLAYER}: place your dice")
    page.wait_for_timeout(300)
    if not webapp.shown(page, "Placed from the photo").count():  # dice read from the photo come placed
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
    see(f"{PLAYER}'s turn")
    see("slot 1: red 1")
    see("slot 4: yellow 6")
    page.wait_for_timeout(300)
    webapp.tap(page, f"red 5 on {PLAYER}'s slot 1")
    see("+3 expedition tokens")  # Embassy with a 5: computed before choosing
    see("+5 coins")              # Bank
    snap("16-turn-options")
    webapp.shown(page, "Embassy").click()
    B("Confirm").click()
    see("1 coin · 4 tokens · 0 seals · 0 VP · reputation 0")  # 1 token + 3

    # the automa's turn: its highest die is its own yellow 6 -> row 6 of Carl von Linné:
    # Academy, one animal, +3 reputation (passing space 2: +1 expedition token)
    see("Take the yellow 6")
    see("Place it on the Academy")
    snap("17-automa-turn")
    B("Done").click()
    see("2 coins · 2 tokens · 0 seals · 0 VP · reputation 3")
    see(f"{PLAYER}'s turn")
    snap("18-after-automa")

    # undo one step: the automa's move is taken back, its card shows again
    B("Undo").click()
    see("Take the yellow 6")
    see("2 coins · 1 token · 0 seals · 0 VP · reputation 0")
    see("1 coin · 4 tokens")  # the human turn stays done
    snap("19-undone")
