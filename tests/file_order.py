"""The order pytest-xdist's workers get the test files in: the longest first.

``python tasks.py test`` hands whole files to two workers (``--dist loadfile``) in collection
order (``--no-loadscope-reorder``; xdist's own order is by number of tests, which sends a
file of one 60-second test last, and one worker then runs it alone at the end). Longest first,
the last files handed out are short and the two workers end together.

A file's length is what it took in the last session that ran it on this machine (kept in
LASTING_CACHE, written at the end of every session); a file never timed here yet counts as
long if it has a ``slow`` test. The order changes when tests run, never what they check.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from shared_data import lasting_cache

CACHE = "durations"  # a folder of LASTING_CACHE
RECORD = "files.json"  # {file node id: seconds}
UNTIMED_SLOW = 30.0  # seconds assumed for a file with a slow test and no record yet


def _read(folder: Path) -> dict[str, float]:
    try:
        record = json.loads((folder / RECORD).read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def longest_first(items: list[pytest.Item]) -> None:
    """Sorts ``items`` in place, file by file, by the file's length; a file's tests stay
    together and in their order."""
    with lasting_cache(CACHE) as folder:
        seconds = _read(folder)
    first: dict[str, int] = {}
    slow: set[str] = set()
    for index, item in enumerate(items):
        path = item.nodeid.split("::")[0]
        first.setdefault(path, index)
        if item.get_closest_marker("slow"):
            slow.add(path)

    def length(path: str) -> float:
        return float(seconds.get(path, UNTIMED_SLOW if path in slow else 0.0))

    items.sort(key=lambda item: (-length(item.nodeid.split("::")[0]),
                                 first[item.nodeid.split("::")[0]]))


class Timer:
    """Adds up each file's test times (setup, call and teardown) as reports arrive; on the
    controller these are every worker's reports."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def add(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid.split("::")[0]] += report.duration

    def save(self) -> None:
        """Merges this session's files into the record (files it did not run keep theirs)."""
        if not self.seconds:
            return
        with lasting_cache(CACHE) as folder:
            record = {**_read(folder), **{k: round(v, 2) for k, v in self.seconds.items()}}
            part = folder / f"{RECORD}.{os.getpid()}"
            part.write_text(json.dumps(record, indent=0, sort_keys=True))
            os.replace(part, folder / RECORD)
