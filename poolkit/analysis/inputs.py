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
from poolkit.io.run_names import resolve_run_name, run_name

__all__ = ["groups_of", "named_paths", "read_runs", "resolve_run_name", "run_name"]


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
    """run name -> group: from the config's systems' ``group:``, or ``--group G=RUN,RUN``
    (which moves a run to another group than its config's). Each --group names a new group
    and runs no other --group named: a group's runs are left out together, so a group given
    twice or a run in two would silently change what each test leaves out."""
    groups: dict[str, str] = {}
    if config is not None:
        groups.update({n: s.group for n, s in config.systems.items() if s.group})
    names = set(runs)
    given: dict[str, str] = {}  # group -> its --group spec
    placed: dict[str, str] = {}  # run -> the --group spec that placed it
    for spec in specs:
        group, sep, members = spec.partition("=")
        if not sep or not group or not members:
            raise PoolkitError(f"--group {spec!r}: expected GROUP=RUN[,RUN...]")
        if group in given:  # a typo for another group, or its runs split in two: say which
            first = given[group].partition("=")[2]
            merged = ",".join(dict.fromkeys([*first.split(","), *members.split(",")]))
            raise PoolkitError(f"--group {spec!r}: group {group!r} is given twice (first: "
                               f"--group {given[group]!r}); give its runs once: "
                               f"--group {group}={merged}")
        given[group] = spec
        listed: set[str] = set()
        for given_name in members.split(","):
            member = resolve_run_name(given_name, sorted(names), f"--group {spec!r}")
            if member in listed:
                raise PoolkitError(f"--group {spec!r}: run {member!r} is listed twice")
            if member in placed:
                other = placed[member]
                raise PoolkitError(f"--group {spec!r}: run {member!r} is already in group "
                                   f"{other.partition('=')[0]!r} (--group {other!r}); a run "
                                   f"belongs to one group")
            listed.add(member)
            placed[member] = spec
            groups[member] = group
    return groups
