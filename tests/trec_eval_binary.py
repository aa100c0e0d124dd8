"""trec_eval built from ../shared/reference/trec_eval-src, the oracle of differential tests.

The source is copied into a temporary folder and built there (never into the repository, and
its code is never copied into poolkit). One session fixture, ``trec_eval_binary`` in
conftest.py, gives it to every test that needs it; the binary is kept in the lasting test
cache under the hash of the source and the compiler's path, so it is built once per machine
(and once for all xdist workers: the cache's lock). It skips only where no C compiler (or
make) exists and CI is unset; in CI a missing compiler fails.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from shared_data import lasting_cache, shared_path


def _writable(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _source_key(src: Path, cc: str) -> str:
    digest = hashlib.sha256(cc.encode())
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(src)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cached_trec_eval(folder: Path) -> Path:
    """The binary from the lasting cache; built (in ``folder``) and kept there if missing."""
    src, cc = shared_path("reference", "trec_eval-src"), _compiler()
    with lasting_cache("trec_eval") as cache:
        kept = cache / f"trec_eval-{_source_key(src, cc)}"
        if not kept.is_file():
            built = build_trec_eval(folder)
            shutil.copy2(built, kept.with_suffix(".tmp"))
            os.replace(kept.with_suffix(".tmp"), kept)
    return kept


def _compiler() -> str:
    """The C compiler's path (skips, or fails in CI, where none or no make is installed)."""
    cc = next((found for name in (os.environ.get("CC"), "cc", "gcc", "clang")
               if name and (found := shutil.which(name))), None)
    make = shutil.which("make")
    if cc is None or make is None:
        missing = "a C compiler" if cc is None else "make"
        if os.environ.get("CI"):
            pytest.fail(f"cannot build trec_eval: {missing} is missing, and CI must build it")
        pytest.skip(f"cannot build trec_eval here: {missing} is missing")
    return cc


def build_trec_eval(folder: Path) -> Path:
    """Build trec_eval into ``folder`` and return the binary's path (skip/fail if impossible)."""
    src, cc = shared_path("reference", "trec_eval-src"), _compiler()
    make = shutil.which("make")
    assert make is not None  # _compiler checked
    build = folder / "trec_eval-src"
    shutil.copytree(src, build)
    _writable(build)
    done = subprocess.run([make, "-s", "-C", str(build), f"CC={cc}", "trec_eval"],
                          capture_output=True, text=True)
    binary = build / "trec_eval"
    if done.returncode != 0 or not binary.exists():
        pytest.fail(f"building trec_eval failed:\n{done.stdout}\n{done.stderr}")
    return binary


def run_trec_eval(binary: Path, *args: str | Path) -> dict[str, dict[str, str]]:
    """Run the binary; its output as measure name -> qid (or 'all') -> printed value."""
    done = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                          check=True)
    table: dict[str, dict[str, str]] = {}
    for line in done.stdout.splitlines():
        if line.strip():
            name, qid, value = line.split()
            table.setdefault(name, {})[qid] = value
    return table
