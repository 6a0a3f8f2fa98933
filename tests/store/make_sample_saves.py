"""Regenerate the sample saves in samples/saves/ (only when a deliberate engine change makes
the old ones replay differently; say so in the commit message).

    python tests/store/make_sample_saves.py
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
REPO = HERE.parent.parent
OUT = REPO / "samples" / "saves"
sys.path.insert(0, str(HERE))

from companion.session import GameSession  # noqa: E402
from companion.simulate import play_game  # noqa: E402
from companion.store import GameStore, write_export  # noqa: E402
from session_game import next_action, start_action  # noqa: E402

FINISHED_SEED = 21
MIDGAME_SEED = 5


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = GameStore(Path(tmp))

        # 1. a finished 4-seat game (one automa, Sepultus cards), exported as JSON
        rec = play_game(FINISHED_SEED, seats=4, automas=1)
        s = GameSession.create(store, rec.actions[:1], title=f"Simulated 4 seats, seed {FINISHED_SEED}",
                               game_id="sample-finished-4-seats")
        for a in rec.actions[1:]:
            s.confirm(a)
        doc = s.export()
        s.close()
        write_export(doc, OUT / "finished-4-seats-automa.json")

        # 2. a 2-seat game in round 2, with undo, redo and an abandoned redo branch in its log
        s = GameSession.create(store, [start_action()], title="Mid-game with undo history",
                               game_id="sample-midgame-undo")
        for _ in range(70):
            s.confirm(next_action(s.state, MIDGAME_SEED))
        s.undo(); s.undo(); s.redo()  # noqa: E702
        s.undo()
        s.confirm(next_action(s.state, MIDGAME_SEED + 1))  # drops the redo branch
        s.undo()  # leaves one action to redo
        path = s.path
        s.close()
        shutil.copyfile(path, OUT / "schema1-midgame-undo.sqlite")
    print("wrote", *sorted(p.name for p in OUT.iterdir()))
    print(json.dumps({"finished_actions": len(doc["actions"])}))


if __name__ == "__main__":
    main()
