"""``poolkit pool CONFIG``: run every system, pool their top N per query, report contributions.

Re-running is safe: a deeper ``--depth`` or an added system makes a new pool version with
only the documents not pooled yet; nothing judged is touched; an unchanged re-run adds
nothing and says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poolkit.collection import Collection

from poolkit.cli.options import REPORT_FORMATS as FORMATS
from poolkit.cli.options import positive as _positive
from poolkit.errors import tell


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "pool", help="run the configured systems and pool their top N per query",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", help="collection config (YAML)")
    p.add_argument("--format", choices=FORMATS, default="table",
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
    p.add_argument("--note", help="a note stored with the new pool version")
    p.add_argument("--report-only", action="store_true",
                   help="do not run or pool anything; report the store's pool")
    p.add_argument("--pool-version", "--version", type=_positive, dest="pool_version",
                   metavar="V", help="with --report-only: report the pool as of version V")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars (encoding, BM25 indexing, reranking); there are "
                        "none when stderr is not a terminal")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.collection import Collection
    from poolkit.errors import PoolkitError, one_of
    from poolkit.pool.order import ORDER_STRATEGIES
    from poolkit.pool.report import pool_report, render_table
    from poolkit.progress import set_quiet

    set_quiet(args.quiet)
    if args.pool_version is not None and not args.report_only:
        raise PoolkitError("--pool-version V reports an earlier version; it needs --report-only "
                           "(pooling always adds to the latest)")
    if args.note is not None and not args.note.isprintable():  # it is printed in reports
        raise PoolkitError(f"--note {args.note!r} contains a control character")
    config = Collection.open(args.config).config  # checked: the pool section too
    if args.depth is not None:
        config = replace(config, pool=replace(config.pool, depth=args.depth))
    if args.order is not None:
        if args.order not in ORDER_STRATEGIES:
            raise PoolkitError("--order: " + one_of(args.order, ORDER_STRATEGIES,
                                                    "judging order"))
        config = replace(config, pool=replace(config.pool, order=args.order))
    for name in args.systems or ():
        if name not in config.systems:
            raise PoolkitError("--system: " + one_of(name, config.systems, "system"))
    base = config.path.parent.parent
    added: dict[str, Any] | None = None
    warnings: list[str] = []
    with Collection.open(args.config, config=config, write=not args.report_only,
                         create=not args.report_only) as collection:
        if not args.report_only:
            added, warnings = _pool(collection, args)
        report = pool_report(collection.store,
                             args.pool_version if args.report_only else None)
    if args.format == "json":
        doc = {**report.to_dict(), "config": str(config.path)}
        if added is not None:
            doc["added"] = added
            doc["warnings"] = warnings
        json.dump(doc, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_table(report, base=base, added=added))
    return 0


def _log(message: str) -> None:
    tell(message)


def _check_writable(collection: Collection) -> None:
    """Say that the store or the runs folder cannot be written before minutes of retrieval:
    an existing store first (its message says more), a new one after the runs folder; a new
    store is made only when the pool commits, so a pool failing before leaves none; a runs
    folder on the config's ``runs_dir:`` line."""
    from poolkit.errors import ConfigError, OutputError
    from poolkit.io.atomic import check_writable_folder
    from poolkit.store.store import check_new_store

    config = collection.config
    existing = collection.has_store()
    if existing:
        collection.store.check_writable()
    try:
        check_writable_folder(config.runs_dir)
    except OutputError as exc:
        given = "runs_dir" in config.lines
        raise ConfigError(collection.config_arg, config.lines.get("runs_dir"),
                          f"runs_dir{'' if given else ' (default: beside the store)'} "
                          f"{exc}") from None
    if not existing:
        check_new_store(config.store)  # has_store() is False only for a file


def _check_inputs_kept(collection: Collection, names: list[str] | None) -> None:
    """No file the pool writes in the runs folder is one of its inputs (a ``kind: run``
    system's own file at ``runs_dir/NAME.run`` would be replaced by poolkit's copy, cut to
    its depth): refused before anything runs, on the line of the system whose file it is
    (else of the system whose output it is)."""
    from poolkit.errors import ConfigError, OutputError
    from poolkit.io.atomic import check_outputs
    from poolkit.pool.run_systems import outputs_of

    config = collection.config
    inputs: dict[str, Path | None] = dict(collection.inputs())
    lines: dict[str, int | None] = {}
    for name, system in config.systems.items():
        if system.path is not None:
            what = f"systems.{name}'s {'run file' if system.kind == 'run' else 'path'}"
            inputs[what] = system.path
            lines[what] = system.line
    advice = (f"poolkit never writes over an input: move it out of {config.runs_dir} or set "
              f"another runs_dir")
    for name, outputs in outputs_of(config, names).items():
        try:
            check_outputs(outputs, inputs, advice=advice, folders_made=True)
        except OutputError as exc:
            line = next((lines[w] for w in lines if str(exc).endswith(
                f"would overwrite {w}; {advice}")), config.systems[name].line)
            raise ConfigError(collection.config_arg, line, str(exc)) from None


def _pool(collection: Collection, args: argparse.Namespace,
          ) -> tuple[dict[str, Any], list[str]]:
    from poolkit.errors import PoolkitError
    from poolkit.io.corpus import read_queries
    from poolkit.io.corpus_snapshot import load_corpus
    from poolkit.pool.publish import PendingRuns, recover
    from poolkit.pool.run_systems import run_systems

    config = collection.config
    _check_inputs_kept(collection, args.systems)
    _check_writable(collection)
    # A pool killed between its commit and its renames: its files are made as the store says
    recover(config.runs_dir, collection.store if collection.has_store() else None)
    corpus, keep_snapshot = load_corpus(config.corpus, config.cache_dir)
    queries = read_queries(config.queries)
    with PendingRuns(config.runs_dir) as pending:
        runs = run_systems(config, corpus, queries, names=args.systems, log=_log,
                           header=f"collection {config.name}: {len(corpus)} documents, "
                                  f"{len(queries)} queries", pending=pending)
        store = None
        try:
            pending.seal()
            store = collection.store  # a new store is made here, as the pool commits
            # Registration and the version in one transaction: a kill in between would leave
            # a system registered with a run no pool version was made from.
            with store.transaction():
                added = _record(store, runs, config, args, corpus, queries)
        except BaseException:
            try:
                pending.settle(store)
            except PoolkitError:
                pass  # the files wait for the next pool's recover()
            raise
        pending.settle(store)
    keep_snapshot()  # pooled: the corpus was good, so a re-pool need not parse it again
    warnings = [w for r in runs.values() for w in r.warnings]
    return added, warnings


def _record(store: Any, runs: dict[str, Any], config: Any, args: argparse.Namespace,
            corpus: Any, queries: Any) -> dict[str, Any]:
    """Register the systems and add the pool version (inside the caller's transaction);
    what was added."""
    from poolkit.pool.build import pool_runs
    from poolkit.pool.section import order_of, pooling_of

    depths = {name: config.pool_depth(name) for name in runs}
    order = order_of(config)
    before = len(store.pool())
    before_sources = sum(len(v) for v in store.sources().values())
    for r in runs.values():
        store.register_system(r.name, r.kind, r.settings, r.settings.get("run_sha256"),
                              r.registered_path, r.group)
    version = pool_runs(store, {n: r.run for n, r in runs.items()}, depths,
                        corpus.docs(), order, note=args.note, queries=queries,
                        pooling=pooling_of(config))
    members = store.pool()
    new = [m for m in members if version is not None and m.version == version]
    return {"version": version, "latest": store.latest_pool_version(),
            "new_docs": len(members) - before, "queries": len({m.qid for m in new}),
            "new_provenance": sum(len(v) for v in store.sources().values())
            - before_sources,
            "depths": depths, "order": order.name}
