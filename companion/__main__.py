"""``python -m companion``: the command line.

    python -m companion score SHEET.json [--json]
    python -m companion simulate --games N --seats K --seed S [--automas A] [--no-check]

The table app is started with ``encyclopedia`` or ``python -m companion.app [--web ...]``
(``companion/app/__main__.py``); nothing here imports the app.
"""

from __future__ import annotations

import sys

USAGE = """usage: python -m companion score SHEET.json [--json]
       python -m companion simulate --games N --seats K --seed S [--automas A] [--no-check]

The app is started with `encyclopedia` or `python -m companion.app` (--web for browsers)."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "score":
        from companion.scorepad import main as score_main

        return score_main(argv[1:])
    if argv and argv[0] == "simulate":
        from companion.simulate import main as simulate_main

        return simulate_main(argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if argv:
        print(f"python -m companion: unknown command {argv[0]!r}", file=sys.stderr)
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
