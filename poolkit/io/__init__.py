"""Readers and writers for the ecosystem's formats: TREC qrels and runs, golden.yaml, ranked lists.

Ids are strings everywhere: ``#7`` and ``007`` survive a round trip unchanged.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from poolkit.io.qrels import Qrels, read_qrels, write_qrels
from poolkit.io.readers import read_any_run, read_labels
from poolkit.io.run import RUN_ORDERS, Run, read_run, write_run

if TYPE_CHECKING:
    from poolkit.io.golden import read_golden, write_golden
    from poolkit.io.ranked import read_ranked

# The YAML formats' functions -> their module, imported on first use: PyYAML costs every
# ``poolkit score`` of TREC files ~15 ms of start-up otherwise.
_ON_USE = {"read_golden": "golden", "write_golden": "golden", "read_ranked": "ranked"}


def __getattr__(name: str) -> Any:
    if name not in _ON_USE:
        raise AttributeError(f"module 'poolkit.io' has no attribute {name!r}")
    return getattr(importlib.import_module(f"poolkit.io.{_ON_USE[name]}"), name)


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
