"""The game-tracking part of the app: new game wizard, the game screens and their view-models.

View-models (plain Python, tested without a display): ``vm`` (the game), ``wizard`` (new game),
``dice`` (dice entry). Flet screens: ``views``. Entry points for the shell: ``open_new_game``,
``open_saved_game``, ``register``.
"""
