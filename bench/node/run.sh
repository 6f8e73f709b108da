#!/usr/bin/env bash
# The Node benchmark (bench.mjs): oxmcp Node client -> oxmcp Node server against the
# official TypeScript SDK client -> server, interleaved rounds. Builds the package with
# bindings-node's own toolchain (npm install, napi release build) and links it, the SDK and
# zod into ./node_modules. Arguments go to bench.mjs (try --help).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pkg="$root/bindings-node"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
(cd "$pkg" && npm install --no-audit --no-fund --loglevel=error && npm run --silent build) >&2
mkdir -p "$here/node_modules"
ln -sfn "$pkg" "$here/node_modules/oxmcp"
ln -sfn "$pkg/node_modules/@modelcontextprotocol" "$here/node_modules/@modelcontextprotocol"
ln -sfn "$pkg/node_modules/zod" "$here/node_modules/zod"
# --no-warnings: the official SDK's HTTP client piles abort listeners on one signal (MaxListenersExceededWarning).
exec node --no-warnings "$here/bench.mjs" "$@"
