#!/usr/bin/env bash
# What the engine's telemetry costs, in instructions (callgrind: repeatable where times are
# not): the oxmcp Rust server's instructions per sequential stdio `echo` call with telemetry
# off (no OTEL_* variable), and on (OTLP/HTTP to a local sink that answers 200, spans and
# metrics exported), as bench/instructions.sh counts them ((count at N2 - count at N1) /
# (N2 - N1)). With BASELINE (an oxmcp-bench built from an older commit, e.g. one before
# telemetry), also that server's count: "off" against it is the cost of telemetry off.
#
#   bash bench/telemetry-cost.sh [BASELINE]
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
n1=200
n2=1200
rust="${OXMCP_BENCH:-$CARGO_TARGET_DIR/release/oxmcp-bench}"
[[ -x "$rust" ]] || (cd "$root" && cargo build -q --release -p oxmcp-bench)
command -v valgrind >/dev/null || { echo "telemetry-cost: valgrind is needed" >&2; exit 1; }
# "Off" means none of the standard variables, whatever this shell has.
for v in ${!OTEL_@}; do unset "$v"; done
scratch="$(mktemp -d)"
sink_pid=
trap 'kill $sink_pid 2>/dev/null || true; rm -rf "$scratch"' EXIT

# The OTLP sink: takes every export and answers 200.
python3 -c '
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200); self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
print(s.server_address[1], flush=True)
s.serve_forever()' >"$scratch/port" &
sink_pid=$!
for _ in $(seq 50); do [[ -s "$scratch/port" ]] && break; sleep 0.1; done
sink="http://127.0.0.1:$(cat "$scratch/port")"

# per_call LABEL SERVER [VAR=VALUE...]: SERVER serve --stdio under callgrind, driven by $rust.
per_call() {
    local label="$1" server="$2"
    shift 2
    local counts=()
    for n in "$n1" "$n2"; do
        "$rust" drive --workload seq --n "$n" --warmup 50 -- env "$@" \
            valgrind -q --tool=callgrind --callgrind-out-file="$scratch/cg.$n" "$server" serve --stdio >/dev/null 2>&1
        counts+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$scratch/cg.$n")")
    done
    echo "$label: $(( (counts[1] - counts[0]) / (n2 - n1) )) instructions per call"
}
if [[ -n "${1:-}" ]]; then per_call "baseline ($1)" "$1" OXMCP_TELEMETRY_COST=1; fi
per_call "telemetry off" "$rust" OXMCP_TELEMETRY_COST=1
per_call "telemetry on (OTLP to a local sink)" "$rust" OTEL_EXPORTER_OTLP_ENDPOINT="$sink" OTEL_BSP_SCHEDULE_DELAY=200
