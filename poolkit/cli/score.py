"""``poolkit score``: score runs against labels, with intervals and the audit beside the numbers.

Imports nothing heavy (no torch, textual, sentence-transformers or scikit-learn): it must
start fast and run on the core install.
"""

from __future__ import annotations

import argparse
import gc
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from poolkit.cli.formats import add_format_options
from poolkit.cli.options import add_test_options, paired_test_options
from poolkit.errors import AuditFailure, PoolkitError
from poolkit.io import RUN_ORDERS, Qrels, Run, read_any_run, read_labels
from poolkit.io.sample import PoolSample, read_sample
from poolkit.progress import Progress, set_quiet
from poolkit.score.audit import (
    FAIL_ON,
    Audit,
    audit_measures,
    audit_run,
    check_fail_on,
    parse_fail_on,
    truth_table,
)
from poolkit.score.evaluate import evaluate, require_scorable
from poolkit.score.intervals import CONFIDENCE, RESAMPLES, SEED, intervals
from poolkit.score.measures import GAINS, MEASURES, Measure, parse_measure, split_measures
from poolkit.score.report import (
    FORMATS,
    RunInfo,
    RunResult,
    Settings,
    build_document,
    distinct_names,
)
from poolkit.score.significance import PERMUTATIONS, PairedTests, TestOptions, pairwise_tests
from poolkit.score.significance import SEED as TEST_SEED
from poolkit.score.stages import compare_stages, parse_stages
from poolkit.threads import DEFAULT_MAX_JOBS, default_jobs, ordered_imap

measure_texts = split_measures  # its old name here (moved to score.measures)

DEFAULT_K = 10
DEFAULT_FAMILIES = ("P", "R", "Hit", "RR", "AP", "nDCG")

DESCRIPTION = """\
Score one or more runs against relevance labels. Every mean comes with its interval and the
audit that makes it readable: |Rel|, the ceiling min(1, K/|Rel|) and the score's share of it,
label coverage, Judged@K, repeats (positional vs distinct hits), excluded queries and queries
with no results.

QRELS is TREC qrels, BEIR qrels (TSV with its header), golden.yaml or a JSON qrels dictionary;
each RUN is a TREC run, an MS MARCO run (qid pid rank), a JSON/JSONL run dictionary ({qid:
{docid: score}}) or a JSON/YAML ranked list (query id -> list of doc ids). Formats are told from
the content (gzip, bzip2 and xz are read through); --qrels-format/--run-format force one."""


def _entries(items: Sequence[tuple[str, str]], width: int) -> str:
    """'  name  text' lines, the text wrapped under itself so help fits 100 columns."""
    return "\n".join(textwrap.fill(text, 98, initial_indent=f"  {name:{width}s} ",
                                    subsequent_indent=" " * (width + 3))
                      for name, text in items)


def _epilog() -> str:
    fams = _entries([(name, fam.formula) for name, fam in MEASURES.items()], 7)
    fail = _entries([(r.spelling, r.help) for r in FAIL_ON.values()], 11)
    defaults = ", ".join(f"{f}@K" for f in DEFAULT_FAMILIES)
    return f"""\
measures (-m; ir_measures spelling: P@5, nDCG@10, RR, AP@100, P(rel=2)@5, nDCG(gain=exp)@10;
a name written NAME@K, or a family that needs a cutoff given without one, is taken at every K):
{fams}
  default: {defaults} for every K (default K={DEFAULT_K});
  Judged@K is always in the audit.
  Conventions: P@K divides by K; R and AP by every judged-relevant id; a repeated id keeps its
  slot and only its first occurrence scores; queries with no judged-relevant id are excluded
  from every mean and counted; a query the run lacks scores 0 and is counted (trec_eval -c).

intervals: Hit@K means get a Wilson score interval; every other mean a percentile bootstrap
  over queries ({RESAMPLES} resamples, fixed seed {SEED}), {CONFIDENCE:.0%}, reproducible run to
  run.

paired tests (two runs or more): every pair of runs on every measure, over the queries both
  are scored on: mean difference with a {CONFIDENCE:.0%} paired-bootstrap interval, p-values of the
  paired t-test, the randomization test ({PERMUTATIONS:,} sign flips, seed {TEST_SEED}; exact
  enumeration when 2^n is fewer) and Wilcoxon signed-rank, and Holm and Benjamini-Hochberg
  adjusted p-values over every pair and measure in the report. --test picks the p-value the
  table marks, --correction its adjustment, --alpha the level. --plot draws one pair's
  per-query differences (needs the plot extra: matplotlib).

--fail-on conditions (repeatable or comma separated; quote the ones with < or >):
{fail}
  A condition that holds prints the report, then exits with code {AuditFailure.exit_code}.

examples:
  poolkit score sample_corpus/golden.yaml sample_corpus/seed.run -k 5 --per-query --corpus-size 24
  poolkit score qrels.txt bm25.run dense.run -m P@10 -m nDCG@10 --format json
  poolkit score golden.yaml rerank.run --fetch bm25.run --stages 100,10
  poolkit score golden.yaml my.run --fail-on rel-lt-k,repeats --fail-on 'unjudged>0.1'
  poolkit score qrels.txt bm25.run dense.run rerank.run -m nDCG@10 --test t --correction bh
  poolkit score qrels.txt bm25.run dense.run -m nDCG@10 --plot diff.png
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score", help="score runs against qrels/golden.yaml, with intervals and the audit",
        description=DESCRIPTION, epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS", help="qrels in any accepted format")
    p.add_argument("runs", metavar="RUN", nargs="+", help="run in any accepted format")
    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   help="a measure to report (repeatable or comma separated; default: the RAG set "
                        "listed below)")
    p.add_argument("-k", "--cutoff", action="append", default=[], metavar="K,...",
                   help=f"cutoffs for the default measures and the audit (repeatable or comma "
                        f"separated; default: the cutoffs of -m, else {DEFAULT_K})")
    p.add_argument("--per-query", action="store_true",
                   help="list every query's values and audit row (JSON always has them)")
    p.add_argument("--format", choices=list(FORMATS), default="table",
                   help="output format (default: table)")
    p.add_argument("--order", choices=list(RUN_ORDERS), default="score",
                   help="how a TREC run file is ordered (default: score, trec_eval's order): "
                        + "; ".join(f"{k} = {v}" for k, v in RUN_ORDERS.items()))
    p.add_argument("--level", type=int, default=1, metavar="N",
                   help="relevance level: binary measures count grade >= N as relevant "
                        "(default: 1; like trec_eval -l)")
    p.add_argument("--depth", type=int, default=None, metavar="N",
                   help="cut every ranking to its top N before scoring (like trec_eval -M)")
    p.add_argument("--gain", choices=GAINS, default="linear",
                   help="nDCG gain: linear = the grade (default), exp = 2^grade - 1")
    cov = p.add_mutually_exclusive_group()
    cov.add_argument("--corpus-size", type=int, default=None, metavar="N",
                     help="corpus size, for label coverage (judged ids for a query / N)")
    cov.add_argument("--corpus", default=None, metavar="CORPUS.jsonl",
                     help="corpus JSONL ({id, title, text} per line, as poolkit pool reads "
                          "it); its size gives label coverage")
    p.add_argument("--truth", default=None, metavar="QRELS",
                   help="a fuller label set: per query, judged-relevant vs truly relevant "
                        "counts and R@K against each")
    p.add_argument("--fetch", action="append", default=[], metavar="RUN",
                   help="stage-1 (fetch) run paired with the RUN(s) as stage-2 (keep): recall "
                        "at each and the loss per query (once for every RUN, or once per RUN)")
    p.add_argument("--stages", default=None, metavar="FETCH_K,KEEP_K",
                   help="depths for the stage table; without --fetch, each RUN is read at both "
                        "(default with --fetch: the fetch run's full depth and the first K)")
    p.add_argument("--sample", default=None, metavar="SAMPLE",
                   help="the pool's sample design (qid docid stratum inclusion_probability, "
                        "as export --sample writes it): xinfAP, statAP and infNDCG weigh "
                        "judged pairs by it, and the audit adds R_est beside |Rel|")
    p.add_argument("--fail-on", action="append", default=[], metavar="CONDITION",
                   help="exit non-zero (3) when an audit condition holds: "
                        + ", ".join(r.spelling for r in FAIL_ON.values()))
    add_format_options(p)
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none when stderr is not a terminal)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help=f"runs held at once: one is scored while the next N-1 are read, on "
                        f"threads (default: the number of runs, at most the CPUs and "
                        f"{DEFAULT_MAX_JOBS}); each holds one run's rows, so --jobs 1 takes "
                        f"the least memory. Output is the same for any N")
    add_test_options(p)
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw one pair's per-query differences, sorted (needs matplotlib: "
                        "the plot extra)")
    p.add_argument("--plot-pair", default=None, metavar="A,B",
                   help="the pair --plot draws, by run name (default: the first two runs)")
    p.add_argument("--plot-measure", default=None, metavar="MEASURE",
                   help="the measure --plot draws (default: the first measure)")
    p.set_defaults(handler=run_score)


# --- argument resolution -----------------------------------------------------------------------

def parse_cutoffs(values: Sequence[str]) -> list[int]:
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

    K: ``-k`` when given, else the cutoffs of the ``-m`` measures, else 10. A measure written
    ``NAME@K``, or a family that needs a cutoff written without one (``P``), is taken at every
    K. ``gain='exp'`` switches every nDCG to 2^grade - 1.
    """
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


def corpus_size(path: str | Path) -> int:
    """Documents in a corpus JSONL, read by the same reader ``poolkit pool`` uses."""
    from poolkit.io.corpus import read_corpus  # light, but only needed with --corpus

    return len(read_corpus(path))


def _positive(value: int | None, flag: str) -> None:
    if value is not None and value < 1:
        raise PoolkitError(f"{flag} must be a positive integer, got {value}")


# --- the handler ---------------------------------------------------------------------------------

def run_score(args: argparse.Namespace) -> int:
    # Everything that can be checked without reading a file is checked first.
    ks_arg = parse_cutoffs(args.cutoff)
    shown, ks = resolve_measures(args.measure, ks_arg, args.gain)
    conditions = parse_fail_on(args.fail_on)
    stages = parse_stages(args.stages) if args.stages else None
    _positive(args.level, "--level")
    _positive(args.depth, "--depth")
    _positive(args.corpus_size, "--corpus-size")
    _positive(args.jobs, "--jobs")
    if args.fetch and len(args.fetch) not in (1, len(args.runs)):
        raise PoolkitError(f"--fetch given {len(args.fetch)} times for {len(args.runs)} runs: "
                           f"give it once (for every run) or once per run")
    options = paired_test_options(args)
    if args.plot and len(args.runs) < 2:
        raise PoolkitError("--plot draws the differences between two runs: give two RUNs or "
                           "more")
    if args.plot:
        from poolkit.io.atomic import check_outputs

        check_outputs({"--plot": args.plot}, {
            "the qrels": args.qrels, "--truth": args.truth, "--corpus": args.corpus,
            "--sample": args.sample, **{f"the run {r}": r for r in args.runs + args.fetch}})
    size = corpus_size(args.corpus) if args.corpus else args.corpus_size
    if size is None and any(c.rule.name == "coverage" for c in conditions):
        raise PoolkitError("--fail-on coverage<X needs the corpus size: give --corpus-size N "
                           "or --corpus corpus.jsonl")

    set_quiet(args.quiet)
    with collector_paused() as settle:
        qrels = read_labels(args.qrels, args.qrels_format)
        require_scorable(qrels, args.level)
        truth = read_labels(args.truth, args.qrels_format) if args.truth else None
        fetches = [read_any_run(path, args.order, args.run_format) for path in args.fetch]
        sample = read_sample(args.sample) if args.sample else None

        settings = Settings(ks=ks, level=args.level, order=args.order, depth=args.depth,
                            gain=args.gain, corpus_size=size)

        jobs = args.jobs or default_jobs(len(args.runs))

        def read_file(i: int) -> Run:
            return read_any_run(args.runs[i], args.order, args.run_format)

        def score_file(i: int, run: Run, bar: Progress) -> RunResult:
            result = score_run(qrels, run, shown, settings, truth=truth,
                               fetch=fetches[i if len(fetches) > 1 else 0] if fetches else None,
                               stages=stages, sample=sample, progress=bar.update)
            if jobs > 1:
                # the run's part of the report (pure Python), built now while the next runs
                # are read (NumPy, GIL released) rather than for every run at the end; with
                # one job nothing overlaps it, and every part would be held meanwhile
                result.prepare(args.format)
            settle()  # collect this run's cycles once, keep the rest out of later scans
            return result

        settle()  # the labels: built once, kept out of every later scan
        # The bar counts queries scored (every run scores each judged-relevant query of the
        # labels), so one run against a million queries shows how far it is.
        scored = sum(1 for docs in qrels.grades.values() if any(g >= args.level
                                                                 for g in docs.values()))
        with Progress(len(args.runs) * scored, "scoring", "queries") as bar:
            # A pipeline: each run is scored on this thread while the next jobs - 1 are
            # read on others. Reading is NumPy (its blocks parse on every CPU), scoring
            # mostly Python under the GIL: two runs scored at once would only take turns.
            results = []
            for i, run in enumerate(ordered_imap(read_file, range(len(args.runs)), jobs,
                                                 ahead=jobs)):
                results.append(score_file(i, run, bar))
                del run  # its rows go once scored (``Evaluation.let_rows_go``)
        failures = check_fail_on(conditions, [(r.run.name, r.audit) for r in results])
        tests = run_tests(results, shown, options, jobs) if len(results) > 1 else None
        if args.plot and tests is not None:
            plot_pair(args, results, shown, tests)
        doc = build_document(settings, qrels, results, truth=truth,
                             conditions=[c.text for c in conditions], failures=failures,
                             tests=tests)
        sys.stdout.write(FORMATS[args.format](doc, args.per_query))
        sys.stdout.flush()
    if failures:
        raise AuditFailure("; ".join(f.message for f in failures))
    return 0


@contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """Pause Python's cyclic garbage collector while runs are read and scored; yield a
    ``settle`` function to call once each big piece (the labels, each run's result) is
    complete: it collects the cycles made since the last call (one pass over that piece
    alone) and then freezes what survives (``gc.freeze``) out of every later pass.

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
                             corpus_size=settings.corpus_size, sample=sample)
    result = RunResult(RunInfo.of(run), ev, list(shown), cis, audit)
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


def plot_pair(args: argparse.Namespace, results: Sequence[RunResult], shown: Sequence[Measure],
              tests: PairedTests) -> None:
    from poolkit.errors import one_of
    from poolkit.score.plot import plot_differences

    names = run_names(results)
    pair = [n.strip() for n in args.plot_pair.split(",")] if args.plot_pair else names[:2]
    if len(pair) != 2 or pair[0] == pair[1]:
        raise PoolkitError(f"--plot-pair {args.plot_pair!r}: give two different run names, "
                           f"A,B")
    for n in pair:
        if n not in names:
            raise PoolkitError("--plot-pair: " + one_of(n, names, "run"))
    measure = shown[0]
    if args.plot_measure:
        measure = parse_measure(args.plot_measure)
        if measure not in shown:
            raise PoolkitError("--plot-measure: " + one_of(
                measure.name, [m.name for m in shown], "measure in the report"))
    by_name = dict(zip(names, results))
    a, b = (by_name[n].evaluation.per_query[measure.name] for n in pair)
    entry = tests.find(measure.name, *pair) or tests.find(measure.name, pair[1], pair[0])
    plot_differences(args.plot, pair[0], pair[1], measure.name, a, b,
                     tests.marked_p(entry) if entry else None, tests.options.p_name)
