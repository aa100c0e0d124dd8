"""``poolkit pool CONFIG``: run every system, pool their top N per query, report contributions.

Re-running is safe: a deeper ``--depth`` or an added system makes a new pool version with
only the documents not pooled yet; nothing judged is touched; an unchanged re-run adds
nothing and says so. ``--find N`` looks beyond the runs: the passages a text classifier,
trained on the grades so far, ranks highest outside the pool (refused before any grade).
"""

from __future__ import annotations

import argparse
import sys

from poolkit.cli.options import add_verbose
from poolkit.cli.options import positive as _positive
from poolkit.pool.report import PoolReport

EXAMPLES = """\
examples:
  poolkit pool configs/sample.yaml
  poolkit pool configs/sample.yaml --depth 20 --note "deeper"
  poolkit pool configs/sample.yaml --report-only --verbose
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "pool", help="run the configured systems and pool their top N per query",
        description=__doc__, epilog=EXAMPLES)
    p.add_argument("config", help="collection config (YAML)")
    p.add_argument("--format", choices=PoolReport.formats, default=PoolReport.formats[0],
                   help="report format (default: table)")
    p.add_argument("--depth", type=_positive, metavar="N",
                   help="top N taken from every system (overrides pool.depth; a system's own "
                        "pool_depth still wins)")
    p.add_argument("--system", action="append", metavar="NAME", dest="systems",
                   help="pool only this system (repeatable; default: all)")
    from poolkit.pool.order import ORDER_STRATEGIES  # light: the registry names the choices

    p.add_argument("--judging-order", "--order", dest="order", metavar="STRATEGY",
                   help="judging order for new documents, one of "
                        f"{', '.join(ORDER_STRATEGIES)} (overrides pool.order)")
    p.add_argument("--find", type=_positive, metavar="N",
                   help="run no system: a text classifier trained on the grades so far "
                        "ranks the corpus passages outside the pool, and each judged query's "
                        "top N join as a new pool version found by @classifier (round, score)")
    p.add_argument("--note", help="a note stored with the new pool version")
    p.add_argument("--report-only", action="store_true",
                   help="do not run or pool anything; report the store's pool")
    p.add_argument("--pool-version", "--version", type=_positive, dest="pool_version",
                   metavar="V", help="with --report-only: report the pool as of version V")
    add_verbose(p, "each system's run file and hash, every query's rows")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars (encoding, BM25 indexing, reranking); there are "
                        "none when stderr is not a terminal")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.app.pool import PoolRequest, pool
    from poolkit.progress import quieted

    with quieted(args.quiet):
        report = pool(PoolRequest(args.config, depth=args.depth, systems=args.systems,
                                  order=args.order, note=args.note,
                                  report_only=args.report_only,
                                  pool_version=args.pool_version, find=args.find))
    sys.stdout.write(report.render(args.format, verbose=args.verbose))
    return 0
