"""Kills at a named moment, triggered by state (a call being made), never by a timer.

Run as a script, it runs ``poolkit ARGV...`` in this process with one function replaced by a
wrapper that sends this process ``SIGNAL`` just before or just after its N-th call:

    python killpoints.py SIGKILL poolkit.store.store:Store.register_system after 1 -- pool c.yaml

``kill(...)`` does that in a subprocess from a test and returns the CompletedProcess. SIGINT
and SIGTERM are delivered to Python's handlers at the next bytecode, i.e. right there, as a
real signal arriving at that moment would be; SIGKILL ends the process on the spot.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _owner(target: str) -> tuple[Any, str]:
    module, _, qualname = target.partition(":")
    owner: Any = importlib.import_module(module)
    *path, attr = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, attr


def arm(signame: str, target: str, when: str, nth: int = 1) -> None:
    """Replace ``target`` ("module:Qual.name") so that its ``nth`` call signals us."""
    sig = getattr(signal, signame)
    owner, attr = _owner(target)
    original = getattr(owner, attr)
    calls = [0]

    def fire() -> None:
        os.kill(os.getpid(), sig)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        armed = calls[0] == nth
        if armed and when == "before":
            fire()
        result = original(*args, **kwargs)
        if armed and when == "after":
            fire()
        return result

    setattr(owner, attr, wrapper)


def kill(signame: str, target: str, when: str, argv: list[str], nth: int = 1,
         cwd: Path | None = None, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    """``poolkit argv`` in a subprocess, signalled at that moment."""
    environ = {**os.environ, **(env or {})}
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [environ.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, str(Path(__file__)), signame, target, when,
                           str(nth), "--", *argv], capture_output=True, text=True,
                          cwd=cwd, env=environ, timeout=300)


def run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``poolkit argv`` in a subprocess, not signalled."""
    environ = {**os.environ}
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [environ.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-m", "poolkit", *argv], capture_output=True,
                          text=True, cwd=cwd, env=environ, timeout=300)


if __name__ == "__main__":
    signame, target, when, nth, sep, *rest = sys.argv[1:]
    assert sep == "--" and when in ("before", "after"), sys.argv
    arm(signame, target, when, int(nth))
    from poolkit.cli import main

    sys.exit(main(rest))
