"""Screenshots of the game screens in the real web app (headless Chromium), phone and desktop:

    python tests/app/game/shoot_game_screens.py [OUT_DIR]      (default docs/screenshots)

Saved games are prepared at chosen steps with the view-model (seeded), then the web app is
started on them and each is opened from the Resume list, as a user would.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from game_play import FakeReader, answer  # noqa: E402
from webapp import browser, button, enable_semantics, missing_requirements, running_app, settle, shown  # noqa: E402

SIZES = {"phone": (412, 915), "desktop": (1280, 900)}


def prepare(data_dir: Path) -> dict[str, str]:
    """Saved games stopped at interesting steps; returns {shot name: game title}."""
    os.environ["ENCYCLOPEDIA_DATA_DIR"] = str(data_dir)
    from companion.app.game.texts import GameText
    from companion.app.game.vm import GameVM, LocalCatalogue
    from companion.app.game.wizard_vm import AUTOMA, HUMAN, NewGameVM, SeatDraft
    from companion.store import GameStore

    t = GameText()
    titles = {}

    def game(title, seats, seed, stop):
        w = NewGameVM(t, random.Random(seed))
        w.seats = [SeatDraft(k, n) for k, n in seats]
        w.shuffle_all()
        w.title = title
        s = w.create(GameStore())
        vm = GameVM(s, t, LocalCatalogue(data_dir / f"catalogue-{seed}.json"), reader_factory=FakeReader)
        rng = random.Random(seed)
        names = ["Aix galericulata", "Lemur catta", "Panthera leo", "Ursus arctos", "Vombatus ursinus"]
        for _ in range(5000):
            if stop(vm):
                break
            answer(vm, rng, None, names=names)
        s.close()
        return title

    solo = [(HUMAN, "Ana"), (AUTOMA, "Automa")]
    titles["reveal"] = game("Shot reveal", solo, 1, lambda vm: vm.step.kind == "reveal_animal")
    titles["dice"] = game("Shot dice", solo, 2, lambda vm: vm.step.kind == "roll_dice" and vm.state.seats[vm.step.seat].kind == "human")
    titles["place"] = game("Shot place", solo, 3, lambda vm: vm.step.kind == "place_dice")
    titles["turn"] = game("Shot turn", [(HUMAN, "Ana"), (HUMAN, "Ben")], 4,
                          lambda vm: vm.step.kind == "turn" and vm.state.round >= 2 and not vm.step.in_hand)
    titles["automa"] = game("Shot automa", solo, 5,
                            lambda vm: vm.step.kind == "automa" and vm.step.decision.plan is not None and vm.state.round >= 2)
    titles["research"] = game("Shot research", [(HUMAN, "Ana"), (HUMAN, "Ben")], 6,
                              lambda vm: vm.step.kind == "research" and len(vm.step.options()) >= 2)
    titles["score"] = game("Shot score", solo, 7, lambda vm: vm.step.kind == "game_over")
    return titles


def shoot(page, path: Path) -> None:
    """A screenshot saved small (palette-quantised, as make_screenshots.py saves its own)."""
    from PIL import Image

    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(colors=96, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def open_game(page, title):
    button(page, "Resume", exact=False).first.click()
    shown(page, title).wait_for(timeout=20000)
    shown(page, title).click()
    page.get_by_role("button", name="Undo").first.wait_for(timeout=20000)
    settle(page, 900)


def main(out: Path) -> int:
    why = missing_requirements()
    if why:
        print("cannot take screenshots:", why)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="enc-shots-"))
    titles = prepare(data)
    with running_app(data_dir=data) as (url, proc), browser(limit_s=None) as ctx:
        for size, (w, h) in SIZES.items():
            def fresh():
                page = ctx.new_page()
                page.set_viewport_size({"width": w, "height": h})
                page.goto(url)
                enable_semantics(page)
                button(page, "New game", exact=False).first.wait_for(timeout=30000)
                return page

            page = fresh()
            button(page, "New game", exact=False).first.click()
            button(page, "Start the game").wait_for(timeout=20000)
            settle(page, 900)
            shoot(page, out / f"game-wizard-{size}.png")
            page.close()
            for shot, title in titles.items():
                page = fresh()
                open_game(page, title)
                if shot == "turn":
                    page.get_by_role("button", name="on Ben's slot", exact=False).first.click()
                    shown(page, "What the").wait_for(timeout=10000)
                    settle(page, 700)
                    shoot(page, out / f"game-turn-options-{size}.png")
                    target = page.get_by_role("button", name="Expedition to", exact=False)
                    (target if target.count() else page.get_by_role("button", name="Embassy", exact=False)).first.click()
                    button(page, "Confirm").wait_for(timeout=10000)
                    settle(page, 700)
                    shot = "turn-draft"
                shoot(page, out / f"game-{shot}-{size}.png")
                print("saved", shot, size, flush=True)
                page.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[3] / "docs" / "screenshots"))
