"""A new SQLite store that appears only when the command making it succeeds.

A command that makes a store (``pool``, ``import`` on a config whose store does not exist
yet, ``store copy`` into a new file) builds it in a locked temporary file beside its path
(``.NAME.XXXXXXXX.tmp``) and links it into place once everything it writes is committed
and the store is closed. A command that fails, or is killed, at any point before never
leaves a store behind: no empty store whose status reads "pool version None", and a re-run
is a first run again. The link never replaces a store another process made meanwhile (that
is refused, the other store untouched); a SIGKILL's leftovers are removed by the next
command making the same store. The folders made for the new store go with it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from poolkit.errors import StoreError
from poolkit.io.atomic import _errors, _fsync_dir, remove_empty_folders, sweep_stale, temp_beside

#: the files SQLite keeps beside a database while it is open
COMPANIONS = ("-wal", "-shm", "-journal")


@contextmanager
def built_beside(destination: Path, made_meanwhile: str) -> Iterator[Path]:
    """The path to build the new store ``destination`` in; linked into place when the block
    ends without error (every handle on it closed by then), removed otherwise. A store made
    at ``destination`` meanwhile is refused with ``made_meanwhile`` (what to do instead)."""
    from poolkit.store.store import check_new_store

    for stale in sweep_stale(destination):
        _remove_companions(stale)
    folder = destination.parent
    made = [p for p in (folder, *folder.parents) if not p.exists()][::-1]
    linked = False
    try:
        check_new_store(destination)  # its folder made and writable, said as for any store
        with _errors(destination):
            fd, tmp, lock = temp_beside(destination)
    except BaseException:
        remove_empty_folders(made)
        raise
    os.close(fd)  # only the lock is kept: SQLite opens the file itself
    building = Path(tmp)
    try:
        try:
            yield building
        except StoreError as exc:  # said of the file the user named, not of the one beside
            raise StoreError(str(exc).replace(str(building), str(destination))) from None
        if any(Path(f"{building}{s}").exists() for s in COMPANIONS):
            raise StoreError(f"{destination}: the new store's write-ahead log was not folded "
                             f"in on closing; nothing written")
        with _errors(destination):
            try:
                os.link(building, destination)  # never replaces a file made meanwhile
            except FileExistsError:
                raise StoreError(f"{destination}: already exists (made meanwhile); "
                                 f"{made_meanwhile}") from None
            os.unlink(building)
            _fsync_dir(destination.parent)
        linked = True
    finally:
        if building.exists():
            building.unlink()
        _remove_companions(building)
        os.close(lock)
        if not linked:
            remove_empty_folders(made)  # and no folder made for it


def _remove_companions(path: Path) -> None:
    for suffix in COMPANIONS:
        Path(f"{path}{suffix}").unlink(missing_ok=True)
