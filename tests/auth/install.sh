#!/usr/bin/env bash
# Installs the authorization server the OAuth tests run (oidc-provider) and the Node 22 it
# asks for, from npm into tests/auth/node_modules (again only when package-lock.json
# changed). Used by tests/auth/run.sh and by the bindings' suites that test OAuth.
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.oxmcp-stamp
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
node_modules/node/bin/node --version | grep -q '^v22\.' || { echo "auth: Node 22 did not install" >&2; exit 1; }
