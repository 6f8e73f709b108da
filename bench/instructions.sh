#!/usr/bin/env bash
# Instructions per call, counted by valgrind's callgrind: repeatable where times are not
# (a shared, noisy machine). For each server (oxmcp Rust, Python, Node) it runs the oxmcp
# Rust driver against it twice under callgrind, with N1 and N2 sequential `echo` calls over
# stdio, and prints (instructions at N2 - instructions at N1) / (N2 - N1): the server's cost
# of one call, start-up and warm-up cancelled out. The same for the oxmcp Rust, Python and
# Node clients against the Rust server. Run bench/compare.sh (or bench/setup.sh) once first:
# it builds and installs what this uses. Prints the figures and writes them to
# bench/INSTRUCTIONS.md. Usage: bash bench/instructions.sh [N1 N2]
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$bench/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
n1="${1:-200}"
n2="${2:-1200}"
rust="${OXMCP_BENCH:-$CARGO_TARGET_DIR/release/oxmcp-bench}"
py="$bench/.venv/bin/python"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Instructions of the program a callgrind run profiled (every thread, children excluded).
instructions() {
    local out="$1"
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

# valgrind's notes about syscalls it does not model (pidfd_open): not the program's output.
quiet() {
    grep -v -e '^--[0-9]*-- ' || true
}

# per_call LABEL SIDE CMD...: SIDE is "server" (CMD is a server, the Rust driver drives it)
# or "client" (CMD is a driver, pointed at the Rust server).
per_call() {
    local label="$1" side="$2"
    shift 2
    local counts=()
    for n in "$n1" "$n2"; do
        local out="$scratch/cg.$n.out"
        if [ "$side" = server ]; then
            "$rust" drive --workload seq --n "$n" --warmup 50 -- \
                valgrind -q --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2> >(quiet >&2)
        else
            valgrind -q --tool=callgrind --callgrind-out-file="$out" "$@" \
                --workload seq --n "$n" --warmup 50 -- "$rust" serve --stdio >/dev/null 2> >(quiet >&2)
        fi
        counts+=("$(instructions "$out")")
    done
    local per=$(( (counts[1] - counts[0]) / (n2 - n1) ))
    echo "$label: $per instructions per call"
    rows+=("| $label | $per |")
}
rows=()

per_call "oxmcp Rust server" server "$rust" serve --stdio
per_call "oxmcp Python server" server "$py" "$bench/python/oxmcp_server.py" --stdio
per_call "oxmcp Node server" server node "$bench/suite/node/server.mjs" --impl oxmcp --stdio
per_call "oxmcp Rust client" client "$rust" drive
per_call "oxmcp Python client" client "$py" "$bench/python/driver.py" --impl oxmcp
per_call "oxmcp Node client" client node "$bench/suite/node/driver.mjs" --impl oxmcp

{
    echo "# Instructions per call"
    echo
    echo "Written by \`bash bench/instructions.sh\` on $(date '+%Y-%m-%d %H:%M'): callgrind's instruction count"
    echo "over $n2 sequential stdio \`echo\` calls minus that over $n1, divided by $((n2 - n1)); servers"
    echo "driven by the oxmcp Rust client, clients against the oxmcp Rust server."
    echo
    echo "| program | instructions per call |"
    echo "|---|---|"
    printf '%s\n' "${rows[@]}"
} > "$bench/INSTRUCTIONS.md"
