"""What every store backend's handle shares: one connection per thread, closing them all.

One connection per thread: a connection carries one transaction at a time, so two threads
sharing one (the judging screen's grade writes and its claim heartbeat) would commit, roll
back or nest each other's transactions, and acknowledge grades that were never kept. Each
thread that uses a handle therefore gets a connection of its own, opened on its first use
(``conn``), with its own transaction nesting; ``close`` closes them all.
"""

from __future__ import annotations

import threading
from typing import Any

from poolkit.errors import StoreError


class PerThread:
    """A handle's connections: one per thread (``local.conn``), all of them kept to close."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.lock = threading.Lock()
        self.every: list[Any] = []
        self.closed = False

    def adopt(self, conn: Any) -> None:
        self.local.conn = conn
        with self.lock:
            if not any(c is conn for c in self.every):
                self.every.append(conn)

    def forget(self) -> None:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            return
        self.local.conn = None
        with self.lock:
            self.every = [c for c in self.every if c is not conn]
        conn.close()

    def close_all(self) -> None:
        with self.lock:
            self.closed = True
            every, self.every = self.every, []
        for conn in every:
            conn.close()


def identifier(name: str) -> str:
    """A table or column name, checked: only letters, digits and underscores."""
    if not name.replace("_", "").isalnum():
        raise StoreError(f"not a table or column name: {name!r}")
    return name


class Handle:
    """Per-thread connections (``conn``) and transaction nesting (``_depth``) of a store
    handle; a backend says how a thread's connection is opened (``_thread_connection``)."""

    path: Any

    def _threads(self) -> PerThread:
        state: PerThread | None = self.__dict__.get("_per_thread")
        if state is None:  # (made by the opening thread, before any other can see the handle)
            state = self.__dict__["_per_thread"] = PerThread()
        return state

    @property
    def conn(self) -> Any:
        """This thread's connection (opened on the thread's first use of the handle)."""
        state = self._threads()
        conn = getattr(state.local, "conn", None)
        if conn is None:
            if state.closed:
                raise StoreError(f"{self.path}: the store was closed")
            conn = self._thread_connection()
            state.adopt(conn)
        return conn

    @conn.setter
    def conn(self, value: Any) -> None:
        self._threads().adopt(value)

    @property
    def _depth(self) -> int:
        """This thread's transaction nesting: an inner ``transaction()`` joins the outer."""
        return int(getattr(self._threads().local, "depth", 0))

    @_depth.setter
    def _depth(self, value: int) -> None:
        self._threads().local.depth = value

    def _thread_connection(self) -> Any:
        """A connection for a thread other than the opening one."""
        raise NotImplementedError

    def close(self) -> None:
        """Close every thread's connection."""
        self._threads().close_all()

    def close_thread(self) -> None:
        """Close this thread's connection (a thread that is done with the handle: the
        judging screen's store thread as the screen closes); the handle stays open."""
        self._threads().forget()
