#!/usr/bin/env bash
# Builds liboxmcp_kotlin.so (the uniffi crate in native/) and generates its Kotlin side
# into DIR with uniffi's generator in library mode (what the library exports is what the
# Kotlin declares, so the two cannot drift). Maven runs it in generate-sources.
# Usage: generate.sh DIR    (CARGO_TARGET_DIR: the workspace's target/ by default)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$1"
source "$root/scripts/ensure-toolchain.sh"
target="${CARGO_TARGET_DIR:-$root/target}"
(cd "$root" && cargo build -q -p oxmcp-kotlin)
# The generator is a workspace of its own (bindgen/Cargo.toml says why), in the same target
# directory.
CARGO_TARGET_DIR="$target" cargo build -q --manifest-path "$here/bindgen/Cargo.toml"
rm -rf "$out"
"$target/debug/uniffi-bindgen" generate --no-format --library "$target/debug/liboxmcp_kotlin.so" \
  --language kotlin --out-dir "$out" >/dev/null
