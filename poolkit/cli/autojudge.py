"""``poolkit autojudge CONFIG --judge NAME``: a machine judge of the config grades the pool.

Grades the latest pool's pairs that this judge version has not graded yet, each verdict one
machine event by NAME with its provenance (model, judge version, prompt and passage hashes,
raw answer, grade distribution, latency, tokens). Run again, it grades only what is missing;
``--all`` asks again for every pair (new events, nothing overwritten). An unreadable answer
is retried, then counted as failed (after max_failures failed runs a pair is left for people:
``--retry-failed`` asks again); a server that stays down stops it with one line, every
grade kept. ``--dry-run`` counts the pairs and estimates prompt tokens (characters/4) and,
with ``prices:`` in the judge's config, the cost. ``--variant scale_order=descending``
grades the pairs (the first --limit) also with the rubric listed 3 to 0, a separate judge
version, and reports how the two versions agree (kappa, exact agreement, confusion).
``--readings K`` asks each pair K times (reading i with seed --seed + i, and with
``--paraphrases FILE`` the file's prompt template i mod N), every reading its own event;
the grade that counts is the readings' median; a pair is asked only the readings it lacks.

Through a batch API instead: ``--export-batch DIR`` writes the requests it would send as
OpenAI Batch API files (``DIR/batch-0001.jsonl``...; at most 50,000 requests and 200 MB a
file; with ``--dry-run``, the files, requests and tokens it would write), and
``--import-batch FILE...`` records the batch's results (OpenAI's output files, or vLLM
``run-batch``'s). ``--shard I/N`` takes only the queries of shard I of N (a hash of the
query id), so N machines share a pool and one store with no other coordination.
"""

from __future__ import annotations

import argparse
import sys

from poolkit.app.autojudge import AutojudgeReport
from poolkit.cli.options import positive


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "autojudge", help="grade the pool with a machine judge (LLM endpoint, local model, "
                          "cross-encoder)",
        description=__doc__,
        epilog="examples:\n  poolkit autojudge configs/sample.yaml --judge llm --dry-run\n"
               "  poolkit autojudge configs/sample.yaml --judge llm --limit 20\n"
               "  poolkit autojudge configs/sample.yaml --judge llm --export-batch batch/\n"
               "  poolkit autojudge configs/sample.yaml --judge llm --import-batch out.jsonl\n"
               "  poolkit autojudge configs/sample.yaml --judge llm --shard 2/4\n")
    p.add_argument("config", help="collection config (YAML) with a judges: section")
    p.add_argument("--judge", required=True, metavar="NAME", help="the judge, by its name "
                                                                  "under judges:")
    p.add_argument("--queries", metavar="Q,..", help="only these query ids (comma-separated)")
    p.add_argument("--limit", type=positive, metavar="N", help="grade at most N pairs")
    p.add_argument("--all", dest="regrade", action="store_true",
                   help="ask again for pairs this judge version has graded (appends)")
    p.add_argument("--variant", metavar="KEY=VALUE",
                   help="also grade the pairs (the first --limit) with one prompt option "
                        "changed, e.g. scale_order=descending (a separate judge version), "
                        "and report how the two versions agree")
    p.add_argument("--readings", type=positive, default=1, metavar="K",
                   help="ask each pair K times, each reading recorded; the median counts "
                        "(default: 1)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="reading i is asked with seed S + i (default: 0 with --readings)")
    p.add_argument("--paraphrases", metavar="FILE",
                   help="a YAML list of prompt templates: reading i is asked with template "
                        "i mod N (a judge version of its own)")
    p.add_argument("--shard", type=_shard, metavar="I/N",
                   help="only the queries of shard I of N (1 <= I <= N; a stable hash of "
                        "the query id), one shard per machine")
    batch = p.add_mutually_exclusive_group()
    batch.add_argument("--export-batch", metavar="DIR",
                       help="write the requests as OpenAI Batch API files in DIR instead "
                            "of asking")
    batch.add_argument("--import-batch", nargs="+", metavar="FILE", default=[],
                       help="record a batch's result files (OpenAI's, vLLM run-batch's)")
    p.add_argument("--overwrite", action="store_true",
                   help="--export-batch may replace the batch files DIR holds")
    p.add_argument("--retry-failed", action="store_true",
                   help="ask again for the pairs given up after the judge's max_failures "
                        "failed runs")
    p.add_argument("--dry-run", action="store_true",
                   help="count the pairs and estimate tokens and cost; ask nothing")
    p.add_argument("--format", choices=AutojudgeReport.formats,
                   default=AutojudgeReport.formats[0])
    p.set_defaults(handler=run)


def _shard(text: str) -> tuple[int, int]:
    from poolkit.judges.shard import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from poolkit.app.autojudge import AutojudgeRequest, autojudge

    queries = [q.strip() for q in args.queries.split(",") if q.strip()] \
        if args.queries else None
    report = autojudge(AutojudgeRequest(args.config, args.judge, queries=queries,
                                        limit=args.limit, regrade=args.regrade,
                                        dry_run=args.dry_run, variant=args.variant,
                                        readings=args.readings, seed=args.seed,
                                        paraphrases=args.paraphrases,
                                        shard=args.shard, export_batch=args.export_batch,
                                        import_batch=args.import_batch,
                                        overwrite=args.overwrite,
                                        retry_failed=args.retry_failed))
    sys.stdout.write(report.render(args.format))
    return 0
