"""Passwords, as the accounts of ``poolkit serve`` keep them: salted memory-hard hashes only.

A password is hashed with **argon2id** (``argon2-cffi``, the ``serve`` extra: RFC 9106's
second recommended setting, 64 MiB, 3 passes, 4 lanes, a 16-byte random salt) or, when that
package is missing, with **scrypt** from the standard library (n=2**15, r=8, p=1: 32 MiB, a
16-byte random salt). Either hash is a self-describing text (``$argon2id$...`` or
``$scrypt$n=...,r=...,p=...$SALT$HASH``), so a store keeps verifying hashes made by the other
method or with older parameters; :func:`needs_rehash` says when one should be made again.

The rules a new password must meet are here too (:func:`password_problem`): at least
:data:`MIN_LENGTH` characters, at most :data:`MAX_LENGTH` (hashing costs the same whatever
the length, but a megabyte "password" would still be read and kept), text that encodes as
UTF-8. Nothing here prints, logs or keeps a password; errors never quote one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

#: the fewest characters a password may have (NIST SP 800-63B's floor for a chosen one)
MIN_LENGTH = 8
#: the most characters a password may have
MAX_LENGTH = 1024

_SCRYPT = {"n": 2**15, "r": 8, "p": 1}
_SCRYPT_MEMORY = 64 * 1024 * 1024  # hashlib's default cap (32 MiB) is just below n=2**15, r=8
_SALT_BYTES = 16
_HASH_BYTES = 32


def password_problem(password: str) -> str | None:
    """Why ``password`` cannot be a new password (never quoting it), or None."""
    if not password:
        return "is empty"
    if len(password) < MIN_LENGTH:
        return f"is shorter than {MIN_LENGTH} characters"
    if len(password) > MAX_LENGTH:
        return f"is longer than {MAX_LENGTH} characters"
    try:
        password.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid text (a lone surrogate: not UTF-8)"
    return None


def _argon2() -> object | None:
    """argon2-cffi's ``PasswordHasher`` (RFC 9106's low-memory setting), or None."""
    try:
        from argon2 import PasswordHasher, profiles
    except ImportError:
        return None
    return PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)


def hash_password(password: str, method: str | None = None) -> str:
    """A new salted hash of ``password``: argon2id when argon2-cffi is installed, else scrypt
    (``method``: ``"argon2id"`` or ``"scrypt"`` to choose)."""
    hasher = _argon2() if method in (None, "argon2id") else None
    if method == "argon2id" and hasher is None:
        raise RuntimeError("argon2id needs argon2-cffi (pip install 'poolkit[serve]')")
    if hasher is not None:
        return str(hasher.hash(password))  # type: ignore[attr-defined]
    salt = secrets.token_bytes(_SALT_BYTES)
    digest = _scrypt(password, salt, **_SCRYPT)
    params = ",".join(f"{k}={v}" for k, v in _SCRYPT.items())
    return f"$scrypt${params}${_b64(salt)}${_b64(digest)}"


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (False for a hash this
    poolkit cannot read, rather than an error that would tell a caller more)."""
    try:
        encoded = password.encode("utf-8")
    except UnicodeEncodeError:
        encoded = password.encode("utf-8", "surrogatepass")  # the same work, never a match
        stored = _dummy()
    if stored.startswith("$argon2"):
        hasher = _argon2()
        if hasher is None:
            return False
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return bool(hasher.verify(stored, encoded))  # type: ignore[attr-defined]
        except (VerificationError, InvalidHashError):
            return False
    parsed = _parse_scrypt(stored)
    if parsed is None:
        return False
    params, salt, digest = parsed
    return hmac.compare_digest(_scrypt_bytes(encoded, salt, **params), digest)


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` was made by another method or with other parameters than
    :func:`hash_password` uses now (then a successful login may store a new one)."""
    hasher = _argon2()
    if hasher is None:
        parsed = _parse_scrypt(stored)
        return parsed is None or parsed[0] != _SCRYPT
    if not stored.startswith("$argon2"):
        return True
    from argon2.exceptions import InvalidHashError

    try:
        return bool(hasher.check_needs_rehash(stored))  # type: ignore[attr-defined]
    except InvalidHashError:
        return True


def dummy_verify(password: str) -> None:
    """Verify ``password`` against a hash no password matches, spending the work a real
    check spends: an unknown name must take as long to refuse as a wrong password."""
    verify_password(_dummy(), password)


#: Hashes, with the parameters :func:`hash_password` uses, of random passwords that were
#: thrown away: what an unknown name is checked against (fixed, so that even the first
#: check of a process spends no more than any other).
_DUMMY = {
    "argon2id": "$argon2id$v=19$m=65536,t=3,p=4$0FShIYt92a60L4Qur00d/A$"
                "ZJzOeX14bhJmMef/X1wVuasmBmibvsdsuVCW5Uq07oQ",
    "scrypt": "$scrypt$n=32768,r=8,p=1$vtfGvzKwBXIsKKNjtVePuA$"
              "UJnhk7GreVDN6k5sUafL1dDRHVcm78FOqo3m5kW+WLw",
}


def _dummy() -> str:
    return _DUMMY["argon2id" if _argon2() is not None else "scrypt"]


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return _scrypt_bytes(password.encode("utf-8"), salt, n, r, p)


def _scrypt_bytes(password: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, maxmem=_SCRYPT_MEMORY,
                          dklen=_HASH_BYTES)


def _parse_scrypt(stored: str) -> tuple[dict[str, int], bytes, bytes] | None:
    """(parameters, salt, hash) of a ``$scrypt$`` text, or None when it is not one (or asks
    for more memory than poolkit would spend)."""
    parts = stored.split("$")
    if len(parts) != 5 or parts[0] or parts[1] != "scrypt":
        return None
    try:
        params = {k: int(v) for k, v in (kv.split("=", 1) for kv in parts[2].split(","))}
        salt, digest = _unb64(parts[3]), _unb64(parts[4])
    except ValueError:
        return None
    if set(params) != {"n", "r", "p"} or 128 * params["n"] * params["r"] > _SCRYPT_MEMORY:
        return None
    if params["n"] < 2 or params["n"] & (params["n"] - 1) or params["r"] < 1 or params["p"] < 1:
        return None
    return params, salt, digest


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (ValueError, TypeError) as exc:
        raise ValueError(str(exc)) from None
