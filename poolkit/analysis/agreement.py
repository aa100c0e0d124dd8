"""Assessor agreement and judge calibration across label sources.

A source is one assessor's standing grades in the store, or an imported label file (an
automatic judge's qrels, another team's golden.yaml). For every pair of sources that share
judged pairs: the count, raw agreement, Cohen's kappa unweighted and with linear and
quadratic weights on the fixed 0-3 scale, kappa on labels binarised at the relevance level,
the confusion matrix and a percentile bootstrap interval for each kappa. Across all sources:
Krippendorff's alpha (ordinal; units are the judged pairs, missing labels allowed).

Against the human reference, a source is judged by its kappa's bootstrap interval and the
threshold (0.6 by default, the customary "substantial agreement" floor): "ok" when the
interval's lower bound reaches the threshold, "too noisy" when its upper bound is below it,
otherwise "undecided" (too few shared pairs to tell). When no
reference is named and exactly one source is a human assessor (kind "assessor": grading in
the store, not labels imported into it nor a label file), the CLI takes it as the reference
(:func:`default_reference`) and the report says so (``reference_default``).

JSON shape (``poolkit agreement --format json``; keys may be added, none removed)::

    {"command", "poolkit_version", "date", "scale": [0, 1, 2, 3], "level",
     "sources": [{"name", "kind": "assessor"|"import"|"file", "judged", "queries",
                  "unjudged", ...}],
     "pairs": [{"a", "b", "shared", "queries", "raw_agreement", "binary_agreement",
                "kappa": {"unweighted", "linear", "quadratic", "binary"},
                "kappa_ci": {same keys: {"low", "high"} | null},
                "confusion": {"rows": a, "columns": b, "labels": [0..3], "counts": 4x4},
                "notes": [text]}],
     "alpha": {"metric": "ordinal", "value", "units", "sources"},
     "reference": name | null, "reference_default": bool,
     "flag": {"kappa", "threshold", "against_reference": {source: kappa},
              "verdicts": {source: "ok"|"too noisy"|"undecided"}, "noisy": [names],
              "undecided": [names]},
     "bootstrap": {"resamples", "seed", "level"},
     "machines": [{"source", "judge", "version", "against", "against_kind", "shared",
                   "raw_agreement", "kappa", "kappa_ci", "verdict": {same keys: "ok"|...},
                   "confusion": {"rows": against, "columns": source, ...},
                   "mean_difference": {"0".."3": machine minus human | null}}]}

``machines`` (only when a machine judge's version is a source, kind ``machine``): each judge
version against each source that is not a machine (a person, imported labels, a label file),
from the same pair entries: every kappa with its interval and verdict against the
threshold, the confusion matrix with the human grade on the rows, and per human grade the
mean of (machine grade - human grade) on the pairs with that human grade: a lenient judge
shows as +.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from poolkit.analysis.reports import KAPPAS, THRESHOLD, AgreementReport
from poolkit.analysis.stats import (
    SCALE,
    bootstrap_confusions,
    bootstrap_kappas,
    kappa_from_confusion,
    kappa_interval,
    krippendorff_alpha,
    weights_matrix,
)
from poolkit.errors import InputError, PoolkitError, one_of
from poolkit.policies import check_assessors
from poolkit.score.intervals import RESAMPLES, SEED

Pair = tuple[str, str]



@dataclass
class LabelSource:  # (was ``Source``, the store's word for pool provenance)
    """One label source: its grades on the collection's scale (``SCALE``, 0-3, unless given;
    negative grades set aside)."""

    name: str
    grades: dict[Pair, int]
    #: assessor (a human grading in the store) | import (labels imported into the store,
    #: e.g. NIST qrels or a judge's) | file (a label file given on the command line) |
    #: machine (one version of a machine judge in the store; ``origin`` names it)
    kind: str = "assessor"
    origin: dict[str, Any] = field(default_factory=dict)
    #: pairs carrying a negative grade (TREC's -1, "pooled, not judged"): not labels
    unjudged: int = 0

    @classmethod
    def from_grades(cls, name: str, grades: Mapping[Pair, int], kind: str = "assessor",
                    origin: Mapping[str, Any] | None = None,
                    scale: Sequence[int] = SCALE) -> LabelSource:
        kept: dict[Pair, int] = {}
        unjudged = 0
        for pair, g in grades.items():
            if g < 0:
                unjudged += 1
                continue
            if g not in scale:
                raise PoolkitError(f"source {name!r}: query {pair[0]!r} doc {pair[1]!r} has "
                                   f"grade {g}; agreement uses the {scale[0]}-{scale[-1]} "
                                   f"scale")
            kept[pair] = g
        return cls(name, kept, kind, dict(origin or {}), unjudged)


class _Judged:
    """Every source's grades as arrays over one numbering of the judged pairs (their sorted
    order): ``ids[i]``/``grades[i]`` for source i, sorted by pair; ``query[p]`` the query of
    pair p. Shared pairs are then an intersection of sorted integer arrays, in the sorted
    order the per-pair sets gave."""

    def __init__(self, sources: Sequence[LabelSource]) -> None:
        pairs = sorted(set().union(*(s.grades for s in sources)))
        number = {p: i for i, p in enumerate(pairs)}
        queries: dict[str, int] = {}
        self.query = np.fromiter((queries.setdefault(q, len(queries)) for q, _ in pairs),
                                 np.int64, len(pairs))
        self.ids: list[np.ndarray] = []
        self.grades: list[np.ndarray] = []
        for s in sources:
            ids = np.fromiter(map(number.__getitem__, s.grades), np.int64, len(s.grades))
            grades = np.fromiter(s.grades.values(), np.int64, len(s.grades))
            order = np.argsort(ids)
            self.ids.append(ids[order])
            self.grades.append(grades[order])

    def shared(self, i: int, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pairs both judged, i's grades on them, j's) in sorted pair order."""
        common, at_i, at_j = np.intersect1d(self.ids[i], self.ids[j], assume_unique=True,
                                            return_indices=True)
        return common, self.grades[i][at_i], self.grades[j][at_j]


def _binary_confusions(counts: np.ndarray, level: int) -> np.ndarray:
    """(r, K, K) counts on the scale 0..K-1 -> (r, 2, 2) counts of grade >= level."""
    k = counts.shape[-1]
    # each cell (row * K + column) -> its binary cell
    cells = np.array([(c // k >= level) * 2 + (c % k >= level) for c in range(k * k)])
    flat = counts.reshape(len(counts), k * k)
    out = np.zeros((len(counts), 4), np.int64)
    for cell in range(4):
        out[:, cell] = flat[:, cells == cell].sum(axis=1)
    return out.reshape(len(counts), 2, 2)


def _pair_report(a: LabelSource, b: LabelSource, queries: int, ga: np.ndarray,
                 gb: np.ndarray, level: int, resampled: np.ndarray,
                 scale: Sequence[int] = SCALE) -> dict[str, Any]:
    """One pair's entry: ``ga``/``gb`` the grades on the shared pairs in sorted order,
    ``resampled`` their bootstrap confusion matrices (:func:`bootstrap_confusions`); the
    kappas' linear and quadratic weights are distances on ``scale``."""
    n, k = len(ga), len(scale)
    conf = np.bincount(ga * k + gb, minlength=k * k).reshape(k, k)
    bin_conf = _binary_confusions(conf[None], level)[0]
    values = {w: kappa_from_confusion(conf, w) for w in ("unweighted", "linear", "quadratic")}
    values["binary"] = kappa_from_confusion(bin_conf)
    cis = {w: kappa_interval(bootstrap_kappas(resampled, weights_matrix(k, w)))
           for w in ("unweighted", "linear", "quadratic")}
    cis["binary"] = kappa_interval(bootstrap_kappas(_binary_confusions(resampled, level),
                                                    weights_matrix(2, "unweighted")))
    one_sided = {side: [s.name for s, grades in ((a, ga), (b, gb))
                        if bool(((grades >= level) == side).all())] for side in (True, False)}
    notes = [f"binary kappa cannot show agreement: {' and '.join(names)} graded every shared "
             f"pair {'>=' if side else '<'} {level}" for side, names in one_sided.items() if names]
    return {
        "a": a.name, "b": b.name, "shared": n,
        "queries": queries,
        "raw_agreement": float(np.trace(conf) / n),
        "binary_agreement": int(np.trace(bin_conf)) / n,
        "kappa": values,
        "kappa_ci": {w: (None if ci is None else {"low": ci[0], "high": ci[1]})
                     for w, ci in cis.items()},
        "confusion": {"rows": a.name, "columns": b.name, "labels": list(scale),
                      "counts": conf.tolist()},
        "notes": notes,
    }


def _all_pairs(sources: Sequence[LabelSource], judged: _Judged, level: int, resamples: int,
               seed: int, scale: Sequence[int] = SCALE) -> list[dict[str, Any]]:
    """Every pair of sources sharing judged pairs, in ``combinations`` order; the bootstrap
    of all of them at once (pairs sharing as many items share the draws), with a progress
    bar on a terminal."""
    from poolkit.progress import Progress

    shared = []
    for (i, a), (j, b) in combinations(enumerate(sources), 2):
        common, ga, gb = judged.shared(i, j)
        if len(common):
            queries = len(np.unique(judged.query[common]))
            shared.append((a, b, queries, ga, gb))
    with Progress(resamples * len(shared), "agreement", "resamples") as bar:
        k = len(scale)
        resampled = bootstrap_confusions([ga * k + gb for _a, _b, _q, ga, gb in shared], k,
                                         resamples, seed, bar.update)
    return [_pair_report(a, b, q, ga, gb, level, r, scale)
            for (a, b, q, ga, gb), r in zip(shared, resampled)]


def pair_agreement(a: LabelSource, b: LabelSource, level: int = 1, resamples: int = RESAMPLES,
                   seed: int = SEED) -> dict[str, Any] | None:
    """Agreement of two sources on the pairs both judged; None when they share none."""
    pairs = _all_pairs([a, b], _Judged([a, b]), level, resamples, seed)
    return pairs[0] if pairs else None


def alpha_across(sources: Sequence[LabelSource], level_of_measurement: str = "ordinal",
                 judged: _Judged | None = None, scale: Sequence[int] = SCALE,
                 ) -> dict[str, Any]:
    """Krippendorff's alpha over every pair judged by at least two sources."""
    judged = judged or _Judged(sources)
    times = np.bincount(np.concatenate([np.zeros(0, np.int64), *judged.ids]),
                        minlength=len(judged.query))
    units = np.flatnonzero(times >= 2)  # in sorted pair order
    out: dict[str, Any] = {"metric": level_of_measurement, "units": len(units),
                           "sources": len(sources), "value": math.nan}
    if len(units):
        matrix = np.full((len(sources), len(units)), np.nan)
        column = np.full(len(judged.query), -1, np.int64)
        column[units] = np.arange(len(units))
        for i, (ids, grades) in enumerate(zip(judged.ids, judged.grades)):
            j = column[ids]
            kept = j >= 0
            matrix[i, j[kept]] = grades[kept]
        out["value"] = krippendorff_alpha(matrix, level_of_measurement, domain=scale)
    return out


def default_reference(sources: Sequence[LabelSource]) -> str | None:
    """The reference when none is named: the only human assessor among the sources, if there
    is exactly one (imported labels and label files are not human assessors)."""
    humans = [s.name for s in sources if s.kind == "assessor"]
    return humans[0] if len(humans) == 1 else None


def agreement(sources: Sequence[LabelSource], *, level: int = 1, reference: str | None = None,
              reference_default: bool = False, threshold: float = THRESHOLD,
              flag_on: str = "unweighted", resamples: int = RESAMPLES, seed: int = SEED,
              scale: Sequence[int] = SCALE) -> AgreementReport:
    """The agreement report (JSON-ready): sources, overlapping pairs, alpha, noisy flags;
    weighted kappas and alpha on ``scale`` (the collection's grades: 0-3 by default).

    ``reference_default``: the reference was chosen by :func:`default_reference`, not named.
    """
    names = [s.name for s in sources]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise PoolkitError(f"two label sources are both named {dup[0]!r}; name them apart "
                           f"(--qrels NAME=PATH)")
    if reference is not None and reference not in names:
        raise PoolkitError(one_of(reference, names, "reference source"))
    if flag_on not in KAPPAS:
        raise PoolkitError(one_of(flag_on, KAPPAS, "kappa"))
    judged = _Judged(sources)
    pairs = _all_pairs(sources, judged, level, resamples, seed, scale)
    noisy: list[str] = []
    undecided: list[str] = []
    against: dict[str, float] = {}
    verdicts: dict[str, str] = {}
    if reference is not None:
        for r in pairs:
            if reference in (r["a"], r["b"]):
                other = r["b"] if r["a"] == reference else r["a"]
                against[other] = r["kappa"][flag_on]
                verdicts[other] = verdict(r["kappa_ci"][flag_on], threshold)
                if verdicts[other] == "too noisy":
                    noisy.append(other)
                elif verdicts[other] == "undecided":
                    undecided.append(other)
    return AgreementReport(
        machines=machine_agreement(sources, pairs, threshold, scale),
        scale=list(scale), level=level,
        sources=[{"name": s.name, "kind": s.kind, "judged": len(s.grades),
                  "queries": len(np.unique(judged.query[ids])), "unjudged": s.unjudged,
                  **s.origin} for s, ids in zip(sources, judged.ids)],
        pairs=pairs,
        alpha=alpha_across(sources, judged=judged, scale=scale),
        reference=reference,
        reference_default=reference is not None and reference_default,
        flag={"kappa": flag_on, "threshold": threshold, "against_reference": against,
              "verdicts": verdicts, "noisy": noisy, "undecided": undecided},
        bootstrap={"resamples": resamples, "seed": seed, "level": 0.95},
    )


def machine_agreement(sources: Sequence[LabelSource], pairs: Sequence[Mapping[str, Any]],
                      threshold: float, scale: Sequence[int] = SCALE,
                      ) -> list[dict[str, Any]] | None:
    """Each machine judge version against each other source it shares pairs with (see the
    module docstring); None when no source is a machine's."""
    machines = [s for s in sources if s.kind == "machine"]
    if not machines:
        return None
    entries = {(r["a"], r["b"]): r for r in pairs}
    out = []
    for m in machines:
        for h in sources:
            r = entries.get((m.name, h.name)) or entries.get((h.name, m.name))
            if h.kind == "machine" or r is None:
                continue
            counts = np.array(r["confusion"]["counts"])
            if r["a"] == m.name:
                counts = counts.T  # rows: the human's grade
            out.append({
                "source": m.name, "judge": m.origin.get("judge", m.name),
                "version": m.origin.get("version"), "against": h.name, "against_kind": h.kind,
                "shared": r["shared"], "raw_agreement": r["raw_agreement"],
                "kappa": r["kappa"], "kappa_ci": r["kappa_ci"],
                "verdict": {w: verdict(ci, threshold) for w, ci in r["kappa_ci"].items()},
                "confusion": {"rows": h.name, "columns": m.name, "labels": list(scale),
                              "counts": counts.tolist()},
                "mean_difference": mean_difference(counts, scale)})
    return out


def mean_difference(counts: np.ndarray, scale: Sequence[int] = SCALE,
                    ) -> dict[str, float | None]:
    """Per human grade g (the rows of ``counts``): the mean of (machine grade - g) over the
    pairs the human graded g; None where the human never gave g."""
    grades = np.array(scale)
    out: dict[str, float | None] = {}
    for g, row in zip(scale, counts):
        n = int(row.sum())
        out[str(g)] = None if not n else float((row * (grades - g)).sum() / n)
    return out


def verdict(interval: Mapping[str, float] | None, threshold: float) -> str:
    """What a kappa's bootstrap interval says against the threshold: "ok" when even its
    lower bound reaches it, "too noisy" when even its upper bound falls short, otherwise
    "undecided" (too few shared pairs to tell). A point estimate alone would call 17 pairs
    with kappa in [-0.14, 0.22] too noisy, and as readily call a lucky 5 pairs fine."""
    if interval is None:
        return "undecided"
    low, high = interval["low"], interval["high"]
    if math.isnan(low) or math.isnan(high):
        return "undecided"
    if low >= threshold:
        return "ok"
    if high < threshold:
        return "too noisy"
    return "undecided"


def machine_sources(store: Any, versions: Sequence[Any], taken: Collection[str] = (),
                    scale: Sequence[int] = SCALE) -> list[LabelSource]:
    """Machine judge versions (``policies.MachineVersion``) as sources of kind ``machine``,
    each named by its judge when the judge has one version here (and no other source has
    that name), else ``JUDGE@VERSION``."""
    per_judge = Counter(v.judge for v in versions)
    return [LabelSource.from_grades(
        v.judge if per_judge[v.judge] == 1 and v.judge not in taken else v.label, v.grades,
        "machine", {"store": str(store.path), "judge": v.judge, "version": v.version}, scale)
        for v in versions]


def store_sources(store: Any, assessors: Sequence[str] | None = None,
                  scale: Sequence[int] = SCALE) -> list[LabelSource]:
    """Each assessor's standing grades in a judging store (every pool version) as a source.

    Adjudications are left out: an adjudicator resolving disagreements is not an
    independent assessor, and counting them would inflate agreement.
    """
    from poolkit.store.judging import VOTE_KINDS  # an assessor's own grades, not adjudications

    # The live events (not undone) in id order: the last one of an (assessor, pair) is its
    # standing grade (Store.current_grades's rule, in SQL: no Event object per row).
    standing: dict[str, dict[Pair, tuple[int, bool]]] = {}
    for _id, kind, grade, qid, docid, assessor in store.live_marks(VOTE_KINDS):
        standing.setdefault(assessor, {})[(qid, docid)] = (grade, kind != "import")
    by = {a: {p: g for p, (g, _own) in marks.items()} for a, marks in standing.items()}
    # assessors with a standing grade of their own, not imported
    graded = {a for a, marks in standing.items() if any(own for _g, own in marks.values())}
    del standing
    names = sorted(by)
    if assessors is not None:
        names = check_assessors(assessors, names, f"{store.path}", PoolkitError)
    return [LabelSource.from_grades(n, by[n], "assessor" if n in graded else "import",
                                    {"store": str(store.path)}, scale) for n in names]


def file_source(name: str, qrels: Any, scale: Sequence[int] = SCALE) -> LabelSource:
    """A label file (``Qrels``) as a source; a grade above the scale (the collection's, 0-3
    without a config) names its file and line."""
    grades = {(q, d): g for q, docs in qrels.grades.items() for d, g in docs.items()}
    fixed = "fixed " if scale == SCALE else ""
    for (q, d), g in grades.items():
        if g > scale[-1]:
            raise InputError(qrels.path, qrels.source_lines.get((q, d)),
                             f"grade {g} for query {q!r} doc {d!r}: agreement uses the {fixed}"
                             f"{scale[0]}-{scale[-1]} scale (negative grades count as unjudged)")
    return LabelSource.from_grades(name, grades, "file",
                                   {"path": qrels.path, "sha256": qrels.sha256}, scale)
