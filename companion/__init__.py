"""Encyclopedia Companion: the game's rules, content, saves and scoring, and the app over them.

What lives here, from the bottom up:

- ``content``         the game's content as data (experts, board constants, animal catalogue,
                      the user data folder) and ``data/`` (the shipped JSON files);
- ``messages``, ``errors``  what the engine says (message keys with arguments) and its
                      refusals (``RuleError`` and subclasses);
- ``board_values``    the board constants a game is played with, as part of its record;
- ``actions``         every input the game can receive, as value objects with their JSON form;
- ``scoring``, ``scorepad``  final scoring, and the score pad (``python -m companion score``);
- ``engine``          the rules: ``apply``, ``replay``, the state, queries, log lines, random
                      players (a package; outside code imports from ``companion.engine``);
- ``store``           the event log: one append-only SQLite file per game (a package; knows no
                      rules: actions are JSON dicts there);
- ``session``, ``shared_session``  an open game: the engine over the store (undo, redo,
                      export, import), and one game shared by several browser pages;
- ``simulate``        seeded random games through the engine (``python -m companion simulate``);
- ``app``             the user interface (flet), a sub-package of its own.

The dependency rule: each part imports only parts listed above it (the ``automa`` package sits
between the engine and the app); nothing imports back down, not even inside a function.
Nothing outside ``companion.app`` imports the app; the engine, the store and the session import
no UI and no vision, and the store imports no engine.
"""
