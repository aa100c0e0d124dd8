"""A loopback chat-completions server of the tests' own, for fault injection: it answers
like an OpenAI-compatible endpoint unless a scripted fault comes first (429 with
Retry-After, a 5xx, a stall past the client's timeout, a dropped connection, a truncated or
non-JSON body, an answer that is not a grade, or down for good). Not a stand-in for a real
server (``tests/llm_server.py`` starts llama.cpp's): its grades are a function of the
prompt, so a test can tell what each pair should get."""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_ID = "loopback-judge-7b.Q4"


def grade_of(prompt: str) -> int:
    """The grade the server gives a prompt (a function of its passage's text)."""
    passage = prompt.split("Passage:\n", 1)[-1]
    return hashlib.sha256(passage.encode()).digest()[0] % 4


@dataclass
class Script:
    """Faults served in order, one a request, then normal answers (or ``down`` for good)."""

    faults: deque[str] = field(default_factory=deque)
    down: bool = False
    stall: float = 1.0       # seconds a "timeout" fault waits before answering
    down_after: int | None = None  # answers served before the server goes down for good
    delay: float = 0.0       # seconds before each answer (so two clients overlap)
    answered: int = 0
    requests: list[dict] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_fault(self) -> str | None:
        with self.lock:
            if self.down_after is not None and self.answered >= self.down_after:
                self.down = True
            if self.down:
                return "down"
            fault = self.faults.popleft() if self.faults else None
            if fault is None:
                self.answered += 1
            return fault


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            with script.lock:
                script.requests.append(body)
                script.headers.append(dict(self.headers))
            fault = script.next_fault()
            if fault == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if fault == "429":
                return self._send(429, b'{"error": "slow down"}', {"Retry-After": "1"})
            if fault in ("500", "503", "down"):
                return self._send(int(fault) if fault != "down" else 503, b'{"error": "x"}')
            if fault == "timeout":
                time.sleep(script.stall)
            elif script.delay:
                time.sleep(script.delay)
            if fault == "nonjson":
                return self._send(200, b"<html>gateway says hi</html>")
            prompt = body["messages"][-1]["content"]
            answer = fault[5:] if fault and fault.startswith("text:") else str(grade_of(prompt))
            payload = json.dumps(_completion(answer, body)).encode()
            if fault == "truncated":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload[: len(payload) // 2])
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self._send(200, payload)

        def _send(self, status: int, payload: bytes, extra: dict[str, str] | None = None,
                  ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                self.wfile.write(payload)
            except OSError:
                pass

    return Handler


def _completion(answer: str, body: dict) -> dict:
    choice: dict = {"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": answer}}
    if body.get("logprobs") and answer.strip() in ("0", "1", "2", "3"):
        top = [{"token": answer.strip(), "logprob": math.log(0.7)}] + [
            {"token": str(g), "logprob": math.log(0.1)} for g in range(4)
            if str(g) != answer.strip()]
        choice["logprobs"] = {"content": [{"token": answer.strip(), "logprob": math.log(0.7),
                                           "top_logprobs": top}]}
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": MODEL_ID,
            "choices": [choice],
            "usage": {"prompt_tokens": len(body["messages"][-1]["content"]) // 4,
                      "completion_tokens": 1}}


@contextmanager
def loopback_llm() -> Iterator[tuple[str, Script]]:
    """(base URL ending in /v1, the script) of a server running until the block ends."""
    script = Script()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()
