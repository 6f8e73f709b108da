#!/usr/bin/env bash
# Linux arm64 by running: the CLI built for aarch64-unknown-linux-gnu (Debian's cross gcc
# links it against Debian's arm64 glibc), run under qemu-user (qemu-aarch64):
#   1. the x86_64 `oxmcp call` -> the arm64 `oxmcp everything-server --stdio` (both eras, a
#      task);
#   2. the arm64 `oxmcp call` -> an arm64 child server it starts;
#   3. no orphan: the arm64 client killed (SIGKILL), and interrupted (Ctrl-C), while its
#      child, a program that reads no stdin (`sleep`), keeps it connecting: the child must
#      end with it (and, the control, a child of a shell killed the same way outlives it);
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
source scripts/run-checks.sh

machine="$(od -An -tx1 -j18 -N2 "$arm" | tr -d ' ')"
[ "$machine" = "b700" ]; check "the binary is an ELF for aarch64 (e_machine $machine)" $?
out="$("${qemu[@]}" "$arm" --version 2>&1)"
[[ "$out" == "oxmcp "* ]]; check "runs under qemu-aarch64: $out" $?
cli_checks arm64 "$linux" "$arm" "${qemu[@]}"
orphan_check ended KILL "the arm64 client SIGKILLed while connecting: its child ended within 5 s" 127 \
  "${qemu[@]}" "$arm" call echo text=x sleep 127
orphan_check ended INT "the arm64 client interrupted (Ctrl-C) while connecting: its child ended within 5 s" 126 \
  "${qemu[@]}" "$arm" call echo text=x sleep 126
orphan_check survived KILL "control: a shell SIGKILLed, its child outlives it" 128 bash -c 'sleep 128 & wait'

# The C suite's programs, static against the arm64 library; each prints "N passed, M failed".
build="$target_dir/$triple/c-tests"
mkdir -p "$build"
for prog in client_test scenario_client scenario_server; do
  aarch64-linux-gnu-gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Ibindings-c/include \
    "bindings-c/tests/$prog.c" -o "$build/$prog" "$target_dir/$triple/debug/liboxmcp.a" -lpthread -ldl -lm -Wl,--gc-sections
  check "aarch64-linux-gnu-gcc $prog.c against the arm64 liboxmcp.a" $?
done
for era in session stateless; do
  counted "C client (arm64) -> x86_64 everything-server, $era era" "${qemu[@]}" "$build/client_test" stdio "$linux" "$era"
  counted "scenarios, C client -> C server (both arm64), $era era" \
    "${qemu[@]}" "$build/scenario_client" tests/scenarios/scenarios.json "$era" "${qemu[@]}" "$build/scenario_server"
done

summary qemu-run
