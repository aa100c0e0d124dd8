"""HTTP requests that end by a deadline, whatever the server does, and that a stop cuts short.

urllib's ``timeout`` bounds each socket operation, not the request: a server that trickles one
byte every half second keeps a request with ``timeout: 2`` waiting for ever, and the thread
asking with it (so a SIGTERM or Ctrl-C could not end the process either). Here each request
is a :class:`Call` that holds its connection's socket: a timer shuts the socket down when the
deadline passes, which ends the read in progress at once (connecting, the TLS handshake, the
headers, the body alike), and :meth:`Requests.stop` does the same to every request in flight.
A shut socket reads as the end of the stream, so a cut request is told apart from a server's
own failure by the call's ``why``, not by the exception urllib happened to raise.

The socket is attached to the call right after the TCP connect returns (http.client's
``_create_connection`` hook): a connect itself is bounded by the per-operation ``timeout``.
"""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.request
from functools import partial
from typing import Any
from urllib.parse import urlsplit

#: read a response body this many bytes at a time (never one buffer of the whole limit)
CHUNK = 1 << 20


class DeadlineExceeded(Exception):
    """The request did not end (its last byte read) within its timeout."""


class Stopped(Exception):
    """The run was stopped (``Requests.stop``) while this request was made or awaited."""


class TooLarge(Exception):
    """The response body is longer than the limit it was read with."""


class Call:
    """One request's connection, which ``cut`` shuts down from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self.why: str | None = None  # "deadline" or "stopped" once cut

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._socks.append(sock)
            if self.why is not None:
                _shut(sock)

    def cut(self, why: str) -> None:
        with self._lock:
            if self.why is not None:
                return
            self.why = why
            for sock in self._socks:
                _shut(sock)

    def raise_if_cut(self) -> None:
        if self.why == "stopped":
            raise Stopped
        if self.why == "deadline":
            raise DeadlineExceeded


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # not connected yet, closed already, or detached into its TLS socket
        pass


class _Cuttable:
    """A connection whose sockets are attached to its :class:`Call` as soon as they exist."""

    def __init__(self, *args: Any, call: Call, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._call = call
        connect = self._create_connection  # type: ignore[has-type]

        def attached(*a: Any, **k: Any) -> socket.socket:
            sock = connect(*a, **k)
            call.attach(sock)
            return sock  # type: ignore[no-any-return]

        self._create_connection = attached


class _HTTPConnection(_Cuttable, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_Cuttable, http.client.HTTPSConnection):
    def connect(self) -> None:
        """As http.client's, with the TLS socket attached before its handshake."""
        http.client.HTTPConnection.connect(self)
        tls = self._context.wrap_socket(  # type: ignore[attr-defined]
            self.sock, server_hostname=self._tunnel_host or self.host,  # type: ignore[attr-defined]
            do_handshake_on_connect=False)
        self.sock = tls
        self._call.attach(tls)
        tls.do_handshake()


class _Request(urllib.request.Request):
    def __init__(self, *args: Any, call: Call, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.call = call


class _HTTPHandler(urllib.request.HTTPHandler):
    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(partial(_HTTPConnection, call=req.call), req, **kwargs)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(partial(_HTTPSConnection, call=req.call), req, **kwargs)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: urllib would send the request's headers, the API key's
    ``Authorization`` among them, to whatever address the server names (a POST answered
    302 becomes a GET there). The 3xx is an HTTPError the client reports instead."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _opener(url: str) -> urllib.request.OpenerDirector:
    """urllib's opener with cuttable connections and no redirects; no proxy for a loopback
    server (a proxy there would never reach it)."""
    host = urlsplit(url).hostname or ""
    handlers: list[Any] = [_HTTPHandler, _HTTPSHandler, _NoRedirect]
    if host in ("localhost", "::1") or host.startswith("127."):
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


class Requests:
    """POSTs to one URL, each ending by its deadline; ``stop()`` cuts those in flight and
    refuses new ones. Safe to use from several threads at once."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._opener = _opener(url)
        self._lock = threading.Lock()
        self._live: set[Call] = set()
        self.stopped = threading.Event()

    def post(self, body: bytes, headers: dict[str, str], timeout: float, limit: int,
             ) -> bytes:
        """The response body of one POST, read within ``timeout`` seconds from the start
        (DeadlineExceeded otherwise) and at most ``limit`` bytes long (TooLarge otherwise).
        HTTP errors and connection failures are urllib's own (HTTPError, OSError...)."""
        call = Call()
        with self._lock:
            if self.stopped.is_set():
                raise Stopped
            self._live.add(call)
        timer = threading.Timer(timeout, call.cut, ("deadline",))
        timer.daemon = True
        timer.start()
        request = _Request(self.url, data=body, headers=headers, method="POST", call=call)
        try:
            with self._opener.open(request, timeout=timeout) as response:
                data = _read(response, limit)
        except Exception:
            call.raise_if_cut()  # whatever urllib made of the cut, it was the cut
            raise
        finally:
            timer.cancel()
            with self._lock:
                self._live.discard(call)
        call.raise_if_cut()  # a cut body may read as a short, complete one
        return data

    def stop(self) -> None:
        """Cut every request in flight and refuse any more (a stopped run)."""
        with self._lock:
            self.stopped.set()
            live = list(self._live)
        for call in live:
            call.cut("stopped")


def _read(response: Any, limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while chunk := response.read(CHUNK):
        size += len(chunk)
        if size > limit:
            raise TooLarge
        parts.append(chunk)
    return b"".join(parts)


__all__ = ["DeadlineExceeded", "Requests", "Stopped", "TooLarge"]
