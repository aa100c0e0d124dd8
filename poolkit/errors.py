"""One error hierarchy for everything a user can get wrong.

Every message is one line: where (file and line when there is one), what was found, and
what was expected. The CLI prints ``str(error)`` to stderr and exits non-zero; nothing else
should ever reach a user as a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path


class PoolkitError(Exception):
    """Base of every error poolkit raises on purpose."""

    exit_code = 2


class InputError(PoolkitError):
    """A file a user gave us is malformed: names the file, the line and what was expected."""

    def __init__(self, path: str | Path | None, line: int | None, message: str) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.message = message
        message = " ".join(message.splitlines())  # one line, whatever a library said
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


def one_of(value: str, options: Iterable[str], what: str) -> str:
    """'unknown X 'v'; valid: a, b, c (did you mean b?)' — the standard unknown-choice message."""
    opts = sorted(options)
    return f"unknown {what} {value!r}; valid: {', '.join(opts)}{did_you_mean(value, opts)}"
