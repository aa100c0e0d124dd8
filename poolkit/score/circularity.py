"""Circularity: a run made with the same model family as the machine judge whose labels
score it. Such a judge tends to favour its own family's output (Clarke and Dietz 2024: a
run reranked by the judge's own model placed 5th under its labels, 28th under NIST's;
Balog et al. 2025), so ``score``, ``estimate`` and ``check-judge`` mark every such run.

Families are free text compared without regard to case or surrounding spaces (``Llama`` is
``llama``). Where they come from:

- a system: ``systems.NAME.family`` in the config; a run file's provenance, the ``NAME.json``
  ``poolkit pool`` writes beside ``NAME.run`` (``{"system": {"family": ...}}``);
- a judge: ``judges.NAME.family`` in the config; ``score --judge-family FAMILY`` for a
  labels file (the judge a qrels file's ``JUDGE@VERSION`` marks name, or the one its labels
  came from).

A mark is ``{"run", "family", "judge"}`` in the JSON's ``circular_runs`` and one line of its
own (:func:`circular_line`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def same_family(a: str | None, b: str | None) -> bool:
    """Whether two declared families are one (neither missing)."""
    return bool(a and b and a.strip().casefold() == b.strip().casefold())


def circular_runs(judge: str, judge_family: str | None,
                  run_families: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """``[{run, family, judge}]``: the runs of ``run_families`` (name -> family, None when
    undeclared) whose family is the judge's, in their order."""
    return [{"run": name, "family": family, "judge": judge}
            for name, family in run_families.items() if same_family(family, judge_family)]


def circular_line(mark: Mapping[str, Any]) -> str:
    """The one line that says so."""
    return (f"circularity: run {mark['run']} is of family {mark['family']}, as is machine "
            f"judge {mark['judge']} whose labels score it: the judge may favour it; check it "
            f"against people's labels")


def family_beside(run_path: str | Path | None) -> str | None:
    """The family a run file's provenance declares: ``system.family`` in the ``NAME.json``
    beside ``NAME.run`` (what ``poolkit pool`` writes); None without one."""
    if run_path is None:
        return None
    sidecar = Path(run_path).with_suffix(".json")
    try:
        doc = json.loads(sidecar.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    family = doc.get("system", {}).get("family") if isinstance(doc, dict) and isinstance(
        doc.get("system"), dict) else None
    return family if isinstance(family, str) and family.strip() else None


__all__ = ["circular_line", "circular_runs", "family_beside", "same_family"]
