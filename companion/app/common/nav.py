"""Navigation between screens, as plain data (testable without Flet).

A screen is named by a route: ``/`` (start), ``/settings``, ``/scorepad``, ``/new``, ``/game``,
``/score``... The navigator keeps a stack so "back" returns where the user came from, and tells
its listeners (the Flet shell) to redraw. Unknown routes are refused with the list of known ones
rather than showing a blank screen.
"""

from __future__ import annotations

from typing import Callable

START = "/"


class Navigator:
    def __init__(self, routes: tuple[str, ...] | list[str], start: str = START):
        self.routes = tuple(routes)
        self._check(start)
        self._stack: list[str] = [start]
        self._listeners: list[Callable[[str], None]] = []

    def _check(self, route: str) -> None:
        if route not in self.routes:
            raise ValueError(f"unknown screen {route!r}; known: {', '.join(self.routes)}")

    @property
    def current(self) -> str:
        return self._stack[-1]

    @property
    def can_go_back(self) -> bool:
        return len(self._stack) > 1

    @property
    def stack(self) -> tuple[str, ...]:
        return tuple(self._stack)

    def subscribe(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener(self.current)

    def go(self, route: str) -> None:
        """Open ``route`` on top of the current screen (going to the current one does nothing)."""
        self._check(route)
        if route == self.current:
            return
        if route in self._stack:  # going to a screen already open: unwind to it
            del self._stack[self._stack.index(route) + 1 :]
        else:
            self._stack.append(route)
        self._notify()

    def replace(self, route: str) -> None:
        """Swap the current screen for ``route`` (a wizard's next step, a finished game)."""
        self._check(route)
        self._stack[-1] = route
        if route in self._stack[:-1]:
            del self._stack[self._stack.index(route) + 1 :]
        self._notify()

    def back(self) -> bool:
        """Go back one screen; ``False`` (and nothing changes) on the start screen."""
        if not self.can_go_back:
            return False
        self._stack.pop()
        self._notify()
        return True

    def home(self) -> None:
        self._stack[:] = [self._stack[0]]
        self._notify()
