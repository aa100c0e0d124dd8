"""Shared fixtures: where the repository and ../shared are, and how tests that need it skip.

tests/ mirrors the package tree (tests/pool/ tests poolkit/pool/, ...). Helper modules used
by tests in more than one folder sit at tests/ top level and are imported by their bare
names (``from judge_helpers import build_store``): pyproject.toml puts tests/ on the path.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import store_backends
from file_order import Timer, longest_first
from llm_server import llm_gguf, llm_server  # noqa: F401  (the fixtures, for tests in any folder)
from shared_data import REPO, SAMPLE, SHARED, shared_path  # noqa: F401
from skip_reasons import pytest_terminal_summary  # noqa: F401  (the hook: why tests skipped)

if TYPE_CHECKING:
    from poolkit.io.corpus import Corpus, QueryRecord

# One compute thread for torch and OpenBLAS (both read OMP_NUM_THREADS when they load, after
# this line; the CLI's subprocesses inherit it). Their default is a thread per core, and with
# two xdist workers on two cores (or the other sessions of a shared machine) those threads
# spin waiting for each other: tests/retrieve/test_dense.py took 66.8 CPU-s with two and 29.8
# with one, single-process. A value set outside is kept.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Compiled bytecode kept (``__pycache__``, which .gitignore lists). Where
# PYTHONDONTWRITEBYTECODE is set (this machine, many CI images) every `python -m poolkit` a
# test starts compiled each poolkit module it imports from source again (about a third of a
# small command's CPU), and every worker rewrote every test module's asserts. (Not a pycache
# prefix: Python would then ignore the installed packages' bytecode and compile them again.)
# This process's later imports keep theirs too; the xdist workers and every subprocess a
# test starts inherit the environment (so `python tasks.py test` needs nothing of its own).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect the session's garbage now, then freeze what is left, so that the worker's
    exit is quick.

    Under xdist a worker reports itself finished when this hook returns (its hookwrapper),
    and the controller then stops its gateway; execnet gives the worker 5 s and then sends
    it SIGINT. What the worker still does is pytest's unraisable-exception cleanup: five
    full collections of a heap a long run has grown (3.3 to 4.9 s each on this 2-core machine
    under load, 20 s in all). The SIGINT landed inside one of them, in the only Python code
    a collection runs, hypothesis's gc callback (installed by any ``@given`` test), and
    pytest printed ``PytestUnraisableExceptionWarning ... gc_callback ... KeyboardInterrupt``
    after a passing run. Collected here, before the worker reports, every unraisable
    exception is still reported; frozen, the five collections have nothing old to walk.

    The controller (or a plain run) also saves the test files' durations here, which the
    workers read to take the longest files first (``file_order``)."""
    if not hasattr(session.config, "workerinput"):
        _TIMER.save()
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return shared_path()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def sample_corpus() -> Corpus:
    """The bundled sample's corpus, read once."""
    from poolkit.io.corpus import read_corpus

    return read_corpus(SAMPLE / "corpus.jsonl")


@pytest.fixture(scope="session")
def sample_queries() -> list[QueryRecord]:
    from poolkit.io.corpus import read_queries

    return read_queries(SAMPLE / "queries.jsonl")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach a model hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def compiled_poolkit() -> None:
    """poolkit's modules compiled (``__pycache__``, see above), as a pip install leaves
    them. A command run under a tight memory limit then fails where the command itself does,
    not while compiling a module that no other process of the run happened to import first
    (CPython's compile can fail there with a SystemError instead of a MemoryError)."""
    import compileall

    compileall.compile_dir(REPO / "poolkit", quiet=2)


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval built from ../shared/reference/trec_eval-src (once per machine: cached)."""
    from trec_eval_binary import cached_trec_eval

    return cached_trec_eval(tmp_path_factory.mktemp("trec_eval"))


@pytest.fixture(params=store_backends.BACKENDS)
def store_location(request: pytest.FixtureRequest, tmp_path: Path):
    """A new, empty store's location on each backend (the contract tests run on both)."""
    with store_backends.store_location(request.param, tmp_path) as location:
        yield location


_TIMER = Timer()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the longest files first (see file_order); a plain run keeps the
    files in their folders' order."""
    if hasattr(config, "workerinput"):
        longest_first(items)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _TIMER.add(report)


