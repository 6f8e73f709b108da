#!/usr/bin/env bash
# Builds the oxmcp CLI (the server under test) and the benchmark in release mode, then
# runs the benchmark: stdio, Streamable HTTP and HTTP server memory per session.
# Arguments are passed to oxmcp-bench (try --help; e.g. --only http).
# Writes nothing outside bench/ except the cargo target directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo build --release -p oxmcp-cli -p oxmcp-bench >&2
target="${CARGO_TARGET_DIR:-$root/target}"
exec "$target/release/oxmcp-bench" --server "$target/release/oxmcp" "$@"
