"""The shell: what wires the screens into one page.

``controller`` (plain Python: preferences, language, navigation, window size, the open game's
id), ``view`` (the Flet page: app bar, theme, the current screen, the browser's address) and
``screens`` (route -> ``"module:Class"``, as data: the shell imports a screen when its route is
first drawn).

What must not live here: a screen's own drawing or logic (it lives in its sub-package). Screens
never import the shell; they get it as the ``shell`` argument and its controller as ``ctl``.
"""
