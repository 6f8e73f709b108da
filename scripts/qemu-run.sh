#!/usr/bin/env bash
# Linux arm64 by running: the CLI built for aarch64-unknown-linux-gnu (Debian's cross gcc
# links it against Debian's arm64 glibc), run under qemu-user (qemu-aarch64):
#   1. the x86_64 `oxmcp call` -> the arm64 `oxmcp everything-server --stdio` (both eras, a
#      task);
#   2. the arm64 `oxmcp call` -> an arm64 child server it starts;
#   3. no orphan: the arm64 client killed (SIGKILL) during a call: its child (an arm64
#      server too, under its own qemu) must end with it;
#   4. the C ABI: bindings-c's test client and the shared behaviour suite's client and
#      server (tests/scenarios), compiled with aarch64-linux-gnu-gcc against the arm64
#      liboxmcp.a: the C client against the x86_64 everything-server and the scenarios, arm64
#      client against arm64 server, in each era.
# Installs qemu-user and gcc-aarch64-linux-gnu (apt) when missing. Ends with
# "qemu-run: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
log() { printf '[qemu-run] %s\n' "$*" >&2; }
if ! command -v qemu-aarch64 >/dev/null 2>&1 || ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
  log "apt-get install qemu-user gcc-aarch64-linux-gnu"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user gcc-aarch64-linux-gnu) >/dev/null ||
    { log "cannot install qemu-user and gcc-aarch64-linux-gnu"; exit 1; }
fi
triple=aarch64-unknown-linux-gnu
rustup target add "$triple" >/dev/null 2>&1 || { log "rustup target add failed"; exit 1; }
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
cargo build -q -p oxmcp-cli -p oxmcp-c --target "$triple" || exit 1
cargo build -q -p oxmcp-cli || exit 1
arm="$target_dir/$triple/debug/oxmcp"
linux="$target_dir/debug/oxmcp"
# qemu-aarch64 finds the arm64 loader and glibc under Debian's cross sysroot.
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
qemu=(qemu-aarch64)
passed=0; failed=0
check() { if [ "$2" = 0 ]; then echo "ok - $1"; passed=$((passed + 1)); else echo "not ok - $1"; failed=$((failed + 1)); fi; }

machine="$(od -An -tx1 -j18 -N2 "$arm" | tr -d ' ')"
[ "$machine" = "b700" ]; check "the binary is an ELF for aarch64 (e_machine $machine)" $?
out="$("${qemu[@]}" "$arm" --version 2>&1)"
[[ "$out" == "oxmcp "* ]]; check "runs under qemu-aarch64: $out" $?
for era in session stateless; do
  out="$(timeout 120 "$linux" call --era "$era" echo text="hi from arm64" "${qemu[@]}" "$arm" everything-server --stdio 2>&1)"
  [ "$out" = "hi from arm64" ]; check "x86_64 client -> arm64 server over stdio ($era era): $out" $?
done
out="$(timeout 120 "$linux" call slow_compute seconds=1 label=a "${qemu[@]}" "$arm" everything-server --stdio 2>&1)"
[ "$out" = "a: computed in 1 s" ]; check "a task on the arm64 server: $out" $?
out="$(timeout 120 "${qemu[@]}" "$arm" call echo text=nested "${qemu[@]}" "$arm" everything-server --stdio 2>&1)"
[ "$out" = "nested" ]; check "arm64 client -> arm64 child server: $out" $?

# No orphan: the client is killed outright during a long call; its child (found by its
# exact command line) must end with it.
"${qemu[@]}" "$arm" call slow_compute seconds=60 label=orphan "${qemu[@]}" "$arm" everything-server --stdio >/dev/null 2>&1 &
client=$!
child=""
for _ in $(seq 200); do
  child="$(pgrep -fx -- "qemu-aarch64 $arm everything-server --stdio" | head -1)"
  [ -n "$child" ] && break
  sleep 0.1
done
[ -n "$child" ]; check "the arm64 client started its child (pid ${child:-none})" $?
sleep 2 # the call is under way
kill -KILL "$client"
wait "$client" 2>/dev/null
gone=1
for _ in $(seq 100); do
  if [ -z "$child" ] || ! kill -0 "$child" 2>/dev/null; then gone=0; break; fi
  sleep 0.1
done
check "the child ended within 10 s of its client's SIGKILL" $gone
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null

# The C suite's programs, static against the arm64 library; each prints "N passed, M failed".
build="$target_dir/$triple/c-tests"
mkdir -p "$build"
for prog in client_test scenario_client scenario_server; do
  aarch64-linux-gnu-gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Ibindings-c/include \
    "bindings-c/tests/$prog.c" -o "$build/$prog" "$target_dir/$triple/debug/liboxmcp.a" -lpthread -ldl -lm -Wl,--gc-sections
  check "aarch64-linux-gnu-gcc $prog.c against the arm64 liboxmcp.a" $?
done
counted() { # counted NAME COMMAND...: the program's own "N passed, 0 failed" line
  local out line
  out="$(timeout 300 "${@:2}" 2>/dev/null)"
  line="$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)"
  [[ -n "$line" && "$line" == *" 0 failed" && "$line" != "0 passed"* ]]; check "$1: ${line:-no summary}" $?
}
for era in session stateless; do
  counted "C client (arm64) -> x86_64 everything-server, $era era" "${qemu[@]}" "$build/client_test" stdio "$linux" "$era"
  counted "scenarios, C client -> C server (both arm64), $era era" \
    "${qemu[@]}" "$build/scenario_client" tests/scenarios/scenarios.json "$era" "${qemu[@]}" "$build/scenario_server"
done

echo "qemu-run: $passed passed, $failed failed"
[ "$failed" = 0 ]
