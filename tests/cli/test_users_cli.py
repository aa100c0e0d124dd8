"""``poolkit users`` through the real command line (issue 39): what it prints, and every
refusal as one stderr line, exit 2, the store and every file byte-identical, the password
never repeated (not even a word that might be one)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from account_helpers import cheap_hashes  # noqa: F401 (the fixture)
from pool_helpers import two_run_config
from strict_json import strict_loads
from test_adversarial_cli import snapshot

from poolkit.cli import main
from poolkit.schemas import load_schema

pytestmark = pytest.mark.usefixtures("cheap_hashes")
SECRET = "hunter22-secret"
LINK = r"http://127\.0\.0\.1:8765/invite/[A-Za-z0-9_-]{43}\n"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """The sample's two-run config over a new SQLite store with a machine judge ``llm``
    configured, alice (assessor) and lee (lead) added."""
    path = two_run_config(tmp_path, tmp_path / "store.sqlite")
    path.write_text(path.read_text() + "judges:\n  llm: {kind: openai, base_url: "
                                       "'http://127.0.0.1:9/v1', model: m}\n")
    assert main(["store", "init", str(path)]) == 0
    for name, role in (("alice", "assessor"), ("lee", "lead")):
        assert run(["users", path, "add", name, "--role", role, "--password-stdin"],
                   stdin=b"correct horse\n")[0] == 0
    return path


def run(argv: list[object], stdin: bytes = b"") -> tuple[int, str, str]:
    """``poolkit ARGV`` in this process with ``stdin`` piped in: (exit code, out, err)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: a usage error
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def test_add_list_remove_invite(config: Path) -> None:
    code, out, err = run(["users", config, "list"])
    assert code == 0 and err == ""
    assert [line.split()[:2] for line in out.splitlines()] == [
        ["name", "role"], ["alice", "assessor"], ["lee", "lead"]]
    code, out, err = run(["users", config, "invite", "bob", "--expires", "1.5"])
    assert code == 0 and err == "" and re.fullmatch(LINK, out)
    code, out, err = run(["users", config, "list", "--format", "json"])
    doc = strict_loads(out)
    jsonschema.validate(doc, load_schema("users"), cls=jsonschema.Draft202012Validator)
    assert [(u["name"], u["role"], u["has_password"]) for u in doc["users"]] == [
        ("alice", "assessor", True), ("bob", "assessor", False), ("lee", "lead", True)]
    assert doc["users"][1]["invite_expires"] > doc["users"][1]["created"]
    code, out, err = run(["users", config, "remove", "bob"])
    assert (code, out, err) == (0, "", "removed 'bob' (their grades stay)\n")
    code, out, err = run(["users", config, "add", "ann", "--password-stdin"],
                         stdin=SECRET.encode() + b"\r\nsecond line\n")
    assert (code, out, err) == (0, "", "added assessor 'ann'\n")
    from poolkit.app.users import authenticate
    from poolkit.collection import Collection

    with Collection.open(config) as c:  # one line, its CR LF taken off
        assert authenticate(c, "ann", SECRET) is not None


def test_an_empty_list_says_so(tmp_path: Path) -> None:
    path = two_run_config(tmp_path, tmp_path / "store.sqlite")
    assert main(["store", "init", str(path)]) == 0
    assert run(["users", path, "list"])[1] == f"no accounts in {tmp_path / 'store.sqlite'}\n"


#: (id, argv after CONFIG, stdin, the stderr line's regex after "poolkit users...: error: ")
REFUSED = [
    ("duplicate", ["add", "alice", "--password-stdin"], SECRET, r".*store\.sqlite: NAME 'alice' "
     r"has an account already \(remove it first, or invite it to set a new password\)"),
    ("unknown-remove", ["remove", "alise"], "", r".*store\.sqlite: NAME: unknown account "
     r"'alise'; valid: alice, lee \(did you mean 'alice'\?\)"),
    ("bad-role", ["add", "bob", "--role", "boss", "--password-stdin"], SECRET,
     r"argument --role: invalid choice: 'boss' \(choose from 'assessor', 'lead'\) "
     r"\(see poolkit users CONFIG add --help\)"),
    ("bad-invite-role", ["invite", "bob", "--role", "admin"], "", r"argument --role: invalid "
     r"choice: 'admin'.*"),
    ("empty-stdin", ["add", "bob", "--password-stdin"], "",
     r"--password-stdin: stdin is empty; pipe the password in \(one line\)"),
    ("blank-line", ["add", "bob", "--password-stdin"], "\n",
     r"--password-stdin: stdin is empty; pipe the password in \(one line\)"),
    ("short", ["add", "bob", "--password-stdin"], "abc1234\n", r"the password for 'bob' is "
     r"shorter than 8 characters \(a password has at least 8 characters\)"),
    ("too-long", ["add", "bob", "--password-stdin"], "x" * 5000, r"--password-stdin: the line "
     r"is longer than a password may be \(1024 characters\)"),
    ("not-utf8", ["add", "bob", "--password-stdin"], b"hunter22\xff\n",
     r"--password-stdin: the line read is not UTF-8 text"),
    ("password-on-argv", ["add", "bob", "--password", SECRET], SECRET,
     r"--password-stdin takes no value: the password is read from stdin, never from the "
     r"command line \(give NAME before the option\)"),
    ("password-stdin-value", ["add", "bob", f"--password-stdin={SECRET}"], SECRET,
     r"--password-stdin takes no value.*"),
    ("other-flag", ["add", "bob", "-p", SECRET, "--password-stdin"], SECRET,
     r"unrecognized arguments: 2 not shown \(a stray word may be a password\) "
     r"\(see poolkit users --help\)"),
    ("stray-word", ["add", "bob", SECRET, "--password-stdin"], SECRET,
     r"unrecognized arguments: 1 not shown \(a stray word may be a password\).*"),
    ("no-stdin-flag", ["add", "bob"], SECRET, r"the following arguments are required: "
     r"--password-stdin \(see poolkit users CONFIG add --help\)"),
    ("judge-name", ["add", "llm", "--password-stdin"], SECRET, r".*c\.yaml:\d+: NAME 'llm' "
     r"names a machine judge \(judges\.llm\); a judge and a person never share a name: give "
     r"the person another"),
    ("control-char", ["add", "al\x1bice", "--password-stdin"], SECRET,
     r"NAME 'al\\x1bice' contains a control or non-printable character"),
    ("lone-surrogate", ["add", "al\udcffice", "--password-stdin"], SECRET,
     r"NAME 'al\\udcffice' contains a control or non-printable character"),
    ("comma", ["invite", "a,b"], "", r"NAME 'a,b' contains ','.*"),
    ("bad-url", ["invite", "bob", "--public-url", "judge.example.org"], "",
     r"--public-url 'judge\.example\.org' must start with http:// or https:// "
     r"\(e\.g\. https://judge\.example\.org\)"),
    ("zero-hours", ["invite", "bob", "--expires", "0"], "", r"--expires 0\.0: an invite lasts "
     r"more than 0 and at most 720 hours"),
    ("nan-hours", ["invite", "bob", "--expires", "nan"], "", r"--expires nan: .*720 hours"),
    ("text-hours", ["invite", "bob", "--expires", "soon"], "", r"argument --expires: invalid "
     r"float value: 'soon'.*"),
    ("role-change", ["invite", "lee", "--role", "assessor"], "", r".*store\.sqlite: NAME 'lee' "
     r"is an account with role 'lead', not 'assessor'; remove it first to change its role"),
    ("no-action", [], "", r"the following arguments are required: ACTION.*"),
]


@pytest.mark.parametrize(("argv", "stdin", "says"), [c[1:] for c in REFUSED],
                         ids=[c[0] for c in REFUSED])
def test_refused_in_one_line_changing_nothing(config: Path, argv: list[str],
                                              stdin: str | bytes, says: str) -> None:
    before = snapshot(config.parent)
    code, out, err = run(["users", config, *argv],
                         stdin if isinstance(stdin, bytes) else stdin.encode())
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert re.fullmatch(r"poolkit users( CONFIG \w+)?: error: " + says + "\n", err), err
    assert SECRET not in err
    assert snapshot(config.parent) == before


def test_a_missing_store_or_config_is_one_line(tmp_path: Path) -> None:
    path = two_run_config(tmp_path, tmp_path / "store.sqlite")
    for argv in (["list"], ["add", "bob", "--password-stdin"], ["invite", "bob"]):
        before = snapshot(tmp_path)
        code, out, err = run(["users", path, *argv], SECRET.encode())
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert "no judging store" in err or "does not exist" in err, err
        assert snapshot(tmp_path) == before
    code, _, err = run(["users", tmp_path / "none.yaml", "list"])
    assert code == 2 and err.count("\n") == 1 and "none.yaml" in err


def test_the_password_is_nowhere_but_in_its_hash(config: Path) -> None:
    """A real process: the password piped in appears in no output, no file of the store's
    folder, and the store holds an argon2id hash of it."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-m", "poolkit", "users", str(config), "add", "bob",
                           "--password-stdin"], input=f"{SECRET}\n".encode(),
                          capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert SECRET.encode() not in done.stdout + done.stderr
    for path in config.parent.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    from poolkit.config import load_config
    from poolkit.passwords import verify_password
    from poolkit.store.backends import open_store

    with open_store(load_config(config).store, read_only=True) as store:
        account = store.account("bob")
        assert account is not None and account.hash is not None
        assert account.hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
        assert verify_password(account.hash, SECRET)


def test_at_a_terminal_the_password_is_asked_without_echo(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import getpass

    from poolkit.app.users import read_password
    from poolkit.errors import PoolkitError

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    asked: list[str] = []
    monkeypatch.setattr(getpass, "getpass", lambda prompt: asked.append(prompt) or SECRET)
    assert read_password(True, Terminal(), "bob") == SECRET
    assert asked == ["password for bob: "]
    monkeypatch.setattr(getpass, "getpass", lambda prompt: "")
    with pytest.raises(PoolkitError, match="stdin is empty"):
        read_password(True, Terminal(), "bob")
    closed = io.StringIO()
    closed.close()
    for stream in (None, closed):
        with pytest.raises(PoolkitError, match="--password-stdin: stdin is closed"):
            read_password(True, stream, "bob")
