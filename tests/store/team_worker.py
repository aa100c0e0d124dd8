"""One process of the team load test (test_store_team.py): an assessor judging through the
judging-session API, a pooler expanding the pool, or an importer.

    python team_worker.py LOCATION judge ASSESSOR N LOG   grade up to N passages of pool v1
    python team_worker.py LOCATION pool                   add pool version 2 (new docs)
    python team_worker.py LOCATION import                 import 'nist' grades for pool v1

Grades are a function of the pair, so every label is the same whoever wrote it first.
"""

from __future__ import annotations

import sys
import zlib

from poolkit.io.qrels import Qrels
from poolkit.judge.session import JudgingSession
from poolkit.store import NewMember
from poolkit.store.backends import open_store
from poolkit.store.imports import import_labels

#: Pool version 1: every assessor grades all of it (QUERIES x DOCS passages). 20 x 30
#: (600 each; it was 2,000 until the commit that cut it showed 600 still fail a session
#: that forgets its grades at a restart and an import that counts another's grade as
#: standing).
QUERIES, DOCS = 20, 30


def grade_of(qid: str, docid: str) -> int:
    return zlib.crc32(f"{qid}/{docid}".encode()) % 4


def pairs(first: int = 0, count: int = DOCS) -> list[tuple[str, str]]:
    return [(f"q{q:02d}", f"d{d:04d}") for q in range(QUERIES) for d in range(first,
                                                                            first + count)]


def members(first: int = 0, count: int = DOCS) -> tuple[list[NewMember], list[tuple]]:
    ms = [NewMember(q, d, "", f"passage {d} for {q}", float(i))
          for i, (q, d) in enumerate(pairs(first, count))]
    return ms, [(m.qid, m.docid, "bm25", i % count + 1, 1.0 / (i + 1))
                for i, m in enumerate(ms)]


def judge(location: str, assessor: str, n: int, log_path: str) -> None:
    with open_store(location) as store, open(log_path, "a") as log:
        session = JudgingSession(store, assessor, pool_version=1)
        for _ in range(n):
            item = session.current
            if item is None:
                break
            event_id = session.grade(grade_of(item.qid, item.docid))
            log.write(f"{event_id} {item.qid} {item.docid}\n")
            log.flush()


def main(argv: list[str]) -> None:
    location, role = argv[0], argv[1]
    if role == "judge":
        judge(location, argv[2], int(argv[3]), argv[4])
    elif role == "pool":
        with open_store(location) as store:
            ms, sources = members(DOCS, 30)
            store.add_pool_version({"bm25": DOCS + 30}, "docid", ms, sources)
    elif role == "import":
        qrels = Qrels.from_mapping(
            {q: {d: grade_of(q, d) for qq, d in pairs() if qq == q}
             for q in sorted({q for q, _ in pairs()})}, name="nist.qrels")
        with open_store(location) as store:
            import_labels(store, qrels, "nist")


if __name__ == "__main__":
    main(sys.argv[1:])
