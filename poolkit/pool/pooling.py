"""Pooling strategies: which of the runs' documents enter a query's pool.

``POOLING_STRATEGIES`` is the registry (name -> class), chosen by ``pool.strategy`` in the
config (default ``depth``). A strategy declares its ``params`` (config keys under ``pool:``)
and implements ``select``: given one query's runs and each run's pool depth, the
``Candidate`` documents with the hits that brought them and, for a sampled pool, each one's
stratum and inclusion probability. Adding a strategy (a stratified sample, a per-query
budget) is one class in its own module, registered here; ``build.plan_pool`` and the store
take the candidates as they come.

- ``depth`` (default): the union of every run's top ``depth`` documents (TREC depth-k
  pooling); a run's ``pool_depth`` overrides the pool's. Every document is judged
  (inclusion 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from poolkit.errors import PoolkitError, one_of
from poolkit.io.provenance import PoolProvenance
from poolkit.io.run import Run
from poolkit.params import DEFAULT_SEED, Param, ParamError, build_kwargs
from poolkit.pool.view import Candidate, Hit


def query_hits(qid: str, runs: Mapping[str, Run], depths: Mapping[str, int],
               ) -> dict[str, list[Hit]]:
    """One query's pooled documents (in the order the runs first bring them) -> the hits that
    brought each in: run by run, each run's top ``depths[name]`` (``io.provenance``)."""
    pool = PoolProvenance.from_runs(runs, depths, [qid])
    return {d: [Hit(h.system, h.rank, h.score) for h in hs] for d, hs in pool.query(qid).items()}


class PoolingStrategy:
    """Base of every pooling strategy (see the module docstring for the contract)."""

    name: ClassVar[str]
    summary: ClassVar[str]
    params: ClassVar[tuple[Param, ...]] = ()

    def select(self, qid: str, runs: Mapping[str, Run],
               depths: Mapping[str, int]) -> list[Candidate]:
        raise NotImplementedError


@dataclass(frozen=True)
class Depth(PoolingStrategy):
    name: ClassVar[str] = "depth"
    summary: ClassVar[str] = "the union of every run's top N (TREC depth-k pooling)"

    def select(self, qid: str, runs: Mapping[str, Run],
               depths: Mapping[str, int]) -> list[Candidate]:
        return [Candidate(d, tuple(h)) for d, h in query_hits(qid, runs, depths).items()]


def _strata_fit(value: Any) -> None:
    """A ParamError unless ``value`` is a list of [first, last, rate] tiling 1..last."""
    from poolkit.pool.sample import SampleDesign

    try:
        SampleDesign.from_lists(_strata_end(value), value)
    except PoolkitError as exc:
        raise ParamError(str(exc).removeprefix("sample: ")) from None


def _strata_end(value: Any) -> int:
    try:
        return int(value[-1][1])
    except (TypeError, ValueError, IndexError, KeyError):
        return 1


@dataclass(frozen=True)
class Sample(PoolingStrategy):
    """A stratified random sample of the depth-k pool (``pool.sample``): strata are ranges of
    the best rank any run gave a document; only the drawn documents are judged, the rest are
    recorded as pooled-but-unjudged with their stratum and inclusion probability."""

    strata: Any = None
    seed: int = DEFAULT_SEED
    name: ClassVar[str] = "sample"
    summary: ClassVar[str] = ("a stratified random sample of the depth-N pool, strata by best "
                              "rank; every pooled pair recorded with its inclusion probability")
    params: ClassVar[tuple[Param, ...]] = (
        Param("strata", (list,), None, "[[first, last, rate], ...] over best ranks 1..depth",
              validate=_strata_fit),
        Param("seed", (int,), DEFAULT_SEED, "seed of the draw"),
    )

    def __post_init__(self) -> None:
        if self.strata is None:
            raise PoolkitError("pool.strategy sample needs pool.strata, e.g. "
                               "[[1, 10, 1.0], [11, 30, 0.5], [31, 100, 0.1]]")

    @property
    def design(self) -> Any:
        from poolkit.pool.sample import SampleDesign

        return SampleDesign.from_lists(_strata_end(self.strata), self.strata, self.seed)

    def select(self, qid: str, runs: Mapping[str, Run],
               depths: Mapping[str, int]) -> list[Candidate]:
        design = self.design
        too_deep = [n for n in runs if depths[n] > design.depth]
        if too_deep:
            raise PoolkitError(f"pool.strata end at rank {design.depth} but {', '.join(too_deep)} "
                               f"pool{'s' if len(too_deep) == 1 else ''} deeper "
                               f"({', '.join(str(depths[n]) for n in too_deep)}): the strata "
                               f"must cover every pooled rank")
        hits = query_hits(qid, runs, depths)
        drawn = design.draw(qid, {d: [h.rank for h in hs] for d, hs in hits.items()})
        return [Candidate(p.docid, tuple(hits[p.docid]), p) for p in drawn]


#: name -> strategy class: the one registry of pooling strategies
POOLING_STRATEGIES: dict[str, type[PoolingStrategy]] = {cls.name: cls for cls in (Depth, Sample)}


def pooling_strategy(name: str, settings: Mapping[str, Any] | None = None,
                     where: str = "pool") -> PoolingStrategy:
    if name not in POOLING_STRATEGIES:
        raise PoolkitError(one_of(name, POOLING_STRATEGIES, "pooling strategy"))
    cls = POOLING_STRATEGIES[name]
    try:
        return cls(**build_kwargs(cls.params, settings or {}, where))
    except ParamError as exc:
        raise PoolkitError(str(exc)) from None
