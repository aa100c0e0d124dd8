"""A store's location as text: checked once where it enters, redacted wherever it is shown.

A config's ``store:`` and the ``poolkit store`` arguments name a store by a SQLite path, a
libpq URL (``postgresql://USER@HOST:PORT/DBNAME?KEY=VALUE``) or a libpq key=value string
(``host=H port=P dbname=D user=U``). The rules, all enforced here:

- **No secret in a location.** A password in the URL's userinfo, or any libpq keyword that
  holds a secret (``password``, ``sslpassword``, ...) as a URL query parameter or a key=value
  pair, is refused: libpq reads the password from ``PGPASSWORD`` or ``~/.pgpass`` (``passfile``
  names another such file and is allowed: a path, not a secret).
- **Only libpq's keywords.** An unknown query parameter or key is refused with one line
  listing the valid ones, before libpq sees it (libpq's own error was a traceback).
- **A key=value string is PostgreSQL**, rewritten as the equivalent URL (so every message
  and the database name read the same as for a URL); it never names a SQLite file. A file
  whose name holds ``=`` is still reachable as ``./NAME``.
- **One redaction.** :func:`redact` is the only way a location reaches a message, a report or
  a file header: it drops every secret of every form (multi-host URLs included) and never
  raises, whatever the text.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from poolkit.errors import StoreError, one_of

#: libpq keywords whose value is a secret: never accepted in a location, never shown.
SECRET_KEYS = frozenset({"password", "sslpassword", "oauth_client_secret",
                         "scram_client_key", "scram_server_key"})

#: libpq's connection keywords (PostgreSQL 18) that a location may set.
LIBPQ_KEYS = frozenset({
    "application_name", "channel_binding", "client_encoding", "connect_timeout", "dbname",
    "fallback_application_name", "gssdelegation", "gssencmode", "gsslib", "host", "hostaddr",
    "keepalives", "keepalives_count", "keepalives_idle", "keepalives_interval", "krbsrvname",
    "load_balance_hosts", "max_protocol_version", "min_protocol_version", "oauth_client_id",
    "oauth_issuer", "oauth_scope", "options", "passfile", "port", "replication",
    "require_auth", "requirepeer", "service", "ssl_max_protocol_version",
    "ssl_min_protocol_version", "sslcert", "sslcertmode", "sslcompression", "sslcrl",
    "sslcrldir", "sslkey", "sslkeylogfile", "sslmode", "sslnegotiation", "sslrootcert",
    "sslsni", "target_session_attrs", "tcp_user_timeout", "user",
})

POSTGRES_SCHEMES = ("postgresql", "postgres")

NO_PASSWORD = ("a store URL must not carry a password; set PGPASSWORD or use "
               "~/.pgpass")

_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*)://", re.IGNORECASE)
#: a libpq key=value string starts with a keyword and '=' (a path has a '/' or a '.' first)
_CONNINFO = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=")
_SECRET_PAIR = re.compile(  # key = 'quoted' | unquoted, in a key=value string
    r"(?P<key>\b[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.)*)")


class LocationError(StoreError):
    """A store location that cannot be used; ``reason`` is the message without the location,
    for callers that say where it came from (a config's line)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def is_conninfo(text: str) -> bool:
    """Whether ``text`` is a libpq key=value string (``host=H dbname=D ...``)."""
    return not _SCHEME.match(text) and bool(_CONNINFO.match(text))


def parse_conninfo(text: str) -> list[tuple[str, str]]:
    """The pairs of a libpq key=value string, by libpq's rules: ``key = value`` separated by
    whitespace; a value is single-quoted (``\\'`` and ``\\\\`` inside) or runs to the next
    whitespace (a backslash escapes the next character)."""
    pairs: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i == n:
            return pairs
        start = i
        while i < n and text[i] != "=" and not text[i].isspace():
            i += 1
        key = text[start:i]
        while i < n and text[i].isspace():
            i += 1
        if i == n or text[i] != "=" or not key:
            raise LocationError(f"connection string: {key or text[start:]!r} is not "
                                f"KEY=VALUE")
        i += 1
        while i < n and text[i].isspace():
            i += 1
        value: list[str] = []
        if i < n and text[i] == "'":
            i += 1
            while i < n and text[i] != "'":
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                value.append(text[i])
                i += 1
            if i == n:
                raise LocationError(f"connection string: unterminated quoted value of {key!r}")
            i += 1
        else:
            while i < n and not text[i].isspace():
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                value.append(text[i])
                i += 1
        pairs.append((key, "".join(value)))


def _check_keys(keys: list[str], what: str) -> None:
    for key in keys:
        if key in SECRET_KEYS:
            raise LocationError(NO_PASSWORD)
    for key in keys:
        if key not in LIBPQ_KEYS:
            raise LocationError(one_of(key, LIBPQ_KEYS, what))


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """A URL's query as libpq decodes it (keys and values percent-decoded)."""
    pairs = []
    for item in query.split("&"):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep:
            if unquote(key) in SECRET_KEYS:
                raise LocationError(NO_PASSWORD)
            raise LocationError(f"store URL query parameter {unquote(key)!r} has no value "
                                f"(KEY=VALUE)")
        pairs.append((unquote(key), unquote(value)))
    return pairs


def _split(url: str) -> tuple[str, str, str, str]:
    """``url`` as (scheme, userinfo, the rest before the query, query). The userinfo ends at
    the last ``@`` before the query: wider than libpq reads it, so that whatever a user may
    have meant as a password is found (a ``/`` in it included)."""
    scheme, _, rest = url.partition("://")
    head, _, query = rest.partition("?")
    userinfo, at, after = head.rpartition("@")
    return (scheme, userinfo, after, query) if at else (scheme, "", head, query)


def check_url(url: str) -> str:
    """``url`` if it is a libpq URL without secrets and with only libpq's query parameters,
    naming a database; a :class:`LocationError` otherwise."""
    _scheme, userinfo, _rest, query = _split(url)
    if ":" in userinfo:
        raise LocationError(NO_PASSWORD)
    pairs = _query_pairs(query)
    _check_keys([k for k, _ in pairs], "store URL query parameter")
    named = urlsplit(url).path.strip("/") or any(k in ("dbname", "service") for k, _ in pairs)
    if not named:
        raise LocationError("name the database (postgresql://USER@HOST:PORT/DBNAME)")
    return url


def conninfo_to_url(text: str) -> str:
    """The libpq URL a key=value string means (checked as :func:`check_url` checks)."""
    pairs = parse_conninfo(text)
    _check_keys([k for k, _ in pairs], "connection string key")
    params = dict(pairs)  # libpq: a repeated key's last value wins
    user = params.pop("user", "")
    host = params.get("host", "")
    port = params.get("port", "")
    netloc = ""
    if host and "/" not in host and "," not in host and (not port or port.isdigit()):
        params.pop("host")
        params.pop("port", None)
        netloc = quote(host, safe="") + (f":{port}" if port else "")
    if user:
        netloc = f"{quote(user, safe='')}@{netloc}"
    dbname = params.pop("dbname", "")
    query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in params.items())
    return check_url(f"postgresql://{netloc}/{quote(dbname, safe='')}"
                     + (f"?{query}" if query else ""))


def database_location(text: str) -> str | None:
    """What ``text`` names when it is a database: a libpq key=value string as its checked
    URL, a ``postgresql://`` URL checked, another scheme's URL as it is (its backend decides);
    None for a SQLite file."""
    if is_conninfo(text):
        return conninfo_to_url(text)
    match = _SCHEME.match(text)
    if not match or match.group(1).lower() == "sqlite":
        return None
    return check_url(text) if match.group(1).lower() in POSTGRES_SCHEMES else text


def database_name(url: str) -> str:
    """The database a checked URL names: its path, else its ``dbname`` parameter."""
    name = unquote(urlsplit(url).path.strip("/"))
    if name:
        return name
    pairs = dict(_query_pairs(_split(url)[3]))
    return pairs.get("dbname", "")


def redact(location: object) -> str:
    """``location`` as messages, reports and headers show it: every secret removed (a URL's
    userinfo password, secret query parameters, secret key=value pairs). Never raises."""
    text = str(location)
    if isinstance(location, Path):
        return text
    if is_conninfo(text):
        kept = _SECRET_PAIR.sub(
            lambda m: "" if m.group("key") in SECRET_KEYS else m.group(0), text)
        return " ".join(kept.split())
    if not _SCHEME.match(text):
        return text
    scheme, userinfo, rest, query = _split(text)
    shown = f"{scheme}://" + (f"{userinfo.split(':', 1)[0]}@" if userinfo else "") + rest
    if "?" in text.partition("://")[2]:
        items = [item for item in query.split("&")
                 if unquote(item.partition("=")[0]) not in SECRET_KEYS]
        shown += "?" + "&".join(items) if items else ""
    return shown


__all__ = ["LIBPQ_KEYS", "LocationError", "SECRET_KEYS", "check_url", "conninfo_to_url",
           "database_location", "database_name", "is_conninfo", "parse_conninfo", "redact"]
