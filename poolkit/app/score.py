"""The score verb: runs against labels, each mean with its interval and its audit.

``score_runs(ScoreRequest(qrels, runs, ...))`` reads the labels and the runs, scores every run
(measures, intervals, audit; stage and truth tables when asked), checks the ``fail_on``
conditions, runs the paired tests between the runs (two or more), draws the difference plot
when asked, and returns the :class:`~poolkit.score.report.ScoreReport`. ``poolkit score``
is this verb behind its options; its flags name the request's fields, and the messages of a
bad request name the flags.

Everything that can be checked without reading a file is checked first, in a fixed order
(cutoffs, measures, fail-on conditions, stages, numbers, tests, plot), so one bad request
always gets the same message. Runs are read on threads while the one before is scored
(``jobs``), with the cyclic garbage collector paused (:func:`collector_paused`); the report is
the same for any ``jobs``.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from poolkit.errors import PoolkitError, one_of
from poolkit.io import RUN_ORDERS, Qrels, Run, read_any_run, read_labels
from poolkit.io.run_names import resolve_run_name
from poolkit.io.sample import PoolSample, read_sample
from poolkit.progress import Progress
from poolkit.score.audit import (
    Audit,
    FailCondition,
    audit_measures,
    audit_run,
    check_fail_on,
    coverage_warnings,
    parse_fail_on,
    truth_table,
)
from poolkit.score.document import RunInfo, RunResult, Settings, distinct_names
from poolkit.score.evaluate import evaluate, require_scorable
from poolkit.score.intervals import intervals
from poolkit.score.measures import GAINS, MEASURES, Measure, parse_measure, split_measures
from poolkit.score.report import ScoreReport
from poolkit.score.sample_check import check_sample
from poolkit.score.significance import (
    ALPHA,
    DEFAULT_CORRECTION,
    DEFAULT_TEST,
    PairedTests,
    TestOptions,
    pairwise_tests,
)
from poolkit.score.stages import compare_stages
from poolkit.threads import default_jobs, ordered_imap

#: the cutoff K of the default measures and the audit when neither measures nor K say one
DEFAULT_K = 10
#: the measure families reported at every K when no measure is asked for (the RAG set)
DEFAULT_FAMILIES = ("P", "R", "Hit", "RR", "AP", "nDCG")

PathLike = str | Path


@dataclass(frozen=True)
class ScoreRequest:
    """What to score and how; every field but the first two has ``poolkit score``'s default.

    ``measures`` are ir_measures spellings (``"nDCG@10"``, ``"P"``, ``"AP@K"``; empty: the
    default families at every K); ``cutoffs`` the K of the default measures and the audit
    (empty: those of the measures, else 10). ``stages`` is ``(fetch_k, keep_k)`` or its
    spelling ``"100,10"``; ``fail_on`` the condition spellings (``"rel-lt-k"``,
    ``"unjudged>0.1"``). ``prepare_format`` is the format the caller will render: with
    ``jobs`` > 1 each run's part of it is built on the thread that scored the run.

    Labels and runs are files (any accepted format) or objects already in memory
    (``Qrels.from_mapping``, ``Run.from_mapping``).
    """

    qrels: PathLike | Qrels
    runs: Sequence[PathLike | Run]
    measures: Sequence[str] = ()
    cutoffs: Sequence[int] = ()
    level: int = 1
    order: str = "score"
    depth: int | None = None
    gain: str = "linear"
    corpus_size: int | None = None
    corpus: PathLike | None = None
    truth: PathLike | Qrels | None = None
    fetch: Sequence[PathLike | Run] = ()
    stages: tuple[int, int] | str | None = None
    sample: PathLike | None = None
    fail_on: Sequence[str] = ()
    qrels_format: str | None = None
    run_format: str | None = None
    jobs: int | None = None
    test: str = DEFAULT_TEST
    alpha: float = ALPHA
    correction: str = DEFAULT_CORRECTION
    plot: PathLike | None = None
    plot_pair: str | None = None
    plot_measure: str | None = None
    prepare_format: str = "table"
    #: the model family of the machine judge that made the labels: runs of that family
    #: (their provenance's) are marked (``score.circularity``)
    judge_family: str | None = None


@dataclass(frozen=True)
class _Checked:
    """A request's parts, parsed and checked before any file is read."""

    shown: list[Measure]
    ks: list[int]
    conditions: list[FailCondition]
    stages: tuple[int, int] | None
    runs: list[PathLike | Run]
    fetch: list[PathLike | Run]
    options: TestOptions
    corpus_size: int | None
    corpus_ids: frozenset[str] | None = None  # --corpus's ids (with --corpus-size: unknown)


def score_runs(request: ScoreRequest) -> ScoreReport:
    """Score every run of ``request`` against its labels (see the module doc)."""
    r, c = request, check(request)
    with collector_paused() as settle:
        qrels = _labels(r.qrels, r.qrels_format)
        require_scorable(qrels, r.level)
        truth = (_labels(r.truth, r.qrels_format)
                 if isinstance(r.truth, Qrels) or r.truth else None)
        fetches = [_run(path, r.order, r.run_format) for path in c.fetch]
        sample = read_sample(r.sample) if r.sample else None
        settings = Settings(ks=c.ks, level=r.level, order=r.order, depth=r.depth, gain=r.gain,
                            corpus_size=c.corpus_size, corpus_ids=c.corpus_ids)
        jobs = r.jobs or default_jobs(len(c.runs))

        def read_file(i: int) -> Run:
            return _run(c.runs[i], r.order, r.run_format)

        def score_file(i: int, run: Run, bar: Progress) -> RunResult:
            result = score_run(qrels, run, c.shown, settings, truth=truth,
                               fetch=fetches[i if len(fetches) > 1 else 0] if fetches else None,
                               stages=c.stages, sample=sample, progress=bar.update)
            if jobs > 1:
                # the run's part of the report (pure Python), built now while the next runs
                # are read (NumPy, GIL released) rather than for every run at the end; with
                # one job nothing overlaps it, and every part would be held meanwhile
                ScoreReport.prepare_run(result, r.prepare_format)
            settle()  # collect this run's cycles once, keep the rest out of later scans
            return result

        settle()  # the labels: built once, kept out of every later scan
        # The bar counts queries scored (every run scores each judged-relevant query of the
        # labels), so one run against a million queries shows how far it is.
        scored = sum(1 for docs in qrels.grades.values() if any(g >= r.level
                                                                 for g in docs.values()))
        with Progress(len(c.runs) * scored, "scoring", "queries") as bar:
            # A pipeline: each run is scored on this thread while the next jobs - 1 are
            # read on others. Reading is NumPy (its blocks parse on every CPU), scoring
            # mostly Python under the GIL: two runs scored at once would only take turns.
            results = []
            for i, run in enumerate(ordered_imap(read_file, range(len(c.runs)), jobs,
                                                 ahead=jobs)):
                results.append(score_file(i, run, bar))
                del run  # its rows go once scored (``Evaluation.let_rows_go``)
        failures = check_fail_on(c.conditions, [(res.run.name, res.audit) for res in results])
        tests = run_tests(results, c.shown, c.options, jobs) if len(results) > 1 else None
        if r.plot and tests is not None:
            plot_pair(r, results, c.shown, tests)
        marks = _circular(qrels, results, r.judge_family)
        return ScoreReport.build(settings, qrels, results, truth=truth, circular=marks,
                                 conditions=[cond.text for cond in c.conditions],
                                 failures=failures, tests=tests,
                                 notes=coverage_warnings(qrels, c.corpus_size, c.corpus_ids,
                                                         r.corpus),
                                 sample=check_sample(qrels.grades, sample) if sample else None)


def _circular(qrels: Qrels, results: Sequence[RunResult],
              judge_family: str | None) -> list[dict[str, Any]] | None:
    """The runs of the labels' judge's family (None: no ``--judge-family`` given); the judge
    as the labels' ``JUDGE@VERSION`` marks name it."""
    from poolkit.score.circularity import circular_runs, family_beside

    if not judge_family:
        return None
    judge = ", ".join(sorted(set(qrels.machine.values()))) or "of family " + judge_family
    return circular_runs(judge, judge_family, {
        name: family_beside(res.run.path) for name, res in zip(run_names(results), results)})


def check(request: ScoreRequest) -> _Checked:
    """Every check that needs no file read, in the order ``poolkit score`` always made them
    (so one bad request always gets the same one-line message); the corpus is counted."""
    r = request
    cutoffs = list(r.cutoffs)
    if any(k < 1 for k in cutoffs):
        raise PoolkitError(f"-k {','.join(map(str, cutoffs))}: cutoffs must be positive")
    shown, ks = resolve_measures(_listed(r.measures), cutoffs, r.gain)
    conditions = parse_fail_on(_listed(r.fail_on))
    stages = _stages(r.stages)
    require_positive(r.level, "--level")
    require_positive(r.depth, "--depth")
    require_positive(r.corpus_size, "--corpus-size")
    require_positive(r.jobs, "--jobs")
    if r.order not in RUN_ORDERS:
        raise PoolkitError(one_of(r.order, RUN_ORDERS, "run order"))
    runs: list[PathLike | Run] = _listed(r.runs)
    fetch: list[PathLike | Run] = _listed(r.fetch)
    if not runs:
        raise PoolkitError("no run to score: give one RUN or more")
    if fetch and len(fetch) not in (1, len(runs)):
        raise PoolkitError(f"--fetch given {len(fetch)} times for {len(runs)} runs: "
                           f"give it once (for every run) or once per run")
    options = TestOptions(test=r.test, alpha=r.alpha, correction=r.correction)
    if r.plot and len(runs) < 2:
        raise PoolkitError("--plot draws the differences between two runs: give two RUNs or "
                           "more")
    if r.plot:
        from poolkit.io.atomic import check_outputs

        check_outputs({"--plot": r.plot}, {
            "the qrels": _path(r.qrels), "--truth": _path(r.truth), "--corpus": r.corpus,
            "--sample": r.sample, **{f"the run {p}": p for p in map(_path, runs + fetch) if p}})
    ids = corpus_ids(r.corpus) if r.corpus else None
    size = len(ids) if ids is not None else r.corpus_size
    if size is None and any(cond.rule.name == "coverage" for cond in conditions):
        raise PoolkitError("--fail-on coverage<X needs the corpus size: give --corpus-size N "
                           "or --corpus corpus.jsonl")
    return _Checked(shown, ks, conditions, stages, runs, fetch, options, size, ids)


# --- the request's parts -------------------------------------------------------------------

def parse_cutoffs(values: Sequence[str]) -> list[int]:
    """Cutoffs from ``-k`` values (repeatable, each may be comma separated), in first-seen
    order without repeats."""
    ks: list[int] = []
    for value in values:
        if not value.replace(",", "").strip():  # `-k ,` would silently mean the default K
            raise PoolkitError(f"-k {value!r}: no cutoff given (e.g. -k 5,10)")
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            try:
                k = int(part)
            except ValueError:
                raise PoolkitError(f"-k {value!r}: {part!r} is not an integer") from None
            if k < 1:
                raise PoolkitError(f"-k {value!r}: cutoffs must be positive")
            if k not in ks:
                ks.append(k)
    return ks


def _needs_cutoff(text: str) -> bool:
    try:
        fam = parse_measure(f"{text}@1").family
    except PoolkitError:
        return False
    return MEASURES[fam].cutoff == "required"


def resolve_measures(texts: Sequence[str], ks_arg: Sequence[int],
                     gain: str = "linear") -> tuple[list[Measure], list[int]]:
    """The measures to report and the cutoffs K of the audit.

    K: ``ks_arg`` when given, else the cutoffs of the measures, else 10. A measure written
    ``NAME@K``, or a family that needs a cutoff written without one (``P``), is taken at every
    K. ``gain='exp'`` switches every nDCG to 2^grade - 1.
    """
    if gain not in GAINS:
        raise PoolkitError(one_of(gain, GAINS, "nDCG gain"))
    parts = split_measures(texts)
    literal: list[Measure] = []
    pending: list[str] = []
    for part in parts:
        if part.endswith(("@K", "@k")):
            pending.append(part[:-2])
            continue
        try:
            literal.append(parse_measure(part))
        except PoolkitError:
            if not _needs_cutoff(part):
                raise
            pending.append(part)
    ks = list(ks_arg) or sorted({m.cutoff for m in literal if m.cutoff is not None}) \
        or [DEFAULT_K]
    if not parts:
        pending = list(DEFAULT_FAMILIES)
    measures = list(literal)
    measures += [parse_measure(f"{base}@{k}") for k in ks for base in pending]
    if gain != "linear":
        measures = [replace(m, gain=gain) if m.family == "nDCG" else m for m in measures]
    return list(dict.fromkeys(measures)), ks


def _listed(items: Any) -> list[Any]:
    """A request's sequence field as a list; one string, path or run alone is a list of one."""
    return [items] if isinstance(items, (str, Path, Run)) else list(items)


def _path(source: PathLike | Qrels | Run | None) -> PathLike | None:
    """The file of a request's labels or run, None for one in memory."""
    return None if source is None or isinstance(source, (Qrels, Run)) else source


def _labels(source: PathLike | Qrels, fmt: str | None) -> Qrels:
    return source if isinstance(source, Qrels) else read_labels(source, fmt)


def _run(source: PathLike | Run, order: str, fmt: str | None) -> Run:
    return source if isinstance(source, Run) else read_any_run(source, order, fmt)


def _stages(stages: tuple[int, int] | str | None) -> tuple[int, int] | None:
    """(fetch_k, keep_k) from the pair or its ``"FETCH_K,KEEP_K"`` spelling, checked."""
    if stages is None:
        return None
    return parse_stages(stages if isinstance(stages, str) else ",".join(map(str, stages)))


def parse_stages(text: str) -> tuple[int, int]:
    """'FETCH_K,KEEP_K' -> (fetch_k, keep_k); the fetch depth must be at least the keep depth."""
    parts = [p.strip() for p in text.split(",")]
    try:
        fetch_k, keep_k = (int(p) for p in parts)
    except ValueError:
        raise PoolkitError(f"--stages {text!r}: expected FETCH_K,KEEP_K, two positive "
                           f"integers such as 100,10") from None
    if fetch_k < 1 or keep_k < 1:
        raise PoolkitError(f"--stages {text!r}: depths must be positive")
    if fetch_k < keep_k:
        raise PoolkitError(f"--stages {text!r}: the fetch depth {fetch_k} is below the keep "
                           f"depth {keep_k}; write FETCH_K,KEEP_K")
    return fetch_k, keep_k


def corpus_size(path: PathLike) -> int:
    """Documents in a corpus JSONL, read by the same reader ``poolkit pool`` uses."""
    return len(corpus_ids(path))


def corpus_ids(path: PathLike) -> frozenset[str]:
    """The doc ids of a corpus JSONL (``--corpus``): label coverage counts the judged ids
    among them."""
    from poolkit.io.corpus import read_corpus  # light, but only needed with a corpus

    return frozenset(read_corpus(path).index)


def require_positive(value: int | None, flag: str) -> None:
    """One line naming the option when ``value`` is given and below 1."""
    if value is not None and value < 1:
        raise PoolkitError(f"{flag} must be a positive integer, got {value}")


# --- the pipeline ----------------------------------------------------------------------------

@contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """Pause Python's cyclic garbage collector while runs are read and scored; yield a
    ``settle`` function to call once each big piece (the labels, each run's result) is
    complete: it collects the cycles made since the last call (one pass over that piece
    alone) and then freezes what survives (``gc.freeze``) out of every later pass. What the
    caller had built before the block is frozen at its start, uncollected: in a process
    that holds much (a notebook with a model loaded, a test session) each settle otherwise
    walks all of it: a test file that scores 70 times spent 29 of its 35 CPU-s there.

    Scoring builds millions of small objects (per-query facts, audit rows), which trigger
    collections every few hundred allocations, each holding the GIL and, when full,
    rescanning everything built before: a tenth of the time of five 10,000-query runs, and
    the other threads wait. Frozen objects are still freed when their last reference goes;
    the collector and its frozen objects are given back when the block ends. Does nothing
    when the caller already manages the collector (froze objects, or disabled it)."""
    if gc.get_freeze_count() or not gc.isenabled():
        yield lambda: None
        return

    def settle() -> None:
        gc.collect()
        gc.freeze()

    gc.disable()
    gc.freeze()  # the caller's objects: out of every settle's pass, given back at the end
    try:
        yield settle
    finally:
        gc.unfreeze()
        gc.enable()


def score_run(qrels: Qrels, run: Run, shown: Sequence[Measure], settings: Settings, *,
              truth: Qrels | None = None, fetch: Run | None = None,
              stages: tuple[int, int] | None = None,
              sample: Mapping[str, PoolSample] | None = None,
              progress: Callable[[int], None] | None = None) -> RunResult:
    """Evaluate, interval, audit (and optionally stage and truth tables) for one run;
    ``progress(n)`` as n more queries are evaluated."""
    level, depth, ks = settings.level, settings.depth, settings.ks
    ev = evaluate(qrels, run, [*shown, *audit_measures(ks)], level=level, depth=depth,
                  sample=sample, progress=progress)
    cis = intervals({m.name: ev.per_query[m.name] for m in shown},
                    {m.name: m.family for m in shown}, ev.scored)
    audit: Audit = audit_run(qrels, run, ev, ks, level=level, depth=depth,
                             corpus_size=settings.corpus_size,
                             corpus_ids=settings.corpus_ids, sample=sample)
    result = RunResult(RunInfo.of(run, qrels), ev, list(shown), cis, audit)
    if fetch is not None or stages is not None:
        fetch_run = fetch or run
        if stages is None:
            longest = max((len(r) for r in fetch_run.rankings.values()), default=1)
            if depth is not None:
                longest = min(longest, depth)
            stages = (max(longest, ks[0]), ks[0])
        result.stages = compare_stages(qrels, fetch_run, run, *stages, level=level,
                                       depth=depth)
    if truth is not None:
        true_ev = evaluate(truth, run, audit_measures(ks), level=level, depth=depth)
        result.truth = truth_table(qrels, truth, ev, true_ev, ks, level)
    ev.let_rows_go()  # all is computed: N runs scored in one process hold one run at a time
    return result


def run_names(results: Sequence[RunResult]) -> list[str]:
    """Each run's name, a repeated one suffixed #2, #3 (two files named alike in two folders)."""
    return distinct_names([r.run.name for r in results])


def run_tests(results: Sequence[RunResult], shown: Sequence[Measure],
              options: TestOptions, jobs: int = 1) -> PairedTests:
    """Every pair of runs on every shown measure, over the queries both are scored on
    (the resampling on ``jobs`` threads: the same tests for any ``jobs``)."""
    scores = {name: {m.name: r.evaluation.per_query[m.name] for m in shown}
              for name, r in zip(run_names(results), results)}
    return pairwise_tests(scores, [m.name for m in shown], options, jobs)


def plot_pair(request: ScoreRequest, results: Sequence[RunResult], shown: Sequence[Measure],
              tests: PairedTests) -> None:
    """Draw ``request.plot``: one pair's per-query differences on one measure."""
    from poolkit.score.plot import have_matplotlib, plot_differences

    assert request.plot is not None
    names = run_names(results)
    pair = ([resolve_run_name(n.strip(), names, "--plot-pair")
             for n in request.plot_pair.split(",")] if request.plot_pair else names[:2])
    if len(pair) != 2 or pair[0] == pair[1]:
        raise PoolkitError(f"--plot-pair {request.plot_pair!r}: give two different run names, "
                           f"A,B")
    measure = shown[0]
    if request.plot_measure:
        measure = parse_measure(request.plot_measure)
        if measure not in shown:
            raise PoolkitError("--plot-measure: " + one_of(
                measure.name, [m.name for m in shown], "measure in the report"))
    by_name = dict(zip(names, results))
    a, b = (by_name[n].evaluation.per_query[measure.name] for n in pair)
    if not have_matplotlib():
        raise PoolkitError("--plot needs matplotlib: pip install 'poolkit[plot]'")
    if not any(q in b for q in a):
        raise PoolkitError(f"--plot: runs {pair[0]!r} and {pair[1]!r} share no scored query")
    entry = tests.find(measure.name, *pair) or tests.find(measure.name, pair[1], pair[0])
    plot_differences(request.plot, pair[0], pair[1], measure.name, a, b,
                     tests.marked_p(entry) if entry else None, tests.options.p_name)
