"""Stores and app runs shared by the tests that drive the judging screen on both backends
(store/test_store_judging_screen.py, store/test_store_threads.py, judge/test_judge_kills.py).
A module of its own (as store_backends.py) so tests in any folder can import it."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

from poolkit.store import NewMember, QueryRecord
from poolkit.store.backends import open_store
from poolkit.store.contract import StoreBackend


class TickClock:
    """Deterministic clock: each call is ``step`` seconds after the one before."""

    def __init__(self, step: float = 7.0) -> None:
        self.now = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
        self.step = timedelta(seconds=step)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def pooled_store(location, queries: int = 3, docs: int = 60) -> StoreBackend:
    """A store at ``location`` with one pool version: ``queries`` x ``docs`` passages."""
    store = open_store(location)
    store.upsert_queries(QueryRecord(f"q{q}", f"armyworm traps {q}") for q in range(queries))
    members = [NewMember(f"q{q}", f"d{d:03d}", f"title {d}", f"passage {d} of query {q}",
                         float(d)) for q in range(queries) for d in range(docs)]
    store.add_pool_version({"bm25": docs}, "docid", members,
                           [(m.qid, m.docid, "bm25", i + 1, 1.0) for i, m in
                            enumerate(members)])
    return store


def sync(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    @functools.wraps(test)
    def run(*args: object, **kwargs: object) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def until(condition: Callable[[], bool], what: str, limit: float = 120.0) -> None:
    """Wait for a state (never for a time: ``limit`` only stops a hung run)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.005)


def database_of(url: str) -> str:
    return urlsplit(url).path.strip("/")


def drop_connections(location: str) -> int:
    """Cut every server connection to the store's database (what a server restart does to
    its clients); returns how many were cut."""
    import store_backends

    with store_backends.admin_connect() as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid()", (database_of(location),)).fetchall()
    return len(rows)


def server_down(location: str, down: bool) -> None:
    """While ``down``, the database refuses new connections (as a stopped server does) and
    the open ones are cut."""
    import store_backends

    with store_backends.admin_connect() as admin:
        admin.execute(f"ALTER DATABASE {database_of(location)} "
                      f"ALLOW_CONNECTIONS {'false' if down else 'true'}")
    if down:
        drop_connections(location)


def screen_text(app) -> str:
    """Everything the app's current screen says in its Static widgets, as plain text: what
    a person sees, for tests that assert something is or is not shown."""
    from rich.text import Text
    from textual.widgets import Static

    out = []
    for widget in app.screen.query(Static):
        content = widget.content
        out.append(content.plain if isinstance(content, Text) else str(content))
    return "\n".join(out)
