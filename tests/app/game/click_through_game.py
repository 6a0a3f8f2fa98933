"""Manual check in the real web app (headless Chromium): tap dice in, place them, confirm, undo,
and confirm an automa card. Run: python tests/app/game/click_through_game.py (prints what happened)."""
import sys, tempfile
from pathlib import Path
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
import shoot_game_screens as S
from webapp import *
data = Path(tempfile.mkdtemp(prefix="enc-clk-"))
titles = S.prepare(data)
with running_app(data_dir=data) as (url, proc), browser(limit_s=None) as ctx:
    page = ctx.new_page(); page.set_viewport_size({"width":412,"height":915}); page.goto(url); enable_semantics(page)
    button(page, "New game", exact=False).first.wait_for(timeout=30000)
    S.open_game(page, titles["dice"])
    for name in ["add red 3", "add blue 5", "add green 1", "add yellow 6"]:
        page.get_by_role("button", name=name).first.click(); settle(page, 400)
    button(page, "Confirm the dice").click()
    shown(page, "place your dice").wait_for(timeout=10000); print("dice confirmed -> place step")
    for i in range(4):
        page.get_by_role("button", name="die ", exact=False).first.click(); settle(page, 300)
        page.get_by_role("button", name=f"Slot {i+1}", exact=False).first.click(); settle(page, 400)
    button(page, "Confirm the board").click(); settle(page, 1200)
    page.screenshot(path="/tmp/clk-after-place.png")
    button(page, "Undo").first.click(); settle(page, 1200)
    shown(page, "place your dice").wait_for(timeout=10000); print("undo -> back to place step")
    page.close()
    page = ctx.new_page(); page.set_viewport_size({"width":412,"height":915}); page.goto(url); enable_semantics(page)
    button(page, "New game", exact=False).first.wait_for(timeout=30000)
    S.open_game(page, titles["automa"])
    log0 = page.get_by_role("button", name="Action log", exact=False).first.inner_text()
    button(page, "Done").click(); settle(page, 1500)
    log1 = page.get_by_role("button", name="Action log", exact=False).first.inner_text()
    print("automa done:", log0, "->", log1)
    page.screenshot(path="/tmp/clk-after-automa.png")
