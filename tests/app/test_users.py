"""The accounts of ``poolkit serve`` (issue 39): the verbs of ``poolkit.app.users`` on both
backends, every rule by a case (names, roles, passwords, invites, epochs, the secret)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import store_backends
from account_helpers import cheap_hashes  # noqa: F401 (the fixture)
from pool_helpers import two_run_config

from poolkit.app import users
from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.errors import ConfigError, PoolkitError, StoreError
from poolkit.store import Event

pytestmark = pytest.mark.usefixtures("cheap_hashes")
PASSWORD = "correct horse"
LINK = re.compile(r"http://127\.0\.0\.1:8765/invite/([A-Za-z0-9_-]{43})")


@pytest.fixture(params=store_backends.BACKENDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """The sample's two-run config over a new store of each backend, made by store init,
    with a machine judge ``llm`` in the config."""
    with store_backends.store_location(request.param, tmp_path) as store:
        path = two_run_config(tmp_path, store)
        path.write_text(path.read_text() + "judges:\n  llm: {kind: openai, base_url: "
                                           "'http://127.0.0.1:9/v1', model: m}\n")
        assert main(["store", "init", str(path)]) == 0
        yield path


@pytest.fixture
def collection(config: Path) -> Iterator[Collection]:
    with Collection.open(config, write=True) as c:
        yield c


def token_of(link: str) -> str:
    match = LINK.fullmatch(link)
    assert match, link
    return match.group(1)


# -- add, list, remove ----------------------------------------------------------------------
def test_an_added_user_logs_in_with_its_password_only(collection: Collection) -> None:
    assert users.add_user(collection, "alice", "assessor", PASSWORD) == users.Account(
        "alice", "assessor")
    assert users.add_user(collection, "lee", "lead", "another one") == users.Account(
        "lee", "lead")
    assert users.authenticate(collection, "alice", PASSWORD) == users.Account("alice",
                                                                              "assessor")
    assert users.authenticate(collection, "lee", "another one") == users.Account("lee", "lead")
    for name, password in [("alice", "correct horsE"), ("alice", ""), ("lee", PASSWORD),
                           ("nobody", PASSWORD), ("", PASSWORD), ("a\nb", PASSWORD),
                           ("Alice", PASSWORD)]:
        assert users.authenticate(collection, name, password) is None


def test_the_list_says_everything_but_the_hash(collection: Collection) -> None:
    users.add_user(collection, "bob", "lead", PASSWORD)
    users.add_user(collection, "alice", "assessor", PASSWORD)
    users.invite_user(collection, "carol")
    report = users.list_users(collection)
    assert [(u["name"], u["role"], u["has_password"], u["invite_expires"] is not None)
            for u in report.users] == [("alice", "assessor", True, False),
                                      ("bob", "lead", True, False),
                                      ("carol", "assessor", False, True)]
    assert set(report.users[0]) == {"name", "role", "created", "has_password",
                                    "invite_expires"}
    text = report.render("table") + report.render("json")
    assert "argon2" not in text and "$" not in text


@pytest.mark.parametrize(("name", "said"), [
    ("", "NAME '' must be non-empty"),
    (" alice", "without surrounding spaces"),
    ("al\tice", "control or non-printable"),
    ("al\x1bice", "control or non-printable"),
    ("a,b", "contains ','"),
    ("a@b", "contains '@'"),
    ("x" * 201, "longer than"),
])
def test_a_name_follows_the_assessor_rules(collection: Collection, name: str,
                                           said: str) -> None:
    with pytest.raises(PoolkitError, match=re.escape(said)):
        users.add_user(collection, name, "assessor", PASSWORD)
    with pytest.raises(PoolkitError, match=re.escape(said)):
        users.invite_user(collection, name)
    assert users.list_users(collection).users == []


def test_a_machine_judge_s_name_is_no_person_s(collection: Collection) -> None:
    with pytest.raises(ConfigError, match=r"NAME 'llm' names a machine judge \(judges.llm\)"):
        users.add_user(collection, "llm", "assessor", PASSWORD)
    collection.store.record_events([Event("q1", "d1", "gpt", "import", grade=2,
                                          origin="machine", judge_version="v1")])
    with pytest.raises(PoolkitError, match="NAME 'gpt' names a machine judge there"):
        users.add_user(collection, "gpt", "assessor", PASSWORD)
    with pytest.raises(PoolkitError, match="NAME 'gpt' names a machine judge there"):
        users.invite_user(collection, "gpt")
    assert users.list_users(collection).users == []


def test_a_person_who_graded_in_a_terminal_may_get_an_account(collection: Collection) -> None:
    collection.store.record_event(Event("q1", "d1", "dana", "grade", grade=1))
    users.add_user(collection, "dana", "assessor", PASSWORD)
    assert users.authenticate(collection, "dana", PASSWORD) is not None


@pytest.mark.parametrize(("password", "said"), [
    ("", "is empty"), ("abc1234", "shorter than 8 characters"),
    ("x" * 1025, "longer than 1024"), ("abcdefgh\ud800", "lone surrogate")])
def test_a_password_too_short_or_not_text_is_refused_unquoted(
        collection: Collection, password: str, said: str) -> None:
    with pytest.raises(PoolkitError, match=said) as caught:
        users.add_user(collection, "alice", "assessor", password)
    assert "at least 8 characters" in str(caught.value)
    assert (password not in str(caught.value)) or not password
    assert users.list_users(collection).users == []


def test_a_name_has_one_account_and_a_role_is_one_of_two(collection: Collection) -> None:
    users.add_user(collection, "alice", "assessor", PASSWORD)
    with pytest.raises(StoreError, match="NAME 'alice' has an account already"):
        users.add_user(collection, "alice", "lead", "other password")
    assert users.authenticate(collection, "alice", PASSWORD) is not None
    with pytest.raises(PoolkitError, match="--role: unknown role 'admin'; valid: assessor, lead"):
        users.add_user(collection, "bob", "admin", PASSWORD)


def test_removing_ends_sessions_and_keeps_grades(collection: Collection) -> None:
    users.add_user(collection, "alice", "assessor", PASSWORD)
    epoch = users.account_epoch(collection, "alice")
    assert epoch is not None
    assert users.current_account(collection, "alice", epoch) == users.Account("alice",
                                                                               "assessor")
    collection.store.record_event(Event("q1", "d1", "alice", "grade", grade=3))
    users.invite_user(collection, "alice")
    users.remove_user(collection, "alice")
    assert users.account_epoch(collection, "alice") is None
    assert users.current_account(collection, "alice", epoch) is None
    assert users.authenticate(collection, "alice", PASSWORD) is None
    assert users.list_users(collection).users == []
    assert [e.grade for e in collection.store.events(assessor="alice")] == [3]
    # the same name again is a new account: the old cookie's epoch is not its epoch
    users.add_user(collection, "alice", "assessor", PASSWORD)
    assert users.current_account(collection, "alice", epoch) is None
    with pytest.raises(StoreError, match="NAME: unknown account 'alise'; valid: alice "
                                         r"\(did you mean 'alice'\?\)"):
        users.remove_user(collection, "alise")


# -- invites --------------------------------------------------------------------------------
def test_an_invite_is_a_one_time_link_whose_token_is_never_stored(
        collection: Collection, config: Path) -> None:
    link = users.invite_user(collection, "bob")
    token = token_of(link)
    assert users.authenticate(collection, "bob", PASSWORD) is None  # no password yet
    assert users.account_epoch(collection, "bob") is None
    rows = repr({t: collection.store.table_rows(t, collection.store.columns(t))
                 for t in collection.store.tables() if t != "write_lock"})
    assert token not in rows
    assert hashlib.sha256(token.encode()).hexdigest() in rows
    assert users.invited_name(collection, token) == "bob"
    assert users.redeem_invite(collection, token, PASSWORD) == users.Account("bob", "assessor")
    assert users.invited_name(collection, token) is None
    assert users.authenticate(collection, "bob", PASSWORD) == users.Account("bob", "assessor")
    with pytest.raises(PoolkitError) as used:
        users.redeem_invite(collection, token, "a new password")
    assert str(used.value) == users.BAD_INVITE
    assert users.authenticate(collection, "bob", PASSWORD) is not None


def test_unknown_used_and_expired_tokens_get_the_same_line(collection: Collection,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    used = token_of(users.invite_user(collection, "ann"))
    users.redeem_invite(collection, used, PASSWORD)
    expired = token_of(users.invite_user(collection, "bea", expires_hours=1))
    import poolkit.store.records as records

    monkeypatch.setattr(records, "now", lambda: "2999-01-01T00:00:00.000000+00:00")
    unknown = "A" * 43
    said = set()
    for token in (used, expired, unknown, "short", "", "A" * 42 + "!", "A" * 44):
        assert users.invited_name(collection, token) is None
        with pytest.raises(PoolkitError) as caught:
            users.redeem_invite(collection, token, PASSWORD)
        said.add(str(caught.value))
    assert said == {users.BAD_INVITE}
    assert users.account_epoch(collection, "bea") is None  # the expired one set nothing


def test_a_bad_password_does_not_use_up_the_invite(collection: Collection) -> None:
    token = token_of(users.invite_user(collection, "bob"))
    with pytest.raises(PoolkitError, match="shorter than 8 characters"):
        users.redeem_invite(collection, token, "short")
    assert users.redeem_invite(collection, token, PASSWORD).name == "bob"


def test_a_new_invite_voids_the_older_and_resets_a_password(collection: Collection) -> None:
    users.add_user(collection, "alice", "lead", PASSWORD)
    epoch = users.account_epoch(collection, "alice")
    first = token_of(users.invite_user(collection, "alice"))
    assert users.invited_name(collection, first) == "alice"
    second = token_of(users.invite_user(collection, "alice"))
    assert (users.invited_name(collection, first), users.invited_name(collection, second)) == (
        None, "alice")
    with pytest.raises(PoolkitError, match=re.escape(users.BAD_INVITE)):
        users.redeem_invite(collection, first, "new password")
    assert users.account_epoch(collection, "alice") == epoch  # still the old password
    assert users.redeem_invite(collection, second, "new password") == users.Account("alice",
                                                                                    "lead")
    assert users.authenticate(collection, "alice", PASSWORD) is None
    assert users.authenticate(collection, "alice", "new password") is not None
    assert users.account_epoch(collection, "alice") != epoch  # old cookies are void
    assert users.current_account(collection, "alice", epoch or 0) is None


def test_an_invite_names_its_role_or_keeps_the_account_s(collection: Collection) -> None:
    users.invite_user(collection, "lee", role="lead")
    users.invite_user(collection, "lee")  # the account's own role
    assert [(u["name"], u["role"]) for u in users.list_users(collection).users] == [
        ("lee", "lead")]
    with pytest.raises(StoreError, match="NAME 'lee' is an account with role 'lead', not "
                                         "'assessor'; remove it first"):
        users.invite_user(collection, "lee", role="assessor")
    with pytest.raises(PoolkitError, match="--role: unknown role 'Lead'"):
        users.invite_user(collection, "zed", role="Lead")
    assert [u["name"] for u in users.list_users(collection).users] == ["lee"]


@pytest.mark.parametrize(("url", "said"), [
    ("127.0.0.1:8765", "must start with http:// or https://"),
    ("ftp://x.org", "must start with http"),
    ("https://", "has no host"),
    ("https://u:p@x.org", "must not hold a user"),
    ("https://x.org/?a=1", "must not hold a query"),
    ("https://x.org/#top", "must not hold a query or fragment"),
    ("https://x.org/a b", "space or control"),
    ("https://x.org:99999", "Port out of range"),
])
def test_the_public_url_is_an_http_origin(collection: Collection, url: str, said: str) -> None:
    with pytest.raises(PoolkitError, match=re.escape(said)):
        users.invite_user(collection, "bob", public_url=url)
    assert users.list_users(collection).users == []


def test_a_link_under_a_proxy_s_path_is_refused(collection: Collection) -> None:
    """The server's pages live at the root of a host: a link under a prefix would 404."""
    with pytest.raises(PoolkitError, match="root of a host"):
        users.invite_user(collection, "bob", public_url="https://x.org/judge/")
    link = users.invite_user(collection, "bob", public_url="https://x.org/")
    assert re.fullmatch(r"https://x\.org/invite/[A-Za-z0-9_-]{43}", link)


@pytest.mark.parametrize("hours", [0, -1, 721, float("nan"), float("inf")])
def test_an_invite_lasts_a_while(collection: Collection, hours: float) -> None:
    with pytest.raises(PoolkitError, match="at most 720 hours"):
        users.invite_user(collection, "bob", expires_hours=hours)


# -- what the server asks ------------------------------------------------------------------
def test_the_session_secret_is_the_store_s_one(config: Path) -> None:
    with Collection.open(config, write=True) as one:
        secret = users.session_secret(one)
    with Collection.open(config, write=True) as two:
        assert users.session_secret(two) == secret
    assert len(secret) == 32 and secret != bytes(32)


def test_the_secret_is_not_copied_with_the_store(config: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A copy takes the accounts along (they log in to it as before) but makes its own
    signing key: a cookie of one server is nothing to the other."""
    with Collection.open(config, write=True) as c:
        users.add_user(c, "alice", "assessor", PASSWORD)
        secret = users.session_secret(c)
    copy = tmp_path / "copy.sqlite"
    assert main(["store", "copy", str(config), str(copy)]) == 0, capsys.readouterr().err
    other = config.with_name("copy.yaml")
    other.write_text(re.sub(r"store: .*", f"store: {copy}", config.read_text()))
    with Collection.open(other, write=True) as c:
        assert users.authenticate(c, "alice", PASSWORD) == users.Account("alice", "assessor")
        assert users.session_secret(c) != secret


def test_an_old_hash_is_made_again_at_login_and_sessions_stay(config: Path) -> None:
    """A hash of older parameters (here scrypt's, where argon2id is installed) is replaced
    at the next good login by one of today's, the epoch kept; a read-only handle, a wrong
    password and a hash of today's parameters change nothing."""
    from poolkit.passwords import hash_password, needs_rehash
    from poolkit.store.records import now

    with Collection.open(config, write=True) as c:
        c.store.add_account("old", "assessor", hash_password(PASSWORD, "scrypt"), now())
        first = c.store.account("old")
    assert first is not None and first.hash is not None and needs_rehash(first.hash)
    with Collection.open(config) as c:  # read-only
        assert users.authenticate(c, "old", PASSWORD) == users.Account("old", "assessor")
        assert c.store.account("old") == first
    with Collection.open(config, write=True) as c:
        assert users.authenticate(c, "old", "wrong password") is None
        assert c.store.account("old") == first
        assert users.authenticate(c, "old", PASSWORD) == users.Account("old", "assessor")
        again = c.store.account("old")
        assert again is not None and again.hash is not None
        assert again.hash.startswith("$argon2id$") and not needs_rehash(again.hash)
        assert again.epoch == first.epoch
        assert users.authenticate(c, "old", PASSWORD) is not None
        assert c.store.account("old") == again


def test_two_redemptions_of_one_link_at_once_make_one_password(config: Path) -> None:
    """Two browsers posting the same link at the same moment: exactly one sets its
    password, the other gets the one line (each thread its own connection)."""
    from concurrent.futures import ThreadPoolExecutor

    with Collection.open(config, write=True) as c:
        token = token_of(users.invite_user(c, "bob"))

        def redeem(password: str) -> str | None:
            try:
                users.redeem_invite(c, token, password)
                return password
            except PoolkitError as exc:
                assert str(exc) == users.BAD_INVITE
                return None
            finally:
                c.store.close_thread()

        with ThreadPoolExecutor(4) as pool:
            won = [p for p in pool.map(redeem, [f"password {i}" for i in range(4)]) if p]
        assert len(won) == 1
        assert users.authenticate(c, "bob", won[0]) is not None


@pytest.mark.parametrize("name", [None, 3, b"alice", "al\ud800ice", "alice\x00"])
def test_what_no_account_can_be_named_is_nobody(collection: Collection, name: object) -> None:
    users.add_user(collection, "alice", "assessor", PASSWORD)
    assert users.authenticate(collection, name, PASSWORD) is None  # type: ignore[arg-type]
    assert users.account_epoch(collection, name) is None  # type: ignore[arg-type]
    assert users.current_account(collection, name, 1) is None  # type: ignore[arg-type]
