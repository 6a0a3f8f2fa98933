import os
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def game_dir(tmp_path):
    """A folder for saved games; on tmpfs when the machine has one (fsync there costs nothing,
    which keeps the whole-game tests fast; durability itself is tested in tests/store)."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="enc-game-") as d:
            yield Path(d)
    else:
        yield tmp_path
