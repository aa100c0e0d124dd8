"""TREC run files: ``qid Q0 docid rank score tag`` per line.

Order. By default a run is ordered the way trec_eval orders it, ignoring the rank column:
score descending, ties broken by doc id descending (byte order). ``order="rank"`` takes the
rank column (ties by line order) and ``order="file"`` the order of the lines. Columns past
the sixth are ignored, as trec_eval ignores them.

A doc id repeated within one query is kept: it holds its slot, and the scorer counts it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from poolkit.errors import InputError, PoolkitError, one_of
from poolkit.io.common import decode, read_bytes, sha256_hex

RUN_ORDERS = {
    "score": "score descending, ties by doc id descending (trec_eval's order; the default)",
    "rank": "the rank column ascending, ties by line order",
    "file": "the order of the lines in the file",
}


@dataclass
class Run:
    """Ranked doc ids per query: ``rankings[qid]`` is a list in rank order (repeats kept).

    ``scores[qid]`` runs parallel to ``rankings[qid]`` when the source had scores.
    """

    rankings: dict[str, list[str]]
    name: str = "<memory>"
    sha256: str = ""
    path: str | None = None
    tag: str | None = None
    scores: dict[str, list[float]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_mapping(cls, rankings: Mapping[str, Sequence[str]], name: str = "<memory>",
                     scores: Mapping[str, Sequence[float]] | None = None) -> Run:
        ranks = {str(q): [str(d) for d in docs] for q, docs in rankings.items()}
        if scores is None:
            sc = {q: [float(len(d) - i) for i in range(len(d))] for q, d in ranks.items()}
        else:
            sc = {str(q): [float(s) for s in v] for q, v in scores.items()}
        return cls(ranks, name=name, sha256=sha256_hex(run_text(ranks, sc, name).encode()),
                   scores=sc)

    @property
    def query_ids(self) -> list[str]:
        return list(self.rankings)

    def truncated(self, depth: int) -> Run:
        """The same run cut to its top ``depth`` per query (a fetch list → a keep list)."""
        return Run({q: d[:depth] for q, d in self.rankings.items()}, name=f"{self.name}@{depth}",
                   sha256=self.sha256, path=self.path, tag=self.tag,
                   scores={q: s[:depth] for q, s in self.scores.items()})


def read_run(path: str | Path, order: str = "score", name: str | None = None) -> Run:
    if order not in RUN_ORDERS:
        raise PoolkitError(one_of(order, RUN_ORDERS, "run order"))
    data = read_bytes(path)
    text = decode(path, data)
    rows: dict[str, list[tuple[float, str, int, int]]] = {}
    tag = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 6:
            raise InputError(
                path, lineno,
                f"expected 6 columns 'qid Q0 docid rank score tag', found {len(parts)}: "
                f"{line.strip()!r}",
            )
        qid, _q0, docid, rank_s, score_s = parts[:5]
        try:
            score = float(score_s)
        except ValueError:
            score = math.nan
        if score != score:  # NaN (typed or unparsable) has no place in a sort by score
            raise InputError(path, lineno, f"score {score_s!r} is not a number")
        try:
            rank = int(rank_s)
        except ValueError:
            raise InputError(path, lineno, f"rank {rank_s!r} is not an integer") from None
        if tag is None:
            tag = parts[5]
        rows.setdefault(qid, []).append((score, docid, rank, lineno))
    rankings: dict[str, list[str]] = {}
    scores: dict[str, list[float]] = {}
    for qid, items in rows.items():
        if order == "score":
            items.sort(key=lambda r: (r[0], r[1]), reverse=True)
        elif order == "rank":
            items.sort(key=lambda r: (r[2], r[3]))
        rankings[qid] = [r[1] for r in items]
        scores[qid] = [r[0] for r in items]
    return Run(rankings, name=name or Path(path).name, sha256=sha256_hex(data), path=str(path),
               tag=tag, scores=scores)


def run_text(rankings: Mapping[str, Sequence[str]], scores: Mapping[str, Sequence[float]],
             tag: str) -> str:
    out = []
    tag = tag.replace(" ", "_") or "poolkit"
    for qid, docs in rankings.items():
        sc = scores.get(qid)
        for i, docid in enumerate(docs):
            s = sc[i] if sc is not None and i < len(sc) else float(len(docs) - i)
            out.append(f"{qid} Q0 {docid} {i + 1} {s:.6f} {tag}\n")
    return "".join(out)


def write_run(run: Run, path: str | Path, tag: str | None = None) -> None:
    Path(path).write_text(run_text(run.rankings, run.scores, tag or run.tag or run.name),
                          encoding="utf-8")


def read_any_run(path: str | Path, order: str = "score") -> Run:
    """A TREC run file, or a JSON/YAML ranked list (by extension)."""
    from poolkit.io.ranked import RANKED_SUFFIXES, read_ranked

    if Path(path).suffix.lower() in RANKED_SUFFIXES:
        return read_ranked(path)
    return read_run(path, order=order)
