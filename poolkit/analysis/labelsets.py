"""Label sets for the analyses: the store "as of" a pool version, or a label file.

A :class:`LabelSet` is one resolved grade per (query, doc) plus where it came from, so every
report can say which labels it read. Several assessors on one pair are resolved by the same
named policies as ``poolkit export`` (``poolkit.policies.POLICIES``); pairs a policy cannot
decide are left unjudged and counted, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poolkit.errors import StoreError, one_of
from poolkit.io.qrels import Qrels
from poolkit.io.readers import read_labels
from poolkit.policies import DEFAULT_POLICY
from poolkit.store.contract import StoreBackend

Pair = tuple[str, str]


@dataclass
class LabelSet:
    """One grade per judged pair, and what the reports say about its origin."""

    qrels: Qrels
    #: JSON-ready description: kind (store|file), pool_version, policy, path ...
    origin: dict[str, Any]
    #: pairs the policy could not decide (left unjudged, never guessed)
    unresolved: int = 0
    #: pool membership as of the version (store labels only)
    pooled: set[Pair] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.qrels.name

    def summary(self, level: int) -> dict[str, Any]:
        grades = [g for docs in self.qrels.grades.values() for g in docs.values()]
        out = {"name": self.name, **self.origin, "sha256": self.qrels.sha256,
               "judged": sum(1 for g in grades if g >= 0),
               "relevant": sum(1 for g in grades if g >= level),
               "unresolved": self.unresolved}
        if self.pooled is not None:
            out["pooled"] = len(self.pooled)
        return out


def store_labels(store: StoreBackend, version: int | None = None,
                 assessors: Iterable[str] | None = None,
                 policy: str = DEFAULT_POLICY) -> LabelSet:
    """Labels as of pool ``version`` (default: latest): grades of pairs pooled by then.

    Several assessors on one pair are resolved by ``policy`` (see ``poolkit.policies``);
    ``assessors`` limits whose grades count (e.g. only ``nist``).
    """
    from poolkit.policies import current_labels

    version = store.resolve_pool_version(version)
    if assessors is not None:
        assessors = list(assessors)
        known = store.assessors()
        for name in assessors:
            if name not in known:
                raise StoreError(f"{store.path}: " + one_of(name, known, "assessor"))
    labels = current_labels(store, policy, assessors, pool_version=version)
    pooled = {(m.qid, m.docid) for m in store.pool(max_version=version)}
    qrels = Qrels.from_mapping(labels.grades, name=f"pool v{version}")
    origin: dict[str, Any] = {"kind": "store", "store": str(store.path), "pool_version": version,
                              "policy": policy}
    if assessors is not None:
        origin["assessors"] = sorted(assessors)
    return LabelSet(qrels, origin, len(labels.unresolved), pooled)


def file_labels(path: str | Path, fmt: str | None = None) -> LabelSet:
    """A label file (qrels, golden.yaml, ...; ``fmt`` None: detected) as a label set."""
    qrels = read_labels(path, fmt)
    return LabelSet(qrels, {"kind": "file", "path": str(path)})


def qrels_without(qrels: Qrels, pairs: Iterable[Pair], name: str) -> Qrels:
    """``qrels`` with the given pairs' judgments removed (they become unjudged)."""
    drop: dict[str, set[str]] = {}
    for q, d in pairs:
        drop.setdefault(q, set()).add(d)
    grades = {q: {d: g for d, g in docs.items() if d not in drop.get(q, ())}
              for q, docs in qrels.grades.items()}
    return Qrels(grades, name=name, sha256="")
