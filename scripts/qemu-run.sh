#!/usr/bin/env bash
# Linux arm64 by running: the CLI built for aarch64-unknown-linux-gnu (Debian's cross gcc
# links it against Debian's arm64 glibc), run under qemu-user (qemu-aarch64):
#   1. the x86_64 `oxmcp call` -> the arm64 `oxmcp everything-server --stdio` (both eras, a
#      task);
#   2. the arm64 `oxmcp call` -> an arm64 child server it starts;
#   3. no orphan: the arm64 client killed (SIGKILL) while its child, a program that reads no
#      stdin (`sleep`), runs: the child must end with it (and, the control, a child of a
#      shell killed the same way outlives it);
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

# No orphan: the child is `sleep`, which reads no stdin, so only the tie the arm64 client
# made (its supervisor, under qemu's system-call emulation) can end it when the client is
# killed outright. A parent that ties nothing is the control: its child must outlive it.
orphan_check() { # orphan_check WANT(ended|survived) NAME ARGS_OF_SLEEP PARENT_COMMAND...
  local want="$1" name="$2" pattern="sleep $3" parent child="" ended=1 state
  shift 3
  "$@" >/dev/null 2>&1 &
  parent=$!
  for _ in $(seq 200); do
    child="$(pgrep -x -f -- "$pattern" | head -1)"
    [ -n "$child" ] && break
    sleep 0.1
  done
  sleep 1 # the parent is waiting for its child
  kill -KILL "$parent"
  wait "$parent" 2>/dev/null
  for _ in $(seq 50); do
    state="$(ps -o stat= -p "${child:-0}" 2>/dev/null || true)"
    if [ -z "$state" ] || [[ "$state" == Z* ]]; then ended=0; break; fi
    sleep 0.1
  done
  [ -n "$child" ] && kill -KILL "$child" 2>/dev/null
  if [ "$want" = ended ]; then [ -n "$child" ] && [ "$ended" = 0 ]; else [ -n "$child" ] && [ "$ended" = 1 ]; fi
  check "$name (child pid ${child:-none})" $?
}
orphan_check ended "the arm64 client SIGKILLed: its child ended within 5 s" 127 \
  "${qemu[@]}" "$arm" call echo text=x sleep 127
orphan_check survived "control: a shell SIGKILLed, its child outlives it" 128 bash -c 'sleep 128 & wait'

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
