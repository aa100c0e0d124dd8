"""A stand-in for a screen process under the web driver: says the prelude, then one screen
packet holding its argv and environment as JSON, then echoes each key packet back until a
``quit`` meta packet (or SIGTERM) ends it. Lets the HTTP tests see exactly what a session
was started with, without Textual."""

from __future__ import annotations

import json
import os
import signal
import sys


def main() -> None:
    out = sys.stdout.buffer

    def send(kind: bytes, payload: bytes) -> None:
        out.write(kind + len(payload).to_bytes(4, "big") + payload)
        out.flush()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    out.write(b"__GANGLION__\n")
    send(b"D", json.dumps({"argv": sys.argv[1:], "env": dict(os.environ)}).encode())
    stdin = sys.stdin.buffer
    while True:
        head = stdin.read(5)
        if len(head) < 5:
            return
        payload = stdin.read(int.from_bytes(head[1:], "big"))
        if head[:1] == b"D":
            send(b"D", b"key:" + payload)
        elif json.loads(payload).get("type") == "quit":
            send(b"M", b'{"type": "exit"}')
            return
        else:
            send(b"D", b"meta:" + payload)


if __name__ == "__main__":
    main()
