#!/usr/bin/env bash
# Portability proof: the engine, the CLI and every binding's native library pass clippy
# (-D warnings) for Windows (x86_64-pc-windows-gnu) and macOS (aarch64-apple-darwin), so a
# Linux-only call cannot land unseen. Installs what it needs: the two targets' standard libraries (rustup),
# mingw-w64 (apt) and zig (PyPI `ziglang`, in a venv under the target directory) for the
# C code of the TLS crate's build script. Ends with "cross-check: N targets clean" or names
# the target that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-toolchain.sh
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
log() { printf '[cross-check] %s\n' "$*" >&2; }

rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin >/dev/null 2>&1 ||
  { log "rustup target add failed"; exit 1; }
if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
  log "apt-get install mingw-w64"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mingw-w64) >/dev/null ||
    { log "cannot install mingw-w64"; exit 1; }
fi
zig_venv="$target_dir/zig-venv"
if [ ! -x "$zig_venv/bin/python" ] || ! "$zig_venv/bin/python" -m ziglang version >/dev/null 2>&1; then
  log "pip install ziglang"
  python3 -m venv "$zig_venv"
  "$zig_venv/bin/python" -m pip install --quiet --disable-pip-version-check ziglang
fi
# zig as the macOS C compiler and archiver. The cc crate passes its own --target
# (arm64-apple-macosx), which is not zig's name for it: dropped.
wrappers="$target_dir/zig-wrappers"
mkdir -p "$wrappers"
cat >"$wrappers/cc-aarch64-macos" <<WRAP
#!/bin/sh
for a in "\$@"; do shift; case "\$a" in --target=*) ;; *) set -- "\$@" "\$a" ;; esac; done
exec "$zig_venv/bin/python" -m ziglang cc -target aarch64-macos "\$@"
WRAP
cat >"$wrappers/ar" <<WRAP
#!/bin/sh
exec "$zig_venv/bin/python" -m ziglang ar "\$@"
WRAP
chmod +x "$wrappers/cc-aarch64-macos" "$wrappers/ar"
export CC_aarch64_apple_darwin="$wrappers/cc-aarch64-macos" AR_aarch64_apple_darwin="$wrappers/ar"
# napi's build script for the Windows GNU target insists on a libnode.dll on LIBNODE_PATH
# to link against; clippy links nothing, so an empty one stands in.
mkdir -p "$target_dir/libnode-stub"
: >"$target_dir/libnode-stub/libnode.dll"
export LIBNODE_PATH="$target_dir/libnode-stub"
crates=(-p oxmcp -p oxmcp-cli -p oxmcp-python -p oxmcp-node -p oxmcp-c -p oxmcp-java -p oxmcp-kotlin)

clean=0
for target in x86_64-pc-windows-gnu aarch64-apple-darwin; do
  start=$SECONDS
  if cargo clippy -q "${crates[@]}" --target "$target" -- -D warnings; then
    echo "cross-check: $target clean ($((SECONDS - start)) s)"
    clean=$((clean + 1))
  else
    echo "cross-check: $target FAILED"
    exit 1
  fi
done
echo "cross-check: $clean targets clean"
