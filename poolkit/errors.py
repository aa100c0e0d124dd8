"""One error hierarchy for everything a user can get wrong.

Every message is one line: where (file and line when there is one), what was found, and
what was expected. The CLI prints ``str(error)`` to stderr and exits non-zero; nothing else
should ever reach a user as a traceback.
"""

from __future__ import annotations

import difflib
import re
import reprlib
import sys

try:  # POSIX only; imported now, since a MemoryError may later keep an import from working
    import resource
except ImportError:  # pragma: no cover
    resource = None  # type: ignore[assignment]
from collections.abc import Iterable
from pathlib import Path

#: C0 and C1 controls, DEL and the Unicode line/paragraph separators: a terminal acts on them
#: (a new line, a carriage return, an escape sequence), so a message never prints them raw.
#: Lone surrogates too (a path's bytes that are not UTF-8, as Python holds them): no UTF-8
#: stream can write them, so a message naming such a file would end in a traceback.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100
                                else f"\\u{ord(char):04x}")


def printable(text: object) -> str:
    """``text`` with every control character (and lone surrogate) escaped as Python writes it
    (``\\n``, ``\\x1b``, ``\\udcff``): a path or value holding a newline stays on its
    message's one line and cannot forge another line or drive the terminal. Everything else,
    backslashes included, is unchanged."""
    return _CONTROL.sub(_escape, str(text))


def tell(message: object) -> None:
    """``message`` as one line on stderr (errors, warnings, notes to the user), control
    characters escaped: the one way poolkit's commands speak on stderr."""
    print(printable(message), file=sys.stderr, flush=True)


class PoolkitError(Exception):
    """Base of every error poolkit raises on purpose. Its text is :func:`printable`: one line
    whatever path or value it names."""

    exit_code = 2

    def __str__(self) -> str:
        return printable(super().__str__())


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as Ctrl-C raises KeyboardInterrupt (the CLI sets
    this up: ``poolkit.cli``): every transaction open rolls back and every temporary file is
    removed on the way out. Either, raised again with a message (what a command stopped by it
    had done), has that message printed as the command's one line."""


class InputError(PoolkitError):
    """A file a user gave us is malformed: names the file, the line and what was expected."""

    def __init__(self, path: str | Path | None, line: int | None, message: str) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.message = message
        message = " ".join(message.splitlines())  # one line, whatever a library said
        if len(message) > MESSAGE_LIMIT:  # a backstop: values are cut by shown() already
            message = message[:MESSAGE_LIMIT] + "..."
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class ConfigError(InputError):
    """A config file is wrong (unknown key, missing file, dangling reference...)."""


class StoreError(PoolkitError):
    """The judging store cannot do what was asked (unknown pool version, newer schema...)."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or written just now (the connection to the server is
    lost or refused, or another writer held the store past the wait): the same write may
    succeed if tried again later, so a caller that keeps what it meant to write (the judging
    screen's unsaved grade) retries it instead of giving up."""


class OverlapFull(StoreError):
    """A pair of the assignment plan already has its ``overlap`` assessors, and the one who
    tried to settle it is not among them: the judging screen gives her other work."""


class NoStoreError(StoreError):
    """The config's store does not exist yet: the one message every command gives."""

    def __init__(self, location: object, hint: str = "") -> None:
        self.location = location
        hint = hint or "run `poolkit pool CONFIG` (or `poolkit import`) first"
        super().__init__(f"{location}: no judging store yet; {hint}")


class OutputError(PoolkitError):
    """A file poolkit writes cannot be written (read-only folder, full disk...): names it."""


class AuditFailure(PoolkitError):
    """A ``--fail-on`` condition held: the report was printed, the exit code says no."""

    exit_code = 3


def did_you_mean(value: str, options: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when one option is close to ``value``, else ''."""
    close = difflib.get_close_matches(value, list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


#: How many choices an unknown-choice message lists in full; past it, the closest few.
LISTED_CHOICES = 50  # every measure, stemmer or libpq keyword (45); not 225 query ids
CLOSEST_CHOICES = 5


def closest(value: str, options: Iterable[str], n: int = CLOSEST_CHOICES) -> list[str]:
    """The ``n`` options nearest ``value``: by number when all are integers (query 9999 of
    1..225 is nearest 225), else by how alike the texts are (difflib's ratio)."""
    opts = list(options)
    if all(re.fullmatch(r"-?[0-9]+", o) for o in [value, *opts]):
        return sorted(opts, key=lambda o: (abs(int(o) - int(value)), int(o)))[:n]
    ratio = {o: difflib.SequenceMatcher(None, value, o).ratio() for o in opts}
    return sorted(opts, key=lambda o: (-ratio[o], o))[:n]


def one_of(value: str, options: Iterable[str], what: str) -> str:
    """'unknown X 'v'; valid: a, b, c (did you mean b?)' — the standard unknown-choice message
    (with no option at all, it says so rather than end on an empty list; with more than
    ``LISTED_CHOICES``, it names how many and the closest few, not a list of hundreds)."""
    opts = sorted(options)
    if not opts:
        return f"unknown {what} {value!r}; there is no {what} to choose from"
    if len(opts) > LISTED_CHOICES:
        return (f"unknown {what} {value!r}; {len(opts)} are valid, the closest: "
                f"{', '.join(closest(value, opts))}{did_you_mean(value, opts)}")
    return f"unknown {what} {value!r}; valid: {', '.join(opts)}{did_you_mean(value, opts)}"


#: The longest message an InputError carries, and how much of a value :func:`shown` quotes.
MESSAGE_LIMIT = 2000
SHOWN_LIMIT = 300
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 200
_SHOWN.maxlong = 60
_SHOWN.maxlevel = 3
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 8


def shown(value: object) -> str:
    """``repr(value)`` for a message, cut short when long: a value read from a file (a line,
    a YAML value) may be any size, and formatting it whole could take more memory than the
    machine has (a YAML alias bomb's value is billions of items). Short values read exactly
    as ``repr`` writes them."""
    try:
        text = _SHOWN.repr(value)  # bounded work, but nested lists may still give ~8**3 items
    except ValueError:  # an int past Python's 4,300-digit limit for printing one
        return "<a number too long to show>"
    return text if len(text) <= SHOWN_LIMIT else text[:SHOWN_LIMIT - 3] + "..."


def _soft_limit(name: str) -> int | None:
    """The soft ``resource`` limit ``name`` (RLIMIT_AS, RLIMIT_NOFILE), None if unlimited or
    unknown (``resource`` is POSIX only)."""
    if resource is None:
        return None
    try:
        soft = resource.getrlimit(getattr(resource, name))[0]
    except (AttributeError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def out_of_memory() -> str:
    """What a MemoryError means to the user: the memory limit, when one is set."""
    limit = _soft_limit("RLIMIT_AS")
    if limit is None:
        return "out of memory (free some memory, or give the command less to read)"
    return (f"out of memory: the address-space limit (`ulimit -v`) is {limit >> 20} MiB; "
            f"raise it, or give the command less to read")


def too_many_open_files() -> str:
    """What EMFILE means to the user: the open-file limit, when one is set."""
    limit = _soft_limit("RLIMIT_NOFILE")
    where = f" (`ulimit -n` is {limit})" if limit is not None else ""
    return f"too many open files{where}: raise the limit and run the command again"


def files_exhausted(room: int = 3) -> bool:
    """Whether this process cannot open ``room`` more files: the cause of an open that a
    library failed without saying why (SQLite's "unable to open database file" needs the
    database, its -wal and its -shm)."""
    import errno
    import os

    opened: list[int] = []
    try:
        for _ in range(room):
            opened.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as exc:
        return exc.errno in (errno.EMFILE, errno.ENFILE)
    finally:
        for fd in opened:
            os.close(fd)
    return False
