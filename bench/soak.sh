#!/usr/bin/env bash
# The soak: the oxmcp Rust, Python and Node suite servers (bench/suite/PROTOCOL.md) each
# take CALLS calls (default 1,000,000) over stdio and over Streamable HTTP from
# `oxmcp-bench soak`: 16 in flight, 4% cancelled a moment after they start, 4% with a
# 1-5 ms timeout, and over HTTP 2% sent on a connection the client closes without reading
# the answer. One JSON line per run: what was done, the errors the client did not cause
# (must be 0) and the server's resident memory through the run: growth is counted from
# the end of warm-up (25% of the calls) to the end. Goal: growth after warm-up under 2 MB (2,048 KiB).
#
# A run fails when any call ended in an error the client did not cause. The test command
# runs a bounded form (SOAK_PROFILE=debug, Rust only, a few thousand calls): the debug
# build the tests made, no Python or Node set-up; memory figures then mean little.
#
#   bash bench/soak.sh [CALLS] [rust,python,node]
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/ensure-toolchain.sh
calls="${1:-1000000}"
hosts="${2:-rust,python,node}"
if [ "${SOAK_PROFILE:-release}" = debug ] && [ "$hosts" = rust ]; then
    cargo build -q -p oxmcp-bench
    rust="$CARGO_TARGET_DIR/debug/oxmcp-bench"
else
    with_rmcp=0 source "$bench/setup.sh"
    rust="$CARGO_TARGET_DIR/release/oxmcp-bench"
fi
server_cmd() {
    case "$1" in
        rust) echo "$rust serve" ;;
        python) echo "$bench/.venv/bin/python $bench/python/oxmcp_server.py" ;;
        node) echo "node $bench/suite/node/server.mjs --impl oxmcp" ;;
    esac
}
# Whether a run's line counts no unexpected error.
clean() { grep -q '"unexpected":0[,}]' <<<"$1"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

failed=0
for host in ${hosts//,/ }; do
    read -r -a cmd <<<"$(server_cmd "$host")"
    echo "== $host, stdio" >&2
    out="$("$rust" soak --calls "$calls" -- "${cmd[@]}" --stdio)" || failed=1
    echo "{\"host\": \"$host\", \"transport\": \"stdio\", \"run\": $out}"
    clean "$out" || failed=1

    echo "== $host, Streamable HTTP" >&2
    port="$(free_port)"
    "${cmd[@]}" --http "$port" 2>/dev/null &
    pid=$!
    for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
    out="$("$rust" soak --calls "$calls" --url "http://127.0.0.1:$port/mcp" --pid "$pid")" || failed=1
    clean "$out" || failed=1
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "{\"host\": \"$host\", \"transport\": \"http\", \"run\": $out}"
done
exit "$failed"
