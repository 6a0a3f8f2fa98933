"""Screenshots of the main screens for docs/screenshots/ (EN/FR, light/dark, phone/desktop).

    python tests/app/make_screenshots.py [--out docs/screenshots]

Runs the web app with a throw-away data folder, sets the language and theme through the
preferences file before each browser tab opens, drives the screens through the semantics tree
and writes small PNGs (palette-quantised). Needs /usr/bin/chromium and playwright.
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

PHONE = (412, 860)
DESKTOP = (1280, 800)
#: each screen in four variants that together cover every language, theme and size
VARIANTS = [("en", "light", "phone"), ("fr", "dark", "phone"), ("en", "dark", "desktop"), ("fr", "light", "desktop")]
NAMES = {  # the buttons' names in each language
    "en": {"settings": "Settings", "pad": "Score pad", "open": "Open a score sheet", "resume": "Resume a game"},
    "fr": {"settings": "Réglages", "pad": "Bloc de score", "open": "Ouvrir une feuille de score",
           "resume": "Reprendre une partie"},
}
#: game screens: the e2e solo flow's picture points -> file name; the flow runs in an English
#: tab, each variant opens the saved game in a new tab (language and theme set first)
GAME_SHOTS = {"14-dice-photo": "game-dice", "15-place-dice": "game-place", "16-turn-options": "game-turn",
              "17-automa-turn": "game-automa"}
GAME_VARIANTS = [("en", "dark", "phone"), ("fr", "dark", "phone"), ("fr", "light", "desktop")]
SHEET = webapp.REPO / "samples" / "score-sheets" / "three-seats-tie.json"


def save_small(page, path: Path) -> None:
    from PIL import Image

    webapp.settle(page, 900)
    tmp = path.with_suffix(".raw.png")
    page.screenshot(path=str(tmp))
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
            set_prefs(data, lang, theme)
            page = webapp.open_app(ctx, url, *(PHONE if size == "phone" else DESKTOP))
            webapp.button(page, NAMES[lang]["resume"]).click()
            webapp.shown(page, "Player 1, Automa").wait_for()
            page.wait_for_timeout(400)
            webapp.shown(page, "Player 1, Automa").click()
            webapp.button(page, {"en": "Undo", "fr": "Annuler"}[lang]).wait_for()
            page.wait_for_timeout(800)
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
               ("en", "dark", "desktop", "board"), ("fr", "light", "desktop", "board")]
BOARD_HEADINGS = {"en": ("Central board", re.compile(r"^Ana: \d+ coins")), "fr": ("Plateau central", re.compile(r"^Ana : \d+ pièces"))}


def board_screens(ctx, out: Path) -> list[str]:
    """The game screen with the drawn board, from a game prepared by ``board_scene``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "game"))
    from board_scene import prepare_board_game

    data = Path(tempfile.mkdtemp(prefix="enc-shots-board-"))
    title, _ = prepare_board_game(data, dice_placed=4)
    written = []
    with webapp.running_app(data_dir=data) as (url, _proc):
        for lang, theme, size, what in BOARD_SHOTS:
            set_prefs(data, lang, theme)
            page = webapp.open_app(ctx, url, *(PHONE if size == "phone" else DESKTOP))
            webapp.button(page, NAMES[lang]["resume"]).click()
            webapp.shown(page, title).wait_for()
            page.wait_for_timeout(400)
            webapp.shown(page, title).click()
            webapp.button(page, {"en": "Undo", "fr": "Annuler"}[lang]).wait_for()
            page.wait_for_timeout(800)
            if size == "phone":  # the board (or the seats) at the top of the screen
                target = BOARD_HEADINGS[lang][0 if what == "board" else 1]
                page.mouse.move(200, 400)
                for _ in range(12):
                    node = webapp.shown(page, target)
                    box = node.bounding_box() if node.count() else None
                    top = 70 if what == "board" else 110  # the seat's title sits above its numbers
                    if box and top - 20 <= box["y"] < top + 130:
                        break
                    page.mouse.wheel(0, (box["y"] - top) if box else 500)
                    page.wait_for_timeout(300)
            name = f"game-{what}-{lang}-{theme}-{size}.png"
            save_small(page, out / name)
            written.append(name)
            page.close()
    return written


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(webapp.REPO / "docs" / "screenshots"))
    args = ap.parse_args()
    why = webapp.missing_requirements()
    if why:
        print(f"cannot take screenshots: {why}")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="enc-shots-"))
    written = []
    with webapp.running_app(data_dir=data) as (url, _proc), webapp.browser() as ctx:
        for lang, theme, size in VARIANTS:
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
        written += game_screens(ctx, url, data, out)
        written += board_screens(ctx, out)
    for name in written:
        print(out / name, (out / name).stat().st_size // 1024, "KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
