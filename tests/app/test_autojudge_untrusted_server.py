"""``poolkit autojudge`` against a server that sends what it should not (issue 43, theme 3):
every field the judge reads is checked (a malformed one stops the run with one line naming
it, nothing of its response recorded), a bad Retry-After is the backoff, an answer of
megabytes is kept to 2,000 characters, ``timeout`` is a deadline for the whole request
(a response trickled for ever ends with the timeout error), and SIGTERM or Ctrl-C stops a
run waiting on a server at once, saying what was recorded, the store holding exactly that.
No assertion here depends on timing: the trickles never end, and the signals are sent once
the store shows the grades the server was scripted to give."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from autojudge_helpers import autojudge_json, collection, machine_events
from llm_faults import loopback_llm
from shared_data import REPO

PAIRS = 40  # the sample's four queries, seed.run's top 10 each
STOPPED_AT = (r"; stopped at query '\w+' doc '[^']+' with 0 of 40 pairs recorded \(0 graded, "
              r"kept in \S+\); run it again to resume$")


@pytest.fixture
def llm():
    with loopback_llm() as served:
        yield served


def snapshot(root: Path) -> dict[str, str]:
    """Every file's sha256 (SQLite's transient -wal/-shm files aside)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def refused(capsys, config: Path, says: str, *args: str) -> None:
    """One run that ends with exit 2 and one stderr line matching ``says``, the store and the
    user's files as they were."""
    before = snapshot(config.parent)
    _, err = autojudge_json(capsys, config, "llm", *args, code=2)
    [line] = err.splitlines()
    assert line.startswith("poolkit autojudge: error: ") and "Traceback" not in err
    assert re.search(says, line), line
    assert snapshot(config.parent) == before


def rewritten(path: str, value: object, raw: str | None = None):
    """A fault: the completion the server would send with the field at ``path`` (dotted,
    list indices as numbers) set to ``value``, or to the JSON text ``raw``."""
    def fault(doc: dict) -> bytes:
        *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]
        node = doc
        for key in parents:
            node = node[key]
        node[last] = "RAW" if raw is not None else value
        text = json.dumps(doc)
        return (text.replace('"RAW"', raw) if raw is not None else text).encode()
    return fault


TOKEN = "choices.0.logprobs.content.0"
FIELD = r"^poolkit autojudge: error: http://127\.0\.0\.1:\d+/v1/chat/completions: "


@pytest.mark.parametrize("fault, says", [
    (rewritten("usage", "lots"), r"the response's usage is text 'lots', not an object"),
    (rewritten("usage.prompt_tokens", None, raw="1e400"),
     r"the response's usage\.prompt_tokens is inf, not a whole number of tokens from 0 to "
     r"1,000,000,000"),
    (rewritten("usage.completion_tokens", -3),
     r"the response's usage\.completion_tokens is -3, not a whole number of tokens"),
    (rewritten(f"{TOKEN}.logprob", 1000),
     r"the response's choices\[0\]\.logprobs\.content\[0\]\.logprob is 1000, not a "
     r"log-probability \(a number <= 0\)"),
    (rewritten(f"{TOKEN}.logprob", None, raw="NaN"),
     r"the response's choices\[0\]\.logprobs\.content\[0\]\.logprob is nan, not a "
     r"log-probability"),
    (rewritten(f"{TOKEN}.top_logprobs", ["2", "3"]),
     r"the response's choices\[0\]\.logprobs\.content\[0\]\.top_logprobs\[0\] is text '2', "
     r"not an object"),
    (rewritten("model", "m" * 5_000_000),
     r"the response's model id is 5,000,000 characters long \(at most 200 are accepted\): "
     r"'m{40}'\.\.\."),
    (rewritten("model", "judge\x1b[2J"),
     r"the response's model id 'judge\\x1b\[2J' holds a control or non-printable character"),
    (rewritten("model", ["judge-m"]), r"the response's model is a list \['judge-m'\], not text"),
    (rewritten("choices.0.message.content", 2),
     r"the response's choices\[0\]\.message\.content is 2, not text"),
    (lambda doc: b"[1, 2]", r"the response is a list \[1, 2\], not a JSON object"),
], ids=["usage-lots", "prompt-tokens-1e400", "negative-tokens", "logprob-1000", "logprob-nan",
        "top-logprobs-strings", "model-5MB", "model-escape", "model-list", "content-number",
        "not-an-object"])
def test_a_malformed_field_stops_the_run_at_once_naming_it(tmp_path, llm, capsys, fault,
                                                           says):
    """A server that breaks the API's shape is not asked again (it would say the same):
    one line naming the field, nothing of its response recorded, the store as it was."""
    url, script = llm
    config = collection(tmp_path, url, concurrency=1, max_attempts=3)
    script.faults.append(fault)
    refused(capsys, config, FIELD + says + ".*" + STOPPED_AT)
    assert len(script.requests) == 1 and machine_events(config, kinds=("grade", "note")) == []


def test_a_nul_in_the_model_id_is_refused_before_any_store_sees_it(tmp_path, llm, capsys,
                                                                  store_location):
    """PostgreSQL's text cannot hold a NUL (psycopg raised); no backend is asked to."""
    url, script = llm
    config = collection(tmp_path, url, store=store_location, concurrency=1)
    script.faults.append(rewritten("model", "judge\x00m"))
    _, err = autojudge_json(capsys, config, "llm", code=2)
    [line] = err.splitlines()
    assert re.search(FIELD + r"the response's model id 'judge\\x00m' holds a control or "
                             r"non-printable character" + ".*" + STOPPED_AT, line), line
    assert machine_events(config, kinds=("grade", "note")) == []


@pytest.mark.parametrize("model, says", [  # (a NUL is refused in any config value)
    ("judge\x1bm", r"the model id 'judge\\x1bm' holds a control or non-printable character"),
    ("m" * 201, r"the model id is 201 characters long \(at most 200 are accepted\)"),
])
def test_a_configured_model_id_is_held_to_the_same_rule(tmp_path, llm, capsys, model, says):
    url, script = llm
    config = collection(tmp_path, url)
    config.write_text(config.read_text().replace('"model": "judge-m"',
                                                 f'"model": {json.dumps(model)}'))
    refused(capsys, config, r"^poolkit autojudge: error: \S+\.yaml:\d+: "
                            r"judges\.llm\.model: " + says)
    assert script.requests == []


@pytest.mark.parametrize("retry_after", ["nan", "inf", "-5", "1e400", "soon",
                                         "Mon, 99 Foo 2020 25:61:61 GMT",
                                         "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_a_retry_after_that_is_no_wait_is_the_backoff(tmp_path, llm, capsys, retry_after):
    """Not a finite number of seconds nor a date: the backoff is waited (capped by
    max_wait, as a far date is), and the pair graded."""
    url, script = llm
    config = collection(tmp_path, url, concurrency=1)
    script.faults.extend([f"429:{retry_after}"] * 2)
    doc, err = autojudge_json(capsys, config, "llm", "--limit", "2")
    assert err == "" and doc["pairs"]["graded"] == 2 and not script.faults
    assert len(machine_events(config)) == 2


def store_bytes(config: Path) -> int:
    return sum(p.stat().st_size for p in config.parent.glob("judgments.sqlite*"))


def test_an_answer_of_megabytes_is_kept_to_2000_characters(tmp_path, llm, capsys):
    """Two unreadable 30 MB answers are two failures of a few KB each, not +57 MiB; an
    answer that is a grade padded with 3 MB of spaces is a grade, kept as short."""
    url, script = llm
    config = collection(tmp_path, url, concurrency=1, max_attempts=1)
    script.faults.extend(["text:" + "x" * 30_000_000] * 2 + ["text:2" + " " * 3_000_000])
    before = store_bytes(config)
    doc, err = autojudge_json(capsys, config, "llm", "--limit", "3")
    assert err == "" and (doc["pairs"]["graded"], doc["pairs"]["failed"]) == (1, 2)
    failures = machine_events(config, kinds=("note",))
    assert len(failures) == 2
    for event in failures:
        note = json.loads(event.note)
        assert note["answer"] == "x" * 2000 + "\u2026 (30,000,000 characters, first 2,000 kept)"
        assert len(event.note) < 3000
    [grade] = machine_events(config)
    assert grade.grade == 2 and json.loads(grade.note)["answer"] == (
        "2" + " " * 1999 + "\u2026 (3,000,001 characters, first 2,000 kept)")
    assert store_bytes(config) - before < 1 << 20  # was 57 MiB more


@pytest.mark.parametrize("where", ["trickle", "trickle-headers"])
def test_the_timeout_is_a_deadline_for_the_whole_request(tmp_path, llm, capsys, where):
    """A byte every 0.05 s for ever, in the body or in the headers: each read is well within
    the 0.5 s timeout, and the request still ends with the timeout error."""
    url, script = llm
    config = collection(tmp_path, url, concurrency=1, max_attempts=2, timeout=0.5)
    script.down, script.down_as = True, where
    refused(capsys, config, FIELD + r"no whole response within the timeout \(0\.5 s\) after "
                                   r"2 attempts" + STOPPED_AT)
    assert len(script.requests) == 2


@pytest.mark.parametrize("signame, code, said", [("SIGTERM", 143, "SIGTERM"),
                                                 ("SIGINT", 130, "Ctrl-C")])
def test_a_signal_stops_a_run_waiting_on_the_server_at_once(tmp_path, llm, capsys, signame,
                                                            code, said):
    """Three answers, then every request trickles for ever (timeout 60 s, never reached):
    the signal, sent once the store holds the three grades, ends the run with one line
    saying so; the store holds exactly those; the same command grades the rest."""
    url, script = llm
    config = collection(tmp_path, url, concurrency=2, max_attempts=1, timeout=60.0)
    script.down_after, script.down_as = 3, "trickle"
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    run = subprocess.Popen([sys.executable, "-m", "poolkit", "autojudge", str(config),
                            "--judge", "llm", "--format", "json"], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while len(machine_events(config)) < 3:  # the store's state, not the clock
            assert run.poll() is None, run.communicate()
            time.sleep(0.05)
        run.send_signal(getattr(signal, signame))
        out, err = run.communicate(timeout=120)  # only a hang reaches this
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == code and out == ""
    assert err.splitlines() == [
        f"poolkit autojudge: stopped by {said} with 3 of 40 pairs recorded (3 graded, "
        f"0 failed, kept in {config.parent / 'judgments.sqlite'}); run the same command "
        f"again to grade the rest"]
    assert len(machine_events(config)) == 3
    assert machine_events(config, kinds=("note",)) == []
    script.down, script.down_after = False, None
    doc, _ = autojudge_json(capsys, config, "llm")
    assert doc["pairs"] == {"total": PAIRS, "graded": PAIRS - 3, "already": 3, "failed": 0,
            "flagged": 0, "given_up": 0}
    events = machine_events(config)
    assert len(events) == len({(e.qid, e.docid) for e in events}) == PAIRS


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(tmp_path, llm, capsys,
                                                                  monkeypatch):
    """A server answering 302 would have urllib send the request's headers, the API key's
    Authorization among them, to the address it names: the judge stops with one line and
    the other address hears nothing."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from autojudge_helpers import KEY_ENV

    heard: list[dict[str, str]] = []

    class Elsewhere(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            heard.append(dict(self.headers))
            self.send_response(200)
            self.end_headers()

        do_POST = do_GET  # noqa: N815

    other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    Thread(target=other.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv(KEY_ENV, "sk-secret")
        url, script = llm
        config = collection(tmp_path, url, concurrency=1)
        script.faults.append(f"302:http://127.0.0.1:{other.server_address[1]}/steal")
        refused(capsys, config, FIELD + r"HTTP 302 \(a redirect, not followed: the request and "
                r"its API key go only to base_url; set base_url to the address the server "
                r"names\)" + ".*" + STOPPED_AT)
    finally:
        other.shutdown()
        other.server_close()
    assert heard == [] and len(script.requests) == 1
    assert script.headers[0].get("Authorization") == "Bearer sk-secret"
