#!/usr/bin/env bash
# The cross-SDK benchmark in one command: oxmcp Rust, Python, Node and Kotlin against rmcp and
# the official Python, TypeScript and Kotlin SDKs, every workload, interleaved rounds; prints
# the tables and writes bench/RESULTS.md. Installs its peers itself: rmcp (crates.io, release
# build in bench/rmcp/target), PyPI `mcp` and oxmcp for Python (bench/.venv), npm
# @modelcontextprotocol/sdk and the packed oxmcp Node binding (bench/suite/node), and, when a
# Kotlin implementation is measured, the official Kotlin SDK from Maven Central with oxmcp's
# Kotlin binding on the release library (bench/kotlin/build.sh).
# Arguments go to bench/suite/compare.py (try --help; e.g. --rounds 5, --only oxmcp-rust,rmcp).
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"

# The Kotlin programs (cargo, uniffi, Maven) only when --only leaves a Kotlin implementation in.
only="" prev=""
for arg in "$@"; do
  case "$arg" in --only=*) only="${arg#--only=}" ;; esac
  if [ "$prev" = "--only" ]; then only="$arg"; fi
  prev="$arg"
done
with_kotlin=1
if [ -n "$only" ] && [[ "$only" != *kotlin* ]]; then with_kotlin=0; fi

source "$bench/setup.sh"

# (read from the files: the SDK's "exports" hide its package.json from require)
node_versions="$(cd bench/suite/node && node -e '
  const v = (p) => JSON.parse(require("fs").readFileSync(`node_modules/${p}/package.json`, "utf8")).version;
  console.log(`@modelcontextprotocol/sdk ${v("@modelcontextprotocol/sdk")}, oxmcp ${v("oxmcp")}`)')"
rmcp_version="rmcp $(grep -A1 '^name = "rmcp"$' bench/rmcp/Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')"
kotlin_versions=""
if [ "$with_kotlin" = 1 ]; then
  pom_prop() { sed -n "s|.*<$1>\(.*\)</$1>.*|\1|p" bench/kotlin/pom.xml | head -1; }
  kotlin_versions="Java $(java -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p'), Kotlin $(pom_prop kotlin.version), official SDK io.modelcontextprotocol:kotlin-sdk $(pom_prop mcp.kotlin.sdk.version) (Ktor $(pom_prop ktor.version), CIO engines), oxmcp $(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml) (uniffi, JNA)"
fi

exec bench/.venv/bin/python bench/suite/compare.py \
  --python "$bench/.venv/bin/python" --node node \
  --oxmcp-bench "$CARGO_TARGET_DIR/release/oxmcp-bench" --rmcp-bench "$bench/rmcp/target/release/rmcp-bench" \
  --node-versions "$node_versions" --rmcp-version "$rmcp_version" \
  --kotlin-bench "$bench/kotlin/run.sh" --kotlin-versions "$kotlin_versions" "$@"
