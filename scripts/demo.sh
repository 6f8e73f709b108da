#!/usr/bin/env bash
# The demo: build the oxmcp CLI, inspect the everything server over stdio, call tools that
# stream progress and log messages, and cancel a slow call.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh

# The test command runs the demo too, on the debug build it already made (OXMCP_BIN).
if [ -n "${OXMCP_BIN:-}" ]; then
    OXMCP="$OXMCP_BIN"
    profile=()
else
    cargo build -q --release -p oxmcp-cli
    OXMCP=target/release/oxmcp
    profile=(--release)
fi
SERVER=("$OXMCP" everything-server --stdio)

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "oxmcp inspect -- oxmcp everything-server --stdio"
"$OXMCP" inspect -- "${SERVER[@]}"

step "a tool with progress (notifications/progress, shown on stderr)"
"$OXMCP" call test_tool_with_progress -- "${SERVER[@]}"

step "a tool that logs (notifications/message)"
"$OXMCP" call test_tool_with_logging -- "${SERVER[@]}"

step "arguments are validated in the engine before the handler runs"
"$OXMCP" call echo '{"text": 42}' -- "${SERVER[@]}" || echo "(exit $?: the result has isError: true)"

step "a resource template and a prompt"
"$OXMCP" read 'test://template/42/data' -- "${SERVER[@]}"
"$OXMCP" prompt test_prompt_with_arguments '{"arg1": "hello", "arg2": "world"}' -- "${SERVER[@]}"

step "cancellation: a 10 s call, interrupted after 1 s (as Ctrl-C would)"
"$OXMCP" call slow '{"tag": 7, "ms": 10000}' -- "${SERVER[@]}" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid" || echo "(exit $?: cancelled; the server's handler logged that it saw the cancel)"

step "the same server over Streamable HTTP (and legacy HTTP+SSE on /sse)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$OXMCP" everything-server --http "127.0.0.1:$port" &
http_pid=$!
trap 'kill "$http_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do   # until it listens
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
"$OXMCP" inspect "http://127.0.0.1:$port/mcp" | head -3   # head closes the pipe early: quietly fine
"$OXMCP" call test_reconnection -- "http://127.0.0.1:$port/mcp"   # the server drops the stream; the client resumes
"$OXMCP" call echo '{"text": "via the 2024-11-05 HTTP+SSE transport"}' -- "http://127.0.0.1:$port/sse"
kill "$http_pid"
wait "$http_pid" || true

step "the Rust quickstart (a server with one tool, a client calling it over stdio)"
cargo run -q "${profile[@]}" -p oxmcp --example quickstart

echo
echo "demo passed"
