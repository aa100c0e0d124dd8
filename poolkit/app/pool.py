"""``pool``: run every configured system, pool their top N per query, report contributions.

Re-running is safe: a deeper depth or an added system makes a new pool version with only the
documents not pooled yet; nothing judged is touched; an unchanged re-run adds nothing and
says so. ``report_only`` runs nothing and reports the store's pool (as of ``pool_version``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit import interrupt
from poolkit.errors import PoolkitError, one_of, tell
from poolkit.pool.report import PoolAdded, PoolReport, pool_report

if TYPE_CHECKING:
    from poolkit.collection import Collection
    from poolkit.config import Config
    from poolkit.pool.run_systems import SystemRun
    from poolkit.store.contract import StoreBackend


@dataclass(frozen=True)
class PoolRequest:
    """What to pool: the config, and the overrides of its ``pool:`` section."""

    config: str | Path
    depth: int | None = None              # overrides pool.depth (a system's own still wins)
    systems: Sequence[str] | None = None  # only these systems (None: all)
    order: str | None = None              # overrides pool.order
    note: str | None = None               # stored with the new pool version
    report_only: bool = False             # run nothing: report the store's pool
    pool_version: int | None = None       # with report_only: the pool as of this version
    find: int | None = None               # add the classifier's top N per query beyond the pool


def pool(request: PoolRequest, log: Callable[[str], None] = tell) -> PoolReport:
    """Pool (unless ``report_only``) and report the pool; ``log`` hears the progress."""
    from poolkit.collection import Collection

    if request.pool_version is not None and not request.report_only:
        raise PoolkitError("--pool-version V reports an earlier version; it needs --report-only "
                           "(pooling always adds to the latest)")
    if request.note is not None and not request.note.isprintable():  # printed in reports
        raise PoolkitError(f"--note {request.note!r} contains a control character")
    if request.find is not None:
        _check_find(request)
    config = _configured(Collection.open(request.config).config, request)
    if not request.report_only and request.find is None:
        from poolkit.pool.section import order_of

        order_of(config)  # an order the store's pool cannot run is refused before any work
    added: PoolAdded | None = None
    warnings: list[str] | None = None
    with Collection.open(request.config, config=config, write=not request.report_only,
                         create=not request.report_only and request.find is None,
                         ) as collection:
        if request.find is not None:
            added, warnings = _find(collection, request.find, request.note, log), []
        elif not request.report_only:
            added, warnings = _pool(collection, request, log)
        report = pool_report(collection.store,
                             request.pool_version if request.report_only else None)
    # What the systems returned, when this call ran them (the store records what was asked).
    returned = added.depths if added is not None else {}
    systems = {s: {**info, "depth": returned.get(s, info["depth"])}
               for s, info in report.systems.items()}
    return replace(report, config=str(config.path), added=added, warnings=warnings,
                   systems=systems)


def _check_find(request: PoolRequest) -> None:
    """``--find`` adds to the pool the runs made; it runs no system, so the options that
    choose systems, depths or an order for them do not go with it."""
    if request.find is not None and request.find < 1:
        raise PoolkitError(f"--find must be a positive integer, found {request.find}")
    given = [flag for flag, value in (("--report-only", request.report_only),
                                      ("--depth", request.depth is not None),
                                      ("--system", bool(request.systems)),
                                      ("--order", request.order is not None)) if value]
    if given:
        raise PoolkitError(f"--find runs no system: it does not go with {given[0]} (the "
                           f"classifier's passages are judged best first)")


def _find(collection: Collection, n: int, note: str | None,
          log: Callable[[str], None]) -> PoolAdded:
    """The classifier's top ``n`` passages outside the pool per judged query, as a new pool
    version (``pool.find``); refused before anything is read when nothing is graded yet."""
    from poolkit.io.corpus import read_queries
    from poolkit.io.corpus_snapshot import load_corpus
    from poolkit.io.provenance import CLASSIFIER
    from poolkit.pool.find import find_beyond
    from poolkit.pool.find_record import FIND_ORDER, record_found

    if not collection.has_store():
        raise PoolkitError(f"{collection.config.store_label}: no judging store yet; "
                           f"--find adds to a pool: run `poolkit pool` and judge first")
    store = collection.store
    store.check_writable()
    provenance = collection.provenance()
    grades = {q: g for q, docs in collection.labels().qrels.grades.items()
              if (g := {d: x for d, x in docs.items() if x >= 0})}
    if not grades:
        raise PoolkitError(f"{collection.config.store_label}: no grades yet; --find trains "
                           f"the classifier on the grades so far: judge some of the pool "
                           f"first (`poolkit judge`)")
    corpus, keep_snapshot = load_corpus(collection.config.corpus, collection.config.cache_dir)
    texts = {q.qid: q.text for q in read_queries(collection.config.queries)}
    level = collection.config.judge.relevance_level
    found, settings = find_beyond(corpus, texts, grades, provenance.docs, n, level)
    settings["round"] = len({f.version for f in provenance.found().values()}) + 1
    before = store.latest_pool_version()
    version = record_found(store, found, corpus.docs(), n, settings, note)
    if version is not None:
        interrupt.done(f"pool version {version} recorded")
    keep_snapshot()
    new = sum(len(h) for h in found.values()) if version is not None else 0
    log(f"{FIND_ORDER}: round {settings['round']}, trained on {settings['trained_on']} "
        f"grades, {new} passages found beyond the pool")
    return PoolAdded(version=version, latest=store.latest_pool_version() or before,
                     new_docs=new, queries=sum(1 for h in found.values() if h) if new else 0,
                     new_provenance=new, depths={CLASSIFIER: n}, order=FIND_ORDER)


def _configured(config: Config, request: PoolRequest) -> Config:
    """The config (already checked, its pool section too) with the request's overrides."""
    from poolkit.pool.order import ORDER_STRATEGIES

    if request.depth is not None:
        config = replace(config, pool=replace(config.pool, depth=request.depth))
    if request.order is not None:
        if request.order not in ORDER_STRATEGIES:
            raise PoolkitError("--order: " + one_of(request.order, ORDER_STRATEGIES,
                                                    "judging order"))
        config = replace(config, pool=replace(config.pool, order=request.order))
    for name in request.systems or ():
        if name not in config.systems:
            raise PoolkitError("--system: " + one_of(name, config.systems, "system"))
    return config


def _check_writable(collection: Collection) -> list[Path]:
    """Say that the store or the runs folder cannot be written before minutes of retrieval:
    an existing store first (its message says more), a new one after the runs folder; a new
    store appears only when the pool commits, so a pool failing before leaves none; a runs
    folder on the config's ``runs_dir:`` line. The folders made for them (outermost first),
    which a failed pool removes again."""
    from poolkit.errors import ConfigError, OutputError
    from poolkit.io.atomic import check_writable_folder, remove_empty_folders
    from poolkit.store.store import check_new_store

    config = collection.config
    existing = collection.has_store()
    if existing:
        collection.store.check_writable()
    try:
        made = check_writable_folder(config.runs_dir)
    except OutputError as exc:
        default = "" if "runs_dir" in config.lines else " (default: .poolkit/runs beside the store)"
        raise ConfigError(collection.config_arg, config.lines.get("runs_dir"),
                          f"runs_dir{default} {exc}") from None
    if not existing:  # has_store() is False only for a file
        folder = Path(config.store).parent
        made += [p for p in (folder, *folder.parents) if not p.exists()][::-1]
        try:
            check_new_store(config.store)  # makes the store's folder
        except BaseException:
            remove_empty_folders(made)
            raise
    return made


def _check_inputs_kept(collection: Collection, names: Sequence[str] | None) -> None:
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
    for name, outputs in outputs_of(config, list(names) if names else None).items():
        try:
            check_outputs(outputs, inputs, advice=advice, folders_made=True)
        except OutputError as exc:
            line = next((lines[w] for w in lines if str(exc).endswith(
                f"would overwrite {w}; {advice}")), config.systems[name].line)
            raise ConfigError(collection.config_arg, line, str(exc)) from None


def _refuse_foreign_files(collection: Collection, names: Sequence[str] | None) -> None:
    """Refuse (one line, before any work) to pool when a file the named systems (None: all)
    would write in the runs folder exists and poolkit did not write it; on the config's
    ``runs_dir:`` line, else on the system's."""
    from poolkit.errors import ConfigError
    from poolkit.io.paths import shown_path
    from poolkit.pool.own_files import foreign_files
    from poolkit.pool.run_systems import outputs_of

    config = collection.config
    registered = ({n: r.get("settings") or {} for n, r in collection.store.systems().items()}
                  if collection.has_store() else {})
    for name, what, path in foreign_files(outputs_of(config, names), registered):
        line = config.lines.get("runs_dir", config.systems[name].line)
        raise ConfigError(collection.config_arg, line,
                          f"{shown_path(path)}: {what} would overwrite a file poolkit did not "
                          f"write; poolkit never writes over a file it did not make: move it "
                          f"out of {shown_path(path.parent)} or set another runs_dir")


def _pool(collection: Collection, request: PoolRequest, log: Callable[[str], None],
          ) -> tuple[PoolAdded, list[str]]:
    """Run the systems, then register them and add the pool version in one transaction;
    the run files are published as the store commits (``pool.publish``)."""
    from poolkit.io.atomic import remove_empty_folders
    from poolkit.io.corpus import read_queries
    from poolkit.io.corpus_snapshot import load_corpus
    from poolkit.pool.publish import PendingRuns, recover
    from poolkit.pool.run_systems import run_systems

    config = collection.config
    names = list(request.systems) if request.systems else None
    _check_inputs_kept(collection, names)
    _refuse_foreign_files(collection, names)
    made = _check_writable(collection)
    try:
        # A pool killed between its commit and its renames: its files are made as the store
        # says
        recover(config.runs_dir, collection.store if collection.has_store() else None)
        corpus, keep_snapshot = load_corpus(config.corpus, config.cache_dir)
        queries = read_queries(config.queries)
        with PendingRuns(config.runs_dir) as pending:
            runs = run_systems(config, corpus, queries, names=names, log=log,
                               header=f"collection {config.name}: {len(corpus)} documents, "
                                      f"{len(queries)} queries", pending=pending)
            try:
                pending.seal()
                # A new store is made as the pool commits, and appears only once it has.
                # Registration and the version in one transaction: a kill in between would
                # leave a system registered with a run no pool version was made from.
                with collection.made_on_success(), collection.store.transaction():
                    added = _record(collection.store, runs, config, request.note, corpus,
                                    queries)
                interrupt.done("the runs recorded, nothing new pooled" if added.version is None
                               else f"pool version {added.version} recorded with its run files")
            except BaseException:
                try:
                    pending.settle(collection.store if collection.has_store() else None)
                except PoolkitError:
                    pass  # the files wait for the next pool's recover()
                raise
            pending.settle(collection.store)
    except BaseException:
        remove_empty_folders(made)  # a failed pool leaves no folder it made either
        raise
    keep_snapshot()  # pooled: the corpus was good, so a re-pool need not parse it again
    return added, [w for r in runs.values() for w in r.warnings]


def _record(store: StoreBackend, runs: Mapping[str, SystemRun], config: Config,
            note: str | None, corpus: Any, queries: Any) -> PoolAdded:
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
                        corpus.docs(), order, note=note, queries=queries,
                        pooling=pooling_of(config))
    members = store.pool()
    new = [m for m in members if version is not None and m.version == version]
    return PoolAdded(version=version, latest=store.latest_pool_version(),
                     new_docs=len(members) - before, queries=len({m.qid for m in new}),
                     new_provenance=sum(len(v) for v in store.sources().values())
                     - before_sources,
                     depths=returned_depths(runs, depths), order=order.name, asked=depths)


def returned_depths(runs: Mapping[str, SystemRun], asked: Mapping[str, int]) -> dict[str, int]:
    """Each system's depth as its run returned it: its longest ranking, at most ``asked``."""
    return {n: min(asked[n], max((len(r) for r in runs[n].run.rankings.values()), default=0))
            for n in asked}
