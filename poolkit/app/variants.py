"""``autojudge --variant KEY=VALUE``: how much a judge's grades hang on one prompt option.

The judge as configured and the judge with one option changed (``scale_order=descending``:
the rubric listed 3 -> 0) are two judge versions. Each grades the sample (the first
``--limit`` pairs of the pool in judging order) where it has not yet, and the two versions'
grades on the pairs both graded are compared as two assessors are in ``poolkit agreement``
(``analysis.agreement.pair_agreement``): Cohen's kappa unweighted, linear, quadratic and
binary at grade >= 1 with bootstrap intervals, exact agreement, and the confusion matrix
(rows: the judge as configured, columns: the variant). This is the pointwise counterpart of
swapping a pairwise judge's two passages and averaging: a judge whose grades move with the
rubric's order is reading the order, not the passage.

JSON: ``"variant": {"option", "value", "version", "base_version", "base": {"graded",
"failed"}, "shared", "exact", "kappa": {"unweighted", "linear", "quadratic", "binary"},
"kappa_ci": {same keys: {"low", "high"} | null}, "confusion": {"rows", "columns", "labels",
"counts"}}`` (a kappa chance cannot define, one grade throughout, is null).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from poolkit.errors import PoolkitError, one_of
from poolkit.params import ParamError

if TYPE_CHECKING:
    from poolkit.judges import JudgeKind, JudgePair
    from poolkit.judges.config import JudgeSpec
    from poolkit.store.contract import StoreBackend


def parse_variant(spec: JudgeSpec, kind: JudgeKind, text: str) -> tuple[str, Any]:
    """(option, value) of ``KEY=VALUE``, checked as the config's value would be."""
    import yaml

    from poolkit.io.yamlnodes import yaml_problem

    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key or not raw.strip():
        raise PoolkitError(f"--variant {text!r}: write KEY=VALUE (e.g. "
                           f"scale_order=descending)")
    if not kind.variants:
        raise PoolkitError(f"--variant: judge {spec.name!r} (kind {kind.name}) has no option "
                           f"a variant may change")
    if key not in kind.variants:
        raise PoolkitError("--variant: " + one_of(key, kind.variants,
                                                   f"option of judge kind {kind.name}"))
    param = next(p for p in kind.options if p.key == key)
    try:
        value = param.check(yaml.safe_load(raw), f"--variant {spec.name}")
    except ParamError as exc:
        raise PoolkitError(str(exc)) from None
    except yaml.MarkedYAMLError as exc:  # the whole of it: its first line is half a sentence
        raise PoolkitError(f"--variant {key}={raw.strip()}: not valid YAML: "
                           f"{yaml_problem(exc)[1]}") from None
    except yaml.YAMLError as exc:
        raise PoolkitError(f"--variant {key}={raw.strip()}: not valid YAML: "
                           f"{' '.join(str(exc).split())}") from None
    if value == spec.settings.get(key):
        raise PoolkitError(f"--variant {key}={raw.strip()}: judge {spec.name!r} already has "
                           f"it; a variant must change the option")
    return key, value


def with_variant(judge: Any, variant: tuple[str, Any]) -> Any:
    """The built judge with the option changed (its model and connections shared)."""
    changed = copy.copy(judge)
    changed.settings = {**judge.settings, variant[0]: variant[1]}
    return changed


def variant_report(store: StoreBackend, judge: str, variant: tuple[str, Any],
                   base_version: str, version: str, pairs: Sequence[JudgePair],
                   base_graded: int, base_failed: int) -> dict[str, Any]:
    """The variant against the judge as configured on the sample's pairs both graded."""
    from poolkit.analysis.agreement import LabelSource, pair_agreement
    from poolkit.policies import machine_versions

    sample = {(p.query.qid, p.docid) for p in pairs}
    grades: dict[str, dict[tuple[str, str], int]] = {base_version: {}, version: {}}
    for standing in machine_versions(store, judge):  # each pair's grade that counts
        if standing.version in grades:
            grades[standing.version] = {p: g for p, g in standing.grades.items() if p in sample}
    option, value = variant
    shown = f"{option}={value}"
    base = LabelSource.from_grades("as configured", grades[base_version], "machine")
    other = LabelSource.from_grades(shown, grades[version], "machine")
    found = pair_agreement(base, other)
    out: dict[str, Any] = {"option": option, "value": value, "version": version,
                           "base_version": base_version,
                           "base": {"graded": base_graded, "failed": base_failed},
                           "shared": 0, "exact": None,
                           "kappa": dict.fromkeys(("unweighted", "linear", "quadratic",
                                                   "binary")),
                           "kappa_ci": dict.fromkeys(("unweighted", "linear", "quadratic",
                                                      "binary")),
                           "confusion": {"rows": "as configured", "columns": shown,
                                         "labels": [0, 1, 2, 3],
                                         "counts": [[0] * 4 for _ in range(4)]}}
    if found is not None:
        out.update(shared=found["shared"], exact=found["raw_agreement"],
                   kappa={w: _finite(k) for w, k in found["kappa"].items()},
                   kappa_ci=found["kappa_ci"], confusion=found["confusion"])
    return out


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else value


def variant_table(doc: dict[str, Any]) -> str:
    """The table's lines for ``doc`` (a ``variant_report``)."""
    def kappa(w: str) -> str:
        value = doc["kappa"][w]
        return "n/a" if value is None else f"{value:.3f}"

    from poolkit.tables import wrapped

    shown = f"{doc['option']}={doc['value']}"
    lines = wrapped(f"variant {shown} (version {doc['version']}) against the judge as "
                    f"configured (version {doc['base_version']}): {doc['shared']} pairs both "
                    f"graded").splitlines()
    if doc["shared"]:
        counts = doc["confusion"]["counts"]
        agreed = sum(counts[g][g] for g in range(4))
        lines += wrapped(f"exact agreement {doc['exact']:.3f} ({agreed} of {doc['shared']}), "
                         f"kappa {kappa('unweighted')}, linear {kappa('linear')}, quadratic "
                         f"{kappa('quadratic')}, binary (>= 1) {kappa('binary')}",
                         "  ").splitlines()
        lines.append(f"  confusion (rows: as configured, columns: {shown})")
        lines.append("         " + "".join(f"{g:>6}" for g in range(4)))
        lines += [f"    {g:>3}  " + "".join(f"{n:>6}" for n in row)
                  for g, row in enumerate(counts)]
    return "\n".join(lines) + "\n"


__all__ = ["parse_variant", "variant_report", "variant_table", "with_variant"]
