#!/usr/bin/env bash
# Every test suite: the Rust workspace (engine, roles, randomized invariants, schema
# validation of the bytes oxmcp writes, child processes), then interop against the
# official TypeScript and Python SDKs. Installs what it needs itself.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh

# The schema test reads the specification's schemas from ../shared/spec (or
# OXMCP_SPEC_DIR); under CI it fails instead of skipping when they are missing.
echo "== cargo test --workspace"
cargo test --workspace 2>&1

echo "== interop with the official SDKs"
cargo build -q -p oxmcp-cli
OXMCP_BIN="$PWD/target/debug/oxmcp" bash tests/interop/run.sh
