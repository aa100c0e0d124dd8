"""A pool's run files, visible only with the store commit that records them.

``poolkit pool`` writes ``NAME.run``, ``NAME.json`` (and ``NAME.fetch.run``) for each system
it ran. Written before the store's commit, a kill in between would leave a ranking the store
has no version of; written after, a kill would leave the store recording a ranking that is
not on disk. So the files are staged: written whole beside their targets
(``io.staged.StagedOutputs``), with a manifest ``.poolkit-pool.XXXXXXXX.tmp`` in the runs
folder naming them and the settings each system is registered with. After the commit (or
its failure) ``settle`` decides under the store's write lock: if the store's registration of
every staged system is the staged one, the commit happened and the files are renamed into
place; otherwise they are removed. A pool killed before it settled (SIGKILL, or a power cut)
leaves its manifest unlocked; the next pool settles it the same way before anything else
(``recover``), so the files end up as the store says, never as a ranking it has no record of.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from poolkit.io.atomic import _errors, lock_if_abandoned, temp_beside
from poolkit.io.run import run_text
from poolkit.io.staged import StagedOutputs, held_signals
from poolkit.store.contract import StoreBackend

MANIFEST = "poolkit-pool"
_MANIFEST_NAME = re.compile(re.escape(f".{MANIFEST}.") + r"[a-z0-9_]{8}\.tmp")


def _normal(settings: Any) -> Any:
    """Settings as the store gives them back (JSON, unknown types as text)."""
    return json.loads(json.dumps(settings, sort_keys=True, default=str))


class PendingRuns:
    """Run files staged in ``runs_dir`` until ``settle``; use as a context manager, which
    settles on the way out whatever happened."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir
        self.outputs = StagedOutputs()
        self.systems: dict[str, Any] = {}
        self._manifest: tuple[str, int] | None = None  # (path, lock fd)
        self._left = False  # settle could not decide: the files wait for recover()

    def stage(self, name: str, settings: dict[str, Any], files: dict[str, str]) -> None:
        """Stage system ``name``'s files (file name in runs_dir -> text), registered with
        ``settings``."""
        for file_name, text in files.items():
            self.outputs.write(self.runs_dir / file_name, text)
        self.systems[name] = _normal(settings)

    def seal(self) -> None:
        """Write the manifest naming every staged file: from here a kill is recoverable."""
        target = self.runs_dir / MANIFEST
        doc = {"systems": self.systems,
               "files": [[tmp, str(t)] for tmp, t in self.outputs.files]}
        with _errors(target):
            fd, tmp, lock = temp_beside(target)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
                fh.flush()
                os.fsync(fh.fileno())
        self._manifest = (tmp, lock)

    def settle(self, store: StoreBackend | None) -> bool:
        """Rename the staged files into place if ``store`` records them, else remove them;
        True when renamed. If the store cannot say (it fails), the files and the manifest are
        left for the next pool's ``recover``."""
        decided = False
        try:
            with held_signals():
                if store is not None and self.systems:
                    with store.transaction():  # no other pool's commit in between
                        if _recorded(store, self.systems):
                            self.outputs.publish()
                            decided = True
                            return True
                decided = True
                return False
        finally:
            if decided:
                self.outputs.discard()
            self._left = not decided
            self.outputs.release()
            if self._manifest is not None:
                tmp, lock = self._manifest
                if decided:
                    Path(tmp).unlink(missing_ok=True)
                os.close(lock)
                self._manifest = None

    def __enter__(self) -> PendingRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._manifest is not None:  # sealed, never settled: recover() will decide
            os.close(self._manifest[1])
            self._manifest = None
            self._left = True
        if not self._left:
            self.outputs.discard()
        self.outputs.release()


def _recorded(store: StoreBackend, systems: dict[str, Any]) -> bool:
    """Whether every system's current registration is the one staged."""
    current = store.systems()
    return all(current.get(n, {}).get("settings") == s for n, s in systems.items())


def recover(runs_dir: Path, store: StoreBackend | None) -> list[str]:
    """Settle every manifest a dead pool left in ``runs_dir`` (renaming its files if the
    store recorded them, else removing them); the targets renamed into place."""
    published: list[str] = []
    runs_dir = Path(os.path.realpath(runs_dir))  # where the staged files were made
    try:
        names = sorted(n for n in os.listdir(runs_dir) if _MANIFEST_NAME.fullmatch(n))
    except OSError:
        return published
    for name in names:
        path = runs_dir / name
        fd = lock_if_abandoned(path)
        if fd is None:
            continue  # a living pool's
        try:
            try:
                with open(fd, encoding="utf-8", closefd=False) as fh:
                    doc = json.load(fh)
                files = [(Path(tmp), Path(target)) for tmp, target in doc["files"]]
                systems = doc["systems"]
            except (OSError, ValueError, KeyError, TypeError):
                files, systems = [], None  # torn before it was whole: nothing committed
            with held_signals():
                if systems and store is not None:
                    with store.transaction():
                        if _recorded(store, systems):
                            for tmp, target in files:
                                if _same_folder(tmp, runs_dir) and tmp.is_file():
                                    os.replace(tmp, target)
                                    published.append(str(target))
                for tmp, _ in files:
                    if _same_folder(tmp, runs_dir):
                        tmp.unlink(missing_ok=True)
                path.unlink(missing_ok=True)
        finally:
            os.close(fd)
    return published


def _same_folder(tmp: Path, runs_dir: Path) -> bool:
    """A manifest names only temporary files in its own folder (never anything else)."""
    return tmp.parent == runs_dir and tmp.name.startswith(".") and tmp.name.endswith(".tmp")


def run_files(name: str, text: str, fetch: tuple[str, Any] | None,
              settings: dict[str, Any]) -> dict[str, str]:
    """A system's files in the runs folder: its run, its reranker's candidates
    (``fetch``: (name, Run)), and its settings (which then name the candidates' file)."""
    files = {f"{name}.run": text}
    if fetch is not None:
        fetch_name, fetch_run = fetch
        files[f"{fetch_name}.run"] = run_text(fetch_run.rankings, fetch_run.scores, fetch_name)
    files[f"{name}.json"] = json.dumps(settings, indent=2, sort_keys=True, default=str) + "\n"
    return files
