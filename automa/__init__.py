"""The Automa, the solo opponent (DIGEST §6): a pure function from a game state to a decision,
expressed as ordinary engine actions plus the plain-language sentences the table needs.

- ``content``     the Behavior and Scoring cards and the continent priorities, as data;
- ``logic``, ``plan``  the Automa's choices and a whole turn over a plain view (no engine types);
- ``words``       the wording of a planned turn for the people moving the pieces;
- ``decide``      the engine adapter: ``decide(state, seat)`` -> engine actions + sentences;
- ``play``, ``reference``, ``tournament``  whole seeded games, the reference player and the
                  difficulty table (``python -m automa tournament``).

It imports the engine (``companion.engine``, ``companion.actions``, ``companion.scoring``) and
nothing above it: never the app, never vision, never a store or a session. The app calls it.
"""
