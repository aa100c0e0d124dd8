"""``poolkit serve``: the judging screen in a browser, behind poolkit's own login.

Routes (nothing else: no folder listing, no download):

- ``GET /login``, ``POST /login`` (``username``, ``password``): a signed cookie
  (``serve.cookies``); wrong passwords are throttled (``serve.throttle``).
- ``GET /invite/TOKEN``, ``POST /invite/TOKEN``: set a password from an invite link.
- ``POST /logout``.
- ``GET /``: the judging screen; ``GET /ws`` its websocket. ``GET /status`` and
  ``/status/ws``: the team dashboard, for ``lead`` accounts only (403 otherwise).
- ``GET /static/NAME``: the four files the screen page loads.

A websocket needs a valid cookie and an ``Origin`` equal to the served origin; anything
else is refused before a process starts. The assessor is the cookie's user, nothing else
(``serve.launch``). Sessions: ``serve.sessions``; the process bridge: ``serve.bridge``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import signal
from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from poolkit.collection import Collection
from poolkit.errors import PoolkitError, tell
from poolkit.serve import cookies, pages
from poolkit.serve.bridge import ScreenProcess, clamp_size
from poolkit.serve.launch import Launch
from poolkit.serve.sessions import Full, Registry, Session
from poolkit.serve.settings import Settings
from poolkit.serve.throttle import Throttle

if TYPE_CHECKING:
    from poolkit.app.users import Account

#: the screen page's files: route name -> (package, file, content type)
STATIC = {
    "textual.js": ("textual_serve", "static/js/textual.js", "text/javascript"),
    "xterm.css": ("textual_serve", "static/css/xterm.css", "text/css"),
    "RobotoMono.ttf": ("textual_serve", "static/fonts/RobotoMono-VariableFont_wght.ttf",
                       "font/ttf"),
}
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; frame-ancestors 'none'; "
                               "form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # (no-referrer makes a form's Origin "null")
    "Cache-Control": "no-store",
}
WRONG = "wrong name or password"
LOCKED = "too many wrong passwords: try again in a few minutes"
SCREENS = {"judge": "poolkit judge", "status": "poolkit status"}

SETTINGS = web.AppKey("settings", Settings)
COLLECTION = web.AppKey("collection", Collection)
REGISTRY = web.AppKey("registry", Registry)
THROTTLE = web.AppKey("throttle", Throttle)
LAUNCH = web.AppKey("launch", Launch)
SECRET = web.AppKey("secret", bytes)


def make_app(settings: Settings, collection: Collection) -> web.Application:
    """The server's application on ``collection`` (the served CONFIG, opened for writing)."""
    from poolkit.app.users import session_secret

    app = web.Application(client_max_size=64 * 1024, middlewares=[_headers])
    app[SETTINGS], app[COLLECTION] = settings, collection
    app[REGISTRY], app[THROTTLE] = Registry(settings.max_sessions), Throttle()
    app[LAUNCH] = Launch(collection.config.path,
                         postgres=isinstance(collection.config.store, str))  # (a URL)
    app[SECRET] = session_secret(collection)
    app.add_routes([
        web.get("/", _screen_page("judge")), web.get("/ws", _websocket("judge")),
        web.get("/status", _screen_page("status")), web.get("/status/ws", _websocket("status")),
        web.get("/login", _login_form), web.post("/login", _login),
        web.post("/logout", _logout),
        web.get("/invite/{token}", _invite_form), web.post("/invite/{token}", _invite),
        web.get("/static/{name}", _static),
    ])
    app.on_shutdown.append(_close_sessions)
    return app


@web.middleware
async def _headers(request: web.Request,
                   handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                   ) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:  # (a refusal, a redirect, a 404: the same headers)
        exc.headers.extend((k, v) for k, v in HEADERS.items() if k not in exc.headers)
        raise
    if not isinstance(response, web.WebSocketResponse):
        response.headers.extend((k, v) for k, v in HEADERS.items() if k not in response.headers)
    return response


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html")


async def _close_sessions(app: web.Application) -> None:
    await app[REGISTRY].close_all()


# -- who is asking -----------------------------------------------------------------------------
async def logged_in(request: web.Request) -> Account | None:
    """The account the request's cookie stands for, or None (no cookie, not signed here,
    expired, or the account removed or given a new password since)."""
    from poolkit.app.users import current_account

    login = cookies.verify(request.app[SECRET], request.cookies.get(cookies.NAME))
    if login is None:
        return None
    try:
        epoch = int(login.epoch)
    except ValueError:
        return None
    return await asyncio.to_thread(current_account, request.app[COLLECTION], login.user, epoch)


def client_address(request: web.Request) -> str:
    """The client's address: the peer's, or behind the reverse proxy (a public URL, the
    peer on loopback) the last address its ``X-Forwarded-For`` names."""
    peer = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For", "")
    if request.app[SETTINGS].proxied and forwarded:
        try:
            if ipaddress.ip_address(peer).is_loopback:
                return forwarded.split(",")[-1].strip()
        except ValueError:
            pass
    return peer


def same_origin(request: web.Request, required: bool) -> bool:
    """Whether the request's ``Origin`` is the served one (``required``: it must be sent;
    a form post from an old browser may carry none, a websocket always does)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return not required
    return origin.lower() == request.app[SETTINGS].origin


# -- login, logout, invites ------------------------------------------------------------------
async def _login_form(request: web.Request) -> web.Response:
    return _html(pages.login())


async def _login(request: web.Request) -> web.StreamResponse:
    from poolkit.app.users import account_epoch, authenticate

    if not same_origin(request, required=False):
        raise web.HTTPForbidden(text="login refused: the form comes from another site")
    form = await request.post()
    name, password = str(form.get("username", "")), str(form.get("password", ""))
    address, throttle = client_address(request), request.app[THROTTLE]
    if throttle.locked(name, address):
        return _html(pages.login(LOCKED), 429)
    collection = request.app[COLLECTION]
    account = await asyncio.to_thread(authenticate, collection, name, password)
    epoch = await asyncio.to_thread(account_epoch, collection, name) if account else None
    if account is None or epoch is None:
        throttle.failed(name, address)
        return _html(pages.login(WRONG), 401)
    return _logged_in(request, account, epoch)


def _logged_in(request: web.Request, account: Account, epoch: int) -> web.StreamResponse:
    response = web.HTTPSeeOther("/")
    response.set_cookie(cookies.NAME, cookies.sign(request.app[SECRET], account.name, epoch),
                        max_age=cookies.LIFETIME, path="/", httponly=True, samesite="Strict",
                        secure=request.app[SETTINGS].secure)
    return response


async def _logout(request: web.Request) -> web.StreamResponse:
    if not same_origin(request, required=False):
        raise web.HTTPForbidden(text="logout refused: the form comes from another site")
    response = web.HTTPSeeOther("/login")
    response.del_cookie(cookies.NAME, path="/")
    return response


async def _invite_form(request: web.Request) -> web.Response:
    return _html(pages.invite(request.match_info["token"]))


async def _invite(request: web.Request) -> web.StreamResponse:
    from poolkit.app.users import account_epoch, redeem_invite

    token = request.match_info["token"]
    if not same_origin(request, required=False):
        raise web.HTTPForbidden(text="refused: the form comes from another site")
    address, throttle = client_address(request), request.app[THROTTLE]
    if throttle.locked(None, address):  # (a token is guessed per address, not per name)
        return _html(pages.invite(token, LOCKED), 429)
    form = await request.post()
    password, again = str(form.get("password", "")), str(form.get("again", ""))
    if password != again:
        return _html(pages.invite(token, "the two passwords differ"), 400)
    collection = request.app[COLLECTION]
    try:
        account = await asyncio.to_thread(redeem_invite, collection, token, password)
    except PoolkitError as exc:
        throttle.failed(None, address)
        return _html(pages.invite(token, str(exc)), 400)
    epoch = await asyncio.to_thread(account_epoch, collection, account.name)
    assert epoch is not None  # (a password was just set)
    return _logged_in(request, account, epoch)


# -- the screens -------------------------------------------------------------------------------
async def _allowed(request: web.Request, screen: str) -> Account:
    """The logged-in account that may open ``screen``: else the refusal (a page: a login
    for no cookie, 403 for an assessor's /status)."""
    account = await logged_in(request)
    if account is None:
        raise web.HTTPSeeOther("/login") if request.method == "GET" and not _is_ws(
            request) else web.HTTPForbidden(text="refused: not logged in")
    if screen == "status" and account.role != "lead":
        raise web.HTTPForbidden(text="the team's status is for lead accounts")
    return account


def _is_ws(request: web.Request) -> bool:
    return request.headers.get("Upgrade", "").lower() == "websocket"


def _screen_page(screen: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handler(request: web.Request) -> web.Response:
        account = await _allowed(request, screen)
        user = account.name if screen == "judge" else f"{account.name} (lead)"
        if request.app[REGISTRY].full_for(account.name, screen):
            return _html(pages.message(
                "poolkit: no room", f"The server already runs its "
                f"{request.app[SETTINGS].max_sessions} sessions (--max-sessions). Try again "
                f"when someone closes theirs.", ("/", "Try again")), 503)
        return _html(pages.screen(SCREENS[screen], user,
                                  _ws_url(request.app[SETTINGS], screen)))
    return handler


def _ws_url(settings: Settings, screen: str) -> str:
    path = "/ws" if screen == "judge" else "/status/ws"
    return "ws" + settings.url[len("http"):] + path


def _websocket(screen: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handler(request: web.Request) -> web.StreamResponse:
        if not same_origin(request, required=True):
            raise web.HTTPForbidden(text="refused: the websocket comes from another origin")
        account = await _allowed(request, screen)
        app = request.app
        if app[REGISTRY].full_for(account.name, screen):
            raise web.HTTPServiceUnavailable(text="the server runs all its sessions")
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=64 * 1024)
        await ws.prepare(request)
        await run_session(app, ws, account.name, screen, request.query)
        return ws
    return handler


async def run_session(app: web.Application, ws: web.WebSocketResponse, user: str,
                      screen: str, query: Any) -> None:
    """Start ``user``'s ``screen`` for the tab behind ``ws`` and relay both ways until the
    tab closes (the screen closes as ``q`` would) or the screen ends (the tab is told why)."""
    launch = app[LAUNCH]
    width, height = clamp_size(query.get("width"), query.get("height"))
    argv = launch.judge(user) if screen == "judge" else launch.status()

    async def end(reason: str) -> None:
        if not ws.closed:
            await ws.send_json(["poolkit_ended", reason])
            await ws.close()

    process = ScreenProcess(argv, launch.environment(user, width, height), ws.send_bytes)
    session = Session(user, screen, process, end)
    registry = app[REGISTRY]
    try:
        await registry.open(session)
    except Full as exc:
        await end(str(exc))
        return
    except asyncio.CancelledError:  # (the tab went away while an old screen closed)
        await _finally(registry.close(session))
        raise
    relay = asyncio.create_task(_relay(ws, process))
    exited = asyncio.create_task(process.wait())
    try:
        await asyncio.wait({relay, exited}, return_when=asyncio.FIRST_COMPLETED)
    finally:  # (aiohttp cancels this handler when the tab's connection closes)
        await _finally(_end_session(registry, session, relay, exited))


#: what runs to the end whatever happens to the handler that started it
_FINISHING: set[asyncio.Task[None]] = set()


async def _finally(work: Awaitable[None]) -> None:
    """Run ``work`` to the end even when the caller is cancelled (it is not lost with it)."""
    task = asyncio.ensure_future(work)
    _FINISHING.add(task)
    task.add_done_callback(_FINISHING.discard)
    await asyncio.shield(task)


async def _end_session(registry: Registry, session: Session, relay: asyncio.Task[None],
                       exited: asyncio.Task[int]) -> None:
    """The screen closes as ``q`` would (unless it ended by itself: then the tab is told
    why), and the relay stops."""
    by_itself = exited.done() and not session.closing.is_set()
    await registry.close(session)
    if by_itself:
        await session.end(_ended(session.process))
    relay.cancel()
    await asyncio.gather(relay, exited, return_exceptions=True)


def _ended(process: ScreenProcess) -> str:
    if process.drawn:
        return "the screen closed (q); open it again to go on"
    status = process.process.returncode if process.process else None
    said = process.last_error() or f"it exited with status {status}"
    return f"the screen could not start: {said}"


async def _relay(ws: web.WebSocketResponse, process: ScreenProcess) -> None:
    """The tab's messages to the screen: keys, the terminal's size, focus; anything else
    (another type, a field naming someone) is dropped."""
    async for message in ws:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
        except ValueError:
            continue
        if not isinstance(envelope, list) or not envelope:
            continue
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            await process.keys(data)
        elif kind == "resize" and isinstance(data, dict):
            await process.resize(data.get("width"), data.get("height"))
        elif kind == "ping":
            await ws.send_json(["pong", str(data)[:32]])
        elif kind in ("focus", "blur"):
            await process.meta({"type": kind})


async def _static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name == "poolkit.js":
        return web.Response(text=pages.ENDED_JS, content_type="text/javascript")
    if name not in STATIC:
        raise web.HTTPNotFound()
    package, path, kind = STATIC[name]
    body = files(package).joinpath(path).read_bytes()
    return web.Response(body=body, content_type=kind,
                        headers={"Cache-Control": "max-age=86400"})


# -- running -----------------------------------------------------------------------------------
def serve(settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT; then every session closes as ``q`` would."""
    with Collection.open(settings.config, write=True) as collection:
        asyncio.run(_serve(settings, collection))


async def _serve(settings: Settings, collection: Collection) -> None:
    app = make_app(settings, collection)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise PoolkitError(f"--host {settings.host} --port {settings.port}: cannot listen "
                           f"({exc.strerror or exc})") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tell(f"poolkit serve: {collection.config.store_label} at {settings.url} "
         f"(listening on {settings.host}:{settings.port}; Ctrl-C or SIGTERM stops)")
    await stop.wait()
    tell("poolkit serve: stopping: closing every session")
    await app[REGISTRY].close_all()
    await runner.cleanup()
