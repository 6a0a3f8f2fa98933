"""``python -m companion``: the command line.

    python -m companion                      the app (same as ``encyclopedia``)
    python -m companion --web [--port P]     the app in a browser
    python -m companion score SHEET.json [--json]
    python -m companion simulate --games N --seats K --seed S [--automas A] [--no-check]

The engine never imports the UI: the app is imported only when it is asked for.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "score":
        from companion.scorepad import main as score_main

        return score_main(argv[1:])
    if argv and argv[0] == "simulate":
        from companion.simulate import main as simulate_main

        return simulate_main(argv[1:])
    if not argv or argv[0].startswith("--"):
        from companion.app.launch import main as app_main

        return app_main(argv)
    print(f"python -m companion: unknown command {argv[0]!r}; commands: score, simulate "
          "(or no command / --web for the app)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
