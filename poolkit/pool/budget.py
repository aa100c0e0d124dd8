"""``pool.budget``: how many passages of a query may be judged.

An integer is a number of judgments per query (``budget: 30``); a number with a decimal point
in (0, 1] is a fraction of the query's pool (``budget: 0.25``), rounded half up, as
``poolkit simulate`` budgets are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    value: float
    fraction: bool

    @classmethod
    def parse(cls, value: object) -> Budget:
        """From a config value; ValueError with the reason when it is not a budget."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"expected a number of judgments per query or a fraction of the "
                             f"pool in (0, 1], found {value!r}")
        if isinstance(value, int):
            if value < 1:
                raise ValueError(f"a number of judgments must be at least 1, found {value}")
            return cls(float(value), False)
        if not 0 < value <= 1 or math.isnan(value):
            raise ValueError(f"a fraction of the pool must be in (0, 1], found {value}")
        return cls(float(value), True)

    def count(self, pool_size: int) -> int:
        """Judgments allowed for a query whose pool holds ``pool_size`` passages."""
        if self.fraction:
            return min(pool_size, int(math.floor(self.value * pool_size + 0.5)))
        return min(pool_size, int(self.value))

    def __str__(self) -> str:
        return f"{self.value:g} of the pool" if self.fraction else f"{int(self.value)}"
