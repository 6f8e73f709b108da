#!/usr/bin/env bash
# An import library for a Windows GNU Node addon: napi-rs's build script links the addon with
# `-lnode` from LIBNODE_PATH, and Node for Windows is one executable, node.exe, that exports
# N-API and libuv. mingw's dlltool makes `libnode.dll.a`, naming node.exe, from the N-API
# functions napi-sys declares and the libuv ones the binding declares (bindings-node/src).
# napi-build insists on finding a `libnode.dll` there too; the linker takes the import
# library before it, so an empty file stands in.
# Prints the folder (under CARGO_TARGET_DIR) to put in LIBNODE_PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${CARGO_TARGET_DIR:-$root/target}/libnode-import"
mkdir -p "$dir"
sys="$(cd "$root" && cargo metadata --format-version 1 --filter-platform x86_64-pc-windows-gnu |
  python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "napi-sys"))')"
{
  echo "LIBRARY node.exe"
  echo "EXPORTS"
  grep -ohE '\bfn (napi|node_api)_[a-z0-9_]+' "$(dirname "$sys")/src/functions.rs" | sed 's/^fn //'
  grep -ohE '\bfn uv_[a-z0-9_]+' "$root"/bindings-node/src/*.rs | sed 's/^fn //'
} | awk '!seen[$0]++' >"$dir/node.def"
x86_64-w64-mingw32-dlltool -d "$dir/node.def" -D node.exe -l "$dir/libnode.dll.a"
: >"$dir/libnode.dll"
echo "$dir"
