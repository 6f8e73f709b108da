#!/usr/bin/env bash
# Builds the Node package the way a user gets it and runs every test of the binding with
# node's built-in test runner (ends with its summary): npm install (the official TypeScript
# SDK, typescript, zod, @napi-rs/cli; not `npm ci`, which trips over the CLI's optional
# platform packages), `npm run build` (napi, release), the official conformance suite's install (Node 22, in tests/conformance), then test/*.test.mjs:
# end-to-end, both eras, process lifetime, interop, conformance, and npm pack + scratch install +
# tsc --strict.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"
# Concurrent runs (several developers on one machine) take turns.
exec 9>"$here/.run-tests.lock"
flock 9

node --version | grep -qE '^v(20|21|22|23|24)\.' || { echo "run-tests: Node >= 20 is needed" >&2; exit 1; }
npm install --no-audit --no-fund --loglevel=error
# One target directory for every cargo build of the workspace. When the test command has
# packaged dist/ (OXMCP_DIST), scripts/package/node.sh built the addon here already.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
if [[ -z "${OXMCP_DIST:-}" || ! -f oxmcp.linux-x64-gnu.node || ! -f native.cjs ]]; then
  npm run --silent build
fi

# The official conformance suite and Node 22 (as tests/conformance/run.sh installs them).
conf="$root/tests/conformance"
stamp="$conf/node_modules/.oxmcp-stamp"
want="$(sha256sum "$conf/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  (cd "$conf" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
fi

# The OAuth tests run a real authorization server (oidc-provider, from npm).
bash "$root/tests/auth/install.sh"

exec node --test --test-reporter=spec test/*.test.mjs
