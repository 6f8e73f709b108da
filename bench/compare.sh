#!/usr/bin/env bash
# The cross-SDK benchmark in one command: oxmcp Rust, Python and Node against rmcp and the
# official Python and TypeScript SDKs, every workload, interleaved rounds; prints the tables
# and writes bench/RESULTS.md. Installs its peers itself: rmcp (crates.io, release build in
# bench/rmcp/target), PyPI `mcp` and oxmcp for Python (bench/.venv), npm
# @modelcontextprotocol/sdk and the packed oxmcp Node binding (bench/suite/node).
# Arguments go to bench/suite/compare.py (try --help; e.g. --rounds 5, --only oxmcp-rust,rmcp).
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"

source "$bench/setup.sh"

# (read from the files: the SDK's "exports" hide its package.json from require)
node_versions="$(cd bench/suite/node && node -e '
  const v = (p) => JSON.parse(require("fs").readFileSync(`node_modules/${p}/package.json`, "utf8")).version;
  console.log(`@modelcontextprotocol/sdk ${v("@modelcontextprotocol/sdk")}, oxmcp ${v("oxmcp")}`)')"
rmcp_version="rmcp $(grep -A1 '^name = "rmcp"$' bench/rmcp/Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')"

exec bench/.venv/bin/python bench/suite/compare.py \
  --python "$bench/.venv/bin/python" --node node \
  --oxmcp-bench "$CARGO_TARGET_DIR/release/oxmcp-bench" --rmcp-bench "$bench/rmcp/target/release/rmcp-bench" \
  --node-versions "$node_versions" --rmcp-version "$rmcp_version" "$@"
