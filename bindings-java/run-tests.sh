#!/usr/bin/env bash
# Builds the JNI crate (oxmcp-java), installs the official TypeScript SDK client the tests
# drive Java servers with (npm ci) and the authorization server of the OAuth tests
# (tests/auth/install.sh), then runs the JUnit suite with Maven (`mvn -B test`),
# which fetches its own dependencies from Maven Central. Ends with Surefire's summary line.
#
# Uses $OXMCP_BIN for the reference server (builds the oxmcp CLI when unset) and one
# CARGO_TARGET_DIR (default: the workspace's target/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
log() { printf '[java] %s\n' "$*" >&2; }
for tool in cargo java mvn node npm; do
  command -v "$tool" >/dev/null 2>&1 || { log "missing required tool: $tool"; exit 1; }
done

# Concurrent runs (several developers on one machine) take turns.
exec 9>"$here/.run-tests.lock"
flock 9

log "cargo build -p oxmcp-java"
(cd "$root" && cargo build -q -p oxmcp-java)
lib="$CARGO_TARGET_DIR/debug/liboxmcp_java.so"
[[ -f "$lib" ]] || { log "no $lib after the build"; exit 1; }

if [[ -z "${OXMCP_BIN:-}" ]]; then
  log "cargo build -p oxmcp-cli (OXMCP_BIN unset)"
  (cd "$root" && cargo build -q -p oxmcp-cli)
  export OXMCP_BIN="$CARGO_TARGET_DIR/debug/oxmcp"
fi

cd "$here"
stamp="node_modules/.java-tests-stamp"
fp="$( { sha256sum package.json package-lock.json; node --version; } | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$fp" ]]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  printf '%s\n' "$fp" >"$stamp"
fi

# The OAuth tests (OAuthTest) run a real authorization server (oidc-provider, from npm).
log "tests/auth/install.sh"
bash "$root/tests/auth/install.sh"

log "mvn -B test"
exec bash "$root/scripts/mvn-test.sh" -Doxmcp.library.path="$lib"
