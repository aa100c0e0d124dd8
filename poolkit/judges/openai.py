"""The ``openai`` judge kind: any OpenAI-compatible chat-completions endpoint (vLLM, Ollama,
llama.cpp's server, a hosted API), spoken to with the standard library.

One :class:`ChatJudge` per run asks for one pair at a time from any number of threads (the
caller bounds them by ``concurrency``): a per-request ``timeout``; up to ``max_attempts``
tries on a connection error, a timeout, a 5xx or a truncated or non-JSON body, with
exponential backoff and jitter (``backoff`` seconds doubled each try); a 429's
``Retry-After`` honoured; every wait capped at ``max_wait``; request starts spaced to keep
under ``requests_per_minute``. Log-probabilities are asked for (``top_logprobs: 20``: a small
model's grade tokens sit below its words, at -2 to -4, not in the top 5) and, where the
server returns them, the distribution over grades 0-3 of the grade token is kept.
A server that refuses the logprobs fields (400) is asked again without them.

The API key is read from the environment variable ``api_key_env`` when the judge is built,
sent in the Authorization header and nowhere else: no message, answer or cached file holds
it (a server that echoes it back has it replaced by ``[key]``).

Answers are cached under ``cache_dir/judges/`` keyed by (model, the rendered prompt's hash,
the parameters that change an answer), so a question is never paid for twice.
"""

from __future__ import annotations

import json
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
from poolkit.judges.prompt import (
    BUILTIN_TEMPLATE,
    grade_distribution,
    parse_grade,
    render,
    sha256,
)
from poolkit.params import Param, ParamError

#: alternatives asked for per token (see the module)
TOP_LOGPROBS = 20


class JudgeUnavailable(PoolkitError):
    """The judge's server did not answer usably within ``max_attempts`` tries (or refused
    the request outright: 401, 404...)."""


def _http_url(value: Any) -> None:
    parts = urlsplit(str(value))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParamError(f"must be an http:// or https:// URL, found {value!r}")


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
    version = "1"
    any_scale = True  # the rubric and the parser follow settings["grades"]
    required = ("base_url", "model")
    options = (
        Param("base_url", (str,), None, "the endpoint's base URL, ending in /v1",
              validate=_http_url),
        Param("model", (str,), None, "the model to ask for"),
        Param("api_key_env", (str,), "OPENAI_API_KEY",
              "the environment variable holding the API key (never the key itself)"),
        Param("concurrency", (int,), 4, "requests in flight at once", minimum=1, maximum=256),
        Param("timeout", (float,), 60.0, "seconds to wait for one response", minimum=0.001),
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
    )
    #: the settings that change an answer: with the kind, its version and the template, the
    #: judge version (a new version of any of them is a new judge version)
    versioned = ("model", "temperature", "max_tokens", "logprobs", "scale_order")
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
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = dict(settings)
        self.template = template
        #: the collection's scale (``judges.on_scale``): the rubric's grades, those read back
        self.scale = scale_of(settings)
        self.cache_dir = cache_dir / "judges" if cache_dir is not None else None
        self.read_cache = read_cache
        self.sleep = sleep
        self.url = str(settings["base_url"]).rstrip("/") + "/chat/completions"
        self.shown_url = _without_userinfo(self.url)  # what messages say
        self._key = os.environ.get(str(settings.get("api_key_env") or "OPENAI_API_KEY"))
        self._logprobs = bool(settings.get("logprobs", True))
        self._lock = threading.Lock()
        self._next_start = 0.0
        self._opener = _opener(self.url)

    # -- prompts and the cache -----------------------------------------------------------
    def prompt(self, pair: JudgePair) -> str:
        return render(self.template, pair.query, pair.title, pair.body,
                      str(self.settings.get("scale_order") or "ascending"), self.scale)

    def parameters(self) -> dict[str, Any]:
        return {k: self.settings.get(k) for k in OpenAIKind.versioned}

    def cache_key(self, prompt: str) -> str:
        return sha256(json.dumps({"model": self.settings["model"], "prompt": sha256(prompt),
                                  "parameters": self.parameters()}, sort_keys=True))

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
            doc = self._request(prompt)
            spent += time.monotonic() - start
            raw, model, distribution, usage = self._read(doc)
            tokens[0] += usage[0]
            tokens[1] += usage[1]
            answer = Answer(parse_grade(raw, self.scale.top), raw, model, distribution,
                            tokens[0], tokens[1], round(spent, 6), attempt)
            if answer.grade is not None:
                self._store(key, answer)
                return answer
        assert answer is not None
        return answer

    def _read(self, doc: Any) -> tuple[str, str, dict[str, float] | None, tuple[int, int]]:
        """(answer text, model id, grade distribution, (prompt, completion) tokens)."""
        model = str(doc.get("model") or self.settings["model"]) if isinstance(doc, dict) \
            else str(self.settings["model"])
        try:
            choice = doc["choices"][0]
            raw = str(choice["message"].get("content") or "")
        except (KeyError, IndexError, TypeError, AttributeError):
            return "", model, None, (0, 0)
        raw = self._redact(raw)
        distribution = None
        content = ((choice.get("logprobs") or {}).get("content") or []) \
            if isinstance(choice.get("logprobs"), dict) else []
        for token in content:
            if isinstance(token, dict) and str(token.get("token", "")).strip().strip(
                    "*\"'`") in [str(g) for g in self.scale.grades]:
                alternatives = list(token.get("top_logprobs") or []) or [token]
                distribution = grade_distribution(alternatives, self.scale.top)
                break
        usage = doc.get("usage") or {}
        counts = (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
        return raw, model, distribution, counts

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[key]") if self._key else text

    def _body(self, prompt: str) -> bytes:
        body: dict[str, Any] = {
            "model": self.settings["model"],
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.settings.get("temperature") or 0.0,
            "max_tokens": self.settings.get("max_tokens") or 8,
        }
        if self._logprobs:
            body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        return json.dumps(body).encode("utf-8")

    def _request(self, prompt: str) -> Any:
        """The response document of one completion, retried as the module says."""
        import http.client
        import urllib.error
        import urllib.request

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
            request = urllib.request.Request(self.url, data=self._body(prompt), headers=headers,
                                             method="POST")
            wait = backoff * 2 ** (attempt - 1) * (1 + random.random())
            try:
                with self._opener.open(request, timeout=timeout) as response:
                    data = response.read()
                try:
                    return json.loads(data.decode("utf-8"))
                except ValueError:
                    last = "a truncated or non-JSON response body"
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
                    raise JudgeUnavailable(f"{self.shown_url}: HTTP {status} "
                                           f"({_STATUS.get(status, 'refused')})") from None
            except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets
                last = _describe(exc)
            if attempt < attempts:
                self.sleep(min(wait, max_wait))
        raise JudgeUnavailable(f"{self.shown_url}: {last} after {attempts} "
                               f"attempt{'s' if attempts != 1 else ''}")

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


_STATUS = {401: "unauthorized: check the key in the variable api_key_env names",
           403: "forbidden", 404: "not found: check base_url and model"}


def _retry_after(value: str | None, default: float) -> float:
    """Seconds a Retry-After header asks for (seconds or an HTTP date), else ``default``."""
    if not value:
        return default
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    return max(when.timestamp() - time.time(), 0.0)


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


def _opener(url: str) -> Any:
    """urllib's opener; no proxy for a loopback server (a proxy there would never reach it)."""
    import urllib.request

    host = urlsplit(url).hostname or ""
    if host in ("localhost", "::1") or host.startswith("127."):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


__all__ = ["Answer", "ChatJudge", "JudgeUnavailable", "OpenAIKind"]
