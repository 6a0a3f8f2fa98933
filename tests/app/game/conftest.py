import os
import sys
import tempfile
from pathlib import Path

import pytest

# tests/app on the path: the game tests share its helpers (control_tree, text_fit, webapp, ...)
_APP_TESTS = str(Path(__file__).resolve().parents[1])
if _APP_TESTS not in sys.path:
    sys.path.append(_APP_TESTS)


@pytest.fixture
def game_dir(tmp_path):
    """A folder for saved games; on tmpfs when the machine has one (fsync there costs nothing,
    which keeps the whole-game tests fast; durability itself is tested in tests/store)."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="enc-game-") as d:
            yield Path(d)
    else:
        yield tmp_path
