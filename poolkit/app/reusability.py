"""``reusability``: leave-one-run-out and leave-one-group-out tests of a pool.

Store form: the labels and the pool's provenance from a config's judging store as of a pool
version (default: the latest); the runs are its systems' run files (or the files named). File
form: one label file and the runs; the pool is rebuilt as the union of every run's top
``depth``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poolkit.analysis.inputs import groups_of, read_runs
from poolkit.analysis.reports import DEFAULT_MEASURES, WARN_UNIQUE, ReusabilityReport
from poolkit.analysis.reusability import reusability
from poolkit.app.inputs import config_and_runs
from poolkit.errors import PoolkitError
from poolkit.io.provenance import PoolProvenance
from poolkit.policies import DEFAULT_POLICY, Labels
from poolkit.score.measures import Measure, parse_measures


@dataclass(frozen=True)
class ReusabilityRequest:
    """What to test (see the module docstring for the two forms).

    ``inputs``: store form, CONFIG then optional RUN files; file form (``qrels`` given), the
    RUN files. ``version``: store form, the pool version (None: the latest). ``groups``:
    ``GROUP=RUN,RUN`` texts, over the config's ``group:`` of its systems. ``level``: None for
    the config's ``judge.relevance_level`` (1 in the file form).
    """

    inputs: Sequence[str] = ()
    measures: Sequence[Measure] = ()
    version: int | None = None
    qrels: str | None = None
    depth: int = 10
    groups: Sequence[str] = ()
    warn_unique: float = WARN_UNIQUE
    level: int | None = None
    order: str = "score"
    qrels_format: str | None = None
    run_format: str | None = None
    policy: str = DEFAULT_POLICY
    assessors: Sequence[str] | None = None
    #: store form: machine judges whose grades fill pairs no person graded (``NAME[@V]``)
    machines: Sequence[str] = ()


def pool_reusability(request: ReusabilityRequest) -> ReusabilityReport:
    """The reusability report of ``request``'s pool and runs."""
    r = request
    measures = list(r.measures) or parse_measures(list(DEFAULT_MEASURES))
    files_form = r.qrels is not None
    if files_form and r.version is not None:
        raise PoolkitError("--version names a pool version (store form); not with --qrels")
    if r.depth < 1:
        raise PoolkitError(f"--depth must be a positive integer, got {r.depth}")
    if files_form and r.machines:
        raise PoolkitError("--with-machine names a machine judge of a store (store form); "
                           "a label file is taken as it is")
    chosen, paths = config_and_runs(r.inputs, files_form)
    if chosen is None:
        assert r.qrels is not None
        if not paths:
            raise PoolkitError("the file form needs at least one RUN file")
        level = 1 if r.level is None else r.level
        labels = Labels.from_file(r.qrels, r.qrels_format)
        runs = read_runs(paths, r.order, r.run_format)
        pool = PoolProvenance.from_runs(runs, r.depth)
        basis = f"union of every run's top {r.depth}"
    else:
        level = chosen.config.judge.relevance_level if r.level is None else r.level
        with chosen as collection:
            version = collection.version(r.version)
            labels = collection.labels(version, r.policy, r.assessors, r.machines)
            runs = collection.runs(paths, r.order, r.run_format)
            pool = collection.provenance(version)
            basis = f"pool provenance up to version {version}"
    groups = groups_of(chosen.config if chosen else None, r.groups, runs)
    return reusability(labels, runs, pool, measures, level=level, groups=groups or None,
                       warn_unique=r.warn_unique, basis=basis)
