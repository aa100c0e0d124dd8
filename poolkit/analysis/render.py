"""Shared output helpers for the analysis reports (compare, reusability, agreement, simulate;
the reports themselves and their formats are in ``analysis.reports``).

Each report is one JSON-ready document; the table is a rendering of that same document, so
the two formats cannot disagree. Undefined values (a kappa with no chance disagreement, a tau
over constant scores) are NaN in memory and ``null`` in JSON.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from poolkit import __version__
from poolkit.reports import finite, json_text
from poolkit.score.document import report_date  # one date for every report
from poolkit.score.render import grid  # one table layout for every report

__all__ = ["dumps", "fmt", "grid", "header", "signed", "tau_note"]


def dumps(doc: Mapping[str, Any]) -> str:
    """Strict JSON (NaN becomes null; nested reports and sets made JSON), indented,
    newline-terminated."""
    return json_text(finite(doc)) + "\n"


def header(command: str) -> dict[str, Any]:
    return {"command": command, "poolkit_version": __version__, "date": report_date()}


def fmt(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def signed(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}f}"


def tau_note(taus: Iterable[float | None], runs: int) -> list[str]:
    """The table line that says why a Kendall's tau is n/a, or none when every tau is defined.

    Tau is undefined with fewer than two runs, or when one ordering is all ties.
    """
    if not any(t is None or math.isnan(t) for t in taus):
        return []
    if runs < 2:
        return ["  tau n/a: only one run, so there is no order to compare"]
    return ["  tau n/a: every run scored the same on one side, so there is no order"]
