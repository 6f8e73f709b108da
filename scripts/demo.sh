#!/usr/bin/env bash
# The demo: build the oxmcp CLI, inspect the everything server over stdio, call tools that
# stream progress and log messages, and cancel a slow call.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh

cargo build -q --release -p oxmcp-cli
OXMCP=target/release/oxmcp
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

step "the Rust quickstart (a server with one tool, a client calling it over stdio)"
cargo run -q --release -p oxmcp --example quickstart
