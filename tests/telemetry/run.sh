#!/usr/bin/env bash
# Telemetry tests: oxmcp's spans and metrics in a real Jaeger (v2, built from the Go module
# proxy) and a real Prometheus (Debian), across the official TypeScript client, `oxmcp
# proxy`, `oxmcp call` and the Python host with its own OpenTelemetry SDK; then every host's
# server and clients in both protocol eras (hosts.test.mjs).
#
#   bash tests/telemetry/run.sh        (from any directory)
#   bash tests/telemetry/run.sh --prepare   (only build Jaeger)
#
# Installs what it needs (node_modules, a venv at .venv with the oxmcp wheel of $OXMCP_DIST
# or a build from source, Jaeger into .work/, Prometheus with apt-get when missing), starts
# Jaeger and Prometheus on free loopback ports, runs the tests with node's test runner and
# stops both by pid; likewise a Redis, two Python nodes and haproxy (tests/scaleout/cluster.sh).
# Re-runs skip installs whose inputs did not change.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

log() { printf '[telemetry] %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || { log "missing required tool: $1"; exit 1; }; }
fingerprint() { { sha256sum "$@"; printf '%s\n' "${EXTRA_FP:-}"; } | sha256sum | cut -d' ' -f1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

need node
need npm
need python3
need go
mkdir -p .work

# --- Jaeger v2, from the Go module proxy (go.mod pins it as a tool) --------------------------
jaeger_bin="$HERE/.work/jaeger"
build_jaeger() {
  local fp
  fp="$(EXTRA_FP="$(go version)" fingerprint jaeger/go.mod jaeger/go.sum)"
  if [[ ! -x "$jaeger_bin" || "$(cat .work/jaeger.stamp 2>/dev/null)" != "$fp" ]]; then
    log "go build jaeger (the first build takes minutes)"
    # Its module and build caches (near 3 GB) live in .work only for the build: the binary
    # is all the tests need, and a full disk once failed a whole CI run.
    local caches="$HERE/.work/go-caches"
    (cd jaeger && GOMODCACHE="$caches/mod" GOCACHE="$caches/build" GOFLAGS=-modcacherw \
      go build -o "$jaeger_bin" github.com/jaegertracing/jaeger/cmd/jaeger) || { rm -rf "$caches"; return 1; }
    rm -rf "$caches"
    printf '%s\n' "$fp" >.work/jaeger.stamp
  fi
}
# `run.sh --prepare` only builds Jaeger (the test command starts it early, beside suites that
# mostly wait).
if [[ "${1:-}" == --prepare ]]; then
  build_jaeger
  exit 0
fi
build_jaeger

# --- The official TypeScript SDK ------------------------------------------------------------
node_stamp="node_modules/.telemetry-stamp"
node_fp="$(EXTRA_FP="node $(node --version)" fingerprint package.json package-lock.json)"
if [[ ! -f "$node_stamp" || "$(cat "$node_stamp")" != "$node_fp" ]]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  printf '%s\n' "$node_fp" >"$node_stamp"
fi

# --- The oxmcp CLI --------------------------------------------------------------------------
case "${CARGO_TARGET_DIR:-}" in ""|/*) ;; *) export CARGO_TARGET_DIR="$REPO/$CARGO_TARGET_DIR" ;; esac
if [[ -z "${OXMCP_BIN:-}" ]]; then
  need cargo
  log "cargo build -p oxmcp-cli"
  (cd "$REPO" && cargo build --quiet -p oxmcp-cli)
  export OXMCP_BIN="${CARGO_TARGET_DIR:-$REPO/target}/debug/oxmcp"
fi
export OXMCP_BIN

# --- Python: the oxmcp package and the OpenTelemetry SDK, in a venv ---------------------------
# Made afresh each run: the oxmcp wheel changes with every build.
rm -rf .venv
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
wheel="$(ls "${OXMCP_DIST:-/nonexistent}"/oxmcp-*-cp39-abi3-*.whl 2>/dev/null || true)"
if [[ -n "$wheel" ]]; then
  .venv/bin/pip install --quiet --disable-pip-version-check "$wheel"
else
  log "building the Python package from source"
  CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}" .venv/bin/pip install --quiet --disable-pip-version-check "$REPO/bindings-python"
fi
export PYTHON="$HERE/.venv/bin/python"

# --- Every host's scenario server and clients (hosts.sh) -------------------------------------
source "$HERE/hosts.sh"
prepare_hosts

# --- Prometheus, from Debian ----------------------------------------------------------------
if ! command -v prometheus >/dev/null 2>&1; then
  log "apt-get install prometheus"
  { apt-get install -y -q prometheus >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q prometheus >/dev/null; }; } \
    || { log "cannot install prometheus"; exit 1; }
fi

# --- Start both, stop them by pid whatever happens --------------------------------------------
# (cluster_stop: the Redis, nodes and haproxy started below, by tests/scaleout/cluster.sh.)
source "$REPO/tests/scaleout/cluster.sh"
pids=()
cleanup() { cluster_stop; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
export JAEGER_OTLP_PORT="$(free_port)" JAEGER_QUERY_PORT="$(free_port)" JAEGER_QUERY_GRPC_PORT="$(free_port)" \
  JAEGER_METRICS_PORT="$(free_port)"
prom_port="$(free_port)"
"$jaeger_bin" --config "file:$HERE/jaeger.yaml" >.work/jaeger.log 2>&1 &
pids+=($!)
cat >.work/prometheus.yml <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: oxmcp
    static_configs:
      - targets: ["127.0.0.1:$JAEGER_METRICS_PORT"]
YAML
rm -rf .work/prometheus-data
prometheus --config.file=.work/prometheus.yml --storage.tsdb.path=.work/prometheus-data \
  --web.listen-address="127.0.0.1:$prom_port" >.work/prometheus.log 2>&1 &
pids+=($!)
wait_for() {
  for _ in $(seq 1 100); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.2; done
  log "$2 did not start (see tests/telemetry/.work/)"; exit 1
}
wait_for "http://127.0.0.1:$JAEGER_QUERY_PORT/api/services" jaeger
wait_for "http://127.0.0.1:$prom_port/-/ready" prometheus
export OTLP_ENDPOINT="http://127.0.0.1:$JAEGER_OTLP_PORT"
export JAEGER_QUERY="http://127.0.0.1:$JAEGER_QUERY_PORT"
export PROMETHEUS="http://127.0.0.1:$prom_port"
log "jaeger $JAEGER_QUERY (OTLP $OTLP_ENDPOINT), prometheus $PROMETHEUS"

# Two Python nodes sharing their sessions on a Redis, behind haproxy (round robin, no
# affinity: tests/scaleout/cluster.sh), each exporting as python-node-PORT.
NODE_CMD="env OTEL_EXPORTER_OTLP_ENDPOINT=$OTLP_ENDPOINT OTEL_SERVICE_NAME=python-node-{port} OTEL_BSP_SCHEDULE_DELAY=100"
NODE_CMD+=" $PYTHON $HERE/python_host.py server {port} {redis}"
export NODE_CMD
cluster_start 2 "$HERE/.work/cluster"
export CLUSTER_URL="$LB_URL"

# TAP output ends with node's summary lines (# tests, # pass, # fail, ...).
node --test --test-reporter=tap --test-concurrency=1 telemetry.test.mjs hosts.test.mjs
