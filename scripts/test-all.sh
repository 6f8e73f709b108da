#!/usr/bin/env bash
# Every test suite: style (cargo fmt, clippy -D warnings), the Rust workspace (engine,
# roles, randomized invariants, schema validation of the bytes oxmcp writes, child
# processes, HTTP, the stateless era), the README's demo, each binding's suite (Python,
# Node, C, C#, Java, Kotlin), the official conformance suite, OAuth against a real authorization
# server (oidc-provider), interop against the official TypeScript and Python SDKs,
# OpenTelemetry in a real Jaeger and Prometheus,
# scale-out (three nodes behind haproxy on a Redis server), the fuzz targets and the soak in a
# bounded form (so neither can rot), Windows under wine, Linux arm64 under qemu and Linux
# with musl, then the packages of dist/ (scripts/package.sh) installed and used with no Rust
# toolchain. Installs what it needs itself
# (npm packages, Node 22 for the conformance suite, Python venvs, mono, Maven
# dependencies, redis-server and haproxy).
#
# Every suite runs even when an earlier one failed; the output ends with each runner's own
# summary line, and the exit status is non-zero if any suite failed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh
# A fresh checkout gains nothing from incremental caches, and debug info is most of a
# target directory: with full debug info a fresh clone's came to 16 GB, with line tables a
# run still left 20 GB behind, and a full disk failed CI twice. Without it a test binary is
# a quarter of the size; a failing assertion still names its file and line, and a backtrace
# its functions.
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=0
export CARGO_PROFILE_RELEASE_DEBUG=0
root="$PWD"
run_start=$SECONDS
# Its own name, so a sweep of /tmp/tmp.* elsewhere cannot take it mid-run.
logs="$(mktemp -d -t oxmcp-test-all.XXXXXX)"
trap 'rm -rf "$logs"' EXIT
touch "$logs/started"

# suite NAME SUMMARY_REGEX COMMAND...: runs COMMAND, keeps its output, remembers failure
# (as a file, so a suite run in the background lane below counts too). QUIET=1 keeps the
# output in the log only (the background lane's, printed whole once it ends).
suite() {
    local name="$1" pattern="$2"
    shift 2
    local start=$SECONDS
    if [[ -n "${QUIET:-}" ]]; then
        "$@" >"$logs/$name.log" 2>&1 || touch "$logs/$name.failed"
    else
        echo
        echo "== $name"
        if "$@" 2>&1 | tee "$logs/$name.log"; then :; else touch "$logs/$name.failed"; fi
    fi
    grep -E "$pattern" "$logs/$name.log" | tail -n 40 >"$logs/$name.summary" || true
    # How long each suite takes, in the summary: where CI time goes.
    echo "($name took $((SECONDS - start)) s, ended $((SECONDS - run_start)) s into the run)" >>"$logs/$name.summary"
}

# House style first: rustfmt.toml's format and no clippy warning anywhere.
# The engine without its default `http` feature (stdio and memory only) must build too.
suite style '^style: ' bash -c 'cargo fmt --all -- --check && cargo clippy -q --workspace --all-targets -- -D warnings && cargo clippy -q -p oxmcp --no-default-features --lib -- -D warnings && echo "style: cargo fmt and clippy clean (also without the http feature)"'

# Portability: clippy for Windows and macOS on the engine, the CLI and the bindings'
# native libraries (scripts/cross-check.sh).
suite portability '^cross-check: ' bash scripts/cross-check.sh

# The schema tests (Rust and Python) read the specification's schemas from ../shared/spec (or
# OXMCP_SPEC_DIR); under CI they fail instead of skipping when they are missing. A clone made
# elsewhere finds them beside the checkout it was cloned from.
if [[ -z "${OXMCP_SPEC_DIR:-}" && ! -d "$root/../shared/spec" ]]; then
    origin="$(git config --get remote.origin.url 2>/dev/null || true)"
    if [[ -n "$origin" && -d "$origin/../shared/spec" ]]; then
        export OXMCP_SPEC_DIR="$(cd "$origin/../shared/spec" && pwd)"
    fi
fi
suite rust '^test result:' cargo test --workspace --no-fail-fast
cargo build -q -p oxmcp-cli || touch "$logs/oxmcp-cli-build.failed"
export OXMCP_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/oxmcp"

# The README's demo, on that build, so it cannot break unseen.
suite demo '^demo passed' bash scripts/demo.sh

# Two lanes side by side, so the 2 cores stay busy: lane A builds the release packages and
# the other platforms, mostly one rustc or linker at a time; lane B runs the suites that
# mostly wait on sockets, child processes and JVMs, then the bounded fuzzing and soak. Every
# npm, venv and Maven install of a test suite stays in lane B, so no two installs race; the
# shared Maven modules take turns through their .run-tests.lock. The Python, Node, scale-out and telemetry suites wait for lane A's
# package (they test the wheel and addon built there), and tests/packages runs last.
lane_a() {
    # The packages a user installs without Rust (dist/); tests/packages then runs every
    # artifact's consumer at the end.
    suite package '^package: ' bash scripts/package.sh
    if [[ ! -e "$logs/package.failed" ]]; then touch "$logs/package.ok"; fi
    touch "$logs/package.done"
    # Other platforms by running: Windows under wine (the CLI, its Job Object, the C suite and
    # Node for Windows), Linux arm64 under qemu-user, Linux with musl (scripts/wine-run.sh,
    # scripts/qemu-run.sh, scripts/musl-run.sh).
    suite platforms '^((wine|qemu|musl)-run: |not ok - )' bash -c 'bash scripts/wine-run.sh; w=$?; bash scripts/qemu-run.sh; q=$?; bash scripts/musl-run.sh && [ "$w$q" = 00 ]'
}
echo
echo "== package, platforms: in the background (their output follows lane B's)"
QUIET=1 lane_a &
lane_a_pid=$!

# Jaeger for the telemetry suite builds (Go, minutes) beside lane B's waiting suites.
bash tests/telemetry/run.sh --prepare >"$logs/jaeger-build.log" 2>&1 &
jaeger_build_pid=$!
suite c '[0-9]+ passed, [0-9]+ failed' bash bindings-c/run-tests.sh
suite dotnet '[0-9]+ passed, [0-9]+ failed' bash bindings-dotnet/run-tests.sh
suite java 'Tests run: [0-9]+, Failures' bash bindings-java/run-tests.sh
suite kotlin 'Tests run: [0-9]+, Failures' bash bindings-kotlin/run-tests.sh
suite conformance 'passed, [0-9]+ failed' bash tests/conformance/run.sh
suite auth '^(ℹ|#) (tests|pass|fail) ' bash tests/auth/run.sh
suite interop '^(ℹ|#) (tests|pass|fail) ' bash tests/interop/run.sh
# Bounded: 15 s a fuzz target on a debug build, and 20,000 soak calls on each transport
# against the Rust server (no unexpected error); the full runs stay by hand.
suite hardening '^(line_framing|jsonrpc_envelope|sse_parser|uri_template|mirrored_headers|http_request) |"transport"' \
    bash -c 'FUZZ_OPTS="--dev --sanitizer none" bash fuzz/run.sh 15 && SOAK_PROFILE=debug bash bench/soak.sh 20000 rust'
while [[ ! -e "$logs/package.done" ]] && kill -0 "$lane_a_pid" 2>/dev/null; do sleep 5; done
if [[ -e "$logs/package.ok" ]]; then export OXMCP_DIST="$root/dist"; fi
suite python '[0-9]+ (passed|failed)' bash bindings-python/run-tests.sh
suite node '^(ℹ|#) (tests|pass|fail) ' bash bindings-node/run-tests.sh
# After python and node: its Python and Node nodes run the wheel and addon those installed,
# where before they were built again from source beside lane A's release builds.
suite scaleout '^(# (tests|pass|fail) |scale-out conformance)' bash tests/scaleout/run.sh
# OpenTelemetry in a real Jaeger (built from the Go module proxy) and Prometheus (Debian):
# one trace from the official TypeScript client through `oxmcp proxy` to a Python handler
# (on the wheel of dist/ when it was built).
wait "$jaeger_build_pid" || cat "$logs/jaeger-build.log"
suite telemetry '^(ℹ|#) (tests|pass|fail) ' bash tests/telemetry/run.sh
wait "$lane_a_pid"
for name in package platforms; do
    echo
    echo "== $name (lane A)"
    cat "$logs/$name.log" 2>/dev/null
done
if [[ -n "${OXMCP_DIST:-}" ]]; then
    suite packages '^(ℹ|#) (tests|pass|fail) ' bash tests/packages/run.sh
else
    echo "== packages: not run, scripts/package.sh failed"
fi

# One build of the engine per target and profile (.config/hakari.toml): a second one means
# that a dependency's features split between two cargo invocations again, which cost this run
# minutes and gigabytes. Only this run's builds count (a reused target directory keeps old ones).
engine_builds() {
    local target="${CARGO_TARGET_DIR:-$root/target}" dir n status=0
    for dir in "$target"/debug "$target"/release "$target"/*/debug "$target"/*/release; do
        [[ -d "$dir/deps" ]] || continue
        n="$(find "$dir/deps" -maxdepth 1 -name 'liboxmcp-*.rlib' -newer "$logs/started" | wc -l)"
        [[ "$n" -le 1 ]] || { echo "engine-builds: $n builds of the engine in ${dir#"$target"/}"; status=1; }
    done
    [[ $status -ne 0 ]] || echo "engine-builds: at most one build of the engine per target and profile"
    return $status
}
suite builds '^engine-builds: ' engine_builds

echo
echo "== summary (each runner's own lines)"
for name in style portability rust demo package python node telemetry c dotnet java kotlin conformance auth interop scaleout hardening platforms packages builds; do
    echo "-- $name"
    cat "$logs/$name.summary" 2>/dev/null
done
failed=("$logs"/*.failed)
if [[ -e "${failed[0]}" ]]; then
    echo "FAILED suites: $(basename -a -s .failed "${failed[@]}" | tr '\n' ' ')"
    exit 1
fi
echo "all suites passed"
