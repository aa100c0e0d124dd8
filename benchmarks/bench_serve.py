"""Benchmark ``poolkit serve`` against plain textual-serve: time to first screen and memory
per session at 1, 10 and 30 simultaneous logins.

    python benchmarks/bench_serve.py [--logins 1,10,30] [--json]

Builds a small store (the sample corpus's queries and passages, six per query) with an
account per simulated assessor, then for each number N of ``--logins``:

- ``poolkit serve CONFIG`` (its own process): N headless Chromium pages (Debian's
  ``chromium`` through Playwright's ``executable_path``) log in at once through the form
  (``/login``), each as its own assessor; the time of each from opening the login page to
  its first passage drawn (read from the websocket's frames);
- plain ``textual-serve`` (``textual_serve.server.Server``) serving ``poolkit judge CONFIG
  --assessor benchPID`` (a name per process: it has no login, so each tab would otherwise
  judge as one assessor): N pages opened at once, each timed from opening the page to its
  first passage.

Memory per session is the resident set size (VmRSS) of each session's process tree (its
screen process and what it started), read from /proc while all N are open; the servers' own
RSS is said apart. External requests (textual-serve's page loads a web font from the
internet) are answered "blocked" at once by the browser, so neither waits on a network.
Prints medians and 95th percentiles and poolkit's ratio to textual-serve; asserts nothing.
Needs the ``serve`` extra and Playwright (``dev``), and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLE = ROOT / "sample_corpus"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
PASSWORD = "bench-password-1"
JUDGE = "judge:\n  min_display: 0\n  topic_card: false\n"
TIMEOUT = 180.0
#: what the first screen says once drawn (escape sequences taken out)
MARKER = "Passage 1 of"
ESCAPES = re.compile(rb"\x1b(\[[0-9;?<>=$ ]*[A-Za-z@`~]"  # CSI
                     rb"|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Z0-9]|.)")  # OSC, charset, other


def build(folder: Path, people: int) -> Path:
    """The sample's queries and six passages each, accounts bench0..bench{people-1}."""
    sys.path.insert(0, str(ROOT))
    from poolkit.app.users import add_user
    from poolkit.collection import Collection
    from poolkit.store import NewMember, QueryRecord, Store

    queries = [json.loads(line) for line in (SAMPLE / "queries.jsonl").read_text().splitlines()
               if line.strip()]
    docs = [json.loads(line) for line in (SAMPLE / "corpus.jsonl").read_text().splitlines()
            if line.strip()]
    store = folder / "bench.sqlite"
    with Store(store) as s:
        s.upsert_queries([QueryRecord(q["id"], q["text"], q.get("description")) for q in queries])
        pairs = [(q["id"], i, d) for q in queries for i, d in enumerate(docs[:6])]
        s.add_pool_version({"sysA": 6}, "shuffle",
                           [NewMember(q, d["id"], d.get("title", ""), d["text"], float(i))
                            for q, i, d in pairs],
                           [(q, d["id"], "sysA", i + 1, 1.0 / (i + 1)) for q, i, d in pairs])
    (folder / "corpus.jsonl").write_text('{"id": "d1", "text": "x"}\n')
    (folder / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (folder / "sys.run").write_text("q1 Q0 d1 1 1.0 sys\n")
    config = folder / "config.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {store}\n"
                      f"systems:\n  sysA: {{kind: run, path: sys.run}}\n{JUDGE}")
    with Collection.open(config, write=True) as collection:
        for i in range(people):
            add_user(collection, f"bench{i}", "assessor", PASSWORD)
    return config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def tree_rss_kb(pid: int, kids: dict[int, list[int]]) -> int:
    return rss_kb(pid) + sum(tree_rss_kb(k, kids) for k in kids.get(pid, []))


def sessions_rss_mb(server: int) -> list[float]:
    """The RSS of each session's process tree (the server's children; a shell that
    textual-serve starts counts with the screen it runs)."""
    kids = children()
    return [tree_rss_kb(k, kids) / 1024 for k in kids.get(server, [])]


def start(cmd: list[str], url: str, log: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True, cwd=ROOT)
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), 1):
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{cmd[:4]} did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


async def first_screen(browser: object, url: str, marker: str, login: str | None) -> float:
    """Seconds from opening the page (the login form, for poolkit) to ``marker`` drawn."""
    context = await browser.new_context()  # type: ignore[attr-defined]
    host = url.split("//", 1)[1]
    await context.route("**/*", lambda route: (route.continue_() if host in route.request.url
                                               else route.abort("blockedbyclient")))
    page = await context.new_page()
    seen = bytearray()
    shown = asyncio.Event()

    def frame(payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            seen.extend(payload)
            if marker.encode() in ESCAPES.sub(b"", bytes(seen)):
                shown.set()
    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    t0 = time.perf_counter()
    if login is None:
        await page.goto(url + "/")
    else:
        await page.goto(url + "/login")
        await page.fill("#username", login)
        await page.fill("#password", PASSWORD)
        await page.click("button[type=submit]")
    await asyncio.wait_for(shown.wait(), TIMEOUT)
    return time.perf_counter() - t0


async def one_round(n: int, kind: str, config: Path, folder: Path, marker: str) -> dict:
    from playwright.async_api import async_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    if kind == "poolkit serve":
        cmd = [sys.executable, "-m", "poolkit", "serve", str(config), "--port", str(port),
               "--max-sessions", str(n)]
    else:
        command = f"{sys.executable} -m poolkit judge {config} --assessor bench$$"
        code = ("import sys; from textual_serve.server import Server; "
                f"Server(sys.argv[1], host='127.0.0.1', port={port}).serve()")
        cmd = [sys.executable, "-c", code, command]
    server = start(cmd, url, folder / f"{kind.replace(' ', '-')}-{n}.log")
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            logins = [f"bench{i}" if kind == "poolkit serve" else None for i in range(n)]
            times = await asyncio.gather(*(first_screen(browser, url, marker, who)
                                           for who in logins))
            per_session = sessions_rss_mb(server.pid)
            server_mb = rss_kb(server.pid) / 1024
            await browser.close()
    finally:
        stop(server)
    times = sorted(times)
    return {"server": kind, "logins": n, "median_s": statistics.median(times),
            "p95_s": times[min(len(times) - 1, int(0.95 * len(times)))],
            "session_mb": statistics.median(per_session) if per_session else float("nan"),
            "sessions_seen": len(per_session), "server_mb": server_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logins", default="1,10,30", help="simultaneous logins, comma list")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    sizes = [int(x) for x in args.logins.split(",")]
    if not os.access(CHROMIUM, os.X_OK):
        raise SystemExit(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    folder = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    config = build(folder, max(sizes))
    marker = MARKER
    rows = []
    for n in sizes:
        for kind in ("poolkit serve", "textual-serve"):
            rows.append(asyncio.run(one_round(n, kind, config, folder, marker)))
            (folder / "bench.sqlite").unlink()  # (a fresh store per round: no claims kept)
            config = build(folder, max(sizes))
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'server':15} {'logins':>6} {'first screen median s':>22} {'p95 s':>7} "
          f"{'MB/session':>10} {'server MB':>9}")
    for r in rows:
        print(f"{r['server']:15} {r['logins']:>6} {r['median_s']:>22.2f} {r['p95_s']:>7.2f} "
              f"{r['session_mb']:>10.1f} {r['server_mb']:>9.1f}")
    for n in sizes:
        ours, theirs = (next(r for r in rows if r["logins"] == n and r["server"] == k)
                        for k in ("poolkit serve", "textual-serve"))
        print(f"{n} logins: poolkit serve / textual-serve: first screen "
              f"{ours['median_s'] / theirs['median_s']:.2f}x, memory per session "
              f"{ours['session_mb'] / theirs['session_mb']:.2f}x")


if __name__ == "__main__":
    main()
