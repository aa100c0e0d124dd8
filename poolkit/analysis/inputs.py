"""What the analysis commands read in the file form: runs and labels from plain files.

The file form needs no store: labels come from qrels/golden files and runs are named by
their file name without extension. (The config form reads through ``poolkit.collection``.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from poolkit.config import Config
from poolkit.errors import PoolkitError
from poolkit.io import Run, read_any_run


def run_name(path: str | Path) -> str:
    """A run's display name: its file name without extension (``runs/bm25.run`` -> bm25)."""
    return Path(path).stem


def read_runs(paths: Sequence[str | Path], order: str = "score",
              fmt: str | None = None) -> dict[str, Run]:
    """Run files by display name (in format ``fmt``; None: detected from each file's
    content); two files with the same name is an error."""
    runs: dict[str, Run] = {}
    for path in paths:
        name = run_name(path)
        if name in runs:
            raise PoolkitError(f"two runs are both named {name!r} ({runs[name].path} and "
                               f"{path}); rename one")
        run = read_any_run(path, order=order, fmt=fmt)
        run.name = name
        runs[name] = run
    return runs


def named_paths(items: Iterable[str]) -> list[tuple[str, str]]:
    """``NAME=PATH`` or ``PATH`` (named by its stem) -> [(name, path)]."""
    out = []
    for item in items:
        name, sep, path = item.partition("=")
        if sep and name and path and not Path(item).exists():
            out.append((name, path))
        else:
            out.append((run_name(item), item))
    return out


def groups_of(config: Config | None, specs: Sequence[str], runs: Iterable[str]) -> dict[str, str]:
    """run name -> group: from the config's systems' ``group:``, or ``--group G=RUN,RUN``."""
    groups: dict[str, str] = {}
    if config is not None:
        groups.update({n: s.group for n, s in config.systems.items() if s.group})
    names = set(runs)
    for spec in specs:
        group, sep, members = spec.partition("=")
        if not sep or not group or not members:
            raise PoolkitError(f"--group {spec!r}: expected GROUP=RUN[,RUN...]")
        for member in members.split(","):
            if member not in names:
                from poolkit.errors import one_of

                raise PoolkitError(f"--group {spec!r}: " + one_of(member, names, "run"))
            groups[member] = group
    return groups
