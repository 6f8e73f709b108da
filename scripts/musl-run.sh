#!/usr/bin/env bash
# Linux with musl by running: the CLI and the C library built for x86_64-unknown-linux-musl
# (cargo-zigbuild; the CLI links musl statically, so it runs on this glibc machine as on
# Alpine), and:
#   1. this machine's `oxmcp call` -> the musl `oxmcp everything-server --stdio` (both eras,
#      a task), and the musl client -> a musl child server it starts;
#   2. no orphan: the musl client killed (SIGKILL), and interrupted (Ctrl-C), while its
#      child, `sleep`, keeps it connecting (and the control: a shell's child outlives the
#      same kill);
#   3. the C ABI: bindings-c's test client and the shared scenarios' client and server,
#      compiled with zig's C compiler against the musl liboxmcp.a (static, zig's musl): the C
#      client against the musl everything-server, and C client against C server, each era.
# zig and cargo-zigbuild come from PyPI (pinned in scripts/package/requirements.txt) into a
# venv in the target folder. Ends with "musl-run: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
log() { printf '[musl-run] %s\n' "$*" >&2; }
tools="$target_dir/musl-tools"
if [ ! -x "$tools/bin/cargo-zigbuild" ]; then
  python3 -m venv "$tools" && "$tools/bin/pip" install -q --disable-pip-version-check \
    $(grep -E '^(cargo-zigbuild|ziglang)==' scripts/package/requirements.txt) ||
    { log "cannot install zig and cargo-zigbuild"; exit 1; }
fi
export PATH="$tools/bin:$PATH"
triple=x86_64-unknown-linux-musl
rustup target add "$triple" >/dev/null 2>&1 || { log "rustup target add failed"; exit 1; }
cargo zigbuild -q -p oxmcp-cli -p oxmcp-c --target "$triple" || exit 1
cargo build -q -p oxmcp-cli || exit 1
musl="$target_dir/$triple/debug/oxmcp"
linux="$target_dir/debug/oxmcp"
source scripts/run-checks.sh

kind="$(file -b "$musl" 2>/dev/null || true)"
out="$("$musl" --version 2>&1)"
[[ "$out" == "oxmcp "* ]]; check "the musl CLI runs here: $out (${kind%%,*})" $?
cli_checks musl "$linux" "$musl"
orphan_check ended KILL "the musl client SIGKILLed while connecting: its child ended within 5 s" 129 \
  "$musl" call echo text=x sleep 129
orphan_check ended INT "the musl client interrupted (Ctrl-C) while connecting: its child ended within 5 s" 131 \
  "$musl" call echo text=x sleep 131
orphan_check survived KILL "control: a shell SIGKILLed, its child outlives it" 130 bash -c 'sleep 130 & wait'

build="$target_dir/$triple/c-tests"
mkdir -p "$build"
for prog in client_test scenario_client scenario_server; do
  python3 -m ziglang cc -target x86_64-linux-musl -static -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
    -Ibindings-c/include "bindings-c/tests/$prog.c" -o "$build/$prog" "$target_dir/$triple/debug/liboxmcp.a" -lunwind
  check "zig cc (musl) $prog.c against the musl liboxmcp.a" $?
done
for era in session stateless; do
  counted "C client (musl) -> the musl everything-server, $era era" "$build/client_test" stdio "$musl" "$era"
  counted "scenarios, C client -> C server (both musl), $era era" \
    "$build/scenario_client" tests/scenarios/scenarios.json "$era" "$build/scenario_server"
done
summary musl-run
