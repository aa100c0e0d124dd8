"""Where a path poolkit writes really leads, following symlinks as the kernel would let it.

``os.path.realpath`` follows every link. The kernel does not, with ``fs.protected_symlinks``
(the default on most distributions): in a world-writable sticky folder (``/tmp``) a link is
followed only by its owner, or when its owner owns the folder too, so another local user
cannot plant ``/tmp/out.qrels -> ~victim/.bashrc`` and have the victim's shell write through
it. poolkit resolves an output's links itself (it replaces the link's target, not the link),
so it applies that rule to every link on the way, whatever the sysctl says: a link it may not
follow is refused with one line, and nothing is written.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from poolkit.errors import OutputError

#: links followed before giving up, as the kernel's ELOOP limit
MAX_LINKS = 40


def _may_follow(link: os.stat_result, folder: os.stat_result) -> bool:
    """The kernel's ``may_follow_link``: a link in a sticky, world-writable folder only when
    its owner is the one following it or owns the folder."""
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    return not shared or link.st_uid in (os.geteuid(), folder.st_uid)


def resolve_output(path: str | Path) -> Path:
    """``path`` with every symlink resolved (as ``os.path.realpath``), refusing a link in a
    shared sticky folder that belongs to another user (an :class:`OutputError` naming
    ``path``). Parts that do not exist yet are kept as written."""
    pending = list(reversed(Path(os.path.join(os.getcwd(), path)).parts[1:]))
    resolved = Path("/")
    followed = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            resolved = resolved.parent
            continue
        candidate = resolved / part
        try:
            info = os.lstat(candidate)
        except OSError:  # missing (or unreadable): the rest is taken as written
            return Path(os.path.normpath(os.path.join(candidate, *reversed(pending))))
        if not stat.S_ISLNK(info.st_mode):
            resolved = candidate
            continue
        followed += 1
        if followed > MAX_LINKS:
            raise OutputError(f"{path}: cannot write: too many levels of symbolic links")
        folder = os.stat(resolved)
        if not _may_follow(info, folder):
            raise OutputError(
                f"{path}: cannot write: {candidate} is a symlink of another user "
                f"(uid {info.st_uid}) in the shared sticky folder {resolved}; not followed, as the "
                f"kernel's protected_symlinks would not")
        target = os.readlink(candidate)
        if os.path.isabs(target):
            resolved = Path("/")
        pending.extend(reversed(Path(target).parts[1:] if os.path.isabs(target)
                                else Path(target).parts))
    return resolved


__all__ = ["MAX_LINKS", "resolve_output"]
