"""``poolkit simulate``: replay judging with a full qrels file as the assessor."""

from __future__ import annotations

import argparse
import sys

from poolkit.cli.options import REPORT_FORMATS as FORMATS

DESCRIPTION = """\
Replay judging on a pool with FULL_QRELS as the assessor (a pooled document the qrels lack
counts as grade 0) and report, per judging-order strategy and budget, the relevant documents
found, the pool recall, Kendall's tau between the runs' ordering under the labels judged so
far and under the full labels (nDCG@10 and AP, `poolkit score` semantics), the estimate of
relevant documents still unjudged with its 95% interval, and what the stopping rule judges.
A budget b judges round(b x n_q) passages of a query whose pool holds n_q.

Store form: the pool (with provenance) is the config's store's latest pool version, the runs
are the config's systems' run files, strategy parameters and the stopping rule come from the
config's pool section. File form: the pool is the union of the runs' top --depth. In both,
--param KEY=VALUE sets a strategy parameter (a pool: key) over the config's."""

EPILOG = """\
forms:
  poolkit simulate CONFIG --qrels FULL_QRELS [options]
  poolkit simulate --qrels FULL_QRELS RUN [RUN ...] --depth K [options]

examples:
  poolkit simulate configs/sample.yaml --qrels full.qrels --budgets 0.25,0.5
  poolkit simulate --qrels qrels.full.txt runs/*.run --depth 20 --format json
  poolkit simulate --qrels qrels.full.txt runs/*.run --depth 20 --plot found.png
  poolkit simulate --qrels qrels.full.txt runs/*.run --depth 20 --strategy mm-ns \
      --param mm_ns_discount=1
"""

def register(subparsers: argparse._SubParsersAction) -> None:
    from poolkit.pool.order import ORDER_STRATEGIES
    from poolkit.pool.simulate import DEFAULT_BUDGETS, DEFAULT_MEASURES

    p = subparsers.add_parser(
        "simulate", help="replay judging with full qrels: strategies, budgets, stopping",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", metavar="CONFIG | RUN",
                   help="a config (store form), or run files with --depth (file form)")
    p.add_argument("--qrels", required=True, metavar="FULL_QRELS",
                   help="the complete labels that play the assessor (qrels or golden.yaml)")
    p.add_argument("--depth", type=int, metavar="K",
                   help="file form: pool the runs' top K")
    p.add_argument("--strategy", default=",".join(ORDER_STRATEGIES), metavar="NAMES",
                   help=f"comma-separated strategies (default: {','.join(ORDER_STRATEGIES)})")
    p.add_argument("--budgets", default=",".join(DEFAULT_BUDGETS), metavar="B,B",
                   help="comma-separated fractions of each query's pool "
                        f"(default {','.join(DEFAULT_BUDGETS)})")
    p.add_argument("--level", type=int, default=1, metavar="L",
                   help="grade from which a document is relevant (default 1)")
    p.add_argument("-m", "--measures", default=",".join(DEFAULT_MEASURES), metavar="M,M",
                   help=f"measures for tau (default {','.join(DEFAULT_MEASURES)})")
    p.add_argument("--stop-recall", type=float, metavar="R",
                   help="the stopping rule's target pool recall (default: the config's "
                        "pool.stop_recall, else 0.9)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a strategy parameter, as a pool: key of the config (e.g. "
                        "mm_ns_discount=0.5, mtf_step=2); repeatable; over the config's")
    p.add_argument("--format", choices=FORMATS, default="table")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw relevant found against judgments, one line per strategy "
                        "(needs matplotlib: pip install 'poolkit[plot]')")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.analysis.inputs import read_runs
    from poolkit.analysis.simulate_render import render_table
    from poolkit.analysis.stats import kendall_tau
    from poolkit.collection import Collection
    from poolkit.config import Config
    from poolkit.errors import PoolkitError, one_of
    from poolkit.io.readers import read_labels
    from poolkit.pool.order import ORDER_STRATEGIES, order_strategy
    from poolkit.pool.remaining import StopRule
    from poolkit.pool.simulate import parse_budgets, pools_from_runs, simulate
    from poolkit.score.evaluate import require_scorable

    budgets = parse_budgets(args.budgets)
    names = [n.strip() for n in args.strategy.split(",") if n.strip()]
    for name in names:
        if name not in ORDER_STRATEGIES:
            raise PoolkitError("--strategy: " + one_of(name, ORDER_STRATEGIES, "strategy"))
    if not names:
        raise PoolkitError("--strategy: name at least one strategy")
    if args.level < 1:
        raise PoolkitError(f"--level must be a positive integer, got {args.level}")
    if args.stop_recall is not None and not 0 < args.stop_recall <= 1:
        raise PoolkitError(f"--stop-recall must be in (0, 1], found {args.stop_recall}")
    measures = [m.strip() for m in args.measures.split(",") if m.strip()]
    if args.plot:
        from poolkit.io.atomic import check_outputs

        check_outputs({"--plot": args.plot},
                      {"the qrels": args.qrels, **{f"the input {i}": i for i in args.inputs}})
    config: Config | None = None
    if args.depth is not None:
        if args.depth < 1:
            raise PoolkitError(f"--depth must be a positive integer, found {args.depth}")
        if not args.inputs:
            raise PoolkitError("file form: give the run files to pool (see --help)")
        runs = read_runs(args.inputs)
        pools = pools_from_runs(runs, args.depth)
    else:
        if len(args.inputs) != 1:
            raise PoolkitError("give one CONFIG (store form), or run files with --depth K "
                               "(file form); see --help")
        with Collection.open(args.inputs[0]) as collection:
            config = collection.config
            pools = collection.query_pools()
            runs = collection.runs()
    settings = {**(config.pool.settings if config is not None else {}),
                **strategy_params(args.param, names)}
    rule = StopRule(target=float(args.stop_recall or settings.get("stop_recall", 0.9)),
                    confidence=float(settings.get("stop_confidence", 0.9)))
    strategies = {n: order_strategy(n, settings) for n in names}
    qrels = read_labels(args.qrels)
    require_scorable(qrels, args.level)  # else every strategy "finds" 0 of 0 relevant
    if args.plot:
        from poolkit.analysis.simulate_render import plot_backend

        plot_backend()  # fail before the replay, not after it, when matplotlib is missing
    doc = simulate(pools, qrels, strategies, budgets, runs, tau=kendall_tau, level=args.level,
                   measures=measures, stop_rule=rule)
    doc["qrels"] = {"name": qrels.name, "sha256": qrels.sha256}
    if args.plot:
        from poolkit.analysis.simulate_render import plot

        plot(doc, args.plot)
        doc["plot"] = args.plot
    if args.format == "json":
        from poolkit.analysis.render import dumps

        sys.stdout.write(dumps(doc))
    else:
        sys.stdout.write(render_table(doc))
    return 0


def strategy_params(texts: list[str], names: list[str]) -> dict[str, object]:
    """``--param KEY=VALUE`` values (YAML scalars, as the config's ``pool:`` would hold
    them); a key none of the strategies ``names`` declares is an error, not ignored."""
    import yaml

    from poolkit.errors import PoolkitError, one_of
    from poolkit.pool.order import ORDER_STRATEGIES

    declared = {p.key for n in names for p in ORDER_STRATEGIES[n].params}
    out: dict[str, object] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise PoolkitError(f"--param: expected KEY=VALUE, found {text!r}")
        if key not in declared:
            raise PoolkitError("--param: " + one_of(key, declared, "parameter of "
                                                    + ", ".join(names)))
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise PoolkitError(f"--param: {key}: {value!r} is not a value") from None
    return out
