"""Stores for judging tests, built directly (no pooling code): Store.upsert_queries plus
Store.add_pool_version(NewMember...), and a clock that ticks by a fixed step."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from shared_data import SAMPLE

from poolkit.store import NewMember, QueryRecord, Store

POOL_SIZE = 6

#: the sample config's guidelines: a line per grade, its label first
GUIDELINES = """\
Grade each passage for how well it answers the question, as a smallholder farmer would need it:
3 perfectly relevant - answers the question directly and completely;
2 highly relevant - answers a substantial part of it;
1 related - on topic, but would not answer the question alone;
0 not relevant."""


class TickClock:
    """Deterministic clock: every call is ``step`` seconds after the previous one."""

    def __init__(self, start: datetime = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc),
                 step: float = 7.0) -> None:
        self.now, self.step = start, timedelta(seconds=step)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def _key(qid: str, docid: str) -> float:
    digest = hashlib.sha256(f"13\0{qid}\0{docid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def build_store(path: Path, queries: Sequence[QueryRecord],
                docs: Mapping[str, tuple[str, str]],
                pools: Mapping[str, Sequence[str]]) -> Store:
    """A store whose pool (version 1) is ``pools[qid]`` in the given judging order."""
    store = Store(path)
    store.upsert_queries(queries)
    members = [NewMember(q, d, *docs[d], float(i)) for q, ds in pools.items()
               for i, d in enumerate(ds)]
    sources = [(q, d, "sysA", i + 1, 1.0 / (i + 1)) for q, ds in pools.items()
               for i, d in enumerate(ds)]
    store.add_pool_version({"sysA": max(len(v) for v in pools.values())}, "shuffle", members,
                           sources)
    return store


def sample_collection() -> tuple[list[QueryRecord], dict[str, tuple[str, str]],
                                 dict[str, list[str]]]:
    """The bundled sample's queries and passages; each query pools its POOL_SIZE docs that
    come first in a seeded shuffle (a stand-in for pooling, which is not under test here)."""
    queries = [QueryRecord(r["id"], r["text"], r.get("description"), r.get("narrative"))
               for r in map(json.loads, (SAMPLE / "queries.jsonl").read_text().splitlines())
               if r]
    docs = {r["id"]: (r.get("title", ""), r["text"])
            for r in map(json.loads, (SAMPLE / "corpus.jsonl").read_text().splitlines()) if r}
    pools = {q.qid: sorted(docs, key=lambda d, q=q: _key(q.qid, d))[:POOL_SIZE] for q in queries}
    return queries, docs, pools


TINY_QUERIES = [
    QueryRecord("q1", "How do I control fall armyworm in maize?",
                "A relevant passage explains how to detect or control fall armyworm on maize."),
    QueryRecord("q2", "How should maize grain be dried and stored?"),
]
TINY_DOCS = {
    "d1": ("Controlling fall armyworm", "Scout maize twice a week for fall armyworm egg masses "
           "and fresh whorl damage. Crush egg masses by hand; put sand or ash into damaged "
           "whorls, or spray a registered insecticide into the funnel early in the morning."),
    "d2": ("Termites in maize fields", "Termites attack maize roots and stems in dry spells. "
           + " ".join(f"Paragraph {i}: keep fields clean of crop residue, encourage ants, and "
                      f"rotate crops to lower termite pressure." for i in range(1, 15))),
    "d3": ("Stem borers", "Stem borer larvae tunnel into maize stems; push-pull companion "
           "cropping with desmodium and Napier grass reduces damage."),
    "d4": ("Drying maize", "Dry maize grain on tarpaulins, never on bare soil, to below 13.5% "
           "moisture before storing it in hermetic bags."),
    "d5": ("Weevils in store", "Weevils breed in stored grain; hermetic bags starve them of air."),
}
TINY_POOLS = {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5"]}


def narrative_store(path: Path) -> Store:
    """The tiny store with a narrative too long for an 80x24 screen on q1."""
    narrative = " ".join(f"Point {i}: passages about stored-grain insects are related." for i
                         in range(1, 12))
    queries = [QueryRecord("q1", TINY_QUERIES[0].text, TINY_QUERIES[0].description, narrative),
               TINY_QUERIES[1]]
    return build_store(path, queries, TINY_DOCS, TINY_POOLS)


def write_config(directory: Path, store: Path, judge: str = "") -> Path:
    """A minimal valid collection config whose store is ``store`` (corpus, queries and a run
    file exist only because the config requires them; judging reads the store)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "corpus.jsonl").write_text('{"id": "d1", "text": "x"}\n')
    (directory / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (directory / "sys.run").write_text("q1 Q0 d1 1 1.0 sys\n")
    config = directory / "config.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {store}\n"
                      f"systems:\n  sysA: {{kind: run, path: sys.run}}\n" + judge)
    return config


def sync(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test body with asyncio.run (no async pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: object, **kwargs: object) -> None:
        asyncio.run(test(*args, **kwargs))

    return run
