"""Accounts for tests: cheap password hashes.

argon2id at poolkit's parameters costs about 0.3 s of CPU a hash (that is its point); tests
that add many accounts make them with the cheapest argon2id parameters instead
(``cheap_hashes``). Hashes made so verify as any other: the parameters are in the hash.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2id with 8 KiB and one pass for the test's new hashes (never in poolkit)."""
    from argon2 import PasswordHasher

    import poolkit.passwords as passwords

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    monkeypatch.setattr(passwords, "_argon2", lambda: cheap)
