"""Ranked lists where the list order is the ranking, as the seeds write them.

JSON or YAML, a mapping from query id to a list of doc ids::

    q_faw: [m2, x3, m1, p1, d2]
"""

from __future__ import annotations

from pathlib import Path

from poolkit.errors import InputError
from poolkit.io.common import decode, read_bytes, sha256_hex
from poolkit.io.run import Run
from poolkit.io.validate import check_id
from poolkit.io.yamlnodes import compose, line_of, mapping_items, scalar, sequence_items


def read_ranked(path: str | Path, name: str | None = None) -> Run:
    data = read_bytes(path)
    # JSON is YAML 1.2's subset for everything a ranked list holds, so one reader serves both.
    root = compose(path, decode(path, data))
    rankings: dict[str, list[str]] = {}
    for k, v in mapping_items(path, root, "a ranked-list file (query id -> list of doc ids)"):
        qid = check_id(path, line_of(k), scalar(path, k, "query id"), "query id")
        if qid in rankings:
            raise InputError(path, line_of(k), f"query {qid!r} is listed twice")
        items = sequence_items(path, v, f"ranking of {qid!r}")
        rankings[qid] = [check_id(path, line_of(d), scalar(path, d, "doc id"), "doc id")
                         for d in items]
    if not rankings:
        raise InputError(path, None, "no rankings found")
    run = Run.from_mapping(rankings, name=name or Path(path).name)
    run.sha256 = sha256_hex(data)
    run.path = str(path)
    return run
