#!/usr/bin/env bash
# OAuth end to end with a real authorization server: installs oidc-provider and Node 22
# (what it supports) from npm into this folder, then runs oauth.test.mjs with node's test
# runner against $OXMCP_BIN (built here when unset). Ends with the runner's summary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
repo="$(cd ../.. && pwd)"
stamp=node_modules/.oxmcp-stamp
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
export PATH="$here/node_modules/node/bin:$PATH"
node --version | grep -q '^v22\.' || { echo "auth: Node 22 did not install" >&2; exit 1; }
if [ -z "${OXMCP_BIN:-}" ]; then
  (cd "$repo" && cargo build -q -p oxmcp-cli)
  export OXMCP_BIN="$repo/target/debug/oxmcp"
fi
node --test --test-reporter=spec oauth.test.mjs
