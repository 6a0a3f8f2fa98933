"""``python -m visionlab.bench [options]``: the benchmark (``python -m vision bench`` hands off here)."""

import sys

from visionlab.bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
