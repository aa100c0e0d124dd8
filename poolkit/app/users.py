"""``users``: the accounts people log in to ``poolkit serve`` with, and what the server asks
of them (who is this, is this cookie still good, what key signs cookies).

Every verb takes a :class:`~poolkit.collection.Collection` (as every verb in ``poolkit/app``
does), opened with ``write=True`` for those that write (``add_user``, ``remove_user``,
``invite_user``, ``redeem_invite``, and ``session_secret`` the first time); ``authenticate``,
``account_epoch``, ``current_account`` and ``list_users`` only read. A server keeps one
collection open and calls these from any thread (the store gives each thread its own
connection).

The rules:

- A name follows ``--assessor``'s rules (``io.validate.assessor_problem``) and is never a
  machine judge's (in the config or the store): the grades of a browser session are recorded
  under it. A role is ``assessor`` or ``lead`` (a lead also sees the team's status page).
- A password has at least ``passwords.MIN_LENGTH`` characters; it is kept only as a salted
  memory-hard hash (``poolkit.passwords``), never printed, logged or quoted in an error.
- ``authenticate`` spends the same work whether the name exists or not (an unknown name, or
  one invited but without a password yet, is checked against a dummy hash).
- An invite is a one-time link ``{public_url}/invite/{token}``: 32 random bytes, of which
  only the sha256 is stored. Inviting a name without an account makes it (without a
  password); a new invite voids the name's older ones; redeeming sets the password. An
  unknown, used or expired token gets one message that does not say which.
- Every account has an ``epoch``, a random number replaced with each new password and gone
  with the account: the server puts it in the cookie it signs with :func:`session_secret`
  and honours a cookie only while :func:`account_epoch` still gives the same number. So
  removing a user, or setting a new password, ends every session it had.
- Removing a user removes its account and invites; its grades stay (events are never
  deleted) and read as before.

Light at import: the command line's parser takes ``UsersReport.formats`` from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Literal

from poolkit.reports import Report, register_report

if TYPE_CHECKING:
    from poolkit.collection import Collection
    from poolkit.store.accounts_sql import AccountRow

Role = Literal["assessor", "lead"]
#: the roles an account may have (the schema's CHECK on ``accounts.role``)
ROLES: tuple[Role, ...] = ("assessor", "lead")
#: where ``poolkit serve`` listens unless told otherwise (the invite links' default origin)
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8765"
#: an invite's lifetime unless told otherwise, and the longest one allowed
DEFAULT_EXPIRES_HOURS = 72.0
MAX_EXPIRES_HOURS = 24.0 * 30
#: an invite token: 32 random bytes, URL-safe base64 without padding
TOKEN_BYTES = 32
_TOKEN_LENGTH = 43
#: the one answer to a token that is unknown, used or expired (it says not which)
BAD_INVITE = "this invite link is not valid (unknown, already used or expired); ask for a new one"
_SECRET_KEY = "session"


@dataclass(frozen=True)
class Account:
    """Who is logged in: the name grades are recorded under, and the role."""

    name: str
    role: Role


@register_report
@dataclass(frozen=True)
class UsersReport(Report):
    """``poolkit users CONFIG list``: every account, by name (never a hash)."""

    kind = "users"

    store: str
    users: list[dict[str, Any]]

    def render_table(self) -> str:
        if not self.users:
            return f"no accounts in {self.store}\n"
        rows = [("name", "role", "created", "password", "invite expires")]
        rows += [(u["name"], u["role"], u["created"][:16].replace("T", " "),
                  "set" if u["has_password"] else "-",
                  (u["invite_expires"] or "-")[:16].replace("T", " ")) for u in self.users]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n"
                       for r in rows)


def _role(role: str, flag: str = "--role") -> Role:
    from poolkit.errors import PoolkitError, one_of

    for known in ROLES:
        if role == known:
            return known
    raise PoolkitError(f"{flag}: " + one_of(role, ROLES, "role"))


def _check_password(password: str, name: str | None = None) -> None:
    from poolkit.errors import PoolkitError
    from poolkit.passwords import MIN_LENGTH, password_problem

    problem = password_problem(password)
    if problem is not None:
        whose = f" for {name!r}" if name is not None else ""
        raise PoolkitError(f"the password{whose} {problem} (a password has at least "
                           f"{MIN_LENGTH} characters)")


def _token_sha256(token: str) -> str:
    """What is stored of an invite's token."""
    import hashlib

    return hashlib.sha256(token.encode("ascii")).hexdigest()


def read_password(given: object, stream: IO[str] | None, name: str) -> str:
    """The password ``--password-stdin`` reads: one line of ``stream`` (its end of line
    taken off), or at a terminal one typed without echo. ``given`` is the option's value:
    True when it came alone; anything else came after it on the command line and is
    refused without being repeated. Empty input, a line that is not UTF-8 and a line longer
    than ``passwords.MAX_LENGTH`` allows are refused too (the rules of a password are
    :func:`add_user`'s)."""
    from poolkit.errors import PoolkitError
    from poolkit.passwords import MAX_LENGTH

    if given is not True:
        raise PoolkitError("--password-stdin takes no value: the password is read from stdin, "
                           "never from the command line (give NAME before the option)")
    if stream is None or stream.closed:
        raise PoolkitError("--password-stdin: stdin is closed; pipe the password in")
    if stream.isatty():
        import getpass

        line = getpass.getpass(f"password for {name}: ")
    else:
        limit = 4 * MAX_LENGTH + 2  # UTF-8 takes at most 4 bytes a character, then CR LF
        raw = stream.buffer.readline(limit) if hasattr(stream, "buffer") else \
            stream.readline(limit).encode("utf-8", "surrogateescape")
        if len(raw) >= limit and not raw.endswith(b"\n"):
            raise PoolkitError(f"--password-stdin: the line is longer than a password may be "
                               f"({MAX_LENGTH} characters)")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PoolkitError("--password-stdin: the line read is not UTF-8 text") from None
        line = line.removesuffix("\n").removesuffix("\r")
    if not line:
        raise PoolkitError("--password-stdin: stdin is empty; pipe the password in (one line)")
    return line


def add_user(collection: Collection, name: str, role: str, password: str) -> Account:
    """Give ``name`` an account with ``role`` and ``password`` (refused: a name with an
    account already, a machine judge's name, a name ``--assessor`` would refuse, a password
    shorter than ``passwords.MIN_LENGTH``)."""
    from poolkit.errors import StoreError
    from poolkit.io.validate import check_assessor
    from poolkit.passwords import hash_password
    from poolkit.store.records import now

    checked = _role(role)
    check_assessor(name, "NAME")
    _check_password(password, name)
    collection.person_name(name, "NAME")
    store = collection.store
    if store.account(name) is not None:
        raise StoreError(_has_account(collection, name))
    if not store.add_account(name, checked, hash_password(password), now()):
        raise StoreError(_has_account(collection, name))  # made meanwhile by another
    return Account(name, checked)


def _has_account(collection: Collection, name: str) -> str:
    return (f"{collection.config.store_label}: NAME {name!r} has an account already (remove "
            f"it first, or invite it to set a new password)")


def list_users(collection: Collection) -> UsersReport:
    """Every account: name, role, when it was made, whether it has a password and when its
    pending invite (if any) expires. Never a hash."""
    from poolkit.store.records import now

    store = collection.store
    pending = store.pending_invites(now())
    return UsersReport(collection.config.store_label, [
        {"name": a.name, "role": a.role, "created": a.created,
         "has_password": a.hash is not None, "invite_expires": pending.get(a.name)}
        for a in store.accounts()])


def _known(collection: Collection, name: str) -> None:
    """A StoreError unless ``name`` has an account (naming the close ones)."""
    from poolkit.errors import StoreError, one_of

    store = collection.store
    if store.account(name) is None:
        raise StoreError(f"{collection.config.store_label}: NAME: "
                         + one_of(name, [a.name for a in store.accounts()], "account"))


def remove_user(collection: Collection, name: str) -> None:
    """Remove ``name``'s account and invites, which ends its sessions; its grades stay."""
    _known(collection, name)
    collection.store.remove_account(name)


def invite_user(collection: Collection, name: str, role: str | None = None,
                public_url: str = DEFAULT_PUBLIC_URL,
                expires_hours: float = DEFAULT_EXPIRES_HOURS) -> str:
    """The one-time link ``{public_url}/invite/{token}`` that sets ``name``'s password,
    valid for ``expires_hours``; ``name`` gets an account (``role``, default assessor)
    without a password if it has none. A new invite voids ``name``'s older ones. ``role``
    given for an existing account must be its role (remove it first to change it)."""
    import secrets
    from datetime import datetime, timedelta, timezone

    from poolkit.errors import StoreError
    from poolkit.io.validate import check_assessor
    from poolkit.store.records import now, stamp

    checked = _role(role) if role is not None else None
    check_assessor(name, "NAME")
    base = check_public_url(public_url)
    hours = _check_hours(expires_hours)
    collection.person_name(name, "NAME")
    store = collection.store
    token = secrets.token_urlsafe(TOKEN_BYTES)
    expires = stamp(datetime.now(timezone.utc) + timedelta(hours=hours))
    with store.transaction():
        account = store.account(name)
        if account is None:
            store.add_account(name, checked or "assessor", None, now())
        elif checked is not None and checked != account.role:
            raise StoreError(f"{collection.config.store_label}: NAME {name!r} is an account "
                             f"with role {account.role!r}, not {checked!r}; remove it first "
                             f"to change its role")
        store.add_invite(_token_sha256(token), name,
                         checked or (account.role if account else "assessor"), expires)
    return f"{base}/invite/{token}"


def check_public_url(url: str, flag: str = "--public-url") -> str:
    """``url`` without its trailing ``/`` when it is an http(s) origin: no path (``poolkit
    serve``'s pages live at the root of a host, so a link under a proxy's prefix would lead
    nowhere), user, query or fragment, no space or control character."""
    from urllib.parse import urlsplit

    from poolkit.errors import PoolkitError

    problem = None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        problem = str(exc)
    else:
        if parts.scheme not in ("http", "https"):
            problem = "must start with http:// or https://"
        elif not parts.hostname:
            problem = "has no host"
        elif parts.username is not None or parts.password is not None:
            problem = "must not hold a user or password"
        elif parts.query or parts.fragment or url.endswith(("?", "#")):
            problem = "must not hold a query or fragment"
        elif not url.isprintable() or any(c.isspace() for c in url):
            problem = "holds a space or control character"
        elif parts.path not in ("", "/"):
            problem = ("must be the root of a host: poolkit serve does not support a proxy's "
                       "path prefix")
    if problem is not None:
        raise PoolkitError(f"{flag} {url!r} {problem} (e.g. https://judge.example.org)")
    return url.rstrip("/")


def _check_hours(hours: float) -> float:
    import math

    from poolkit.errors import PoolkitError

    if not (isinstance(hours, (int, float)) and math.isfinite(hours)
            and 0 < hours <= MAX_EXPIRES_HOURS):
        raise PoolkitError(f"--expires {hours!r}: an invite lasts more than 0 and at most "
                           f"{MAX_EXPIRES_HOURS:g} hours")
    return float(hours)


def _token_shape(token: object) -> bool:
    import re

    return isinstance(token, str) and re.fullmatch(r"[A-Za-z0-9_-]{%d}" % _TOKEN_LENGTH,
                                                   token) is not None


def invited_name(collection: Collection, token: str) -> str | None:
    """The name ``token``'s invite is for while it can still be redeemed (a page asking for
    the new password may show it), or None: unknown, used or expired alike."""
    from poolkit.store.records import now

    if not _token_shape(token):
        return None
    return collection.store.pending_invite(_token_sha256(token), now())


def redeem_invite(collection: Collection, token: str, password: str) -> Account:
    """Set the password of the account ``token``'s invite names, once: the invite is used
    up in the same transaction. An unknown, used or expired token is :data:`BAD_INVITE`."""
    from poolkit.errors import PoolkitError
    from poolkit.passwords import hash_password
    from poolkit.store.records import now

    if not _token_shape(token):
        raise PoolkitError(BAD_INVITE)
    _check_password(password)
    row = collection.store.redeem_invite(_token_sha256(token), hash_password(password), now())
    if row is None:
        raise PoolkitError(BAD_INVITE)
    return Account(row.name, _role(row.role))


def _login_row(collection: Collection, name: object) -> AccountRow | None:
    """``name``'s stored account if it has a password (None too for what no account can be
    named: not text, or a name ``--assessor`` refuses, so a server may pass on whatever a
    request held)."""
    from poolkit.io.validate import assessor_problem

    if not isinstance(name, str) or assessor_problem(name) is not None:
        return None
    row = collection.store.account(name)
    return None if row is None or row.hash is None else row


def authenticate(collection: Collection, name: str, password: str) -> Account | None:
    """The account ``name`` logs in to with ``password``, or None. The same work is spent
    for a name without an account, or without a password yet (a dummy hash is checked).
    A hash made with older parameters (or by scrypt, now that argon2id is there) is made
    again from the password that just matched, when the collection writes; the epoch stays,
    so no session ends."""
    from poolkit.passwords import dummy_verify, hash_password, needs_rehash, verify_password

    row = _login_row(collection, name)
    if not isinstance(password, str):
        password = ""
    if row is None or row.hash is None:
        dummy_verify(password)
        return None
    if not verify_password(row.hash, password):
        return None
    if collection.write and needs_rehash(row.hash):
        collection.store.rehash_password(row.name, row.hash, hash_password(password))
    return Account(row.name, _role(row.role))


def account_epoch(collection: Collection, name: str) -> int | None:
    """``name``'s epoch (a cookie signed with another is void), or None: no account, or no
    password yet (nobody can be logged in as it)."""
    row = _login_row(collection, name)
    return None if row is None else row.epoch


def current_account(collection: Collection, name: str, epoch: int) -> Account | None:
    """The account a cookie naming ``name`` and ``epoch`` stands for while both still hold
    (None: the account was removed, or its password changed since the cookie was signed)."""
    row = _login_row(collection, name)
    if row is None or row.epoch != epoch:
        return None
    return Account(row.name, _role(row.role))


def session_secret(collection: Collection) -> bytes:
    """The store's key for signing cookies (32 random bytes), made the first time it is
    asked for and the same ever after, whichever server asks (on PostgreSQL only
    poolkit_admin and the owner may read it)."""
    import secrets

    return bytes.fromhex(collection.store.server_secret(_SECRET_KEY, secrets.token_hex(32)))
