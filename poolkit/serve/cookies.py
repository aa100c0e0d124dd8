"""The session cookie: who logged in, until when, under which account epoch; signed.

The value is ``BODY.MAC``: BODY the base64url JSON ``{"u": name, "x": expiry, "e": epoch}``,
MAC its HMAC-SHA256 under the store's session secret
(``poolkit.app.users.session_secret``). A cookie another store signed, a changed byte, an
expired one, or one from before the account epoch changed (a user removed, a password
reset) reads as no cookie. Nothing in it is secret; all of it is the server's word. (The
role is not in it: the server reads it from the account at each request.)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass

NAME = "poolkit_session"
#: how long a login lasts, in seconds
LIFETIME = 12 * 3600


@dataclass(frozen=True)
class Login:
    user: str
    expires: int
    epoch: str


def _mac(secret: bytes, body: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def sign(secret: bytes, user: str, epoch: object, now: float | None = None,
         lifetime: int = LIFETIME) -> str:
    expires = int((time.time() if now is None else now) + lifetime)
    doc = {"u": user, "x": expires, "e": str(epoch)}
    body = base64.urlsafe_b64encode(json.dumps(doc, sort_keys=True).encode()).rstrip(b"=")
    return f"{body.decode()}.{_mac(secret, body)}"


def verify(secret: bytes, value: str | None, now: float | None = None) -> Login | None:
    """The login ``value`` signs, or None (no cookie, a bad MAC, a bad body, expired)."""
    if not value or not value.isascii() or value.count(".") != 1:
        return None
    body, mac = value.split(".")
    if not hmac.compare_digest(_mac(secret, body.encode()), mac):
        return None
    try:
        doc = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        login = Login(str(doc["u"]), int(doc["x"]), str(doc["e"]))
    except (ValueError, KeyError, TypeError):
        return None
    return login if login.expires > (time.time() if now is None else now) else None
