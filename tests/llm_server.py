"""The real LLM server the machine-judge tests talk to, and how they skip without one.

.ci/run starts a throw-away llama.cpp server (.ci/llama.sh) and exports its OpenAI-compatible
base URL and model id. A developer's machine without them skips those tests; CI (CI set)
fails instead, so a broken server start can never pass as skipped tests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import pytest

URL_VARIABLE = "POOLKIT_TEST_LLM_URL"
MODEL_VARIABLE = "POOLKIT_TEST_LLM_MODEL"
GGUF_VARIABLE = "POOLKIT_TEST_LLM_GGUF"


class LlmServer(NamedTuple):
    base_url: str  # e.g. http://127.0.0.1:PORT/v1, no trailing slash
    model: str


def llm_server_from_environment() -> LlmServer:
    """The server .ci/llama.sh started; skips the test when there is none, unless in CI."""
    base_url = os.environ.get(URL_VARIABLE, "")
    model = os.environ.get(MODEL_VARIABLE, "")
    if not base_url or not model:
        message = (
            f"machine-judge tests on a real LLM: no server; set {URL_VARIABLE} and "
            f"{MODEL_VARIABLE}, or `source .ci/llama.sh && start_throwaway_llm` (as CI does)"
        )
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI must run the LLM tests against a real server")
        pytest.skip(message)
    return LlmServer(base_url.rstrip("/"), model)


@pytest.fixture(scope="session")
def llm_server() -> LlmServer:
    """(base_url, model) of the real llama.cpp server serving SmolLM2-135M-Instruct."""
    return llm_server_from_environment()


@pytest.fixture(scope="session")
def llm_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file the server serves (.ci/llama.sh exports its path;
    ``bash -c 'source .ci/llama.sh; ensure_llm_gguf'`` prints it); skips without it, unless
    in CI."""
    path = os.environ.get(GGUF_VARIABLE, "")
    if not path or not Path(path).is_file():
        message = (f"local GGUF judge tests: {GGUF_VARIABLE} names no file; `source "
                   f".ci/llama.sh && ensure_llm_gguf` prints one")
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI must run the local judge on the real model")
        pytest.skip(message)
    return Path(path)
