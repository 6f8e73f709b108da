#!/usr/bin/env bash
# OAuth end to end with a real authorization server: installs oidc-provider and Node 22
# (what it supports) from npm into this folder, then runs oauth.test.mjs with node's test
# runner against $OXMCP_BIN (built here when unset). Ends with the runner's summary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
repo="$(cd ../.. && pwd)"
bash install.sh
export PATH="$here/node_modules/node/bin:$PATH"
# cargo (run from the repository) takes a relative CARGO_TARGET_DIR from there.
case "${CARGO_TARGET_DIR:-}" in ""|/*) ;; *) export CARGO_TARGET_DIR="$repo/$CARGO_TARGET_DIR" ;; esac
if [ -z "${OXMCP_BIN:-}" ]; then
  (cd "$repo" && cargo build -q -p oxmcp-cli)
  export OXMCP_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/oxmcp"
fi
node --test --test-reporter=spec oauth.test.mjs
