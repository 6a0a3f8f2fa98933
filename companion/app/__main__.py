"""``python -m companion.app [--web] [--port P] [--host H] [--data-dir D]``: the table app, the
same as ``encyclopedia`` (``companion.app.launch``)."""

from __future__ import annotations

import sys

from companion.app.launch import main

if __name__ == "__main__":
    sys.exit(main())
