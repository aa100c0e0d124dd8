"""One process of the judging kill test (test_judge_kills.py).

    python judge_kill_worker.py LOCATION judge ASSESSOR SEED OPS LOG
        judge as ASSESSOR through the judging-session API while a second thread renews the
        session's claim on the same store handle (as the judging screen does): OPS random
        grades, undos and highlight-word toggles (SEED); each acknowledged event is appended
        to LOG as "id kind qid docid grade judged_at" right after the store returned its id
    python judge_kill_worker.py LOCATION import
        import a 'nist' label for every pooled pair (again: adds nothing)
"""

from __future__ import annotations

import random
import sys
import threading

from poolkit.io.qrels import Qrels
from poolkit.judge.session import JudgingSession
from poolkit.store.backends import open_store
from poolkit.store.claims import claim, release, renew
from poolkit.store.imports import import_labels
from poolkit.store.terms import toggle_term


def judge(location: str, assessor: str, seed: int, ops: int, log_path: str) -> None:
    rng = random.Random(seed)
    with open_store(location) as store, open(log_path, "a") as log:
        mine = claim(store, assessor, take_over=True)
        stop = threading.Event()
        beats: list[BaseException] = []

        def heartbeat() -> None:
            try:
                while not stop.is_set():
                    if not renew(store, mine):
                        raise AssertionError("the claim was taken")
                    stop.wait(0.001)
            except BaseException as exc:
                beats.append(exc)

        beat = threading.Thread(target=heartbeat)
        beat.start()
        try:
            session = JudgingSession(store, assessor, pool_version=1)
            for _ in range(ops):
                roll = rng.random()
                if roll < 0.1 and session.current is not None:
                    toggle_term(store, assessor, session.current.qid, rng.choice("abc"))
                    continue
                event = session.undo_event() if roll < 0.25 else session.grade_event(
                    rng.randint(0, 3))
                if event is None:
                    continue
                event_id = store.record_event(event)
                session.apply(event, event_id)
                log.write(f"{event_id} {event.kind} {event.qid} {event.docid} {event.grade} "
                          f"{event.judged_at}\n")
                log.flush()
        finally:
            stop.set()
            beat.join()
        if beats:
            raise beats[0]
        release(store, mine)


def main(argv: list[str]) -> None:
    location, role = argv[0], argv[1]
    if role == "judge":
        judge(location, argv[2], int(argv[3]), int(argv[4]), argv[5])
    elif role == "import":
        with open_store(location) as store:
            pairs = sorted((m.qid, m.docid) for m in store.pool())
            grades: dict[str, dict[str, int]] = {}
            for q, d in pairs:
                grades.setdefault(q, {})[d] = int(d[1:]) % 4
            import_labels(store, Qrels.from_mapping(grades, name="nist.qrels"), "nist")


if __name__ == "__main__":
    main(sys.argv[1:])
