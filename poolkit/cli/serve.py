"""``poolkit serve``: the judging screen in a browser, behind poolkit's own login."""

from __future__ import annotations

import argparse

DESCRIPTION = """\
Serve the judging screen of CONFIG's store to browsers. People log in with the accounts of
`poolkit users` (a signed cookie); each tab runs `poolkit judge CONFIG --assessor NAME` as the
logged-in user, nobody else: nothing in the page can name another assessor. One live session
per assessor (a new tab takes over and the old one says so). Lead accounts also get /status,
the team dashboard. It listens on loopback: put it behind a TLS reverse proxy (websocket
upgrade forwarded) and give the URL people open as --public-url. SIGTERM or Ctrl-C closes
every session as `q` would: no grade is lost, no claim left."""


def register(sub: argparse._SubParsersAction) -> None:
    from poolkit.serve.settings import MAX_SESSIONS

    p = sub.add_parser("serve", help="serve the judging screen to browsers, behind a login",
                       description=DESCRIPTION,
                       epilog="examples:\n  poolkit serve configs/sample.yaml\n"
                              "  poolkit serve team.yaml --public-url https://judge.example.org\n"
                              "  poolkit serve team.yaml --max-sessions 40")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: loopback, for a proxy)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    p.add_argument("--public-url", metavar="URL",
                   help="the URL people open, e.g. https://judge.example.org (the proxy's): "
                        "its origin is the only one a websocket is accepted from, and https "
                        "makes cookies Secure (default: http://HOST:PORT)")
    p.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, metavar="N",
                   help=f"browser sessions at once, each a process of about 60 MB "
                        f"(default {MAX_SESSIONS}); past it a new tab is told to wait")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from poolkit.serve.server import serve
    from poolkit.serve.settings import Settings

    serve(Settings(args.config, args.host, args.port, args.public_url, args.max_sessions))
    return 0
