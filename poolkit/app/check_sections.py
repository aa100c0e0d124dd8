"""``check-judge``'s repeatability and circularity sections (``app.check_judge``).

**Repeatability** (``analysis.repeatability``): the version's readings of each pair
(``autojudge --readings K``) compared: Krippendorff's alpha (ordinal) among them and the
share of pairs whose grade flips, with the rule that picks the grade that counts (their
median). Where no pair was read twice it is not measured, and the section says the command
that measures it.

**Circularity** (``score.circularity``): the collection's systems whose ``family:`` (or
their run's provenance) is the judge's ``judges.NAME.family``, one line each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: readings the "not measured" hint asks for
HINT_READINGS = 3


def repeatability_of(store: Any, judge: str, version: str) -> dict[str, Any]:
    """Judge version ``judge@version``'s readings in ``store`` compared (also what
    ``autojudge --readings K`` reports)."""
    from poolkit.analysis.repeatability import Repeatability
    from poolkit.policies import machine_readings, machine_versions

    found = [v for v in machine_versions(store, judge) if v.version == version]
    readings = machine_readings(store, found[0]) if found else {}
    return {**Repeatability.of(readings).as_dict(), "rule": "median"}


def repeatability_section(store: Any, config: Any, judge: str, version: str,
                          ) -> dict[str, Any]:
    """The section of judge version ``judge@version``: with the command that measures it
    where no pair was read twice."""
    doc = repeatability_of(store, judge, version)
    if not doc["measured"]:
        doc["command"] = (f"poolkit autojudge {config.path} --judge {judge} --readings "
                          f"{HINT_READINGS}")
    return doc


def circularity_section(config: Any, judge: str, version: str) -> dict[str, Any]:
    """``{judge_family, runs: [{run, family, judge}]}``: the systems of the judge's family."""
    from poolkit.score.circularity import circular_runs, family_beside

    family = getattr(config.judges.get(judge), "family", None)
    families = {name: system.family or family_beside(config.runs_dir / f"{name}.run")
                for name, system in config.systems.items()}
    return {"judge_family": family,
            "runs": circular_runs(f"{judge}@{version}", family, families)}


def repeatability_block(doc: Mapping[str, Any], report: Any) -> list[str]:
    from poolkit.tables import wrap

    if not doc["measured"]:
        hint = (f"; run {doc['command']} (with the judge's temperature above 0: at 0 the "
                f"readings repeat one another)" if "command" in doc else "")
        return wrap(f"repeatability: not measured (no pair read twice){hint}")
    alpha = "undefined (one grade throughout)" if doc["alpha"] is None \
        else f"{doc['alpha']:.3f}"
    return wrap(f"repeatability: {doc['pairs']} pairs read up to {doc['readings']} times; "
                f"Krippendorff's alpha ({doc['level']}) {alpha}; the grade flips on "
                f"{doc['flip_share']:.1%} of pairs; the grade that counts is the readings' "
                f"{doc['rule']}")


def circularity_block(doc: Mapping[str, Any], report: Any) -> list[str]:
    from poolkit.score.circularity import circular_line
    from poolkit.tables import wrap

    if doc["judge_family"] is None:
        return wrap(f"circularity: not checked; judges.{report['judge']}.family is not set")
    if not doc["runs"]:
        return wrap(f"circularity: no system of family {doc['judge_family']}")
    return [line for mark in doc["runs"] for line in wrap(circular_line(mark))]


__all__ = ["circularity_block", "circularity_section", "repeatability_block",
           "repeatability_section"]
