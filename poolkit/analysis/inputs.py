"""What the analysis commands read: a config's store and run files, or plain files.

The config form works on the judging store (labels as of a pool version, which system
brought which document in) and defaults the runs to the config's systems' run files. The
file form needs no store: labels come from qrels/golden files and runs are named by their
file name without extension.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from poolkit.config import Config, load_config
from poolkit.errors import PoolkitError
from poolkit.io import Run, read_any_run
from poolkit.store import Store

RUN_SUFFIXES = (".run", ".trec", ".txt", ".tsv")


def run_name(path: str | Path) -> str:
    """A run's display name: its file name without extension (``runs/bm25.run`` -> bm25)."""
    return Path(path).stem


def read_runs(paths: Sequence[str | Path], order: str = "score") -> dict[str, Run]:
    """Run files by display name; two files with the same name is an error."""
    runs: dict[str, Run] = {}
    for path in paths:
        name = run_name(path)
        if name in runs:
            raise PoolkitError(f"two runs are both named {name!r} ({runs[name].path} and "
                               f"{path}); rename one")
        run = read_any_run(path, order=order)
        run.name = name
        runs[name] = run
    return runs


def open_store(config: Config) -> Store:
    if not config.store.is_file():
        raise PoolkitError(f"{config.path}: store {config.store} does not exist yet "
                           f"(run `poolkit pool {config.path.name}` first)")
    return Store(config.store)


def system_run_path(config: Config, store: Store | None, name: str) -> Path | None:
    """Where system ``name``'s run file is: ``runs_dir/NAME.run`` (what ``poolkit pool``
    writes; also .trec/.txt/.tsv), the path the store registered when it pooled, or the
    configured ``path:`` of an external run."""
    candidates = [config.runs_dir / f"{name}{suffix}" for suffix in RUN_SUFFIXES]
    if store is not None:
        registered = store.systems().get(name, {}).get("run_path")
        if registered:
            p = Path(registered)
            candidates += [p] if p.is_absolute() else [config.path.parent / p,
                                                       config.store.parent / p, p]
    system = config.systems[name]
    if system.path is not None:
        candidates.append(system.path)
    return next((c for c in candidates if c.is_file()), None)


def config_runs(config: Config, store: Store | None, explicit: Sequence[str],
                order: str = "score") -> dict[str, Run]:
    """The runs to score: ``explicit`` files if any, else every configured system's run file."""
    if explicit:
        return read_runs(explicit, order)
    runs: dict[str, Run] = {}
    missing = []
    for name in config.systems:
        path = system_run_path(config, store, name)
        if path is None:
            missing.append(name)
            continue
        run = read_any_run(path, order=order)
        run.name = name
        runs[name] = run
    if missing:
        raise PoolkitError(f"{config.path}: no run file for system(s) {', '.join(missing)} in "
                           f"{config.runs_dir} (run `poolkit pool {config.path.name}` first, or "
                           f"name the run files on the command line)")
    return runs


def split_config(positionals: Sequence[str], files_form: bool) -> tuple[Config | None, list[str]]:
    """``[CONFIG] RUN...``: the first positional is the config unless the file form is used."""
    if files_form:
        return None, list(positionals)
    if not positionals:
        raise PoolkitError("give a CONFIG (store form) or label files (file form); see --help")
    first = positionals[0]
    if Path(first).suffix.lower() not in (".yaml", ".yml"):
        raise PoolkitError(f"{first}: expected a config (.yaml/.yml) first; for plain files use "
                           f"the file form (see --help)")
    return load_config(first), list(positionals[1:])


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
