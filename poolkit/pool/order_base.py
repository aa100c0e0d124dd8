"""The judging-order base class (the contract is described in ``pool/order.py``); a module
of its own so strategies in their own files can subclass it while ``order.py`` registers
them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from poolkit.params import Param
from poolkit.pool.view import QueryPool


class OrderStrategy:
    """Base of every judging-order strategy (see the module docstring for the contract)."""

    name: ClassVar[str]
    summary: ClassVar[str]
    params: ClassVar[tuple[Param, ...]] = ()
    blind: ClassVar[bool] = True      # the order reveals nothing about systems
    adaptive: ClassVar[bool] = False  # ``next`` learns from grades

    def keys(self, pool: QueryPool) -> dict[str, float]:
        raise NotImplementedError

    def next(self, pool: QueryPool, grades: Mapping[str, int],
             pending: Sequence[str]) -> str | None:
        """The document to judge next among ``pending`` (stored order), or None."""
        return pending[0] if pending else None
