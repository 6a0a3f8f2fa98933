"""What every part of the app shares: strings (``i18n``, ``engine_text``), the responsive layout
(``layout``), navigation (``nav``), preferences (``prefs``), what is installed (``features``),
which pages are phones (``gate``), Flet's vanished taps (``flet_events``) and the ``Screen`` base
with its small widgets (``widgets``).

What must not live here: anything of one screen, and any import of the rest of the app
(``shell``, the screens, ``launch``): everything imports ``common``, so ``common`` imports none
of them, and no engine internals either (only the engine's public API).
"""
