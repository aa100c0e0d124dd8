"""``compare``: every run re-scored under two label sets, and what each run brought.

Store form: the labels as of two pool versions of a config's judging store, the runs its
systems' run files (or the files named), and each system's contribution read off the pool's
provenance. File form: two label files and the runs; a run's new documents are the labels new
in its top ``depth``, and which runs were pooled is what the request says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poolkit.analysis.compare import compare, label_contributions, store_contributions
from poolkit.analysis.inputs import read_runs, resolve_run_name
from poolkit.analysis.reports import DEFAULT_MEASURES, CompareReport
from poolkit.app.inputs import config_and_runs
from poolkit.errors import PoolkitError
from poolkit.io.run import Run
from poolkit.policies import DEFAULT_POLICY, Labels
from poolkit.score.evaluate import require_scorable
from poolkit.score.measures import Measure, parse_measures
from poolkit.score.significance import TestOptions


@dataclass(frozen=True)
class CompareRequest:
    """What to compare (see the module docstring for the two forms).

    ``inputs``: store form, CONFIG then optional RUN files; file form, the RUN files.
    ``before``/``after``: pool versions (default: the latest and the one before it);
    ``before_qrels``/``after_qrels``: label files (the file form). ``pooled_before``/
    ``pooled_after``: file form, the runs each label set was pooled from (None: unknown).
    ``level``: None for the config's ``judge.relevance_level`` (1 in the file form).
    """

    inputs: Sequence[str] = ()
    measures: Sequence[Measure] = ()
    before: int | None = None
    after: int | None = None
    before_qrels: str | None = None
    after_qrels: str | None = None
    depth: int = 10
    pooled_before: Sequence[str] | None = None
    pooled_after: Sequence[str] | None = None
    level: int | None = None
    order: str = "score"
    qrels_format: str | None = None
    run_format: str | None = None
    policy: str = DEFAULT_POLICY
    assessors: Sequence[str] | None = None
    condensed: bool = True
    tests: TestOptions | None = None
    #: store form: machine judges whose grades fill pairs no person graded (``NAME[@V]``)
    machines: Sequence[str] = ()


def compare_labels(request: CompareRequest) -> CompareReport:
    """The comparison report of ``request``'s runs under its two label sets."""
    r = request
    measures = list(r.measures) or parse_measures(list(DEFAULT_MEASURES))
    files_form = r.before_qrels is not None or r.after_qrels is not None
    if files_form and (r.before_qrels is None or r.after_qrels is None):
        raise PoolkitError("the file form needs both --before-qrels and --after-qrels")
    if files_form and (r.before is not None or r.after is not None):
        raise PoolkitError("--before/--after name pool versions (store form); with label files "
                           "use --before-qrels/--after-qrels only")
    if r.depth < 1:
        raise PoolkitError(f"--depth must be a positive integer, got {r.depth}")
    if files_form and r.machines:
        raise PoolkitError("--with-machine names a machine judge of a store (store form); "
                           "label files are taken as they are")
    if not files_form and (r.pooled_before or r.pooled_after):
        raise PoolkitError("--pooled-before/--pooled-after are for the file form; the store "
                           "knows which systems were pooled")
    chosen, paths = config_and_runs(r.inputs, files_form)
    if chosen is None:
        assert r.before_qrels is not None and r.after_qrels is not None
        if not paths:
            raise PoolkitError("the file form needs at least one RUN file")
        level = 1 if r.level is None else r.level
        before = Labels.from_file(r.before_qrels, r.qrels_format)
        after = Labels.from_file(r.after_qrels, r.qrels_format)
        require_scorable(after.qrels, level)
        runs = read_runs(paths, r.order, r.run_format)
        contributions = label_contributions(
            before.qrels, after.qrels, runs, r.depth, level,
            _pooled(r.pooled_before, runs), _pooled(r.pooled_after, runs))
    else:
        level = chosen.config.judge.relevance_level if r.level is None else r.level
        with chosen as collection:
            machines = collection.machines(r.machines)
            v_after = collection.version(r.after)
            if r.before is not None:
                collection.version(r.before)
            v_before = r.before if r.before is not None else v_after - 1
            if v_before >= v_after:
                raise PoolkitError(f"--before {v_before} must be an earlier pool version than "
                                   f"--after {v_after}")
            if v_before < 1:
                raise PoolkitError(f"pool version {v_after} has no earlier version to compare "
                                   f"with; expand the pool (`poolkit pool` with a deeper depth "
                                   f"or another system) first")
            before = collection.labels(v_before, r.policy, r.assessors, machines)
            after = collection.labels(v_after, r.policy, r.assessors, machines)
            runs = collection.runs(paths, r.order, r.run_format)
            contributions = store_contributions(collection.provenance(v_after), v_before,
                                                after.qrels, level)
        require_scorable(after.qrels, level)
    return compare(before, after, runs, measures, level=level, condensed=r.condensed,
                   contributions=contributions, tests=r.tests)


def _pooled(names: Sequence[str] | None, runs: dict[str, Run]) -> set[str] | None:
    """The runs a label set was pooled from, each one of ``runs`` (None: unknown)."""
    if names is None:
        return None
    return {resolve_run_name(n, runs, "--pooled-before/--pooled-after") for n in names}
