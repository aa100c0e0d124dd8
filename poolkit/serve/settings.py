"""What ``poolkit serve`` was asked for, checked once: where it listens, the origin browsers
see it at (the websocket's ``Origin`` must be that), whether cookies need https."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from poolkit.errors import PoolkitError

#: sessions at once unless told otherwise (each is a process of 50-65 MB)
MAX_SESSIONS = 20


@dataclass(frozen=True)
class Settings:
    config: Path
    host: str = "127.0.0.1"
    port: int = 8765
    public_url: str | None = None
    max_sessions: int = MAX_SESSIONS

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise PoolkitError(f"--port {self.port}: a port is 0 to 65535")
        if self.max_sessions < 1:
            raise PoolkitError(f"--max-sessions {self.max_sessions}: at least 1")
        if self.public_url is not None:
            from poolkit.app.users import check_public_url

            check_public_url(self.public_url)

    @property
    def url(self) -> str:
        """Where browsers reach the server."""
        if self.public_url is not None:
            return self.public_url.rstrip("/")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def origin(self) -> str:
        """The only ``Origin`` a websocket (and a login form) is accepted from."""
        parts = urlsplit(self.url.lower())
        host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
        default = {"http": 80, "https": 443}[parts.scheme]
        port = f":{parts.port}" if parts.port not in (None, default) else ""
        return f"{parts.scheme}://{host}{port}"

    @property
    def secure(self) -> bool:
        """Whether browsers reach it over https (cookies get ``Secure``)."""
        return self.url.startswith("https:")

    @property
    def proxied(self) -> bool:
        """Behind a reverse proxy (a public URL): a request from loopback carries the
        client's address in the proxy's ``X-Forwarded-For``."""
        return self.public_url is not None
