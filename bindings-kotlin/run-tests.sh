#!/usr/bin/env bash
# Builds the Kotlin binding (the uniffi crate and its generated Kotlin, through Maven's
# generate-sources: generate.sh), installs the official TypeScript SDK and its everything
# server (npm ci) for the interop tests and the official conformance suite with Node 22
# (tests/conformance) for the conformance test, oidc-provider (tests/auth/install.sh) for the
# OAuth tests and redis-server (Debian, as tests/scaleout installs it), and runs the JUnit
# suite with `mvn -B test`, which fetches Kotlin, kotlinx and JNA from Maven Central. Ends
# with Surefire's summary line.
#
# Uses $OXMCP_BIN for the everything server (builds the oxmcp CLI when unset) and one
# CARGO_TARGET_DIR (default: the workspace's target/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$root/scripts/ensure-toolchain.sh"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
log() { printf '[kotlin] %s\n' "$*" >&2; }
for tool in cargo java mvn node npm; do
  command -v "$tool" >/dev/null 2>&1 || { log "missing required tool: $tool"; exit 1; }
done

# Concurrent runs (several developers on one machine) take turns.
exec 9>"$here/.run-tests.lock"
flock 9

if [[ -z "${OXMCP_BIN:-}" ]]; then
  log "cargo build -p oxmcp-cli (OXMCP_BIN unset)"
  (cd "$root" && cargo build -q -p oxmcp-cli)
  export OXMCP_BIN="$CARGO_TARGET_DIR/debug/oxmcp"
fi

# The official TypeScript SDK and its everything server, for the interop tests.
stamp="node_modules/.kotlin-tests-stamp"
fp="$( { sha256sum "$here/package.json" "$here/package-lock.json"; node --version; } | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$here/$stamp" || "$(cat "$here/$stamp")" != "$fp" ]]; then
  log "npm ci"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$fp" >"$here/$stamp"
fi

# The official conformance suite and Node 22 (as tests/conformance/run.sh installs them),
# for ConformanceTest.
conf="$root/tests/conformance"
conf_stamp="$conf/node_modules/.oxmcp-stamp"
want="$(sha256sum "$conf/package-lock.json" | cut -d' ' -f1)"
if [[ ! -f "$conf_stamp" || "$(cat "$conf_stamp")" != "$want" ]]; then
  log "npm ci (tests/conformance)"
  (cd "$conf" && npm ci --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$want" >"$conf_stamp"
fi

# The OAuth tests (OAuthTest) run a real authorization server (oidc-provider, from npm).
log "tests/auth/install.sh"
bash "$root/tests/auth/install.sh"

# Two servers sharing a real Redis (ServerClientTest): redis-server from Debian when missing.
if ! command -v redis-server >/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  log "apt-get install redis-server"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
fi

log "mvn -B test"
cd "$here"
exec bash "$root/scripts/mvn-test.sh" -Doxmcp.library.dir="$CARGO_TARGET_DIR/debug"
