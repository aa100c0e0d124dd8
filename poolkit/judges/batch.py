"""The OpenAI Batch API's files, as ``autojudge --export-batch`` writes its requests and
``--import-batch`` reads their results (vLLM's ``run-batch`` reads and writes the same).

A request is one JSON line ``{"custom_id", "method": "POST", "url": "/v1/chat/completions",
"body"}``, the body exactly what the online path posts; a file holds at most ``MAX_LINES``
lines and ``MAX_BYTES`` bytes (the API's limits: 50,000 requests, 200 MB). A result is one
line ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``.

The custom_id names the judge version, the reading and the pair::

    VERSION:READING:QID:DOCID       e.g.  3f2a9c0d1e4b5a67:0:q%3A1:doc%2F7

READING counts from 0; QID and DOCID are percent-encoded as RFC 3986 says (every byte of
their UTF-8 but ``A-Z a-z 0-9 - . _ ~`` as ``%XX``, upper-case hex), so no field holds a
``:``, any id at all can be named and read back, and each id has one spelling: a custom_id
spelled otherwise (``%3a``, ``%41`` for ``A``) is refused, not read as another pair's.

A result's identity (what an import recognises again, with its custom_id) is its ``id``,
the one the batch service gave that request's run, or, if a service writes none, the SHA-256
of the line's response and error.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from poolkit.errors import shown

#: the most requests one file may hold (the Batch API's limit)
MAX_LINES = 50_000
#: the most bytes one file may hold (the Batch API's 200 MB)
MAX_BYTES = 200_000_000
#: the endpoint every request names
URL = "/v1/chat/completions"
#: the longest custom_id read (ids are short; a custom_id of megabytes is not one of ours)
MAX_CUSTOM_ID = 4096


class BatchFormatError(ValueError):
    """A line that is not what the Batch API's format says (the message says why)."""


@dataclass(frozen=True)
class BatchKey:
    """What a custom_id names."""

    version: str
    reading: int
    qid: str
    docid: str


@dataclass(frozen=True)
class BatchResult:
    """One result line: the completion document (``response.body``) or why there is none."""

    custom_id: str
    key: BatchKey
    identity: str                       # the ``id``, else a hash of response and error
    completion: dict[str, Any] | None   # None: ``error`` says why
    error: str | None = None


def _escape(text: str) -> str:
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def custom_id(version: str, reading: int, qid: str, docid: str) -> str:
    """The custom_id of reading ``reading`` of pair (``qid``, ``docid``) by ``version``."""
    return f"{version}:{reading}:{_escape(qid)}:{_escape(docid)}"


def batch_tag(cid: str, pair: Any) -> str:
    """The delimiter tag of the request ``cid`` for ``pair`` (a JudgePair): a hash of the
    custom_id and the pair's texts, so an import rebuilds the very prompt the export sent
    (its ``prompt_sha256``) from the custom_id alone; a passage cannot hold the hash of
    itself, so it cannot hold its own delimiters (``judges.prompt.content_tag``)."""
    from poolkit.judges.prompt import content_tag, pair_texts

    return content_tag([cid, *pair_texts(pair.query, pair.title, pair.body)])


def parse_custom_id(text: Any) -> BatchKey:
    """What ``text`` names (see the module), or BatchFormatError saying why it is not one."""
    if not isinstance(text, str) or not text:
        raise BatchFormatError("no custom_id (text) in the line")
    if len(text) > MAX_CUSTOM_ID:
        raise BatchFormatError(f"a custom_id of {len(text):,} characters is none poolkit "
                               f"wrote")
    fields = text.split(":")
    if len(fields) != 4:
        raise BatchFormatError(f"custom_id {shown(text)} is not VERSION:READING:QID:DOCID")
    version, reading, qid, docid = fields
    if not reading.isascii() or not reading.isdigit() or str(int(reading)) != reading:
        raise BatchFormatError(f"custom_id {shown(text)}: the reading {shown(reading)} is "
                               f"not a number")
    ids = []
    for field in (qid, docid):
        try:
            value = unquote(field, errors="strict")
            canonical = _escape(value) == field
        except UnicodeError:
            canonical = False
        if not canonical or not value:
            raise BatchFormatError(f"custom_id {shown(text)}: {shown(field)} is not an id as "
                                   f"poolkit writes them (percent-encoded UTF-8)")
        ids.append(value)
    return BatchKey(version, int(reading), ids[0], ids[1])


def request_line(cid: str, body: dict[str, Any]) -> bytes:
    """The JSONL line (newline included) asking for ``body`` under ``cid``."""
    line = {"custom_id": cid, "method": "POST", "url": URL, "body": body}
    return json.dumps(line).encode("utf-8") + b"\n"


class FileSplit:
    """Where each line goes: a new file when the next line would break ``max_lines`` or
    ``max_bytes``; ``place(size)`` gives the line's file number (0, 1, ...)."""

    def __init__(self, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> None:
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self.file = -1
        self.lines = self.bytes = 0

    def place(self, size: int) -> int:
        if size > self.max_bytes:
            raise BatchFormatError(f"one request is {size:,} bytes, over the "
                                   f"{self.max_bytes:,} a file may hold")
        if self.file < 0 or self.lines >= self.max_lines \
                or self.bytes + size > self.max_bytes:
            self.file += 1
            self.lines = self.bytes = 0
        self.lines += 1
        self.bytes += size
        return self.file


def read_result(doc: Any) -> BatchResult:
    """The result line ``doc`` (parsed JSON) read, or BatchFormatError: a line that is not a
    result at all. An ``error``, a status other than 200 or no body is a result without a
    completion (``error`` says which), not a format error."""
    if not isinstance(doc, dict):
        raise BatchFormatError("not a JSON object")
    key = parse_custom_id(doc.get("custom_id"))
    cid = str(doc["custom_id"])
    rid = doc.get("id")
    response, error = doc.get("response"), doc.get("error")
    if isinstance(rid, str) and rid:
        identity = rid
    else:
        text = json.dumps([response, error], sort_keys=True)
        identity = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    if error is not None:
        return BatchResult(cid, key, identity, None, f"error {_brief(error)}")
    if not isinstance(response, dict):
        return BatchResult(cid, key, identity, None, "no response")
    status = response.get("status_code")
    if status != 200:
        return BatchResult(cid, key, identity, None, f"status {_brief(status)}")
    body = response.get("body")
    if not isinstance(body, dict):
        return BatchResult(cid, key, identity, None, "a response without a body")
    return BatchResult(cid, key, identity, body)


def _brief(value: Any) -> str:
    """``value`` in a message: an error's message, else the value, shortly."""
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        value = value["message"]
    return shown(value)


__all__ = ["MAX_BYTES", "MAX_LINES", "URL", "BatchFormatError", "BatchKey", "BatchResult",
           "FileSplit", "custom_id", "parse_custom_id", "read_result", "request_line"]
