"""Judgment events per second on each store backend, measured in the same run.

One process recording grades one transaction each (an assessor at the keyboard), then four
processes at once (a team), on a SQLite file and on PostgreSQL. Prints events/s and the
PostgreSQL / SQLite ratio. PostgreSQL is the server named by POOLKIT_TEST_POSTGRES; without
one, the script re-runs itself under `.ci/postgres.sh run`, which starts a throw-away server
on loopback.

    python benchmarks/bench_store.py [--events N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = "POOLKIT_TEST_POSTGRES"


def record(location: str, assessor: str, n: int) -> None:
    from poolkit.store import Event
    from poolkit.store.backends import open_store

    with open_store(location) as store:
        for i in range(n):
            store.record_event(Event(f"q{i % 50}", f"d{i}", assessor, "grade", grade=i % 4))


def timed(location: str, processes: int, n: int) -> float:
    """events/s of ``processes`` processes recording ``n`` events each."""
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, __file__, "--record", location, f"a{i}",
                               str(n)]) for i in range(processes)]
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit(f"a recording process failed ({proc.returncode})")
    return processes * n / (time.perf_counter() - start)


def new_database(url: str) -> str:
    import psycopg

    name = f"poolkit_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + "/" + name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000, help="events per process")
    parser.add_argument("--record", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.record:
        location, assessor, n = args.record
        record(location, assessor, int(n))
        return
    if not os.environ.get(ENV):
        os.execvp("bash", ["bash", str(ROOT / ".ci" / "postgres.sh"), "run", sys.executable,
                           __file__, *sys.argv[1:]])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for processes in (1, 4):
            lite = str(Path(tmp) / f"bench{processes}.sqlite")
            pg = new_database(os.environ[ENV])
            from poolkit.store.backends import open_store

            for location in (lite, pg):  # create the schema outside the timing
                open_store(location).close()
            rows.append((processes, timed(lite, processes, args.events),
                         timed(pg, processes, args.events)))
    print(f"store backends: events/s, {args.events} grades per process, one transaction each")
    print(f"{'processes':>9}  {'SQLite':>8}  {'PostgreSQL':>10}  {'PG / SQLite':>11}")
    for processes, lite_rate, pg_rate in rows:
        print(f"{processes:>9}  {lite_rate:>8.0f}  {pg_rate:>10.0f}  {pg_rate / lite_rate:>11.2f}")


if __name__ == "__main__":
    main()
