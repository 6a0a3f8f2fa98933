"""The final-score view shared by the score pad and a finished game: ``vm`` (rows, bars, the
winner line, worded) and ``view`` (its Flet drawing). Not a route of its own.

What must not live here: scoring itself (the numbers come from ``companion.scoring``), either
screen that shows it.
"""
