#!/usr/bin/env bash
# Interop tests: oxmcp against the official MCP SDKs (TypeScript, Python and Rust's rmcp).
#
#   bash tests/interop/run.sh        (from any directory)
#
# Installs what it needs into tests/interop (node_modules via npm ci, a Python venv at
# .venv), builds the oxmcp CLI unless OXMCP_BIN points at one and the rmcp task server and
# client of tests/interop/rmcp, then runs the tests with node's built-in test runner.
# Re-runs skip installs whose inputs did not change.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

log() { printf '[interop] %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || { log "missing required tool: $1"; exit 1; }; }
# A fingerprint of files (and extra strings) that decide whether an install is current.
fingerprint() { { sha256sum "$@"; printf '%s\n' "${EXTRA_FP:-}"; } | sha256sum | cut -d' ' -f1; }

need node
need npm
need python3

# --- Node: the official TypeScript SDK and everything server --------------------------
node_stamp="node_modules/.interop-stamp"
node_fp="$(EXTRA_FP="node $(node --version)" fingerprint package.json package-lock.json)"
if [[ ! -f "$node_stamp" || "$(cat "$node_stamp")" != "$node_fp" ]]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  printf '%s\n' "$node_fp" >"$node_stamp"
else
  log "node_modules up to date"
fi

# --- Python: the official Python SDK in a venv -----------------------------------------
py_stamp=".venv/.interop-stamp"
py_fp="$(EXTRA_FP="$(python3 --version 2>&1)" fingerprint requirements.txt)"
if [[ ! -x .venv/bin/python || ! -f "$py_stamp" || "$(cat "$py_stamp")" != "$py_fp" ]]; then
  log "creating .venv and installing requirements.txt"
  rm -rf .venv
  python3 -m venv .venv || {
    log "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)"
    exit 1
  }
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  printf '%s\n' "$py_fp" >"$py_stamp"
else
  log ".venv up to date"
fi

# --- The authorization server of the OAuth tests ----------------------------------------
# oauth.test.mjs runs tests/auth/provider.mjs (oidc-provider) on the Node 22 it asks for;
# tests/auth/install.sh puts both into tests/auth/node_modules (skipped when current).
log "tests/auth/install.sh (oidc-provider, Node 22)"
bash "$REPO/tests/auth/install.sh" >&2

# --- oxmcp CLI ---------------------------------------------------------------------------
# cargo (run from the repository) takes a relative CARGO_TARGET_DIR from there.
case "${CARGO_TARGET_DIR:-}" in ""|/*) ;; *) export CARGO_TARGET_DIR="$REPO/$CARGO_TARGET_DIR" ;; esac
if [[ -z "${OXMCP_BIN:-}" ]]; then
  need cargo
  log "cargo build -p oxmcp-cli"
  (cd "$REPO" && cargo build --quiet -p oxmcp-cli)
  export OXMCP_BIN="${CARGO_TARGET_DIR:-$REPO/target}/debug/oxmcp"
fi
if [[ ! -x "$OXMCP_BIN" ]]; then
  log "OXMCP_BIN=$OXMCP_BIN is not an executable"
  exit 1
fi
export OXMCP_BIN
log "OXMCP_BIN=$OXMCP_BIN"

# --- rmcp (the official Rust SDK): rmcp-task-server and rmcp-task-client ------------------
# A crate of its own (its own Cargo.lock), built into the repository's target directory.
need cargo
rmcp_target="${CARGO_TARGET_DIR:-$REPO/target}"
log "cargo build (tests/interop/rmcp) into $rmcp_target"
(cd "$HERE/rmcp" && CARGO_TARGET_DIR="$rmcp_target" CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}" \
  CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}" cargo build --quiet --locked)
export RMCP_TASK_BIN_DIR="$rmcp_target/debug"

# --- Tests ---------------------------------------------------------------------------------
# TAP output ends with node's summary lines (# tests, # pass, # fail, ...).
exec node --test --test-reporter=tap \
  ts_client.test.mjs oxmcp_client.test.mjs \
  ts_client_http.test.mjs oxmcp_client_http.test.mjs \
  oauth.test.mjs rmcp_tasks.test.mjs tasks_2025.test.mjs \
  oxmcp_client_tasks.test.mjs ts_client_tasks.test.mjs
