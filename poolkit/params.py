"""Declared parameters: what an extension point's settings are, checked one generic way.

A judging-order or pooling strategy, a retriever kind or a measure family declares its
parameters as ``Param`` values (ir_measures' ``ParamInfo`` is the model); parsing, type and
bound checks, defaults, choices in error messages and help text all come from the
declaration, never from a hand-kept table beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from poolkit.errors import one_of

#: The seed of every seeded draw a strategy makes (the shuffle order, a sampled pool) when the
#: config sets none: one value, so that strategies left at their defaults draw alike.
DEFAULT_SEED = 13


class ParamError(ValueError):
    """A value that does not fit its declaration; the message names the key."""


@dataclass(frozen=True)
class Param:
    """One setting: its key, accepted types, default, closed choices and numeric bounds."""

    key: str
    types: tuple[type, ...]
    default: Any = None
    help: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    attr: str | None = None  # the constructor argument, when it is not ``key``
    #: a further check of a well-typed value; raises ParamError with the reason
    validate: Callable[[Any], None] | None = None

    @property
    def target(self) -> str:
        return self.attr or self.key

    def type_names(self) -> str:
        return " or ".join(t.__name__ for t in self.types)

    def check(self, value: Any, where: str) -> Any:
        """``value`` if it fits, else a ParamError naming ``where.key`` (an int is accepted
        as a float; a bool is never a number)."""
        if float in self.types and isinstance(value, int) and not isinstance(value, bool):
            value = float(value) if int not in self.types else value
        if not isinstance(value, self.types) or (isinstance(value, bool)
                                                 and bool not in self.types):
            raise ParamError(f"{where}.{self.key} must be {self.type_names()}, "
                             f"found {value!r}")
        if isinstance(value, float) and not math.isfinite(value):  # .nan, .inf in YAML
            raise ParamError(f"{where}.{self.key} must be a finite number, found {value}")
        if self.choices is not None and value not in self.choices:
            raise ParamError(f"{where}.{self.key}: "
                             + one_of(str(value), [str(c) for c in self.choices], self.key))
        if self.minimum is not None and isinstance(value, (int, float)) \
                and not isinstance(value, bool) and value < self.minimum:
            raise ParamError(f"{where}.{self.key} must be at least {self.minimum:g}, "
                             f"found {value}")
        if self.maximum is not None and isinstance(value, (int, float)) \
                and not isinstance(value, bool) and value > self.maximum:
            raise ParamError(f"{where}.{self.key} must be at most {self.maximum:g}, "
                             f"found {value}")
        if self.validate is not None:
            try:
                self.validate(value)
            except ParamError as exc:
                raise ParamError(f"{where}.{self.key}: {exc}") from None
        return value


def build_kwargs(params: Sequence[Param], settings: Mapping[str, Any],
                 where: str) -> dict[str, Any]:
    """Constructor arguments from ``settings``: each declared key checked, else its default
    (keys not declared are ignored here; ``pool.section`` refuses them in the config)."""
    return {p.target: p.check(settings[p.key], where) if p.key in settings else p.default
            for p in params}
