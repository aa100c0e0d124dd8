"""A served store for the tests: the tiny judging store, its config, two accounts (alice an
assessor, lea a lead) and a password each."""

from __future__ import annotations

import sys
from pathlib import Path

from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, write_config

from poolkit.app.users import add_user
from poolkit.collection import Collection

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-22", "lea": "lea-password-333"}
ROLES = {"alice": "assessor", "bob": "assessor", "lea": "lead"}
FAKE_SCREEN = Path(__file__).with_name("fake_screen.py")


_BUILT: dict[str, bytes] = {}


def served_config(tmp_path: Path, judge: str = "") -> Path:
    """The tiny store with its accounts, and its config's path (the accounts' hashes are
    made once per test process: argon2id is slow on purpose)."""
    store = tmp_path / "tiny.sqlite"
    config = write_config(tmp_path / "cfg", store, judge)
    if "store" in _BUILT:
        store.write_bytes(_BUILT["store"])
        return config
    build_store(store, TINY_QUERIES, TINY_DOCS, TINY_POOLS).close()
    with Collection.open(config, write=True) as collection:
        for name, password in PASSWORDS.items():
            add_user(collection, name, ROLES[name], password)
    _BUILT["store"] = store.read_bytes()
    return config


def fake_python(tmp_path: Path, body: str = "") -> str:
    """An executable that stands in for ``python``: whatever ``-m poolkit ...`` it is given,
    it notes the start (its pid and arguments) in ``starts.log`` and runs
    ``fake_screen.py`` with those arguments (or ``body``, shell, instead)."""
    script = tmp_path / "fake-python"
    run = body or f'exec "{sys.executable}" "{FAKE_SCREEN}" "$@"'
    script.write_text(f'#!/bin/sh\necho "$$ $@" >> "{tmp_path / "starts.log"}"\n{run}\n')
    script.chmod(0o755)
    return str(script)


def starts(tmp_path: Path) -> list[str]:
    """The command lines the fake python was started with."""
    log = tmp_path / "starts.log"
    return log.read_text().splitlines() if log.exists() else []
