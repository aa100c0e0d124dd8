"""Readers and writers for the ecosystem's formats: TREC qrels and runs, golden.yaml, ranked lists.

Ids are strings everywhere: ``#7`` and ``007`` survive a round trip unchanged.
"""

from poolkit.io.golden import read_golden, write_golden
from poolkit.io.qrels import Qrels, read_qrels, write_qrels
from poolkit.io.ranked import read_ranked
from poolkit.io.readers import read_any_run, read_labels
from poolkit.io.run import RUN_ORDERS, Run, read_run, write_run

__all__ = [
    "Qrels",
    "Run",
    "RUN_ORDERS",
    "read_any_run",
    "read_golden",
    "read_labels",
    "read_qrels",
    "read_ranked",
    "read_run",
    "write_golden",
    "write_qrels",
    "write_run",
]
