#!/usr/bin/env bash
# Builds the Kotlin programs of the cross-SDK benchmark (run.sh runs them):
#  1. liboxmcp_kotlin.so in release mode and uniffi's generator (bindings-kotlin/bindgen, a
#     workspace of its own; bindings-kotlin/generate.sh does the same in debug mode), in the
#     workspace's CARGO_TARGET_DIR (default: target/);
#  2. the Kotlin side of that library (uniffi-bindgen, library mode) into
#     target/generated-sources/uniffi, which pom.xml compiles with bindings-kotlin's API;
#  3. `mvn compile` (the official Kotlin SDK, Ktor and JNA from Maven Central) and the
#     classpath, written with the library's folder to target/java.args for `java @file`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/ensure-toolchain.sh"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
lib="$CARGO_TARGET_DIR/release/liboxmcp_kotlin.so"

(cd "$root" && cargo build --release -q -p oxmcp-kotlin)
cargo build -q --manifest-path "$root/bindings-kotlin/bindgen/Cargo.toml"
gen="$here/target/generated-sources/uniffi"
rm -rf "$gen"
"$CARGO_TARGET_DIR/debug/uniffi-bindgen" generate --no-format --library "$lib" \
  --language kotlin --out-dir "$gen" >/dev/null

cd "$here"
# In-process compilation: no Kotlin daemon left running (and using memory) during the runs.
mvn -B -q -ntp -Dstyle.color=never -Dkotlin.compiler.daemon=false \
  compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime >&2
printf -- '-cp\n%s\n-Djna.library.path=%s\n' "$here/target/classes:$(cat target/classpath.txt)" \
  "$(dirname "$lib")" >target/java.args
