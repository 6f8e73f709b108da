#!/usr/bin/env bash
# Windows by running: the CLI built for x86_64-pc-windows-gnu, run under wine (Debian
# wine64), as a server driven by the Linux client and as a client starting a Windows child:
#   1. Linux `oxmcp call` -> `wine oxmcp.exe everything-server --stdio` (both eras);
#   2. `wine oxmcp.exe call` -> a Windows child server it starts (the Job Object path);
#   3. no orphan: the Windows client killed (SIGKILL) while its child, a program that
#      reads no stdin (`ping`), runs: the Job Object's kill-on-close must end the child.
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
passed=0; failed=0
check() { if [ "$2" = 0 ]; then echo "ok - $1"; passed=$((passed + 1)); else echo "not ok - $1"; failed=$((failed + 1)); fi; }

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
WINEPREFIX="$WINEPREFIX" /usr/lib/wine/wineserver -k 2>/dev/null || true
echo "wine-run: $passed passed, $failed failed"
[ "$failed" = 0 ]
