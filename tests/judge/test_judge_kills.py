"""Issue 22's acceptance property, its judging half: under random interleavings of judges
(grades, undos, heartbeats on the same handle from a second thread, highlight-word toggles),
imports, and SIGKILLs of a judging process, on both backends, every acknowledged event is in
the log exactly once, as it was written, and nothing was recorded twice.

A seeded plan picks who is killed and when; the kill happens once the victim's log holds a
number of acknowledged events (a state), never after a time. Time limits only stop a hung run.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from judging_screen_helpers import pooled_store

from poolkit.store.backends import open_store

WORKER = Path(__file__).with_name("judge_kill_worker.py")
HUNG = 600.0
ASSESSORS = ("alice", "bob")
OPS = 60


def _spawn(location, *args: object) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(WORKER.parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, str(WORKER), str(location), *map(str, args)],
                            env=env, stderr=subprocess.PIPE, text=True)


def _lines(path: Path) -> list[list[str]]:
    if not path.exists():
        return []
    return [line.split(" ") for line in path.read_text().splitlines() if line.endswith(
        ("+00:00",))]  # (a line cut by the kill is not an acknowledgement yet)


def _finish(proc: subprocess.Popen) -> None:
    _, err = proc.communicate(timeout=HUNG)
    assert proc.returncode == 0, err


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 8])
def test_acknowledged_events_survive_judges_imports_and_kills_exactly_once(store_location,
                                                                           tmp_path, seed):
    rng = random.Random(seed)
    pooled_store(store_location, queries=3, docs=40).close()
    logs = {a: tmp_path / f"{a}.log" for a in ASSESSORS}
    procs = {a: _spawn(store_location, "judge", a, rng.randrange(10**6), OPS, logs[a])
             for a in ASSESSORS}
    importers = [_spawn(store_location, "import")]
    killed = 0
    for _ in range(3):  # three kills, each of a judge picked at random, at a random count
        victim = rng.choice(ASSESSORS)
        target = len(_lines(logs[victim])) + rng.randint(1, 25)
        deadline = time.monotonic() + HUNG
        while len(_lines(logs[victim])) < target and procs[victim].poll() is None:
            assert time.monotonic() < deadline, f"{victim} never reached {target} events"
            time.sleep(0.01)
        if procs[victim].poll() is None:
            procs[victim].send_signal(signal.SIGKILL)
            procs[victim].wait(timeout=HUNG)
            killed += 1
        else:
            _finish(procs[victim])
        procs[victim] = _spawn(store_location, "judge", victim, rng.randrange(10**6), OPS,
                               logs[victim])
        if rng.random() < 0.5:
            importers.append(_spawn(store_location, "import"))
    for proc in [*procs.values(), *importers]:
        _finish(proc)
    assert killed, "no judge was killed mid-way (the plan's counts came after its end)"

    with open_store(store_location, read_only=True) as store:
        events = {e.id: e for e in store.events()}
        imports = [e for e in events.values() if e.kind == "import"]
    for assessor, log in logs.items():
        sent = _lines(log)
        assert sent, f"{assessor} acknowledged nothing"
        for event_id, kind, qid, docid, grade, judged_at in sent:
            kept = events.get(int(event_id))
            assert kept is not None, f"acknowledged {kind} {event_id} of {assessor} is lost"
            assert (kept.assessor, kept.kind, kept.qid, kept.docid, str(kept.grade),
                    kept.judged_at) == (assessor, kind, qid, docid, grade, judged_at)
        assert len({line[0] for line in sent}) == len(sent), "one id acknowledged twice"
    judged = Counter((e.assessor, e.kind, e.qid, e.docid, e.judged_at)
                     for e in events.values() if e.assessor in ASSESSORS)
    assert max(judged.values()) == 1, "an event was recorded twice"
    assert len({(e.qid, e.docid) for e in imports}) == len(imports) == 120  # imported once
