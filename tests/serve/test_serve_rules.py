"""The rules of ``poolkit serve`` one by one: the cookie, the throttle, the clamp, the
origin, the client's address behind a proxy, the session's environment, and the command's
refusals (one stderr line, nothing served)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from serve_helpers import served_config

from poolkit.errors import PoolkitError
from poolkit.serve import cookies
from poolkit.serve.bridge import HEIGHTS, WIDTHS, clamp_size
from poolkit.serve.launch import Launch
from poolkit.serve.settings import Settings
from poolkit.serve.throttle import PER_ADDRESS, PER_NAME, WINDOW, Throttle

SECRET = b"k" * 32


def test_a_cookie_reads_back_until_it_expires():
    value = cookies.sign(SECRET, "alice", 7, now=1000.0)
    assert cookies.verify(SECRET, value, now=1000.0 + cookies.LIFETIME - 1) == cookies.Login(
        "alice", int(1000 + cookies.LIFETIME), "7")
    assert cookies.verify(SECRET, value, now=1000.0 + cookies.LIFETIME) is None
    assert cookies.verify(b"another store's key", value, now=1000.0) is None


@given(st.text(max_size=80))
def test_no_text_but_a_signed_cookie_reads_as_a_login(value: str):
    assert cookies.verify(SECRET, value) is None


@given(st.binary(min_size=1, max_size=40).map(lambda b: b.hex()), st.integers(0, 200))
def test_a_changed_character_voids_a_cookie(junk: str, at: int):
    value = cookies.sign(SECRET, "alice", 1)
    at %= len(value)
    changed = value[:at] + junk[0] + value[at + 1:]
    if changed != value:
        assert cookies.verify(SECRET, changed) is None


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_name_locks_after_five_failures_until_the_oldest_is_ten_minutes_old():
    clock = Clock()
    throttle = Throttle(clock)
    for i in range(PER_NAME):
        assert not throttle.locked("alice", f"10.0.0.{i}")
        throttle.failed("Alice", f"10.0.0.{i}")  # (names lock whatever their case)
        clock.now += 1
    assert throttle.locked("alice", "10.0.0.99") and not throttle.locked("bob", "10.0.0.99")
    clock.now = WINDOW - 0.5
    assert throttle.locked("alice", "10.0.0.99")
    clock.now = WINDOW  # the first failure is ten minutes old
    assert not throttle.locked("alice", "10.0.0.99")


def test_an_address_locks_after_fifty_failures_whatever_the_names():
    throttle = Throttle(Clock())
    for i in range(PER_ADDRESS):
        assert not throttle.locked("new-name", "10.0.0.1")
        throttle.failed(f"name{i}", "10.0.0.1")
    assert throttle.locked("new-name", "10.0.0.1")
    assert not throttle.locked("new-name", "10.0.0.2")


@given(st.one_of(st.integers(), st.floats(), st.text(), st.none(), st.lists(st.integers())),
       st.one_of(st.integers(), st.floats(), st.text(), st.none()))
def test_any_size_a_browser_asks_for_is_clamped(width: object, height: object):
    w, h = clamp_size(width, height)
    assert WIDTHS[0] <= w <= WIDTHS[1] and HEIGHTS[0] <= h <= HEIGHTS[1]


def test_the_origin_is_the_public_urls_without_its_default_port(tmp_path: Path):
    config = tmp_path / "c.yaml"
    assert Settings(config, port=9000).origin == "http://127.0.0.1:9000"
    assert Settings(config, public_url="https://Judge.Example.org:443/").origin == \
        "https://judge.example.org"
    assert Settings(config, public_url="http://j.example.org:8080").origin == \
        "http://j.example.org:8080"
    assert Settings(config, public_url="https://j.example.org").secure
    assert not Settings(config).secure


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"public_url": "https://example.org/judge/"}, "root of a host"),
    ({"public_url": "ftp://example.org"}, "http:// or https://"),
    ({"public_url": "https://user@example.org"}, "user or password"),
    ({"max_sessions": 0}, "--max-sessions 0: at least 1"),
    ({"port": 70000}, "--port 70000"),
])
def test_settings_refused(tmp_path: Path, kwargs: dict[str, object], says: str):
    with pytest.raises(PoolkitError, match=says.replace("+", r"\+").replace(".", r"\.")):
        Settings(tmp_path / "c.yaml", **kwargs)  # type: ignore[arg-type]


def test_a_sessions_environment_is_built_not_copied(tmp_path: Path):
    server = {"PATH": "/usr/bin", "HOME": "/home/srv", "LANG": "C.UTF-8", "AWS_SECRET": "x",
              "PGPASSWORD": "web-secret", "PGOPTIONS": "-c role=postgres", "TEXTUAL": "debug"}
    sqlite = Launch(tmp_path / "c.yaml").environment("alice", 100, 30, server)
    assert set(sqlite) == {"PATH", "HOME", "LANG", "TEXTUAL_DRIVER", "TEXTUAL_FPS",
                           "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM", "COLUMNS", "ROWS",
                           "PYTHONUNBUFFERED"}
    pg = Launch(tmp_path / "c.yaml", postgres=True).environment("o'neil x", 100, 30, server)
    assert pg["PGPASSWORD"] == "web-secret" and "AWS_SECRET" not in pg
    assert pg["PGOPTIONS"] == "-c role=o'neil\\ x"  # the server's own options never pass


def test_serve_refuses_bad_input_in_one_line(tmp_path: Path):
    config = served_config(tmp_path)
    before = (tmp_path / "tiny.sqlite").read_bytes()
    for argv, says in (
            (["--max-sessions", "0"], "--max-sessions 0: at least 1"),
            (["--public-url", "https://example.org/judge"], "root of a host"),
            (["--port", "99999"], "--port 99999")):
        done = subprocess.run([sys.executable, "-m", "poolkit", "serve", str(config), *argv],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    missing = subprocess.run([sys.executable, "-m", "poolkit", "serve",
                              str(tmp_path / "nope.yaml")], capture_output=True, text=True,
                             timeout=60)
    assert missing.returncode != 0 and "nope.yaml" in missing.stderr
    assert (tmp_path / "tiny.sqlite").read_bytes() == before


def test_bad_invite_tokens_count_against_their_address_only():
    throttle = Throttle(Clock())
    for _ in range(PER_ADDRESS - 1):
        throttle.failed(None, "10.0.0.1")
    assert not throttle.locked(None, "10.0.0.2") and not throttle.locked("", "10.0.0.2")
    assert not throttle.locked(None, "10.0.0.1")
    throttle.failed(None, "10.0.0.1")
    assert throttle.locked(None, "10.0.0.1") and throttle.locked("alice", "10.0.0.1")
