"""``python -m automa tournament --games N --seed S``."""

import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m automa tournament --games N --seed S")
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "tournament":
        from automa.tournament import main as tmain

        return tmain(rest)
    print(f"unknown command {cmd!r}; known: tournament", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
