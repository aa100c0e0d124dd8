"""How a path is shown to a user, in a report or an error: one rule for every command.

A path is shown relative to the current directory, or absolute: as the user typed it when
they typed it relative (it is relative to where they are), an absolute one (poolkit resolves
every path a config names) relative to the current directory when it lies under it, else
whole. A reader can then paste any path poolkit prints into their next command from where
they ran this one; relative to a config's folder, or a bare file name, it would mean nothing
from a shell in another directory. A URL (``postgresql://...``) is shown as given.
"""

from __future__ import annotations

import os
from pathlib import Path


def shown_path(path: str | Path) -> str:
    """``path`` as the module docstring says: relative to the current directory, or
    absolute."""
    text = str(path)
    if "://" in text or not Path(text).is_absolute():
        return text
    try:
        return str(Path(text).relative_to(Path.cwd()))
    except (ValueError, OSError):  # outside the current directory, or it was removed
        return text


def path_text(path: str | Path) -> str:
    """``path`` as text any file or store can hold: its bytes that are not UTF-8 (a shell
    passes them as lone surrogates, which UTF-8 cannot encode) as ``\\xff`` escapes. For a
    path recorded to be shown (an import's source file), never to be opened again."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")
