"""``poolkit serve`` over HTTP, every refusal first: no cookie, a tampered or stale one, a
foreign origin, a forged assessor, wrong passwords, an assessor asking for /status; and the
sessions: take-over, the limit, the server stopping. Screens are a stand-in process
(``fake_screen.py``) that shows what it was started with."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer
from judge_helpers import sync
from serve_helpers import PASSWORDS, fake_python, served_config, starts

from poolkit.app.users import invite_user, remove_user
from poolkit.collection import Collection
from poolkit.serve import cookies
from poolkit.serve.server import COLLECTION, LAUNCH, REGISTRY, THROTTLE, make_app
from poolkit.serve.settings import Settings
from poolkit.serve.throttle import PER_ADDRESS

ORIGIN = "http://127.0.0.1:8765"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return served_config(tmp_path)


@asynccontextmanager
async def served(config: Path, tmp_path: Path, python: str | None = None,
                 **settings: Any) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    with Collection.open(config, write=True) as collection:
        app = make_app(Settings(config, **settings), collection)
        app[LAUNCH] = replace(app[LAUNCH], python=python or fake_python(tmp_path))
        async with TestClient(TestServer(app)) as client:
            yield client


async def login(client: TestClient[web.Request, web.Application], name: str,
                password: str | None = None) -> Any:
    return await client.post("/login", data={"username": name,
                                             "password": password or PASSWORDS[name]},
                             allow_redirects=False)


async def first_screen(ws: Any) -> dict[str, Any]:
    """The stand-in screen's first packet: its argv and environment."""
    message = await asyncio.wait_for(ws.receive(), 30)
    assert message.type == WSMsgType.BINARY, message
    return json.loads(message.data)


async def until_ended(ws: Any) -> str:
    """What the tab is told when its session ends."""
    while True:
        message = await asyncio.wait_for(ws.receive(), 30)
        if message.type == WSMsgType.TEXT and json.loads(message.data)[0] == "poolkit_ended":
            return json.loads(message.data)[1]
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            raise AssertionError("closed without a reason")


# -- login -------------------------------------------------------------------------------------
@sync
async def test_the_login_form_has_username_and_password(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        page = await (await client.get("/login")).text()
        assert 'name="username"' in page and 'name="password"' in page
        assert 'method="post" action="/login"' in page


@sync
async def test_a_login_sets_a_signed_httponly_strict_cookie(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        answer = await login(client, "alice")
        assert answer.status == 303 and answer.headers["Location"] == "/"
        cookie = answer.cookies[cookies.NAME]
        assert cookie["httponly"] and cookie["samesite"] == "Strict" and not cookie["secure"]
        assert (await client.get("/")).status == 200


@sync
async def test_behind_https_the_cookie_is_secure(config: Path, tmp_path: Path):
    async with served(config, tmp_path, public_url="https://judge.example.org") as client:
        cookie = (await login(client, "alice")).cookies[cookies.NAME]
        assert cookie["secure"]


@sync
async def test_a_wrong_password_and_an_unknown_name_read_the_same(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        wrong = await login(client, "alice", "not-her-password")
        unknown = await login(client, "mallory", "not-her-password")
        assert wrong.status == unknown.status == 401
        assert await wrong.text() == await unknown.text()
        assert cookies.NAME not in wrong.cookies


@sync
async def test_five_wrong_passwords_lock_that_name_only(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        for _ in range(5):
            assert (await login(client, "alice", "guess-guess-guess")).status == 401
        locked = await login(client, "alice")  # (even the right password, for a while)
        assert locked.status == 429 and cookies.NAME not in locked.cookies
        assert (await login(client, "bob")).status == 303
        for _ in range(5):  # a name without an account locks the same way
            await login(client, "nobody", "guess-guess-guess")
        assert (await login(client, "nobody", "guess-guess-guess")).status == 429


@sync
async def test_a_login_form_from_another_site_is_refused(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        answer = await client.post("/login", data={"username": "alice",
                                                   "password": PASSWORDS["alice"]},
                                   headers={"Origin": "https://evil.example"},
                                   allow_redirects=False)
        assert answer.status == 403 and cookies.NAME not in answer.cookies


@sync
async def test_without_a_cookie_the_screen_is_the_login(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        answer = await client.get("/", allow_redirects=False)
        assert answer.status == 303 and answer.headers["Location"] == "/login"


# -- the websocket's refusals: none starts a process --------------------------------------------
async def refused(client: TestClient[web.Request, web.Application], path: str = "/ws",
                  **headers: str) -> int:
    answer = await client.get(path, headers={"Connection": "Upgrade", "Upgrade": "websocket",
                                             "Sec-WebSocket-Version": "13",
                                             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                             **headers})
    return answer.status


@sync
async def test_no_cookie_wrong_origin_or_tampered_cookie_start_nothing(config: Path,
                                                                       tmp_path: Path):
    async with served(config, tmp_path) as client:
        assert await refused(client, Origin=ORIGIN) == 403  # no cookie
        await login(client, "alice")
        assert await refused(client) == 403  # no origin
        assert await refused(client, Origin="http://evil.example:8765") == 403
        assert await refused(client, Origin="http://127.0.0.1:9999") == 403
        good = client.session.cookie_jar.filter_cookies(client.make_url("/"))[cookies.NAME].value
        body, mac = good.split(".")
        doc = json.loads(cookies.base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        forged = cookies.base64.urlsafe_b64encode(json.dumps({**doc, "u": "bob"}).encode())
        for bad in (f"{forged.decode().rstrip('=')}.{mac}", f"{body}.{'0' * len(mac)}",
                    f"{body}x.{mac}", "garbage"):
            client.session.cookie_jar.clear()
            client.session.cookie_jar.update_cookies({cookies.NAME: bad})
            assert await refused(client, Origin=ORIGIN) == 403
        assert client.app is not None and client.app[REGISTRY].live == {}
    assert starts(tmp_path) == []


@sync
async def test_a_removed_users_cookie_is_refused(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        await login(client, "alice")
        assert client.app is not None
        remove_user(client.app[COLLECTION], "alice")
        assert await refused(client, Origin=ORIGIN) == 403
    assert starts(tmp_path) == []


# -- identity and the session's process --------------------------------------------------------
@sync
async def test_the_assessor_is_the_logged_in_user_whatever_the_url_says(config: Path,
                                                                        tmp_path: Path,
                                                                        monkeypatch):
    monkeypatch.setenv("SERVER_ONLY_SECRET", "do-not-pass")
    async with served(config, tmp_path) as client:
        await login(client, "alice")
        ws = await client.ws_connect("/ws?assessor=bob&width=100000&height=-5",
                                     headers={"Origin": ORIGIN})
        started = await first_screen(ws)
        assert started["argv"][-4:] == ["judge", str(config), "--assessor", "alice"]
        env = started["env"]
        assert "SERVER_ONLY_SECRET" not in env and "bob" not in json.dumps(env)
        assert env["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"
        assert (env["COLUMNS"], env["ROWS"]) == ("400", "6")  # clamped
        await ws.send_str(json.dumps(["assessor", "bob"]))  # not a message the server knows
        await ws.send_str(json.dumps(["resize", {"width": 10, "height": 10 ** 9}]))
        await ws.send_str(json.dumps(["stdin", "3"]))
        echoed = [(await ws.receive()).data for _ in range(2)]
        assert json.loads(echoed[0][len(b"meta:"):]) == {"type": "resize", "width": 20,
                                                         "height": 200}
        assert echoed[1] == b"key:3"
        await ws.close()
    assert [line.split()[-1] for line in starts(tmp_path)] == ["alice"]


@sync
async def test_a_second_tab_takes_over_and_the_first_is_told(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        await login(client, "alice")
        first = await client.ws_connect("/ws", headers={"Origin": ORIGIN})
        await first_screen(first)
        second = await client.ws_connect("/ws", headers={"Origin": ORIGIN})
        assert "another tab" in await until_ended(first)
        await first_screen(second)
        assert client.app is not None and len(client.app[REGISTRY].live) == 1
        await second.close()


@sync
async def test_past_max_sessions_a_new_tab_gets_a_page_saying_so(config: Path, tmp_path: Path):
    async with served(config, tmp_path, max_sessions=1) as client:
        await login(client, "alice")
        ws = await client.ws_connect("/ws", headers={"Origin": ORIGIN})
        await first_screen(ws)
        client.session.cookie_jar.clear()
        await login(client, "bob")
        page = await client.get("/")
        assert page.status == 503 and "--max-sessions" in await page.text()
        assert await refused(client, Origin=ORIGIN) == 503
        await ws.close()


@sync
async def test_a_screen_that_cannot_start_says_why_in_the_tab(config: Path, tmp_path: Path):
    python = fake_python(tmp_path, 'echo "poolkit judge: store unreachable" >&2; exit 2')
    async with served(config, tmp_path, python=python) as client:
        await login(client, "alice")
        ws = await client.ws_connect("/ws", headers={"Origin": ORIGIN})
        said = await until_ended(ws)
        assert said == "the screen could not start: poolkit judge: store unreachable"


@sync
async def test_stopping_the_server_closes_every_session_as_q_would(config: Path,
                                                                   tmp_path: Path):
    async with served(config, tmp_path) as client:
        tabs = []
        for name in ("alice", "bob"):
            client.session.cookie_jar.clear()
            await login(client, name)
            tabs.append(await client.ws_connect("/ws", headers={"Origin": ORIGIN}))
            await first_screen(tabs[-1])
        assert client.app is not None
        registry = client.app[REGISTRY]
        processes = [s.process for s in registry.live.values()]
        await registry.close_all()
        for tab in tabs:
            assert "server is stopping" in await until_ended(tab)
        assert [p.process.returncode for p in processes if p.process] == [0, 0]  # (quit)


# -- the lead's page ---------------------------------------------------------------------------
@sync
async def test_status_is_for_leads(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        await login(client, "alice")
        assert (await client.get("/status")).status == 403
        assert await refused(client, "/status/ws", Origin=ORIGIN) == 403
        client.session.cookie_jar.clear()
        await login(client, "lea")
        assert (await client.get("/status")).status == 200
        ws = await client.ws_connect("/status/ws", headers={"Origin": ORIGIN})
        assert (await first_screen(ws))["argv"][-3:] == ["status", str(config), "--watch"]
        await ws.close()
        assert (await client.get("/")).status == 200  # a lead can judge too


# -- invites -----------------------------------------------------------------------------------
@sync
async def test_an_invite_link_sets_the_password_once(config: Path, tmp_path: Path):
    with Collection.open(config, write=True) as collection:
        link = invite_user(collection, "carol")
    token = link.rsplit("/", 1)[1]
    async with served(config, tmp_path) as client:
        form = await client.get(f"/invite/{token}")
        assert form.status == 200 and 'name="password"' in await form.text()
        differ = await client.post(f"/invite/{token}", data={"password": "carol-secret-1",
                                                              "again": "carol-secret-2"})
        assert differ.status == 400
        done = await client.post(f"/invite/{token}", data={"password": "carol-secret-1",
                                                            "again": "carol-secret-1"},
                                 allow_redirects=False)
        assert done.status == 303 and cookies.NAME in done.cookies
        again = await client.post(f"/invite/{token}", data={"password": "carol-secret-9",
                                                             "again": "carol-secret-9"})
        assert again.status == 400
        client.session.cookie_jar.clear()
        assert (await login(client, "carol", "carol-secret-1")).status == 303


# -- nothing external, nothing listed ----------------------------------------------------------
@sync
async def test_pages_load_nothing_from_another_host_and_list_no_folder(config: Path,
                                                                       tmp_path: Path):
    async with served(config, tmp_path) as client:
        pages = [await (await client.get("/login")).text(),
                 await (await client.get("/invite/x")).text()]
        await login(client, "lea")
        pages += [await (await client.get(p)).text() for p in ("/", "/status")]
        scripts = [await (await client.get(f"/static/{n}")).text()
                   for n in ("poolkit.js", "xterm.css")]
        for text in pages + scripts:
            assert not re.search(r"(src|href)=[\"']?(https?:)?//", text)
            assert "fonts.googleapis" not in text
        for path in ("/static/", "/static", "/static/js/", "/static/..%2Fserver.py",
                     "/download/abc", "/templates/app_index.html"):
            assert (await client.get(path)).status == 404, path
        answer = await client.get("/login")
        assert "default-src 'self'" in answer.headers["Content-Security-Policy"]
        assert answer.headers["X-Frame-Options"] == "DENY"


@sync
async def test_log_out_ends_the_login(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        await login(client, "alice")
        out = await client.post("/logout", allow_redirects=False)
        assert out.status == 303 and out.headers["Location"] == "/login"
        assert (await client.get("/", allow_redirects=False)).status == 303


@sync
async def test_behind_the_proxy_the_throttle_counts_the_forwarded_address(config: Path,
                                                                          tmp_path: Path):
    async with served(config, tmp_path, public_url="https://judge.example.org") as client:
        async def attempt(name: str, address: str) -> int:
            answer = await client.post("/login", data={"username": name,
                                                       "password": "guess-guess-guess"},
                                       headers={"X-Forwarded-For": f"1.2.3.4, {address}"},
                                       allow_redirects=False)
            return answer.status
        assert client.app is not None
        throttle = client.app[THROTTLE]
        for i in range(PER_ADDRESS - 1):  # (the throttle's own count: argon2 is slow)
            throttle.failed(f"someone{i}", "203.0.113.7")
        assert await attempt("x1", "203.0.113.7") == 401  # the 50th
        assert await attempt("x2", "203.0.113.7") == 429
        assert await attempt("x2", "198.51.100.1") == 401  # another office


@sync
async def test_a_cookie_of_any_bytes_is_refused_not_an_error(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        answer = await client.get("/", headers={"Cookie": f"{cookies.NAME}=\u00e9.\u00e9"},
                                  allow_redirects=False)
        assert answer.status == 303


@sync
async def test_tabs_opened_at_once_leave_one_screen_running(config: Path, tmp_path: Path):
    async with served(config, tmp_path) as client:
        await login(client, "alice")
        first = await client.ws_connect("/ws", headers={"Origin": ORIGIN})
        await first_screen(first)
        tabs = await asyncio.gather(*(client.ws_connect("/ws", headers={"Origin": ORIGIN})
                                      for _ in range(3)))
        assert "another tab" in await until_ended(first)
        assert client.app is not None
        registry = client.app[REGISTRY]
        (survivor,) = registry.live.values()
        await asyncio.wait_for(_until(lambda: survivor.process.drawn), 30)
        assert survivor.process.process is not None
        pids = [int(line.split()[0]) for line in starts(tmp_path)]
        assert survivor.process.process.pid in pids and len(pids) <= 4
        for pid in pids:  # every other screen has ended
            if pid != survivor.process.process.pid:
                await asyncio.wait_for(_until(lambda p=pid: not Path(f"/proc/{p}").exists()),
                                       30)
        for tab in tabs:  # closed tabs: their screens close as q would
            await tab.close()
        process = survivor.process.process
        await asyncio.wait_for(_until(lambda: registry.live == {} and
                                      process.returncode is not None), 30)
        assert process.returncode == 0  # (quit, as q)


async def _until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.02)
