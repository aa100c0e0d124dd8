"""One live judging session per assessor and store.

Two terminals judging as the same assessor would grade over each other (and one would show
a stale "your grade"). A session claims the assessor on opening: host, pid, since, and a
heartbeat it renews while open. A second session is refused with where and since when the
first runs, unless it takes over. A claim expires when its heartbeat is older than
``CLAIM_TTL`` seconds, or at once when its process is gone from this host (a crash or a
kill -9 leaves a claim nobody renews).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from poolkit.errors import StoreError
from poolkit.store.contract import StoreBackend
from poolkit.store.records import stamp

CLAIM_TTL = 90.0       # seconds without a heartbeat before a claim expires
HEARTBEAT_EVERY = 30.0  # seconds between a live session's heartbeats


@dataclass(frozen=True)
class Claim:
    assessor: str
    host: str
    pid: int
    since: str
    heartbeat: str

    def where(self) -> str:
        return f"{self.host} pid {self.pid} since {self.since[:19].replace('T', ' ')} UTC"


class AssessorBusy(StoreError):
    """Another live session holds the assessor on this store."""

    def __init__(self, claim: Claim) -> None:
        super().__init__(f"{claim.assessor} is already judging on this store ({claim.where()}); "
                         f"close that session, or open this one with --take-over")
        self.claim = claim


def _now() -> datetime:
    return datetime.now(timezone.utc)


def me() -> tuple[str, int]:
    return socket.gethostname(), os.getpid()


def _alive(claim: Claim) -> bool:
    """False when the claim's process is known to be gone (same host only)."""
    if claim.host != socket.gethostname():
        return True
    try:
        os.kill(claim.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def current_claim(store: StoreBackend, assessor: str) -> Claim | None:
    row = store.session_claim(assessor)
    return Claim(*row) if row else None


def live(claim: Claim, now: datetime) -> bool:
    age = now - datetime.fromisoformat(claim.heartbeat)
    return age <= timedelta(seconds=CLAIM_TTL) and _alive(claim)


def claim(store: StoreBackend, assessor: str, take_over: bool = False,
          host: str | None = None, pid: int | None = None,
          now: datetime | None = None) -> Claim:
    """Claim ``assessor`` for this process; AssessorBusy when another live session has it
    (unless ``take_over``)."""
    here_host, here_pid = me()
    host, pid = host or here_host, pid if pid is not None else here_pid
    moment = now or _now()
    held = store.take_session_claim(assessor, host, pid, stamp(moment),
                                    lambda row: take_over or not live(Claim(*row), moment))
    if held is not None:
        raise AssessorBusy(Claim(*held))
    return Claim(assessor, host, pid, stamp(moment), stamp(moment))


def renew(store: StoreBackend, mine: Claim, now: datetime | None = None) -> bool:
    """Renew the heartbeat; False when the claim is no longer ours (taken over)."""
    return store.renew_session_claim(mine.assessor, mine.host, mine.pid,
                                     stamp(now or _now()))


def holds(store: StoreBackend, mine: Claim) -> bool:
    held = current_claim(store, mine.assessor)
    return held is not None and (held.host, held.pid) == (mine.host, mine.pid)


def release(store: StoreBackend, mine: Claim) -> None:
    store.release_session_claim(mine.assessor, mine.host, mine.pid)
