"""A fourth dice renderer: LuxCore (``pip install pyluxcore``), for benchmarks and training data
only (docs/vision-lux.md).  ``geometry`` is numpy only; ``render`` imports ``pyluxcore``."""
