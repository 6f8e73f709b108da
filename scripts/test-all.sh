#!/usr/bin/env bash
# Every test suite: the Rust workspace (engine, roles, randomized invariants, schema
# validation of the bytes oxmcp writes, child processes, HTTP), the official conformance
# suite, then interop against the official TypeScript and Python SDKs. Installs what it
# needs itself (npm packages, Node 22 for the conformance suite, a Python venv).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh

# The schema test reads the specification's schemas from ../shared/spec (or
# OXMCP_SPEC_DIR); under CI it fails instead of skipping when they are missing.
echo "== cargo test --workspace"
cargo test --workspace 2>&1

cargo build -q -p oxmcp-cli
export OXMCP_BIN="$PWD/target/debug/oxmcp"

echo "== the Python binding (pip install ./bindings-python in a fresh venv, then pytest)"
bash bindings-python/run-tests.sh

echo "== the official MCP conformance suite (server suite and client scenarios)"
bash tests/conformance/run.sh

echo "== interop with the official SDKs"
bash tests/interop/run.sh
