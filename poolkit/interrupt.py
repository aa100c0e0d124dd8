"""What a command kept when Ctrl-C (or SIGTERM) stopped it, said in one line.

``poolkit.cli.main`` turns SIGTERM into a KeyboardInterrupt (``cli.Terminated``); either ends
the command with exit 130 (143 for SIGTERM) and one line on stderr::

    poolkit pool: interrupted; nothing recorded, the store is as it was; dense embeddings of
    12,000 of 50,000 passages kept in the cache: run the same command to resume

What was kept is, first, what an interrupted run of the command leaves by design
(``KEPT``: its store writes are transactions, its outputs are written whole or not at
all) or, once its writes are done, what they did (``done``: "pool version 3 recorded"),
then what its work so far put where a rerun finds it: each such stage says so while it
runs (``keeping``), and what it says stands once the interrupt has unwound it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

NOTHING_WRITTEN = "nothing written"
NOTHING_RECORDED = "nothing recorded, the store is as it was"

#: per command (``store`` by its action), what an interrupted run leaves; None: the command
#: says it itself (``autojudge`` keeps what its judge graded, and says so)
KEPT: dict[str, str | None] = {
    "score": NOTHING_WRITTEN,
    "pool": NOTHING_RECORDED,
    "judge": "every grade the screen showed as saved is in the store",
    "status": NOTHING_WRITTEN,
    "notes": NOTHING_WRITTEN,
    "export": f"{NOTHING_WRITTEN} (every output is replaced whole or not at all)",
    "import": "no label recorded",
    "compare": NOTHING_WRITTEN,
    "reusability": NOTHING_WRITTEN,
    "agreement": NOTHING_WRITTEN,
    "trec-eval": NOTHING_WRITTEN,
    "sample-replay": NOTHING_WRITTEN,
    "ppi-replay": NOTHING_WRITTEN,
    "store init": "the schema is set up as far as it got (init sets up what is missing)",
    "store copy": "nothing copied (a new file appears only once verified, a database gets "
                  "every row or none)",
    "schema": NOTHING_WRITTEN,
    "simulate": NOTHING_WRITTEN,
    "autojudge": None,
    "check-judge": "no check recorded (a check is recorded whole)",
    "estimate": NOTHING_WRITTEN,
    "sample-queries": "no draw recorded",
    "assign": "no assignment recorded",
    "gold": "no gold set recorded",
    "users": NOTHING_RECORDED,
    "serve": None,  # it stops on SIGINT/SIGTERM itself, closing every session as `q` would
}

#: what stages of the command running now have kept so far (key -> its words, or None)
_kept: dict[str, Callable[[], str | None]] = {}
#: what the command running now has written for good (None: what KEPT says)
_done: list[str] = []


def reset() -> None:
    """Forget what an earlier command kept (``main`` runs one command at a time)."""
    _kept.clear()
    _done.clear()


def done(what: str) -> None:
    """The command's writes are done (a transaction committed, outputs renamed into place):
    an interrupt from now on says ``what`` instead of its KEPT words."""
    _done[:] = [what]


def record(key: str, what: Callable[[], str | None]) -> None:
    """From now on (until :func:`reset`, or :func:`forget` of ``key``), ``what()`` says what
    the stage ``key`` has kept where a rerun of the command resumes from (None: nothing
    yet)."""
    _kept[key] = what


def forget(key: str) -> None:
    _kept.pop(key, None)


@contextmanager
def keeping(key: str, what: Callable[[], str | None]) -> Iterator[None]:
    """:func:`record` for the block; a block the interrupt ends still says it (the line is
    printed after the unwinding), one that ends otherwise no longer does."""
    record(key, what)
    yield
    forget(key)


def interrupted_line(command: str, how: str = "interrupted") -> str | None:
    """The one line for ``command`` (``store init``, ...) ended by ``how`` (``interrupted``,
    ``terminated``); None when the command says it itself."""
    kept = KEPT.get(command, NOTHING_WRITTEN)
    if kept is None:
        return None
    kept = _done[0] if _done else kept
    progress = [said for what in _kept.values() if (said := what())]
    return (f"poolkit {command}: {how}; " + "; ".join([kept, *progress])
            + f": run the same command {'to resume' if progress else 'again'}")
