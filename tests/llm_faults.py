"""A loopback chat-completions server of the tests' own, for fault injection: it answers
like an OpenAI-compatible endpoint unless a scripted fault comes first (429 with
Retry-After, a 5xx, a stall past the client's timeout, a dropped connection, a truncated or
non-JSON body, an answer that is not a grade, a response trickled a byte at a time for ever,
a response document the test rewrites, or down for good). Asked for a JSON schema
(``response_format``), it answers ``{"grade": G}``. Not a stand-in for a real server
(``tests/llm_server.py`` starts llama.cpp's): its grades are a function of the prompt, so a
test can tell what each pair should get.

A fault is one of these names, or a function of the completion the server would send (a
dict) returning the body it sends instead (bytes, with status 200):

=====================  ===========================================================
``429``, ``429:V``     429 with ``Retry-After: 1`` (or ``V``)
``400``, ``500``, ``503``  that status
``drop``               the connection closed, no response
``timeout``            the answer after ``stall`` seconds
``nonjson``            200 with an HTML body
``truncated``          half the body, then the connection closed
``text:ANSWER``        ANSWER as the model's answer
``trickle``            the headers, then a space every ``trickle`` seconds for ever
``trickle-headers``    the status line, then a header a byte every ``trickle`` seconds
``down``               503 (and every request after it, once ``down``)
``302:URL``            302 with ``Location: URL`` (a redirect)
=====================  ===========================================================
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_ID = "loopback-judge-7b.Q4"

#: a fault: a name (the module's table), or the completion document -> the body sent
Fault = str | Callable[[dict], bytes]


def grade_of(prompt: str) -> int:
    """The grade the server gives a prompt: a function of all after "Passage:" (its passage
    and what the template says after it), the delimiters' random tag set aside."""
    passage = re.sub(r"<<(PASSAGE|END)-\w+>>", r"<<\1>>", prompt.split("Passage:\n", 1)[-1])
    return hashlib.sha256(passage.encode()).digest()[0] % 4


@dataclass
class Script:
    """Faults served in order, one a request, then normal answers (or ``down`` for good)."""

    faults: deque[Fault] = field(default_factory=deque)
    down: bool = False
    stall: float = 1.0       # seconds a "timeout" fault waits before answering
    trickle: float = 0.05    # seconds between the bytes of a "trickle" fault
    down_after: int | None = None  # answers served before the server goes down for good
    down_as: Fault = "down"  # what a server gone down serves for good ("trickle": hangs)
    delay: float = 0.0       # seconds before each answer (so two clients overlap)
    #: the prompt -> the model's answer, in place of ``grade_of`` (a fake judge of
    #: ``judge_fakes``); None: ``grade_of``
    grader: Callable[[str], str] | None = None
    answered: int = 0
    requests: list[dict] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_fault(self) -> Fault | None:
        with self.lock:
            if self.down_after is not None and self.answered >= self.down_after:
                self.down = True
            if self.down:
                return self.down_as
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
            if fault in ("trickle", "trickle-headers"):
                return self._trickle(fault == "trickle")
            if isinstance(fault, str) and fault.startswith("429"):
                retry_after = fault[4:] or "1"
                return self._send(429, b'{"error": "slow down"}',
                                  {"Retry-After": retry_after})
            if isinstance(fault, str) and fault.startswith("302:"):
                return self._send(302, b"", {"Location": fault[4:]})
            if fault in ("400", "500", "503", "down"):
                return self._send(int(fault) if fault != "down" else 503, b'{"error": "x"}')
            if fault == "timeout":
                time.sleep(script.stall)
            elif script.delay:
                time.sleep(script.delay)
            if fault == "nonjson":
                return self._send(200, b"<html>gateway says hi</html>")
            prompt = body["messages"][-1]["content"]
            answer = fault[5:] if isinstance(fault, str) and fault.startswith("text:") \
                else script.grader(prompt) if script.grader is not None \
                else str(grade_of(prompt))
            if "response_format" in body and answer.isdigit():  # constrain: json_schema
                answer = json.dumps({"grade": int(answer)})
            if callable(fault):
                return self._send(200, fault(_completion(answer, body)))
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

        def _trickle(self, in_body: bool) -> None:
            """A byte every ``script.trickle`` seconds until the client hangs up: in the
            body (of a length never reached) or in the headers (one never ended)."""
            self.close_connection = True
            try:
                if in_body:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(10**9))
                    self.end_headers()
                else:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                while True:
                    self.wfile.write(b" " if in_body else b"a")
                    self.wfile.flush()
                    time.sleep(script.trickle)
            except OSError:  # the client hung up
                return

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
