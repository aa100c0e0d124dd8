"""The ``openai`` judge kind: any OpenAI-compatible chat-completions endpoint (vLLM, Ollama,
llama.cpp's server, a hosted API), spoken to with the standard library.

One :class:`ChatJudge` per run asks for one pair at a time from any number of threads (the
caller bounds them by ``concurrency``): ``timeout`` is a deadline for each whole request
(``judges.deadline``: a server trickling its answer byte by byte is cut off at it); up to
``max_attempts`` tries on a connection error, a timeout, a 5xx or a truncated, non-JSON or
oversized (``MAX_RESPONSE_BYTES``) body, with exponential backoff and jitter (``backoff``
seconds doubled each try); a 429's ``Retry-After`` honoured (a value that is not a finite
number of seconds or a date is not: the backoff is waited); every wait capped at
``max_wait``; request starts spaced to keep under ``requests_per_minute``.
Log-probabilities are asked for (``top_logprobs: 20``: a small model's grade tokens sit
below its words, at -2 to -4, not in the top 5) and, where the server returns them, the
distribution over grades 0-3 of the grade token is kept. A server that refuses the logprobs
fields (400) is asked again without them.

Nothing the server sends is trusted: every field read is checked (``judges.completion``),
and a response breaking the API's shape (a model id of megabytes or with a NUL, ``"usage":
"lots"``, a logprob of 1000) stops the run with one line naming the field. An answer is
kept to ``prompt.ANSWER_KEPT`` characters. ``stop()`` cuts every request in flight (a
SIGTERM or Ctrl-C ends the run at once, not when the server is done).

The API key is read from the environment variable ``api_key_env`` when the judge is built,
sent in the Authorization header and nowhere else: no message, answer or cached file holds
it (a server that echoes it back has it replaced by ``[key]``).

``constrain:`` limits the answer to the scale's grades where the server can (the request
fields are :func:`constrained`'s): ``structured_outputs`` (vLLM 0.12 and later: ``{"choice":
["0", ..., "G"]}``), ``guided_choice`` (vLLM before 0.12), ``json_schema`` (the OpenAI API's
``response_format``, which llama.cpp's server also follows: the answer is ``{"grade": G}``,
read by ``prompt.parse_json_grade``); ``none`` (the default) asks for free text. A server that
does not know the field it is sent answers 400, and the run stops saying so. The mode is part
of the judge version. The passage goes between delimiters drawn at random for each prompt
(``prompt.draw_tag``); the kind's version 2 is the one that delimits.

Answers are cached under ``cache_dir/judges/`` keyed by (model, the rendered prompt's hash with
its delimiters' random tag set aside, the parameters that change an answer), so a question is
never paid for twice.
"""

from __future__ import annotations

import json
import math
import os
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from poolkit.errors import PoolkitError
from poolkit.judges import JudgeKind, JudgePair, Verdict, register_judge_kind, scale_of
from poolkit.judges.completion import Completion, Malformed, model_id_problem, read_completion
from poolkit.judges.prompt import (
    BUILTIN_TEMPLATE,
    Prompt,
    grade_distribution,
    kept_answer,
    parse_grade,
    parse_json_grade,
    render,
    sha256,
)
from poolkit.params import Param, ParamError

#: alternatives asked for per token (see the module)
TOP_LOGPROBS = 20
#: the longest response body read (a chat completion of a few tokens is a few KB)
MAX_RESPONSE_BYTES = 64 << 20
#: ``constrain:`` -> what it adds to the request (see ``constrained``)
CONSTRAINTS = ("none", "json_schema", "structured_outputs", "guided_choice")
#: the fewest answer tokens asked for under ``constrain: json_schema`` (``{"grade": 3}``)
JSON_MIN_TOKENS = 32


class JudgeUnavailable(PoolkitError):
    """The judge's server did not answer usably within ``max_attempts`` tries (or refused
    the request outright: 401, 404...)."""


def _http_url(value: Any) -> None:
    parts = urlsplit(str(value))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParamError(f"must be an http:// or https:// URL, found {value!r}")


def _model_id(value: Any) -> None:
    problem = model_id_problem(value)
    if problem is not None:
        raise ParamError(f"the model id {problem}")


def _prices(value: Any) -> None:
    for key, price in value.items():
        if key not in ("prompt", "completion"):
            raise ParamError(f"unknown price {key!r}; valid: completion, prompt")
        if isinstance(price, bool) or not isinstance(price, (int, float)) or price < 0:
            raise ParamError(f"{key} must be a non-negative number (per token), "
                             f"found {price!r}")


@dataclass(frozen=True)
class Answer:
    """What the judge said for one prompt."""

    grade: int | None          # None: no answer read as a grade in max_attempts tries
    raw: str
    model: str                 # as the server reports it
    distribution: dict[str, float] | None
    prompt_tokens: int
    completion_tokens: int
    latency: float             # seconds, over every try
    attempts: int
    cached: bool = False
    #: what else the kind records in the event's note (a cross-encoder's score and
    #: thresholds, a local model's probability mass on the grade tokens)
    extra: dict[str, Any] | None = None


@register_judge_kind
class OpenAIKind(JudgeKind):
    name = "openai"
    summary = "an OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp, hosted)"
    #: 2: the passage between random delimiters (1: as pooled, with no delimiters)
    version = "2"
    any_scale = True  # the rubric and the parser follow settings["grades"]
    required = ("base_url", "model")
    options = (
        Param("base_url", (str,), None, "the endpoint's base URL, ending in /v1",
              validate=_http_url),
        Param("model", (str,), None, "the model to ask for", validate=_model_id),
        Param("api_key_env", (str,), "OPENAI_API_KEY",
              "the environment variable holding the API key (never the key itself)"),
        Param("concurrency", (int,), 4, "requests in flight at once", minimum=1, maximum=256),
        Param("timeout", (float,), 60.0, "seconds one request may take, connecting to the "
                                         "answer's last byte", minimum=0.001),
        Param("max_attempts", (int,), 3, "tries per request, and per unreadable answer",
              minimum=1, maximum=100),
        Param("temperature", (float,), 0.0, "sampling temperature", minimum=0, maximum=2),
        Param("max_tokens", (int,), 8, "the longest answer asked for", minimum=1),
        Param("requests_per_minute", (int,), None, "a cap on request starts", minimum=1),
        Param("backoff", (float,), 1.0, "the first retry's wait in seconds (doubled each "
                                        "try, with jitter)", minimum=0),
        Param("max_wait", (float,), 60.0, "the longest single wait, Retry-After included",
              minimum=0),
        Param("logprobs", (bool,), True, "ask for log-probabilities (the grade distribution)"),
        Param("prompt", (str,), None, "a prompt template file replacing the built-in one"),
        Param("scale_order", (str,), "ascending", "the rubric's order in the prompt",
              choices=("ascending", "descending")),
        Param("prices", (dict,), None, "{prompt: X, completion: Y} per token, for --dry-run",
              validate=_prices),
        Param("constrain", (str,), "none", "limit the answer to the scale's grades: vLLM's "
                                           "structured_outputs (0.12+) or guided_choice, or the "
                                           "OpenAI API's json_schema response format",
              choices=CONSTRAINTS),
    )
    #: the settings that change an answer: with the kind, its version and the template, the
    #: judge version (a new version of any of them is a new judge version)
    versioned = ("model", "temperature", "max_tokens", "logprobs", "scale_order", "constrain")
    variants = ("scale_order",)

    def build(self, settings: Mapping[str, Any], template: str, *,
              cache_dir: Path | None = None, read_cache: bool = True,
              calibration: Any = None) -> ChatJudge:
        return ChatJudge(settings, template, cache_dir, read_cache=read_cache)

    def grade(self, pairs: Sequence[JudgePair], settings: Mapping[str, Any],
              ) -> list[Verdict]:
        judge = ChatJudge(settings, settings.get("template") or BUILTIN_TEMPLATE)
        verdicts = []
        for pair in pairs:
            answer = judge.ask(judge.prompt(pair))
            if answer.grade is not None:
                verdicts.append(Verdict(pair.query.qid, pair.docid, answer.grade,
                                        rationale=answer.raw))
        return verdicts


class ChatJudge:
    """Asks one endpoint for grades; safe to call from several threads at once."""

    def __init__(self, settings: Mapping[str, Any], template: str,
                 cache_dir: Path | None = None, *, read_cache: bool = True,
                 sleep: Callable[[float], Any] | None = None) -> None:
        self.settings = dict(settings)
        self.template = template
        #: the collection's scale (``judges.on_scale``): the rubric's grades, those read back
        self.scale = scale_of(settings)
        self.cache_dir = cache_dir / "judges" if cache_dir is not None else None
        self.read_cache = read_cache
        self.url = str(settings["base_url"]).rstrip("/") + "/chat/completions"
        self.shown_url = _without_userinfo(self.url)  # what messages say
        # http.client and urllib load only when a judge is made: every command that reads a
        # config registers this kind, and most never send a request
        from poolkit.judges.deadline import Requests

        self._requests = Requests(self.url)
        #: every wait (backoff, Retry-After, throttle): by default one that ``stop`` ends
        self.sleep = sleep or self._requests.stopped.wait
        self._key = os.environ.get(str(settings.get("api_key_env") or "OPENAI_API_KEY"))
        self._logprobs = bool(settings.get("logprobs", True))
        self._lock = threading.Lock()
        self._next_start = 0.0

    def stop(self) -> None:
        """End the run's asking: the requests in flight are cut, every later ``ask`` raises
        ``deadline.Stopped`` (SIGTERM, Ctrl-C)."""
        self._requests.stop()

    # -- prompts and the cache -----------------------------------------------------------
    def prompt(self, pair: JudgePair, tag: str | None = None) -> Prompt:
        """The prompt for ``pair``, its passage between delimiters drawn now (or those of
        ``tag``: a batch's, ``judges.batch.batch_tag``)."""
        return render(self.template, pair.query, pair.title, pair.body,
                      str(self.settings.get("scale_order") or "ascending"), self.scale,
                      tag=tag)

    def parameters(self) -> dict[str, Any]:
        return {k: self.settings.get(k) for k in OpenAIKind.versioned}

    def cache_key(self, prompt: str) -> str:
        text = prompt.canonical() if isinstance(prompt, Prompt) else prompt
        doc = {"model": self.settings["model"], "prompt": sha256(text),
               "parameters": self.parameters()}
        if self.settings.get("seed") is not None:  # a seeded reading (autojudge --readings)
            doc["seed"] = self.settings["seed"]
        return sha256(json.dumps(doc, sort_keys=True))

    def _cached(self, key: str) -> Answer | None:
        if self.cache_dir is None or not self.read_cache:
            return None
        try:
            doc = json.loads((self.cache_dir / key[:2] / f"{key}.json").read_text("utf-8"))
            answer = Answer(**{**doc, "cached": True})
        except (OSError, ValueError, TypeError):
            return None
        return answer if answer.grade is not None else None

    def _store(self, key: str, answer: Answer) -> None:
        if self.cache_dir is None:
            return
        folder = self.cache_dir / key[:2]
        folder.mkdir(parents=True, exist_ok=True)
        doc = {k: v for k, v in answer.__dict__.items() if k != "cached"}
        tmp = folder / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, folder / f"{key}.json")

    # -- asking --------------------------------------------------------------------------
    def ask(self, prompt: str) -> Answer:
        """The judge's answer to ``prompt``: from the cache, or asked until it reads as a
        grade (``max_attempts`` tries); JudgeUnavailable when the server does not answer."""
        key = self.cache_key(prompt)
        cached = self._cached(key)
        if cached is not None:
            return cached
        attempts = int(self.settings.get("max_attempts") or 3)
        spent = 0.0
        tokens = [0, 0]
        answer: Answer | None = None
        for attempt in range(1, attempts + 1):
            start = time.monotonic()
            reply = self._request(prompt)
            spent += time.monotonic() - start
            tokens[0] += reply.prompt_tokens
            tokens[1] += reply.completion_tokens
            answer = self.answer_of(reply, tokens[0], tokens[1], spent, attempt)
            if answer.grade is not None:
                self._store(key, answer)
                return answer
        assert answer is not None
        return answer

    def answer_of(self, reply: Completion, prompt_tokens: int, completion_tokens: int,
                  spent: float = 0.0, attempt: int = 1) -> Answer:
        """What a checked completion says: its grade (None when it reads as none), the
        answer kept, the model and the grade distribution (a batch's results read here too,
        ``app.autojudge_batch``)."""
        raw = self._redact(reply.text or "")
        return Answer(self._grade_of(raw), kept_answer(raw),
                      self._redact(reply.model or str(self.settings["model"])),
                      self._distribution(reply), prompt_tokens, completion_tokens,
                      round(spent, 6), attempt)

    def _grade_of(self, raw: str) -> int | None:
        if self.settings.get("constrain") == "json_schema":
            return parse_json_grade(raw, self.scale.top)
        return parse_grade(raw, self.scale.top)

    def _distribution(self, reply: Completion) -> dict[str, float] | None:
        """The distribution over the scale's grades at the answer's first grade token."""
        grades = [str(g) for g in self.scale.grades]
        for token in reply.tokens:
            if token["token"].strip().strip("*\"'`") in grades:
                return grade_distribution(token.get("top_logprobs") or [token],
                                          self.scale.top)
        return None

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[key]") if self._key else text

    def body(self, prompt: str) -> dict[str, Any]:
        """The chat-completions request for ``prompt``, as sent."""
        mode = str(self.settings.get("constrain") or "none")
        tokens = int(self.settings.get("max_tokens") or 8)
        body: dict[str, Any] = {
            "model": self.settings["model"],
            "messages": [{"role": "user", "content": str(prompt)}],
            "temperature": self.settings.get("temperature") or 0.0,
            "max_tokens": max(tokens, JSON_MIN_TOKENS) if mode == "json_schema" else tokens,
        }
        if self._logprobs:
            body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        if self.settings.get("seed") is not None:  # a seeded reading (autojudge --readings)
            body["seed"] = int(self.settings["seed"])
        body.update(constrained(mode, self.scale.top))
        return body

    def request_body(self, prompt: str) -> dict[str, Any]:
        """The body the online path posts for ``prompt``, as JSON (a batch file's)."""
        return json.loads(json.dumps(self.body(prompt)))  # type: ignore[no-any-return]

    def _request(self, prompt: str) -> Completion:
        """The checked response of one completion, retried as the module says."""
        import http.client
        import urllib.error

        from poolkit.judges.deadline import DeadlineExceeded, TooLarge

        attempts = int(self.settings.get("max_attempts") or 3)
        backoff = float(self.settings.get("backoff") or 0.0)
        max_wait = float(self.settings.get("max_wait") or 0.0)
        timeout = float(self.settings.get("timeout") or 60.0)
        last = "no answer"
        attempt = 0
        while attempt < attempts:
            attempt += 1
            self._throttle()
            headers = {"Content-Type": "application/json"}
            if self._key:
                headers["Authorization"] = f"Bearer {self._key}"
            wait = backoff * 2 ** (attempt - 1) * (1 + random.random())
            try:
                data = self._requests.post(json.dumps(self.body(prompt)).encode("utf-8"),
                                           headers, timeout,
                                           MAX_RESPONSE_BYTES)
                try:
                    doc = json.loads(data.decode("utf-8"))
                except ValueError:
                    last = "a truncated or non-JSON response body"
                else:
                    return read_completion(doc)
            except Malformed as exc:  # not asked again: it would say the same
                raise JudgeUnavailable(f"{self.shown_url}: {exc}") from None
            except DeadlineExceeded:
                last = f"no whole response within the timeout ({timeout:g} s)"
            except TooLarge:
                last = f"a response body over {MAX_RESPONSE_BYTES >> 20} MiB"
            except urllib.error.HTTPError as exc:
                status = exc.code
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                exc.close()
                if status == 400 and self._logprobs:
                    self._logprobs = False  # a server without logprobs: ask again without
                    attempt -= 1
                    continue
                if status == 429:
                    last = "HTTP 429 (too many requests)"
                    wait = _retry_after(retry_after, wait)
                elif status >= 500:
                    last = f"HTTP {status}"
                else:
                    raise JudgeUnavailable(f"{self.shown_url}: HTTP {status} ({_refusal(status)}"
                                           f"{self._unsupported(status)})") from None
            except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets
                last = _describe(exc)
            if attempt < attempts:
                self.sleep(min(wait, max_wait))
        raise JudgeUnavailable(f"{self.shown_url}: {last} after {attempts} "
                               f"attempt{'s' if attempts != 1 else ''}")

    def _unsupported(self, status: int) -> str:
        """What a 400 may mean under ``constrain:``."""
        mode = self.settings.get("constrain") or "none"
        if status != 400 or mode == "none":
            return ""
        return (f"; the server may not support constrain: {mode} (set constrain: to one it "
                f"supports, or none)")

    def _throttle(self) -> None:
        """Wait for this request's slot under ``requests_per_minute``."""
        rpm = self.settings.get("requests_per_minute")
        if not rpm:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + 60.0 / float(rpm)
        if start > now:
            self.sleep(start - now)


def constrained(mode: str, top: int) -> dict[str, Any]:
    """The request fields of ``constrain: MODE`` that allow only the grades 0..``top``."""
    grades = [str(g) for g in range(top + 1)]
    if mode == "structured_outputs":
        return {"structured_outputs": {"choice": grades}}
    if mode == "guided_choice":
        return {"guided_choice": grades}
    if mode == "json_schema":
        schema = {"type": "object", "properties": {"grade": {"type": "integer",
                                                             "enum": list(range(top + 1))}},
                  "required": ["grade"], "additionalProperties": False}
        return {"response_format": {"type": "json_schema", "json_schema": {
            "name": "grade", "strict": True, "schema": schema}}}
    return {}


_STATUS = {401: "unauthorized: check the key in the variable api_key_env names",
           403: "forbidden", 404: "not found: check base_url and model"}


def _refusal(status: int) -> str:
    """What an HTTP status the client does not retry means to the user."""
    if 300 <= status < 400:
        return ("a redirect, not followed: the request and its API key go only to base_url; "
                "set base_url to the address the server names")
    return _STATUS.get(status, "refused")


def _retry_after(value: str | None, default: float) -> float:
    """Seconds a Retry-After header asks for (seconds or an HTTP date), else ``default``."""
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:  # nan (and inf) is no number of seconds: the backoff instead
        return max(seconds, 0.0) if math.isfinite(seconds) else default
    from email.utils import parsedate_to_datetime

    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, OverflowError, IndexError):
        return default


def _describe(exc: BaseException) -> str:
    import socket
    import urllib.error

    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, (ConnectionResetError, ConnectionAbortedError)):
        return "connection dropped"
    name = type(reason).__name__
    if name in ("RemoteDisconnected", "IncompleteRead", "BadStatusLine"):
        return "connection dropped or response cut short"
    return f"connection failed ({name})"


def _without_userinfo(url: str) -> str:
    """``url`` without a ``user:password@`` part (messages never show credentials)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()


__all__ = ["CONSTRAINTS", "Answer", "ChatJudge", "JudgeUnavailable", "OpenAIKind", "constrained"]
