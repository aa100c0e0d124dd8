"""Passwords are kept as salted memory-hard hashes only (issue 39): argon2id, or scrypt
where argon2-cffi is missing; either verifies whatever made it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poolkit.passwords as passwords
from poolkit.passwords import (
    MAX_LENGTH,
    MIN_LENGTH,
    dummy_verify,
    hash_password,
    needs_rehash,
    password_problem,
    verify_password,
)


@pytest.fixture
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    """scrypt at n=16 for the property tests (the parameters travel in the hash)."""
    monkeypatch.setattr(passwords, "_SCRYPT", {"n": 16, "r": 1, "p": 1})


def test_argon2id_at_rfc_9106_s_low_memory_setting() -> None:
    stored = hash_password("correct horse")
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert verify_password(stored, "correct horse")
    assert not verify_password(stored, "correct horsE")
    assert not needs_rehash(stored)
    assert hash_password("correct horse") != stored  # a new salt each time


def test_scrypt_when_asked_or_without_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = hash_password("correct horse", "scrypt")
    assert stored.startswith("$scrypt$n=32768,r=8,p=1$")
    assert verify_password(stored, "correct horse")
    assert not verify_password(stored, "correct horse ")
    assert needs_rehash(stored)  # argon2-cffi is installed: argon2id is the method
    monkeypatch.setattr(passwords, "_argon2", lambda: None)
    assert hash_password("x" * 8).startswith("$scrypt$")
    assert not needs_rehash(stored)
    assert not verify_password("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA", "x" * 8)
    with pytest.raises(RuntimeError, match="argon2-cffi"):
        hash_password("x" * 8, "argon2id")


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(password=st.text(min_size=1, max_size=40), other=st.text(min_size=1, max_size=40))
def test_a_hash_verifies_its_password_and_no_other(cheap_scrypt: None, password: str,
                                                   other: str) -> None:
    try:
        stored = hash_password(password, "scrypt")
    except UnicodeEncodeError:  # a lone surrogate: never a password (password_problem)
        assert password_problem(password) is not None
        return
    assert verify_password(stored, password)
    assert verify_password(stored, other) == (other == password)


@pytest.mark.parametrize("stored", [
    "", "plain", "$scrypt$", "$scrypt$n=16,r=1,p=1$!!$!!", "$scrypt$n=15,r=1,p=1$AAAA$AAAA",
    "$scrypt$n=1073741824,r=8,p=1$AAAA$AAAA",  # asks for 1 TiB: never tried
    "$scrypt$n=16,r=1$AAAA$AAAA", "$scrypt$n=16,r=1,p=1,q=1$AAAA$AAAA", "$argon2id$garbage",
    "$2b$12$abcdefghijklmnopqrstuv",  # bcrypt: not poolkit's
])
def test_a_hash_poolkit_cannot_read_verifies_nothing(stored: str) -> None:
    assert verify_password(stored, "correct horse") is False
    assert needs_rehash(stored)


def test_a_lone_surrogate_never_matches_and_costs_the_same() -> None:
    stored = hash_password("correct horse", "scrypt")
    assert verify_password(stored, "correct horse\ud800") is False
    dummy_verify("\ud800 anything")  # no error


@pytest.mark.parametrize(("password", "problem"), [
    ("", "is empty"),
    ("x" * (MIN_LENGTH - 1), f"shorter than {MIN_LENGTH}"),
    ("x" * (MAX_LENGTH + 1), f"longer than {MAX_LENGTH}"),
    ("abcdefg\ud800", "lone surrogate"),
])
def test_what_a_new_password_may_not_be(password: str, problem: str) -> None:
    said = password_problem(password)
    assert said is not None and problem in said
    assert password not in said or not password  # never quoted


@pytest.mark.parametrize("password", ["x" * MIN_LENGTH, "x" * MAX_LENGTH, "pass word",
                                      "  spaces around  ", "пароль-пароль", "tab\there!"])
def test_what_a_new_password_may_be(password: str) -> None:
    assert password_problem(password) is None


def test_the_dummy_hashes_use_today_s_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown name must cost what a known one costs: the dummy hash has the parameters
    a new hash has, whichever method is in use."""
    assert not needs_rehash(passwords._DUMMY["argon2id"])
    monkeypatch.setattr(passwords, "_argon2", lambda: None)
    assert not needs_rehash(passwords._DUMMY["scrypt"])
