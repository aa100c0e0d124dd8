"""A chat-completions response read field by field, each checked before it is used.

A server is not trusted to send what the API defines: every field the judge reads is checked
for its type and range here, and a response that breaks them is :class:`Malformed`, naming
the field and (shortly) what it held. The judge stops the run on it rather than record a
grade, a model id, token counts or a distribution it cannot vouch for (asking again would get
the same). What may be missing is missing: no ``model`` (the configured one is recorded), no
``usage`` (0 tokens), no ``logprobs`` (no distribution), no ``choices`` or a null
``content`` (no answer: not a grade, asked again as an unreadable answer is).

=======================================  =================================================
``model``                                text of 1 to ``MODEL_ID_MAX`` printable characters
                                         (no control character, NUL included): it is kept
                                         in every event and printed
``usage.prompt_tokens``,                 a whole number from 0 to ``MAX_TOKEN_COUNT``
``usage.completion_tokens``
``choices[0].message.content``           text (or null)
``choices[0].logprobs.content[i]``       ``{"token": text, "logprob": L,
                                         "top_logprobs": [{"token", "logprob"}...]}``, L a
                                         log-probability: a number <= 0 (``-Infinity``
                                         allowed, ``NaN`` not)
=======================================  =================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from poolkit.errors import shown

#: the longest model id accepted (Hugging Face's longest repo ids are under 100)
MODEL_ID_MAX = 200
#: the largest token count one response may report
MAX_TOKEN_COUNT = 10**9
#: a log-probability above 0 by more than this is no log-probability (rounding may give
#: a hair above 0 for a token of probability 1)
LOGPROB_SLACK = 1e-3


class Malformed(ValueError):
    """A response that is not a chat completion as the API defines it (says which field)."""


@dataclass(frozen=True)
class Completion:
    """The fields of a response the judge uses, each checked."""

    text: str | None                         # None: no answer (no choices, null content)
    model: str | None                        # None: the server did not say
    tokens: list[dict[str, Any]]             # choices[0].logprobs.content, checked
    prompt_tokens: int = 0
    completion_tokens: int = 0


def model_id_problem(model: str) -> str | None:
    """Why ``model`` cannot be a model id poolkit records and prints, or None."""
    if not model:
        return "is empty"
    if len(model) > MODEL_ID_MAX:
        return (f"is {len(model):,} characters long (at most {MODEL_ID_MAX} are accepted): "
                f"{shown(model[:40])}...")
    if not model.isprintable():
        return f"{shown(model)} holds a control or non-printable character"
    return None


def read_completion(doc: Any) -> Completion:
    """The checked fields of the response document ``doc`` (parsed JSON), or Malformed."""
    if not isinstance(doc, dict):
        raise Malformed(f"the response is {_what(doc)}, not a JSON object")
    model = doc.get("model")
    if model is not None:
        if not isinstance(model, str):
            raise Malformed(_wrong("model", model, "text (the model id)"))
        problem = model_id_problem(model)
        if problem is not None:
            raise Malformed(f"the response's model id {problem}")
    prompt_tokens, completion_tokens = _usage(doc.get("usage"))
    choices = doc.get("choices")
    if choices is None or choices == []:
        return Completion(None, model, [], prompt_tokens, completion_tokens)
    if not isinstance(choices, list):
        raise Malformed(_wrong("choices", choices, "a list"))
    choice = _object(choices[0], "choices[0]")
    message = choice.get("message")
    content = None
    if message is not None:
        content = _object(message, "choices[0].message").get("content")
        if content is not None and not isinstance(content, str):
            raise Malformed(_wrong("choices[0].message.content", content, "text"))
    return Completion(content, model, _logprobs(choice.get("logprobs")), prompt_tokens,
                      completion_tokens)


def _usage(usage: Any) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    usage = _object(usage, "usage")
    return (_count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
            _count(usage.get("completion_tokens"), "usage.completion_tokens"))


def _count(value: Any, field: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) \
            or not 0 <= value <= MAX_TOKEN_COUNT:
        raise Malformed(_wrong(field, value, f"a whole number of tokens from 0 to "
                                             f"{MAX_TOKEN_COUNT:,}"))
    return value


def _logprobs(logprobs: Any) -> list[dict[str, Any]]:
    if logprobs is None:
        return []
    content = _object(logprobs, "choices[0].logprobs").get("content")
    if content is None:
        return []
    if not isinstance(content, list):
        raise Malformed(_wrong("choices[0].logprobs.content", content, "a list"))
    tokens = []
    for i, token in enumerate(content):
        where = f"choices[0].logprobs.content[{i}]"
        token = _alternative(token, where)
        top = token.get("top_logprobs")
        if top is not None:
            if not isinstance(top, list):
                raise Malformed(_wrong(f"{where}.top_logprobs", top, "a list"))
            for j, alt in enumerate(top):
                _alternative(alt, f"{where}.top_logprobs[{j}]")
        tokens.append(token)
    return tokens


def _alternative(value: Any, where: str) -> dict[str, Any]:
    """``value`` checked as ``{"token": text, "logprob": L}``."""
    value = _object(value, where)
    if not isinstance(value.get("token"), str):
        raise Malformed(_wrong(f"{where}.token", value.get("token"), "text"))
    logprob = value.get("logprob")
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)) \
            or math.isnan(logprob) or logprob > LOGPROB_SLACK:
        raise Malformed(_wrong(f"{where}.logprob", logprob, "a log-probability (a number "
                                                            "<= 0)"))
    return value


def _object(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed(_wrong(field, value, "an object"))
    return value


def _wrong(field: str, value: Any, expected: str) -> str:
    return f"the response's {field} is {_what(value)}, not {expected}"


def _what(value: Any) -> str:
    """``value`` as a message names it: its JSON type and, when short, itself."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return shown(value)
    kind = "text" if isinstance(value, str) else "a list" if isinstance(value, list) \
        else "an object" if isinstance(value, dict) else "a value"
    return f"{kind} {shown(value)}"


__all__ = ["Completion", "MODEL_ID_MAX", "Malformed", "model_id_problem", "read_completion"]
