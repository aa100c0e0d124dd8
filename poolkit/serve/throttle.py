"""Login attempts: too many wrong passwords lock a name, or an address, for a while.

``PER_NAME`` wrong passwords for one name within ``WINDOW`` seconds answer 429 to that name
until the oldest of them is ``WINDOW`` old; ``PER_ADDRESS`` from one client address lock
that address the same way (so guessing many names from one place stops too, while one
locked name does not lock an office behind one address out). Every name counts, existing
or not: a lockout says nothing about whether a name exists. In memory: a restart forgets.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

PER_NAME, PER_ADDRESS, WINDOW = 5, 50, 600.0
#: the most names and addresses remembered (the oldest forgotten first): memory stays bounded
REMEMBERED = 100_000


class Throttle:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        now = self.clock()
        times = self.failures.get(key, deque())
        while times and now - times[0] >= WINDOW:
            times.popleft()
        return times

    def locked(self, name: str | None, address: str) -> bool:
        """Whether ``name`` (None: no name, an invite's token) or ``address`` is locked."""
        return ((name is not None and len(self._recent(("name", name.casefold()))) >= PER_NAME)
                or len(self._recent(("address", address))) >= PER_ADDRESS)

    def failed(self, name: str | None, address: str) -> None:
        keys = [("address", address)] + ([("name", name.casefold())] if name is not None else [])
        for key in keys:
            times = self._recent(key)
            times.append(self.clock())
            self.failures.pop(key, None)  # (re-inserted last: the dict keeps recent order)
            self.failures[key] = times
        while len(self.failures) > REMEMBERED:
            del self.failures[next(iter(self.failures))]
