"""``simulate``: judging replayed with complete qrels as the assessor, per judging-order
strategy and budget, and what the stopping rule would judge.

Store form: the pool (with provenance) is a config's store's latest pool version, the runs its
systems' run files, strategy parameters and the stopping rule come from its ``pool:`` section.
File form: the pool is the union of the runs' top ``depth``. In both, ``params`` set strategy
parameters over the config's.

The guided orders read more: ``machine`` (a machine judge's labels, qrels or golden.yaml) for
``judge`` and ``cal``, and the passages' text for ``cal`` (the config's corpus and queries
in the store form, ``corpus`` and ``queries`` in the file form). ``judged_only`` cuts every
run to the documents the qrels grade before pooling (trec_eval's ``-J``): every pooled
passage then has a true grade (and, with a machine judge over the same pairs, a machine one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from poolkit.analysis.inputs import read_runs
from poolkit.analysis.reports import SimulateReport
from poolkit.analysis.stats import kendall_tau
from poolkit.collection import Collection
from poolkit.config import Config
from poolkit.errors import PoolkitError, one_of
from poolkit.io.qrels import Qrels
from poolkit.io.readers import read_labels
from poolkit.io.run import Run
from poolkit.pool.order import ORDER_STRATEGIES, order_strategy
from poolkit.pool.remaining import StopRule
from poolkit.pool.simulate import (
    DEFAULT_BUDGETS,
    DEFAULT_MEASURES,
    parse_budgets,
    pools_from_runs,
    simulate,
)
from poolkit.pool.stopping import stopping_rule
from poolkit.pool.view import QueryPool
from poolkit.score.evaluate import require_scorable

#: the orders that read only the runs (the default of ``--strategy``); ``judge`` and ``cal``
#: read a machine judge or the text, named explicitly
RUN_ORDERS = ("shuffle", "docid", "priority", "mtf", "mm-ns")


@dataclass(frozen=True)
class SimulateRequest:
    """What to replay (see the module docstring for the two forms).

    ``qrels``: the complete labels that play the assessor. ``inputs``: store form, one CONFIG;
    file form (``depth`` given), the RUN files. ``budgets``: (as typed, fraction) pairs, as
    ``pool.simulate.parse_budgets`` reads them. ``params``: ``KEY=VALUE`` strategy parameters
    (YAML scalars, as the config's ``pool:`` holds them). ``stop_recall``: None for the
    config's ``pool.stop_recall``, else 0.9. ``plot``: a PNG to draw (needs matplotlib).
    """

    qrels: str
    inputs: Sequence[str] = ()
    depth: int | None = None
    strategies: Sequence[str] = RUN_ORDERS
    budgets: Sequence[tuple[str, float]] = tuple(parse_budgets(",".join(DEFAULT_BUDGETS)))
    level: int = 1
    measures: Sequence[str] = DEFAULT_MEASURES
    stop_recall: float | None = None
    params: Sequence[str] = ()
    plot: str | None = None
    machine: str | None = None
    corpus: str | None = None    # file form: the passages' text (cal, and --find's scan)
    queries: str | None = None   # file form: the queries' text (cal, and --find's seed)
    judged_only: bool = False
    #: ``--find``: extra judgments beyond the pool, as (typed, fraction of each query's pool)
    find: Sequence[tuple[str, float]] = ()
    find_batch: int = 5          # passages per query per find round
    stops: Sequence[str] = ()


def simulate_judging(request: SimulateRequest) -> SimulateReport:
    """The replay report of ``request``; draws ``request.plot`` when given."""
    r = request
    names = list(r.strategies)
    for name in names:
        if name not in ORDER_STRATEGIES:
            raise PoolkitError("--strategy: " + one_of(name, ORDER_STRATEGIES, "strategy"))
    if not names:
        raise PoolkitError("--strategy: name at least one strategy")
    if r.level < 1:
        raise PoolkitError(f"--level must be a positive integer, got {r.level}")
    if r.stop_recall is not None and not 0 < r.stop_recall <= 1:
        raise PoolkitError(f"--stop-recall must be in (0, 1], found {r.stop_recall}")
    if r.find and r.find_batch < 1:
        raise PoolkitError(f"--find-batch must be a positive integer, found {r.find_batch}")
    if r.find and r.depth is not None and r.corpus is None:
        raise PoolkitError("--find in the file form needs --corpus (the passages the "
                           "classifier scans)")
    if r.plot:
        from poolkit.io.atomic import check_outputs

        check_outputs({"--plot": r.plot},
                      {"the qrels": r.qrels, **{f"the input {i}": i for i in r.inputs}})
    config: Config | None = None
    if r.depth is not None:
        if r.depth < 1:
            raise PoolkitError(f"--depth must be a positive integer, found {r.depth}")
        if not r.inputs:
            raise PoolkitError("file form: give the run files to pool (see --help)")
        runs = read_runs(r.inputs)
        pools = {}  # pooled once the qrels are read (``judged_only`` cuts by them)
        corpus_path, queries_path = r.corpus, r.queries
    else:
        if len(r.inputs) != 1:
            raise PoolkitError("give one CONFIG (store form), or run files with --depth K "
                               "(file form); see --help")
        with Collection.open(r.inputs[0]) as collection:
            config = collection.config
            pools = collection.query_pools()
            runs = collection.runs()
            corpus_path = r.corpus or str(config.corpus)
            queries_path = r.queries or str(config.queries)
    settings = {**(config.pool.settings if config is not None else {}),
                **strategy_params(r.params, names)}
    rule = StopRule(target=float(r.stop_recall or settings.get("stop_recall", 0.9)),
                    confidence=float(settings.get("stop_confidence", 0.9)))
    strategies = {n: order_strategy(n, settings) for n in names}
    qrels = read_labels(r.qrels)
    if r.depth is not None:
        pools = pools_from_runs(judged_only(runs, qrels) if r.judged_only else runs, r.depth)
    pools = with_guides(pools, r, config)
    require_scorable(qrels, r.level)  # else every strategy "finds" 0 of 0 relevant
    if r.plot:
        from poolkit.analysis.simulate_render import plot_backend

        plot_backend()  # fail before the replay, not after it, when matplotlib is missing
    doc = simulate(pools, qrels, strategies, r.budgets, runs, tau=kendall_tau, level=r.level,
                   measures=r.measures, stop_rule=rule,
                   stops=[stopping_rule(n, rule.target, rule.confidence) for n in r.stops])
    del doc["command"]
    if r.find:
        doc["find"] = _find(r, pools, qrels, runs, corpus_path, queries_path)
    report = SimulateReport(**doc, qrels={"name": qrels.name, "sha256": qrels.sha256})
    if r.plot:
        from dataclasses import replace

        from poolkit.analysis.simulate_render import plot

        plot(report.document(), r.plot)
        report = replace(report, plot=r.plot)
    return report


def _find(r: SimulateRequest, pools: Mapping[str, QueryPool], qrels: Qrels,
          runs: Mapping[str, Run], corpus: str | None, queries: str | None) -> dict[str, Any]:
    """The find replay (``pool.find_replay``) over the corpus the classifier scans."""
    from poolkit.io.corpus import read_corpus, read_queries
    from poolkit.pool.find import CorpusFinder
    from poolkit.pool.find_replay import replay_find

    assert corpus is not None
    texts = {q.qid: q.text for q in read_queries(queries)} if queries else {}
    finder = CorpusFinder.of(read_corpus(corpus), texts)
    return replay_find(finder, {q: p.docs for q, p in pools.items()}, qrels, runs, r.find,
                       level=r.level, batch=r.find_batch)


def strategy_params(texts: Sequence[str], names: Sequence[str]) -> dict[str, object]:
    """``KEY=VALUE`` texts as strategy parameters (YAML scalars, as the config's ``pool:``
    would hold them); a key none of the strategies ``names`` declares is an error, not
    ignored."""
    import yaml

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


def judged_only(runs: Mapping[str, Run], qrels: Qrels) -> dict[str, Run]:
    """Each run with only the documents ``qrels`` grades, ranks closed up."""
    return {n: Run.from_mapping({q: [d for d in docs if d in qrels.grades.get(q, {})]
                                 for q, docs in run.rankings.items()}, name=n)
            for n, run in runs.items()}


def with_guides(pools: dict[str, QueryPool], r: SimulateRequest,
                config: Config | None) -> dict[str, QueryPool]:
    """The pools with what the guided orders read: machine grades, query and passage text."""
    from dataclasses import replace

    from poolkit.io.corpus import read_corpus, read_queries

    machine = read_labels(r.machine).grades if r.machine else {}
    corpus_path = r.corpus or (config.corpus if config is not None else None)
    queries_path = r.queries or (config.queries if config is not None else None)
    if "cal" in r.strategies and corpus_path is None:
        raise PoolkitError("--strategy cal reads the passages' text: give --corpus (file form)")
    corpus = read_corpus(corpus_path) if "cal" in r.strategies and corpus_path else None
    queries = ({q.qid: q.text for q in read_queries(queries_path)}
               if corpus is not None and queries_path else {})
    out = {}
    for qid, pool in pools.items():
        texts = ({d: corpus.passage(corpus.index[d]) for d in pool.docs if d in corpus}
                 if corpus is not None else {})
        graded = machine.get(qid, {})
        out[qid] = replace(pool, query=queries.get(qid, ""), texts=texts,
                           machine={d: float(graded[d]) for d in pool.docs if d in graded})
    return out
