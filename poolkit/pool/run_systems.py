"""Run every configured system over the collection and write its run file and settings.

For each system ``NAME`` in ``config.runs_dir``:

- ``NAME.run``: its TREC run (top ``depth`` per query);
- ``NAME.json``: everything that made it (system config, retriever settings, package
  versions, run hash, timing, and for external runs what validation dropped);
- ``NAME.fetch.run`` for a reranker: the candidate list it re-scored (stage 1), so stage-1
  and stage-2 recall can both be scored.

Systems run in dependency order (a reranker after the system it re-scores); a system's
results are memoised so a reranker fetching from it does not search again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from poolkit import __version__
from poolkit.config import Config, SystemConfig
from poolkit.errors import ConfigError, PoolkitError, one_of
from poolkit.io.atomic import write_text
from poolkit.io.corpus import Corpus
from poolkit.io.paths import shown_path
from poolkit.io.run import Run, run_text
from poolkit.pool.publish import PendingRuns, run_files
from poolkit.pool.reuse import queries_sha256, stored_run
from poolkit.retrieve.base import (
    Results,
    Retriever,
    results_to_run,
    results_to_run_text,
    run_to_results,
)
from poolkit.retrieve.kinds import PACKAGES, SYSTEM_KINDS, BuildContext, Built
from poolkit.store.records import QueryRecord, now


@dataclass
class SystemRun:
    """One system's output: its run (validated, at its depth) and where it was written."""

    name: str
    kind: str
    run: Run
    settings: dict[str, Any]
    seconds: float
    path: Path | None = None
    fetch_run: Run | None = None
    fetch_path: Path | None = None
    warnings: list[str] = field(default_factory=list)
    group: str | None = None
    source: Path | None = None  # an external run's own file (what its hash is of)
    text: str | None = None     # the run file's text, when made here (written as hashed)
    reused: bool = False        # the stored run, unchanged (nothing searched or written)

    @property
    def registered_path(self) -> str | None:
        """The run file the store names for this system: the user's file for external runs."""
        path = self.source or self.path
        return str(path) if path else None


class _Memo:
    """A retriever whose deepest results so far are reused for any shallower request."""

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner
        self.name = inner.name
        self._k = 0
        self._qids: tuple[str, ...] = ()
        self._results: Results = {}
        self._seed: Callable[[], Results] | None = None

    def search(self, queries: Sequence[QueryRecord], k: int) -> Results:
        qids = tuple(q.qid for q in queries)
        if self._seed is not None and qids == self._qids and k <= self._k:
            results = self._seed()
            self._results = {q: results.get(q, []) for q in qids}
            self._seed = None
        if qids != self._qids or k > self._k:
            self._results = self.inner.search(queries, k)
            self._k, self._qids = k, qids
        return {q: hits[:k] for q, hits in self._results.items()}

    def seed(self, queries: Sequence[QueryRecord], k: int, results: Callable[[], Results],
             ) -> None:
        """Start from ``results()`` (the top ``k`` per query, e.g. a stored run's), made
        only if something asks (a reranker fetching from this system)."""
        self._qids, self._k, self._seed = tuple(q.qid for q in queries), k, results

    def settings(self) -> dict[str, Any]:
        return self.inner.settings()


def _versions() -> dict[str, str]:
    out = {"poolkit": __version__}
    for pkg in PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def _order(systems: dict[str, SystemConfig], names: Iterable[str]) -> list[str]:
    """The named systems and every system they re-score, first stages first."""
    out: list[str] = []

    def visit(name: str) -> None:
        s = systems[name]
        if s.over is not None:
            visit(s.over)
        if name not in out:
            out.append(name)

    for n in names:
        visit(n)
    return out


def build_system(config: Config, system: SystemConfig, corpus: Corpus,
                 queries: Sequence[QueryRecord], built: dict[str, Retriever]) -> Built:
    """The retriever a system config describes, by its kind's builder (``built`` holds the
    systems it may re-score)."""
    kind = SYSTEM_KINDS[system.kind]  # config.py refuses unknown kinds
    ctx = BuildContext(system.name, system.options, corpus, queries, config.path.parent,
                       config.cache_dir, built[system.over] if system.over else None,
                       system.path)
    with _blame(config, system):
        return kind.build(ctx)


@contextmanager
def _blame(config: Config, system: SystemConfig) -> Iterator[None]:
    """A system that cannot be built or run is named with its line in the config."""
    try:
        yield
    except ConfigError:
        raise
    except PoolkitError as exc:
        raise ConfigError(config.path, system.line, f"systems.{system.name}: {exc}") from None


def run_systems(config: Config, corpus: Corpus, queries: Sequence[QueryRecord],
                names: Iterable[str] | None = None, write: bool = True,
                log: Callable[[str], None] | None = None,
                header: str | None = None,
                pending: PendingRuns | None = None) -> dict[str, SystemRun]:
    """Run the named systems (default: all) and those they depend on; write their files
    (``pending``: stage them there, to be made visible by the store commit).

    Every system is built first (external runs read and checked, model folders found), and
    ``header`` logged only then, so that a bad input is one error line before any work; the
    run files are written once every system has run, so a failing system leaves none."""
    wanted = list(names) if names is not None else list(config.systems)
    for n in wanted:
        if n not in config.systems:
            raise ConfigError(config.path, None, one_of(n, config.systems, "system"))
    built: dict[str, Retriever] = {}
    made: dict[str, Built] = {}
    build_seconds: dict[str, float] = {}
    for name in _order(config.systems, wanted):
        start = time.perf_counter()
        made[name] = build_system(config, config.systems[name], corpus, queries, built)
        built[name] = _Memo(made[name].retriever)
        build_seconds[name] = time.perf_counter() - start
    if log and header:
        log(header)
    out: dict[str, SystemRun] = {}
    versions = _versions()
    queries_hash = queries_sha256(queries)
    for name in made:
        system = config.systems[name]
        start = time.perf_counter() - build_seconds[name]  # a system's time includes its build
        retriever = built[name]
        identity = {"system": _system_dict(system),
                    "retriever": made[name].retriever.settings(),
                    "queries_sha256": queries_hash, "versions": versions}
        if write and SYSTEM_KINDS[system.kind].reusable:
            stored = stored_run(config.runs_dir, name, identity)
            if stored is not None:
                assert isinstance(retriever, _Memo)  # every built system is wrapped in one
                out[name] = _reused(config, system, stored, queries, retriever, log)
                continue
        with _blame(config, system):  # models load lazily
            results = retriever.search(queries, system.depth)
        seconds = time.perf_counter() - start
        outcome = made[name].outcome()
        run, text = results_to_run_text(results, name)
        settings = {**identity, "queries": len(queries), "queries_path": str(config.queries),
                    "corpus_path": str(config.corpus), "run_sha256": run.sha256,
                    "created_at": now(), "seconds": round(seconds, 3)}
        if outcome.cache_hit is not None:
            settings["embedding_cache_hit"] = outcome.cache_hit
        if outcome.index_cache_hit is not None:
            settings["index_cache_hit"] = outcome.index_cache_hit
        sr = SystemRun(name, system.kind, run, settings, seconds, group=system.group,
                       text=text)
        if outcome.source is not None:  # an external run file, validated
            sr.warnings = outcome.warnings
            sr.settings["run_sha256"] = outcome.source_sha256  # the file the user gave
            sr.source = outcome.source
            sr.settings["validated_run_sha256"] = run.sha256
        if outcome.fetch_results is not None:
            sr.fetch_run = results_to_run(outcome.fetch_results, f"{name}.fetch")
        if log:
            log(_describe(sr, results, config.runs_dir / f"{name}.run" if write else None))
            for w in sr.warnings:
                log(f"  warning: {w}")
        out[name] = sr
    if write:
        for sr in out.values():
            if not sr.reused:
                _write(config.runs_dir, sr, pending)
    return {n: out[n] for n in out if n in wanted or names is None}


def _reused(config: Config, system: SystemConfig, stored: tuple[Run, dict[str, Any]],
            queries: Sequence[QueryRecord], retriever: _Memo,
            log: Callable[[str], None] | None) -> SystemRun:
    """The stored run of an unchanged system, serving as its results (a reranker over it
    fetches from them)."""
    run, settings = stored
    retriever.seed(queries, system.depth, lambda: run_to_results(run))
    path = config.runs_dir / f"{system.name}.run"
    sr = SystemRun(system.name, system.kind, run, settings, 0.0, path=path,
                   group=system.group, reused=True)
    if log:
        n = sum(len(d) for d in run.rankings.values())
        log(f"{sr.name} [{sr.kind}]: {n} results for {len(run.rankings)} queries, reused "
            f"(system, settings, corpus and queries unchanged) <- {shown_path(path)}")
    return sr


def _system_dict(system: SystemConfig) -> dict[str, Any]:
    return {"name": system.name, "kind": system.kind, "depth": system.depth,
            "pool_depth": system.pool_depth, "group": system.group, "options": system.options,
            "path": str(system.path) if system.path else None, "over": system.over,
            # only when declared: a run made before families existed is reused as it was
            **({"family": system.family} if system.family else {})}


def _write(runs_dir: Path, sr: SystemRun, pending: PendingRuns | None) -> None:
    """A system's files: written now (each atomically), or staged in ``pending`` to become
    visible with the store commit that records them."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    sr.path = runs_dir / f"{sr.name}.run"
    fetch = None
    if sr.fetch_run is not None:
        sr.fetch_path = runs_dir / f"{sr.name}.fetch.run"
        sr.settings["fetch_run"] = str(sr.fetch_path)
        sr.settings["fetch_run_sha256"] = sr.fetch_run.sha256
        fetch = (f"{sr.name}.fetch", sr.fetch_run)
    text = sr.text if sr.text is not None else run_text(sr.run.rankings, sr.run.scores,
                                                        sr.name)
    files = run_files(sr.name, text, fetch, sr.settings)
    if pending is not None:
        pending.stage(sr.name, sr.settings, files)
        return
    for name, content in files.items():
        write_text(runs_dir / name, content)


def outputs_of(config: Config, names: Iterable[str] | None = None,
               ) -> dict[str, dict[str, Path]]:
    """What ``run_systems`` may write for the named systems (default: all) and those they
    re-score: per system, (what -> path) of its run, candidates and settings files."""
    wanted = list(names) if names is not None else list(config.systems)
    out: dict[str, dict[str, Path]] = {}
    for name in _order(config.systems, [n for n in wanted if n in config.systems]):
        files = {f"pool's copy of systems.{name}'s run": config.runs_dir / f"{name}.run"}
        if config.systems[name].over is not None:
            files[f"pool's candidates of systems.{name}"] = (config.runs_dir
                                                             / f"{name}.fetch.run")
        files[f"pool's settings of systems.{name}"] = config.runs_dir / f"{name}.json"
        out[name] = files
    return out


def _describe(sr: SystemRun, results: Results, path: Path | None) -> str:
    n = sum(len(h) for h in results.values())
    where = f" -> {shown_path(path)}" if path else ""
    cache = sr.settings.get("embedding_cache_hit")
    note = "" if cache is None else (" (embeddings cached)" if cache else " (encoded corpus)")
    index = sr.settings.get("index_cache_hit")
    note += "" if index is None else (" (index cached)" if index else " (indexed corpus)")
    return (f"{sr.name} [{sr.kind}]: {n} results for {len(results)} queries in "
            f"{sr.seconds:.1f}s{note}{where}")

