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

echo "== building oxmcp (release) and rmcp's benchmark programs" >&2
cargo build --release -q -p oxmcp-bench >&2
cargo build --release -q --manifest-path bench/rmcp/Cargo.toml --target-dir bench/rmcp/target >&2

echo "== Python: oxmcp (pip install ./bindings-python) and the official SDK in bench/.venv" >&2
if [ ! -x bench/.venv/bin/python ]; then python3 -m venv bench/.venv; fi
bench/.venv/bin/pip install -q --disable-pip-version-check -r bindings-python/requirements-test.txt >&2
bench/.venv/bin/pip install -q --disable-pip-version-check --force-reinstall --no-deps ./bindings-python >&2

echo "== Node: the oxmcp binding (npm run build, npm pack) and the official TypeScript SDK" >&2
(cd bindings-node && npm install --no-audit --no-fund --loglevel=error >&2 && npm run -s build >&2)
mkdir -p bench/.scratch
tarball="$(cd bindings-node && npm pack --silent --pack-destination "$bench/.scratch" | tail -1)"
(cd bench/suite/node && npm install --no-audit --no-fund --loglevel=error >&2 \
  && npm install --no-save --no-audit --no-fund --loglevel=error "$bench/.scratch/$tarball" >&2)

# (read from the files: the SDK's "exports" hide its package.json from require)
node_versions="$(cd bench/suite/node && node -e '
  const v = (p) => JSON.parse(require("fs").readFileSync(`node_modules/${p}/package.json`, "utf8")).version;
  console.log(`@modelcontextprotocol/sdk ${v("@modelcontextprotocol/sdk")}, oxmcp ${v("oxmcp")}`)')"
rmcp_version="rmcp $(grep -A1 '^name = "rmcp"$' bench/rmcp/Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')"

exec bench/.venv/bin/python bench/suite/compare.py \
  --python "$bench/.venv/bin/python" --node node \
  --oxmcp-bench "$CARGO_TARGET_DIR/release/oxmcp-bench" --rmcp-bench "$bench/rmcp/target/release/rmcp-bench" \
  --node-versions "$node_versions" --rmcp-version "$rmcp_version" "$@"
