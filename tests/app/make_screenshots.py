"""Screenshots of the main screens for docs/screenshots/ (EN/FR/IT, light/dark, phone/desktop).

    python tests/app/make_screenshots.py [--out docs/screenshots]

Runs the web app with a throw-away data folder, sets the language and theme through the
preferences file before each browser tab opens, drives the screens through the semantics tree
and writes small PNGs (palette-quantised). Needs /usr/bin/chromium and playwright.

Besides the start, settings and score-pad screens: the game screens of the solo flow (the
Automa's card among them) in French and Italian, the drawn board, the table's screen with its
join panel folded once a phone has joined (``game-joined-*``), and the end-game charts
(``game-end-*``). The phone size is 390 px wide, the width the text-fit checks use
(``tests/app/text_fit.py``): an ellipsis on these pictures is a bug.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import webapp  # noqa: E402

PHONE = (390, 844)
DESKTOP = (1280, 800)
#: each screen in four variants that together cover every language, theme and size
VARIANTS = [("en", "light", "phone"), ("fr", "dark", "phone"), ("it", "light", "phone"), ("en", "dark", "desktop"),
            ("fr", "light", "desktop"), ("it", "dark", "desktop")]
NAMES = {  # the buttons' names in each language
    "en": {"settings": "Settings", "pad": "Score pad", "open": "Open a score sheet", "resume": "Resume a game"},
    "fr": {"settings": "Réglages", "pad": "Bloc de score", "open": "Ouvrir une feuille de score",
           "resume": "Reprendre une partie"},
    "it": {"settings": "Impostazioni", "pad": "Blocco punti", "open": "Apri un foglio punti",
           "resume": "Riprendi una partita"},
}
UNDO = {"en": "Undo", "fr": "Annuler", "it": "Annulla"}
#: game screens: the e2e solo flow's picture points -> file name; the flow runs in an English
#: tab, each variant opens the saved game in a new tab (language and theme set first)
GAME_SHOTS = {"14-dice-photo": "game-dice", "15-place-dice": "game-place", "16-turn-options": "game-turn",
              "17-automa-turn": "game-automa"}
GAME_VARIANTS = [("en", "dark", "phone"), ("fr", "dark", "phone"), ("it", "light", "phone"), ("fr", "light", "desktop"),
                 ("it", "dark", "desktop")]
#: the prepared games' name (a name the players give: the same in every language)
TITLE = "Ana · Automa"
SHEET = webapp.REPO / "samples" / "score-sheets" / "three-seats-tie.json"


def save_small(page, path: Path) -> None:
    from PIL import Image

    webapp.settle(page, 900)
    tmp = path.with_suffix(".raw.png")
    for _ in range(8):  # on a loaded machine Flet may still show its "Working..." page: wait
        page.screenshot(path=str(tmp))
        raw = Image.open(tmp).convert("L")
        if max(raw.histogram()) < 0.995 * raw.width * raw.height:  # not a blank page
            break
        page.wait_for_timeout(2000)
    img = Image.open(tmp).convert("RGB").quantize(colors=96, method=Image.Quantize.MEDIANCUT)
    img.save(path, optimize=True)
    tmp.unlink()


def set_prefs(data: Path, lang: str, theme: str) -> None:
    (data / "app-settings.json").write_text(json.dumps({"language": lang, "theme": theme}))


def game_screens(ctx, url: str, data: Path, out: Path) -> list[str]:
    """Play the e2e solo flow; at each picture point also open the saved game in the other
    variants (a new tab resumes it from disk, exactly where the flow is)."""
    import solo_flow

    set_prefs(data, "en", "light")
    main_page = webapp.open_app(ctx, url, *DESKTOP)
    written: list[str] = []

    def snap(point: str) -> None:
        if point not in GAME_SHOTS:
            return
        base = GAME_SHOTS[point]
        # (English light pictures of every game screen come from the app-game engineer's
        # tests/app/game/shoot_game_screens.py; these are the other languages and themes)
        for lang, theme, size in GAME_VARIANTS:
            page = open_saved(ctx, url, data, solo_flow.TITLE, lang, theme, size)
            name = f"{base}-{lang}-{theme}-{size}.png"
            save_small(page, out / name)
            written.append(name)
            page.close()
        set_prefs(data, "en", "light")

    solo_flow.solo_game_flow(main_page, data, snap)
    main_page.close()
    return written


#: the drawn board and the seats' boards (a solo game in round 3 with dice on the board):
#: (language, theme, size, what) -> file name
BOARD_SHOTS = [("en", "light", "phone", "board"), ("en", "light", "phone", "seats"), ("fr", "dark", "phone", "board"),
               ("it", "light", "phone", "board"), ("it", "light", "phone", "seats"), ("en", "dark", "desktop", "board"),
               ("fr", "light", "desktop", "board"), ("it", "dark", "desktop", "board")]
BOARD_HEADINGS = {"en": ("Central board", re.compile(r"^Ana: \d+ coins")),
                  "fr": ("Plateau central", re.compile(r"^Ana : \d+ Écus")),
                  "it": ("Tabellone", re.compile(r"^Ana: \d+ Monete"))}
#: the table's screen once a phone has joined: the join panel folded to one line
JOINED_VARIANTS = [("en", "light", "phone"), ("fr", "dark", "phone"), ("it", "light", "phone"), ("it", "dark", "desktop")]
#: the end-game charts (a finished solo game): their title in each language
END_VARIANTS = [("en", "light", "phone"), ("fr", "dark", "phone"), ("it", "light", "phone"), ("fr", "light", "desktop"),
                ("it", "dark", "desktop")]
#: the charts' title is folded into the label of the whole final-scoring card, so the screen is
#: scrolled to the score table's last row ("Total"), right above the charts
END_ANCHOR = {"en": "Total", "fr": "Total", "it": "Totale"}


def open_saved(ctx, url: str, data: Path, title: str, lang: str, theme: str, size: str):
    """A new tab in ``lang``/``theme`` on the saved game ``title`` (from the Resume list)."""
    set_prefs(data, lang, theme)
    page = webapp.open_app(ctx, url, *(PHONE if size == "phone" else DESKTOP))
    webapp.button(page, NAMES[lang]["resume"]).click()
    webapp.shown(page, title).wait_for()
    page.wait_for_timeout(400)
    webapp.shown(page, title).click()
    webapp.button(page, UNDO[lang]).wait_for()
    page.wait_for_timeout(800)
    return page


def scroll_to(page, target, top: int) -> None:
    """Scroll until ``target`` (a text or pattern on screen) is about ``top`` px from the top
    (the wheel at the screen's right edge: over a table, the table would take it)."""
    size = page.viewport_size
    page.mouse.move(size["width"] - 6, size["height"] // 2)
    for _ in range(16):
        # the text itself, not a card that folds it into its label (the card's top is not the text's)
        node = page.get_by_text(target, exact=True).first if isinstance(target, str) else webapp.shown(page, target)
        if isinstance(target, str) and not node.count():
            node = webapp.shown(page, target)
        box = node.bounding_box() if node.count() else None
        if box and top - 20 <= box["y"] < top + 130:
            return
        page.mouse.wheel(0, (box["y"] - top) if box else 500)
        page.wait_for_timeout(300)


def join_from_another_address(ctx, url: str, data: Path, title: str):
    """A phone (a connection from 127.0.0.2, through the rejoin test's loopback forwarder)
    types the join code shown on the table's screen: the table's join panel then folds."""
    from test_e2e_rejoin import OtherAddress

    table = open_saved(ctx, url, data, title, "en", "light", "desktop")
    texts = table.evaluate("() => Array.from(document.querySelectorAll('flt-semantics')).map(e =>"
                           " (e.getAttribute('aria-label') || '') + ' ' + (e.textContent || ''))")
    code = next(m.group(1) for t in texts if (m := re.search(r"enter the join code (\d{8})", t)))
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    other = OtherAddress(port)
    phone = webapp.open_app(ctx, f"http://127.0.0.1:{other.port}/", *PHONE)
    webapp.button(phone, "Resume a game").click()
    webapp.shown(phone, "Game open on the table's screen").wait_for()
    phone.wait_for_timeout(300)
    webapp.shown(phone, "Game open on the table's screen").click()
    webapp.type_into(phone, webapp.textbox(phone, "Join code"), code)
    webapp.button(phone, "Join").click()
    webapp.button(phone, "Undo").wait_for()
    table.close()  # the phone stays in the game (its page keeps the shared game open)
    return other


def board_screens(ctx, out: Path) -> list[str]:
    """The game screen with the drawn board, from a game prepared by ``board_scene``; then a
    phone joins and the table's screen shows its join panel folded."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))
    from board_scene import prepare_board_game

    data = Path(tempfile.mkdtemp(prefix="enc-shots-board-"))
    title, _ = prepare_board_game(data, dice_placed=4, title=TITLE)
    written = []
    with webapp.running_app(data_dir=data) as (url, _proc):
        for lang, theme, size, what in BOARD_SHOTS:
            page = open_saved(ctx, url, data, title, lang, theme, size)
            if size == "phone":  # the board (or the seats) at the top of the screen
                target = BOARD_HEADINGS[lang][0 if what == "board" else 1]
                scroll_to(page, target, 70 if what == "board" else 110)  # a seat's title sits above its numbers
            name = f"game-{what}-{lang}-{theme}-{size}.png"
            save_small(page, out / name)
            written.append(name)
            page.close()
        other = join_from_another_address(ctx, url, data, title)
        try:
            for lang, theme, size in JOINED_VARIANTS:
                page = open_saved(ctx, url, data, title, lang, theme, size)
                name = f"game-joined-{lang}-{theme}-{size}.png"
                save_small(page, out / name)
                written.append(name)
                page.close()
        finally:
            other.close()
    return written


def finished_game(data: Path) -> str:
    """A solo game played to its final scoring by the seeded player (as shoot_game_screens)."""
    import os
    import random

    sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))
    os.environ["ENCYCLOPEDIA_DATA_DIR"] = str(data)
    from game_play import FakeReader, play_to_end

    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM, LocalCatalogue
    from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    t = GameText()
    w = NewGameVM(t, random.Random(7))
    w.seats = [SeatDraft(HUMAN, "Ana"), SeatDraft(AUTOMA, "Automa")]
    w.shuffle_all()
    w.title = TITLE
    s = w.create(GameStore())
    vm = GameVM(s, t, LocalCatalogue(data / "catalogue-7.json"), reader_factory=FakeReader)
    names = ["Aix galericulata", "Lemur catta", "Panthera leo", "Ursus arctos", "Vombatus ursinus"]
    play_to_end(vm, random.Random(7), names=names)
    s.close()
    return w.title


def end_screens(ctx, out: Path) -> list[str]:
    """The final scoring's charts (points by source, the score track round by round)."""
    data = Path(tempfile.mkdtemp(prefix="enc-shots-end-"))
    title = finished_game(data)
    written = []
    with webapp.running_app(data_dir=data) as (url, _proc):
        for lang, theme, size in END_VARIANTS:
            page = open_saved(ctx, url, data, title, lang, theme, size)
            scroll_to(page, END_ANCHOR[lang], 30)
            name = f"game-end-{lang}-{theme}-{size}.png"
            save_small(page, out / name)
            written.append(name)
            page.close()
    return written


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(webapp.REPO / "docs" / "screenshots"))
    ap.add_argument("--only", default="", help="comma-separated parts: main,game,board,end (default all)")
    args = ap.parse_args()
    why = webapp.missing_requirements()
    if why:
        print(f"cannot take screenshots: {why}")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    data = Path(tempfile.mkdtemp(prefix="enc-shots-"))
    written = []
    with webapp.running_app(data_dir=data) as (url, _proc), webapp.browser() as ctx:
        for lang, theme, size in VARIANTS if only is None or "main" in only else []:
            (data / "app-settings.json").write_text(json.dumps({"language": lang, "theme": theme}))
            w, h = PHONE if size == "phone" else DESKTOP
            n = NAMES[lang]
            tag = f"{lang}-{theme}-{size}"

            page = webapp.open_app(ctx, url, w, h)
            webapp.button(page, n["resume"]).wait_for()
            save_small(page, out / f"start-{tag}.png")
            webapp.button(page, n["settings"]).click()
            page.get_by_role("button", name="Français").wait_for()
            save_small(page, out / f"settings-{tag}.png")
            page.close()

            page = webapp.open_app(ctx, url, w, h)
            webapp.button(page, n["pad"]).click()
            with page.expect_file_chooser() as chooser:
                webapp.button(page, n["open"]).click()
            chooser.value.set_files(str(SHEET))
            webapp.shown(page, "113").wait_for()
            if size == "phone":  # the result is below the seats on a phone: show it
                page.mouse.wheel(0, 5000)
                page.wait_for_timeout(400)
            save_small(page, out / f"scorepad-{tag}.png")
            page.close()
            written += [f"{s}-{tag}.png" for s in ("start", "settings", "scorepad")]
        for part, shoot in (("game", lambda: game_screens(ctx, url, data, out)), ("board", lambda: board_screens(ctx, out)),
                            ("end", lambda: end_screens(ctx, out))):
            if only is None or part in only:
                written += shoot()
    for name in written:
        print(out / name, (out / name).stat().st_size // 1024, "KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
