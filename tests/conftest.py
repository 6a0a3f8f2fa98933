"""Suite-wide isolation: no test reads or writes the developer's real user data directory."""

import os
import tempfile

import pytest

_DATA_DIR = tempfile.mkdtemp(prefix="encyclopedia-test-data-")
os.environ["ENCYCLOPEDIA_DATA_DIR"] = _DATA_DIR


@pytest.fixture(scope="session")
def isolated_data_dir():
    """The per-run user data directory every test shares (set before any import)."""
    return _DATA_DIR
