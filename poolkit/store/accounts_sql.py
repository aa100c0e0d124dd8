"""The accounts of ``poolkit serve`` in the SQL both backends run (``accounts``, ``invites``
and ``server_secrets``, schema 13; see ``store.schema``).

What is stored: a name, its role, a salted hash of its password (``poolkit.passwords``;
None until an invite is redeemed), when it was made, and its ``epoch``: a random number
that a new password replaces and that dies with the account, so a cookie signed with an
older epoch is void. An invite is kept as the sha256 of its token only: the link itself is
never stored. Each write is one transaction; redeeming an invite takes it and sets the
password in the same one, so two redemptions of one link cannot both succeed.

On PostgreSQL only poolkit_admin and the owner may read or write these tables
(``store.pg_access.ADMIN_ONLY``): an assessor reads neither hashes nor the secret.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from poolkit.store.sql_base import SqlBase

#: the largest epoch (epochs are random in 1..EPOCH_MAX: a BIGINT on PostgreSQL)
EPOCH_MAX = 2**62


def new_epoch() -> int:
    return 1 + secrets.randbelow(EPOCH_MAX)


@dataclass(frozen=True)
class AccountRow:
    """One account as stored (``hash`` None: invited, no password yet)."""

    name: str
    role: str
    hash: str | None
    created: str
    epoch: int


class AccountsSql(SqlBase):
    _ACCOUNT = "SELECT name, role, hash, created, epoch FROM accounts"

    def account(self, name: str) -> AccountRow | None:
        row = self.conn.execute(f"{self._ACCOUNT} WHERE name = {self.mark}", (name,)).fetchone()
        return None if row is None else AccountRow(row[0], row[1], row[2], row[3], int(row[4]))

    def accounts(self) -> list[AccountRow]:
        """Every account, by name."""
        return [AccountRow(r[0], r[1], r[2], r[3], int(r[4]))
                for r in self.conn.execute(f"{self._ACCOUNT} ORDER BY name")]

    def add_account(self, name: str, role: str, hash: str | None, created: str) -> bool:
        """Add ``name`` (False, and nothing written, when the name has an account)."""
        p = self.mark
        with self.transaction():
            if self.account(name) is not None:
                return False
            self.conn.execute(f"INSERT INTO accounts (name, role, hash, created, epoch) "
                              f"VALUES ({p}, {p}, {p}, {p}, {p})",
                              (name, role, hash, created, new_epoch()))
        return True

    def rehash_password(self, name: str, old: str, new: str) -> bool:
        """Replace ``name``'s hash ``old`` by ``new``, a hash of the same password made with
        today's parameters, keeping its epoch (its sessions stay); False when the hash is no
        longer ``old`` (a new password meanwhile: that one stands)."""
        p = self.mark
        with self.transaction():
            cur = self.conn.execute(f"UPDATE accounts SET hash = {p} WHERE name = {p} AND "
                                    f"hash = {p}", (new, name, old))
            return bool(cur.rowcount)

    def remove_account(self, name: str) -> bool:
        """Remove ``name`` and its invites (False: no such account). Its events stay."""
        p = self.mark
        with self.transaction():
            self.conn.execute(f"DELETE FROM invites WHERE name = {p}", (name,))
            cur = self.conn.execute(f"DELETE FROM accounts WHERE name = {p}", (name,))
            return bool(cur.rowcount)

    def add_invite(self, token_sha256: str, name: str, role: str, expires: str) -> None:
        """Record an invite for ``name`` (an account already), voiding its older ones."""
        p = self.mark
        with self.transaction():
            self.conn.execute(f"DELETE FROM invites WHERE name = {p}", (name,))
            self.conn.execute(f"INSERT INTO invites (token_sha256, name, role, expires) "
                              f"VALUES ({p}, {p}, {p}, {p})", (token_sha256, name, role, expires))

    def redeem_invite(self, token_sha256: str, hash: str, at: str) -> AccountRow | None:
        """Take the invite whose token hashes to ``token_sha256`` if it is unused and not
        expired at ``at``, and give its account the password ``hash``, a new epoch and the
        invite's role; the account, or None (unknown, used or expired: nothing written)."""
        p = self.mark
        with self.transaction():
            cur = self.conn.execute(
                f"UPDATE invites SET used = {p} WHERE token_sha256 = {p} AND used IS NULL "
                f"AND expires > {p} RETURNING name, role", (at, token_sha256, at))
            row = cur.fetchone()
            if row is None:
                return None
            name, role = row
            self.conn.execute(f"UPDATE accounts SET hash = {p}, role = {p}, epoch = {p} "
                              f"WHERE name = {p}", (hash, role, new_epoch(), name))
            return self.account(name)

    def pending_invite(self, token_sha256: str, at: str) -> str | None:
        """The name the unused invite whose token hashes to ``token_sha256`` is for, if it
        is not expired at ``at`` (None: unknown, used or expired)."""
        p = self.mark
        row = self.conn.execute(f"SELECT name FROM invites WHERE token_sha256 = {p} AND used "
                                f"IS NULL AND expires > {p}", (token_sha256, at)).fetchone()
        return None if row is None else str(row[0])

    def pending_invites(self, at: str) -> dict[str, str]:
        """name -> when its unused invite expires, for invites not expired at ``at``."""
        return {r[0]: r[1] for r in self.conn.execute(
            f"SELECT name, expires FROM invites WHERE used IS NULL AND expires > {self.mark}",
            (at,))}

    def server_secret(self, key: str, make: str) -> str:
        """The secret stored under ``key``; ``make`` stored first when there is none (two
        servers starting at once both read the one that was stored first)."""
        p = self.mark
        row = self.conn.execute(f"SELECT value FROM server_secrets WHERE key = {p}",
                                (key,)).fetchone()
        if row is not None:
            return str(row[0])
        with self.transaction():
            self.conn.execute(f"INSERT INTO server_secrets (key, value) VALUES ({p}, {p}) "
                              f"ON CONFLICT (key) DO NOTHING", (key, make))
            return str(self.conn.execute(f"SELECT value FROM server_secrets WHERE key = {p}",
                                         (key,)).fetchone()[0])
