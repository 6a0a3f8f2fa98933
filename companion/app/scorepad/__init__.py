"""The stand-alone score pad (``/scorepad``): ``vm`` (the seats and their counts as a score sheet,
scored by ``companion.scorepad`` / ``companion.scoring``) and ``view`` (the Flet screen).

What must not live here: scoring (``companion.scoring`` does it), the final-score drawing
(``companion.app.score``), the shell.
"""
