"""Store locations (poolkit.store.locations): no secret enters, none is ever shown.

The adversarial table (ROUND3_SECRETS_CASES) refuses a password in every form at every entry
point; here: ``redact`` itself on every form, a libpq key=value string read as PostgreSQL
(never a SQLite file in the current folder), and, on a real server, every output of every
command naming the store, checked with a password that *did* get into the URL (the entry
check switched off), so that each printer is proved to go through ``redact``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import store_backends
from hypothesis import given
from hypothesis import strategies as st
from shared_data import SAMPLE

from poolkit.cli import main
from poolkit.store import locations
from poolkit.store.locations import (
    LocationError,
    conninfo_to_url,
    database_location,
    database_name,
    parse_conninfo,
    redact,
)

REDACTED = [
    ("postgresql://alice:s3cret@db:5432/judging", "postgresql://alice@db:5432/judging"),
    ("postgresql://u:s3cret@h1:5432,h2:5433/db", "postgresql://u@h1:5432,h2:5433/db"),
    ("postgresql://u:s3/cr@et@h/db", "postgresql://u@h/db"),
    ("postgresql://u@h/db?sslmode=require&password=s3cret", "postgresql://u@h/db?sslmode=require"),
    ("postgresql://u@h/db?password=s3cret&sslmode=require", "postgresql://u@h/db?sslmode=require"),
    ("postgresql://u@h?password=s3cret", "postgresql://u@h"),
    ("postgresql://u@h/db?pass%77ord=s3cret", "postgresql://u@h/db"),
    ("postgresql://u@h/db?password", "postgresql://u@h/db"),
    ("postgres://u@h/db?sslpassword=s3cret&oauth_client_secret=s3cret", "postgres://u@h/db"),
    ("mysql://u:s3cret@h/db", "mysql://u@h/db"),
    ("host=h password=s3cret dbname=d", "host=h dbname=d"),
    ("host=h password = 's3 cr\\'et' dbname=d", "host=h dbname=d"),
    ("dbname=d sslpassword=s3cret", "dbname=d"),
    ("postgresql://u@h:5432/db?sslmode=require", "postgresql://u@h:5432/db?sslmode=require"),
    ("store.sqlite", "store.sqlite"),
    (Path("/x/store.sqlite"), "/x/store.sqlite"),
]


@pytest.mark.parametrize(("location", "shown"), REDACTED)
def test_redact_drops_every_form_of_secret(location, shown):
    assert redact(location) == shown


@given(st.text())
def test_redact_never_raises_and_never_shows_a_url_password(text):
    url = f"postgresql://u:{text.replace('@', '').replace('?', '')}x@h/db"
    assert redact(url) == "postgresql://u@h/db"
    redact(text)
    redact(f"postgresql://{text}")


CONNINFO = [
    ("host=h port=5433 dbname=d user=u sslmode=require",
     "postgresql://u@h:5433/d?sslmode=require"),
    ("  host = h   dbname = 'my db'  ", "postgresql://h/my%20db"),
    ("host=/var/run/postgresql dbname=d", "postgresql:///d?host=%2Fvar%2Frun%2Fpostgresql"),
    ("host=a,b port=1,2 dbname=d", "postgresql:///d?host=a%2Cb&port=1%2C2"),
    ("service=judging", "postgresql:///?service=judging"),
]


@pytest.mark.parametrize(("conninfo", "url"), CONNINFO)
def test_a_libpq_key_value_string_is_read_as_its_url(conninfo, url):
    assert conninfo_to_url(conninfo) == url
    assert database_location(conninfo) == url


def test_key_value_quoting_follows_libpq():
    assert parse_conninfo(r"a='x \' y' b=c\ d e=''") == [("a", "x ' y"), ("b", "c d"),
                                                         ("e", "")]
    with pytest.raises(LocationError, match="unterminated"):
        parse_conninfo("dbname='x")


def test_the_database_name_of_a_url():
    assert database_name("postgresql://u@h/judging?sslmode=require") == "judging"
    assert database_name("postgresql://u@h/?dbname=judging") == "judging"


def test_a_file_whose_name_holds_an_equals_sign_is_still_a_file():
    assert database_location("./a=b.sqlite") is None
    assert database_location("runs/a=b.sqlite") is None
    with pytest.raises(LocationError, match="unknown connection string key 'a'"):
        database_location("a=b.sqlite")


@pytest.mark.parametrize("argv", [
    ["store", "init", "host=h password=SECRET dbname=d"],
    ["store", "init", "host=h passwrd=x dbname=d"],
    ["store", "init", "host=127.0.0.1 port=1 dbname=d connect_timeout=5"],
])
def test_a_key_value_string_never_makes_a_sqlite_file_in_the_current_folder(
        argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "SECRET" not in err[0], err
    assert list(tmp_path.iterdir()) == []


# -- against a server: every output, with a password that got past the entry check -----------
def _collection(tmp_path: Path, store: str) -> Path:
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({
        "corpus": str(SAMPLE / "corpus.jsonl"), "queries": str(SAMPLE / "queries.jsonl"),
        "store": store, "runs_dir": str(tmp_path / "pooled"),
        "systems": {"seed": {"kind": "run", "path": str(SAMPLE / "seed.run")}},
        "pool": {"depth": 5, "order": "docid"}}))
    return config


def test_no_output_of_any_command_shows_a_password_that_got_into_the_url(
        tmp_path, monkeypatch, capsys):
    store_backends.admin_url()  # (skips on a clone without a server; CI must have one)
    password = store_backends.ADMIN_PASSWORD
    assert password, "the test server's password (PGPASSWORD) is needed"
    with store_backends.fresh_database() as url:
        # as if some entry point forgot the check: the password reaches the store's URL
        monkeypatch.setattr(locations, "check_url", lambda u: u)
        monkeypatch.delenv("PGPASSWORD", raising=False)
        secret_url = f"{url}?application_name=x&password={password}"
        shown = redact(secret_url)
        assert password not in shown
        config = str(_collection(tmp_path, secret_url))
        golden, qrels = tmp_path / "golden.yaml", tmp_path / "labels.qrels"
        copy = tmp_path / "copy.sqlite"

        import poolkit.cli.judge as judge_cli
        from poolkit.judge.app import JudgeApp

        monkeypatch.setattr(judge_cli, "_require_terminal", lambda: None)
        monkeypatch.setattr(JudgeApp, "run", lambda self: None)
        steps = [
            (["store", "init", secret_url], 0),
            (["pool", config], 0),
            (["pool", config, "--report-only"], 0),
            (["pool", config, "--report-only", "--format", "json"], 0),
            (["import", config, str(SAMPLE / "golden.yaml"), "--as", "seed"], 0),
            (["import", config, str(SAMPLE / "golden.yaml"), "--as", "seed", "--format",
              "json"], 0),
            (["status", config], 0),
            (["status", config, "--format", "json"], 0),
            (["judge", config, "--assessor", "postgres"], 0),
            (["notes", config, "--format", "json"], 0),
            (["notes", config, "--assessor", "nobody"], 2),
            (["export", config, "--format", "golden", "-o", str(golden)], 0),
            (["export", config, "--format", "qrels", "-o", str(qrels)], 0),
            (["export", config, "--format", "qrels", "--assessor", "nobody"], 2),
            (["compare", config, "--format", "json"], 2),  # one pool version only
            (["reusability", config, "--format", "json"], 0),
            (["agreement", config, "--reference", "seed", "--format", "json"], 0),
            (["store", "copy", config, str(copy)], 0),
            (["store", "copy", config, str(tmp_path / "copy2.sqlite"), "--format", "json"], 0),
            (["store", "copy", str(copy), secret_url], 2),  # the database is not empty
            (["store", "copy", secret_url, secret_url], 2),
        ]
        named = 0
        for argv, code in steps:
            got = main(argv)
            out, err = capsys.readouterr()
            assert got == code, (argv, err)
            assert password not in out + err, argv
            named += (shown in out + err) or (shown.replace("/", "\\/") in out)
        assert named >= len(steps) - 4  # the store is named, redacted, nearly everywhere
        for path in tmp_path.rglob("*"):  # outputs, runs, copies: all but the config itself
            if path.is_file() and path.name != "c.yaml":
                assert password.encode() not in path.read_bytes(), path
        assert f"poolkit export from {shown}:" in golden.read_text()
    assert os.environ.get("PGPASSWORD") is None
