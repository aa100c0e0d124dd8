"""What the analysis verbs read: a config's collection and the run files named with it.

The store form names a config first (``CONFIG RUN...``: the collection, read-only, and any run
files to score instead of its systems'); the file form names run files only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from poolkit.collection import Collection
from poolkit.errors import PoolkitError

T = TypeVar("T", int, float)


def config_and_runs(inputs: Sequence[str], files_form: bool) -> tuple[Collection | None, list[str]]:
    """``[CONFIG] RUN...``: the first input is the config (its collection, opened read-only)
    unless the file form is used; the rest are run files."""
    if files_form:
        return None, list(inputs)
    if not inputs:
        raise PoolkitError("give a CONFIG (store form) or label files (file form); see --help")
    first = inputs[0]
    if Path(first).suffix.lower() not in (".yaml", ".yml"):
        raise PoolkitError(f"{first}: expected a config (.yaml/.yml) first; for plain files use "
                           f"the file form (see --help)")
    return Collection.open(first), list(inputs[1:])


def comma_numbers(value: Sequence[T] | str, convert: Callable[[str], T], flag: str,
                  example: str) -> list[T]:
    """Numbers given as a sequence or spelled ``"0.1,0.2"``; a word among them is one line
    naming ``flag`` and a spelling like ``example`` (range checks are the caller's)."""
    spelled = value if isinstance(value, str) else ",".join(map(str, value))
    try:
        return [convert(x) for x in spelled.split(",")]
    except ValueError:
        kind = "integers" if convert is int else "numbers"
        raise PoolkitError(f"{flag} {spelled!r}: expected {kind} like {example}") from None
