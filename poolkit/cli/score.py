"""``poolkit score``: its options as a :class:`ScoreRequest` to the verb, the report to stdout.
Imports nothing heavy (no torch, textual, sentence-transformers or scikit-learn)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import fields

from poolkit.app.score import DEFAULT_FAMILIES, DEFAULT_K, ScoreRequest, parse_cutoffs, score_runs
from poolkit.cli.formats import add_format_options
from poolkit.cli.options import add_test_options, add_verbose, say_warnings
from poolkit.errors import AuditFailure
from poolkit.io import RUN_ORDERS
from poolkit.progress import quieted
from poolkit.score import audit, intervals, measures, significance
from poolkit.score.report import ScoreReport
from poolkit.score.significance_render import MIN_QUERIES
from poolkit.threads import DEFAULT_MAX_JOBS

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
    """'  name  text' lines, the text wrapped under itself so help fits 80 columns."""
    return "\n".join(textwrap.fill(text, 78, subsequent_indent=" " * (width + 4),
                                    initial_indent=f"  {name:{width}s}  " if len(name) <= width
                                    else f"  {name} ")  # a longer name: no column to keep
                      for name, text in items)


def _epilog() -> str:
    fams = _entries([(name, fam.formula) for name, fam in measures.MEASURES.items()], 8)
    fail = _entries([(r.spelling, r.help) for r in audit.FAIL_ON.values()], 10)
    defaults = ", ".join(f"{f}@K" for f in DEFAULT_FAMILIES)
    RESAMPLES, SEED, CONFIDENCE = intervals.RESAMPLES, intervals.SEED, intervals.CONFIDENCE
    PERMUTATIONS, TEST_SEED = significance.PERMUTATIONS, significance.SEED
    return f"""\
measures (-m; ir_measures spelling: P@5, nDCG@10, RR, AP@100, P(rel=2)@5, nDCG(gain=exp)@10;
a name written NAME@K, or a family that needs a cutoff given without one, is taken at every K):
{fams}

default: {defaults} for every K (default K={DEFAULT_K}); Judged@K is always in the audit.

Conventions: P@K divides by K; R and AP by every judged-relevant id; a repeated id keeps its
slot and only its first occurrence scores; queries with no judged-relevant id are excluded
from every mean and counted; a query the run lacks scores 0 and is counted (trec_eval -c).

Intervals: Hit@K means get a Wilson score interval; every other mean a percentile bootstrap
over queries ({RESAMPLES} resamples, fixed seed {SEED}), {CONFIDENCE:.0%}, reproducible run to
run.

Paired tests (two runs or more): every pair of runs on every measure, over the queries both
are scored on: mean difference with a {CONFIDENCE:.0%} paired-bootstrap interval, p-values of the
paired t-test, the randomization test ({PERMUTATIONS:,} sign flips, seed {TEST_SEED}; exact
enumeration when 2^n is fewer) and Wilcoxon signed-rank, and Holm and Benjamini-Hochberg
adjusted p-values over every pair and measure in the report. --test picks the p-value the
table marks, --correction its adjustment, --alpha the level. --plot draws one pair's
per-query differences (needs the plot extra: matplotlib).

Output: the default table fits 80 columns: every run's means, the audit one row per run and
K, and one line per significant difference after the correction (with fewer than
{MIN_QUERIES} queries, a line saying so few cannot be read); --verbose prints every run's
intervals, each query's audit with its warnings and every paired test's p-value; JSON has
all of it.

--fail-on conditions (repeatable or comma separated; quote the ones with < or >):
{fail}

A condition that holds prints the report, then exits with code {AuditFailure.exit_code}.

examples:
  poolkit score sample_corpus/golden.yaml sample_corpus/seed.run -k 5 -v
  poolkit score qrels.txt bm25.run dense.run -m P@10 -m nDCG@10 --format json
  poolkit score golden.yaml rerank.run --fetch bm25.run --stages 100,10
  poolkit score golden.yaml my.run --fail-on rel-lt-k,repeats,'unjudged>0.1'
  poolkit score qrels.txt bm25.run dense.run -m nDCG@10 --test t --correction bh
  poolkit score qrels.txt bm25.run dense.run -m nDCG@10 --plot diff.png
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score", help="score runs against qrels/golden.yaml, with intervals and the audit",
        description=DESCRIPTION, epilog=_epilog())
    add = p.add_argument
    add("qrels", metavar="QRELS", help="qrels in any accepted format")
    add("runs", metavar="RUN", nargs="+", help="run in any accepted format")
    add("-m", "--measure", dest="measures", action="append", default=[], metavar="MEASURE",
        help="a measure to report (repeatable or comma separated; default: the RAG set listed "
             "below)")
    add("-k", "--cutoff", action="append", default=[], metavar="K,...",
        help=f"cutoffs for the default measures and the audit (repeatable or comma separated; "
             f"default: the cutoffs of -m, else {DEFAULT_K})")
    add_verbose(p, "every run's intervals and each query's audit with its warnings, and "
                   "every paired test's p-value")
    add("--per-query", action="store_true",
        help="list every query's values and audit row (implies --verbose; JSON always has "
             "them)")
    add("--format", choices=list(ScoreReport.formats), default="table",
        help="output format (default: table)")
    add("--order", choices=list(RUN_ORDERS), default="score",
        help="how a TREC run file is ordered (default: score, trec_eval's order): "
             + "; ".join(f"{k} = {v}" for k, v in RUN_ORDERS.items()))
    add("--level", type=int, default=1, metavar="N", help="relevance level: binary measures "
        "count grade >= N as relevant (default: 1; like trec_eval -l)")
    add("--depth", type=int, metavar="N",
        help="cut every ranking to its top N before scoring (like trec_eval -M)")
    add("--gain", choices=measures.GAINS, default="linear",
        help="nDCG gain: linear = the grade (default), exp = 2^grade - 1")
    cov = p.add_mutually_exclusive_group()
    cov.add_argument("--corpus-size", type=int, metavar="N",
                     help="corpus size, for label coverage (judged ids for a query / N)")
    cov.add_argument("--corpus", metavar="CORPUS.jsonl", help="corpus JSONL ({id, title, "
                     "text} per line, as poolkit pool reads it); its size gives label coverage")
    add("--truth", metavar="QRELS", help="a fuller label set: per query, judged-relevant vs "
        "truly relevant counts and R@K against each")
    add("--fetch", action="append", default=[], metavar="RUN",
        help="stage-1 (fetch) run paired with the RUN(s) as stage-2 (keep): recall at each and "
             "the loss per query (once for every RUN, or once per RUN)")
    add("--stages", metavar="FETCH_K,KEEP_K", help="depths for the stage table; without "
        "--fetch, each RUN is read at both (default with --fetch: the fetch run's full depth "
        "and the first K)")
    add("--sample", metavar="SAMPLE", help="the pool's sample design (qid docid stratum "
        "inclusion_probability, as export --sample writes it): xinfAP, statAP and infNDCG "
        "weigh judged pairs by it, and the audit adds R_est beside |Rel|")
    add("--judge-family", metavar="FAMILY", help="the model family of the machine judge that "
        "made the labels: every run whose provenance (NAME.json beside NAME.run, as poolkit "
        "pool writes it) names the same family is marked, a line each (circularity)")
    add("--fail-on", action="append", default=[], metavar="CONDITION",
        help="exit non-zero (3) when an audit condition holds: "
             + ", ".join(r.spelling for r in audit.FAIL_ON.values()))
    add_format_options(p)
    add("--quiet", action="store_true",
        help="no progress bar (there is none when stderr is not a terminal)")
    add("--jobs", type=int, metavar="N", help=f"runs held at once: one is scored while the "
        f"next N-1 are read, on threads (default: the number of runs, at most the CPUs and "
        f"{DEFAULT_MAX_JOBS}); each holds one run's rows, so --jobs 1 takes the least memory. "
        f"Output is the same for any N")
    add_test_options(p)
    add("--plot", metavar="FILE.png", help="draw one pair's per-query differences, sorted "
        "(needs matplotlib: the plot extra)")
    add("--plot-pair", metavar="A,B",
        help="the pair --plot draws, by run name (default: the first two runs)")
    add("--plot-measure", metavar="MEASURE",
        help="the measure --plot draws (default: the first measure)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cutoffs = parse_cutoffs(args.cutoff)  # first, as every check before a file is read
    names = {f.name for f in fields(ScoreRequest)}  # every other field is its option's dest
    with quieted(args.quiet):
        report = score_runs(ScoreRequest(**{k: v for k, v in vars(args).items() if k in names},
                                         cutoffs=cutoffs, prepare_format=args.format))
    sys.stdout.write(report.render(args.format, per_query=args.per_query, verbose=args.verbose))
    sys.stdout.flush()
    say_warnings(report.warnings)
    if report.failures:
        raise AuditFailure("; ".join(f["message"] for f in report.failures))
    return 0
