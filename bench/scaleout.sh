#!/usr/bin/env bash
# Scale-out cost: oxmcp-bench's HTTP workload (1,000 sequential echo calls, then 5,000 with
# 64 in flight, over one session) through haproxy (round-robin, no affinity) in front of
#   - 1 node, sessions in memory (the baseline: what the balancer alone costs),
#   - 1 node sharing its sessions through Redis,
#   - 3 nodes sharing their sessions through Redis,
# in interleaved rounds (default 5), each setup started afresh per round. Prints medians and
# ranges, and the latency Redis adds per sequential call. Release builds; installs
# redis-server and haproxy from Debian when missing (tests/scaleout/cluster.sh).
#
#   bash bench/scaleout.sh [ROUNDS]
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
rounds="${1:-5}"
(cd "$root" && cargo build -q --release -p oxmcp-cli -p oxmcp-bench)
OXMCP_BIN="$CARGO_TARGET_DIR/release/oxmcp"
source "$root/tests/scaleout/cluster.sh"
cluster_install

work="$(mktemp -d)"
trap 'cluster_stop; rm -rf "$work"' EXIT
results="$work/results.jsonl"

for round in $(seq "$rounds"); do
  for setup in memory-1 redis-1 redis-3; do
    case "$setup" in
      memory-1) NODE_CMD="$OXMCP_BIN everything-server --http 127.0.0.1:{port}"; n=1 ;;
      redis-1) NODE_CMD="$OXMCP_BIN everything-server --http 127.0.0.1:{port} --redis {redis}"; n=1 ;;
      redis-3) NODE_CMD="$OXMCP_BIN everything-server --http 127.0.0.1:{port} --redis {redis}"; n=3 ;;
    esac
    export NODE_CMD
    cluster_start "$n" "$work/$setup-$round"
    "$CARGO_TARGET_DIR/release/oxmcp-bench" --only http --url "$LB_URL" --rounds 1 --json 2>"$work/$setup-$round.err" |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"setup": sys.argv[1], "round": int(sys.argv[2]), "report": d}))' \
        "$setup" "$round" >>"$results"
    cluster_stop
    echo "round $round/$rounds: $setup done" >&2
  done
done

python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]

def pick(report, *keys):
    """The first number found under any of these key paths (the bench's JSON layout)."""
    for path in keys:
        v = report
        for k in path.split("."):
            v = v.get(k) if isinstance(v, dict) else None
        if isinstance(v, (int, float)):
            return float(v)
    raise KeyError(f"none of {keys} in {json.dumps(report)[:400]}")

by = {}
for r in rows:
    rep = r["report"]["http"]
    by.setdefault(r["setup"], []).append({
        "seq_rate": pick(rep, "summary.sequential.calls_per_s.median"),
        "seq_p50": pick(rep, "summary.sequential.p50_us.median"),
        "conc_rate": pick(rep, "summary.concurrent.calls_per_s.median"),
    })

def line(name, values, unit):
    values = sorted(values)
    return f"{name:<34} {statistics.median(values):>9.0f} {unit}  [{values[0]:.0f} - {values[-1]:.0f}]"

print(f"through haproxy, {len(by['memory-1'])} interleaved rounds: median [min - max]")
for setup, label in [("memory-1", "1 node, in memory"), ("redis-1", "1 node, Redis"), ("redis-3", "3 nodes, Redis")]:
    rs = by[setup]
    print(label)
    print("  " + line("sequential", [r["seq_rate"] for r in rs], "calls/s"))
    print("  " + line("sequential p50", [r["seq_p50"] for r in rs], "us"))
    print("  " + line("64 in flight", [r["conc_rate"] for r in rs], "calls/s"))
base = statistics.median(r["seq_p50"] for r in by["memory-1"])
for setup in ("redis-1", "redis-3"):
    added = statistics.median(r["seq_p50"] for r in by[setup]) - base
    ratio = statistics.median(r["conc_rate"] for r in by[setup]) / statistics.median(r["conc_rate"] for r in by["memory-1"])
    print(f"{setup}: +{added:.0f} us per sequential call (p50), 64 in flight at {ratio:.2f}x the in-memory node")
PY
