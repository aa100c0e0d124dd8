"""The server's pages: login, invite, the screen, and the pages that say no.

Every page is whole here (no template files): inline style, scripts and fonts from this
server only (``/static/...``), nothing from another host. Text that comes from outside
(a name, a message) is escaped.
"""

from __future__ import annotations

from html import escape

STYLE = """
@font-face { font-family: "Roboto Mono"; src: url("/static/RobotoMono.ttf"); }
body { background: #0c181f; color: #e8eef2; margin: 0;
       font-family: "Roboto Mono", menlo, monospace; }
main { max-width: 30em; margin: 12vh auto; padding: 2em; background: #12232d; }
h1 { font-size: 1.2em; margin-top: 0; }
label { display: block; margin: 1em 0 0.3em; }
input { width: 100%; box-sizing: border-box; padding: 0.5em; font: inherit; }
button { margin-top: 1.5em; padding: 0.6em 2em; background: #5e0ba7; color: #fff;
         border: none; font: inherit; cursor: pointer; }
p.error { color: #ff8a80; }
a { color: #9ecbff; }
"""


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)}</title><style>{STYLE}</style></head>'
            f'<body><main><h1>{escape(title)}</h1>{body}</main></body></html>\n')


def login(error: str = "") -> str:
    said = f'<p class="error">{escape(error)}</p>' if error else ""
    return page("poolkit: log in", f"""{said}
<form method="post" action="/login">
<label for="username">Name</label>
<input id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>""")


def invite(token: str, error: str = "") -> str:
    said = f'<p class="error">{escape(error)}</p>' if error else ""
    return page("poolkit: set your password", f"""{said}
<form method="post" action="/invite/{escape(token)}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required
 autofocus>
<label for="again">The same again</label>
<input id="again" name="again" type="password" autocomplete="new-password" required>
<button type="submit">Set password and log in</button>
</form>""")


def message(title: str, text: str, link: tuple[str, str] | None = None) -> str:
    more = f'<p><a href="{escape(link[0])}">{escape(link[1])}</a></p>' if link else ""
    return page(title, f"<p>{escape(text)}</p>{more}")


def screen(title: str, user: str, websocket: str) -> str:
    """The terminal page: textual-serve's script draws the screen the websocket streams
    (``/static/textual.js``); ``/static/poolkit.js`` shows why a session ended."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<link rel="stylesheet" href="/static/xterm.css">
<script src="/static/poolkit.js"></script>
<script src="/static/textual.js"></script>
<style>{STYLE}
main {{ display: none; }}
body.-closed main {{ display: block; position: absolute; left: 0; right: 0; z-index: 20; }}
#bar {{ height: 1.6em; padding: 0.2em 1em; font-size: 0.9em; color: #9fb3c0; }}
#bar form {{ display: inline; }}
#bar button {{ margin: 0 0 0 1em; padding: 0.1em 1em; }}
#terminal {{ position: absolute; top: 2em; bottom: 0; left: 0; right: 0;
             width: auto; height: auto; }}  /* (textual.js's own style: the whole window) */
h1 {{ background: none; }}
</style></head>
<body>
<div id="bar">{escape(title)}, as {escape(user)}
<form method="post" action="/logout"><button type="submit">Log out</button></form></div>
<main><h1>Session ended</h1><p id="ended">The connection closed.</p>
<p><a href="">Open again</a></p></main>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{escape(websocket)}"
 data-font-size="16"></div>
</body></html>
"""


#: Shows why a session ended: the server says it in a ``["poolkit_ended", TEXT]`` message
#: (textual.js ignores types it does not know) or as the close reason; the page's
#: "Session ended" panel shows it. And fits the terminal again once its font has loaded.
ENDED_JS = """\
(function () {
  const Native = window.WebSocket;
  function say(text) {
    const where = document.getElementById("ended");
    if (where && text) { where.textContent = text; }
  }
  window.WebSocket = function (url, protocols) {
    const socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket.addEventListener("message", function (event) {
      if (typeof event.data !== "string") { return; }
      try {
        const message = JSON.parse(event.data);
        if (message[0] === "poolkit_ended") { say(message[1]); }
      } catch (e) { /* not ours */ }
    });
    socket.addEventListener("close", function (event) {
      if (event.reason) { say(event.reason); }
      document.body.classList.add("-closed");
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  // The terminal is fitted to the window before the font has loaded: fit it again after.
  document.fonts.load('16px "Roboto Mono"').then(function () {
    window.dispatchEvent(new Event("resize"));
  });
})();
"""
