"""The settings screen (``/settings``): ``vm`` (the "check your box" constants form),
``tools_vm`` (the animal catalogue and the dice colour calibration) and ``view`` (the Flet
screen).

What must not live here: file formats and rules (``companion.content``, ``vision`` own them),
the shell.
"""
