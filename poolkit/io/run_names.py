"""What a run is called, and which run a name given on the command line means: one rule for
every command and option that names runs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from poolkit.errors import PoolkitError, one_of


def run_name(path: str | Path) -> str:
    """A run's display name: its file name without extension (``runs/bm25.run`` -> bm25)."""
    return Path(path).stem


def resolve_run_name(given: str, names: Iterable[str], flag: str) -> str:
    """The run among ``names`` that ``given`` names, as every option naming a run reads it
    (``--plot-pair``, ``--group``, ``--pooled-before``): its name exactly, else the one whose
    name without extension is ``given``'s (``bm25`` and ``bm25.run`` name the same run,
    whether the command named its runs ``bm25`` or ``bm25.run``). None or two matching is
    an error prefixed ``flag``."""
    known = list(names)
    if given in known:
        return given
    matches = [n for n in known if run_name(n) == run_name(given)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise PoolkitError(f"{flag}: run {given!r} could be any of {', '.join(matches)}; "
                           f"give its whole name")
    raise PoolkitError(f"{flag}: " + one_of(given, known, "run"))
