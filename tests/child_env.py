"""The environment for a test's ``python -m poolkit`` subprocess: poolkit's compiled bytecode
kept between processes, outside the repository.

Under ``PYTHONDONTWRITEBYTECODE`` (set on machines that keep their checkouts free of
``__pycache__``) every subprocess compiled each poolkit module it imported from source
again: about a third of a small command's CPU (0.60 s -> 0.42 s for ``poolkit status``,
measured). The compiled files go to ``PYTHONPYCACHEPREFIX`` in the tests' lasting cache
instead, so nothing is written into the checkout. Python keys each one by its source's
modification time and size and its own version, and writes it atomically, so processes
that run at once and checkouts that differ never read a stale one.
"""

from __future__ import annotations

import os
import subprocess

import killpoints
from shared_data import LASTING_CACHE

#: what a child's environment adds to (or overrides in) this process's
BYTECODE = {"PYTHONDONTWRITEBYTECODE": "",  # empty is unset, for Python
            "PYTHONPYCACHEPREFIX": str(LASTING_CACHE / "pycache")}


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment with poolkit's bytecode kept, then ``extra``."""
    return {**os.environ, **BYTECODE, **extra}


def kill(signame: str, target: str, when: str, argv: list[str],
         nth: int = 1) -> subprocess.CompletedProcess[str]:
    """``killpoints.kill`` (``poolkit argv`` in a subprocess, signalled at that moment) with
    poolkit's bytecode kept."""
    return killpoints.kill(signame, target, when, argv, nth, env=BYTECODE)
