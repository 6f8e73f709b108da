#!/usr/bin/env bash
# The release build for every platform (not part of the test command: it compiles the engine
# once per platform). For each platform it builds the CLI and the C library in one cargo
# run, checks each binary without running it (scripts/package/inspect.py: format, machine,
# imports, oldest OS, exported symbols) and writes into dist/release/:
#
#   oxmcp-V-cp39-abi3-TAG.whl        the Python wheel (maturin), tagged for the platform
#   oxmcp-V-PLATFORM[.exe]           the CLI, one standalone binary
#   oxmcp-c-V-PLATFORM.tar.gz|.zip   the C SDK: include/oxmcp.h and the shared and static
#                                    libraries (oxmcp.dll with its import library on Windows)
#   oxmcp-NPM-V.tgz                  the npm platform package (NPM: napi-rs's name for the
#                                    platform, win32-x64-msvc for Windows)
#   SHA256SUMS                       of every file here
#
# and, after the platforms, the packages that carry every platform built so far (this run's
# and earlier runs' at this version, kept in .natives/VERSION):
#
#   oxmcp-V.tgz                      npm's main package, naming every platform package
#   oxmcp-V.jar, oxmcp-kotlin-V.jar  the Java and Kotlin jars (+ sources, javadoc, poms),
#                                    with native/<platform>/ and JNA's <platform>/ folders
#   OxMcp.V.nupkg                    runtimes/<rid>/native/ of each platform
#
# Platforms: linux-x64-gnu linux-arm64-gnu (glibc 2.17), linux-x64-musl linux-arm64-musl,
# darwin-x64 darwin-arm64 (zig links them against text stubs of the system frameworks,
# scripts/package/macos-stubs.py), win32-x64 (mingw-w64). Linux and Windows binaries are run
# by the test command (wine, qemu); macOS ones are built and inspected only.
#
# Usage: bash scripts/release.sh [PLATFORM...]     (default: every platform)
# Checking them as the registries serve them: tests/packages/node/run.sh publishes every
# platform package it finds in dist/release/ and installs each with npm's --os/--cpu/--libc;
# tests/packages/python/run.sh resolves every wheel here with pip download --platform.
source "$(dirname "$0")/package/common.sh"
source "$ROOT/scripts/ensure-toolchain.sh"
out="$DIST/release"
mkdir -p "$out"
all=(linux-x64-gnu linux-arm64-gnu linux-x64-musl linux-arm64-musl darwin-x64 darwin-arm64 win32-x64)
platforms=("$@")
[[ $# -gt 0 ]] || platforms=("${all[@]}")

# The tools: cargo-zigbuild and zig (scripts/package/requirements.txt), mingw-w64, rustup's
# LLVM object tools for inspect.py.
if [[ ! -x "$TOOLS/bin/cargo-zigbuild" ]]; then
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/pip" install -q --disable-pip-version-check -r "$ROOT/scripts/package/requirements.txt"
fi
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ||
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mingw-w64) >/dev/null
rustup component add llvm-tools >/dev/null 2>&1

for platform in "${platforms[@]}"; do
  start=$SECONDS
  case "$platform" in
    # The rust target, zig's (none: mingw), and each host's name for the platform: npm's
    # (napi-rs's), the Java jar's folder (Native.platform()), JNA's resource folder (Kotlin;
    # JNA has none for musl) and .NET's runtime identifier.
    linux-x64-gnu) triple=x86_64-unknown-linux-gnu zig=$triple.2.17 npm=$platform java=linux-x86_64 jna=linux-x86-64 rid=linux-x64 ;;
    linux-arm64-gnu) triple=aarch64-unknown-linux-gnu zig=$triple.2.17 npm=$platform java=linux-aarch64 jna=linux-aarch64 rid=linux-arm64 ;;
    linux-x64-musl) triple=x86_64-unknown-linux-musl zig=$triple npm=$platform java=linux-musl-x86_64 jna="" rid=linux-musl-x64 ;;
    linux-arm64-musl) triple=aarch64-unknown-linux-musl zig=$triple npm=$platform java=linux-musl-aarch64 jna="" rid=linux-musl-arm64 ;;
    darwin-x64) triple=x86_64-apple-darwin zig=$triple npm=$platform java=macos-x86_64 jna=darwin-x86-64 rid=osx-x64 ;;
    darwin-arm64) triple=aarch64-apple-darwin zig=$triple npm=$platform java=macos-aarch64 jna=darwin-aarch64 rid=osx-arm64 ;;
    win32-x64) triple=x86_64-pc-windows-gnu zig="" npm=win32-x64-msvc java=windows-x86_64 jna=win32-x86-64 rid=win-x64 ;;
    *) log "unknown platform $platform (one of: ${all[*]})"; exit 1 ;;
  esac
  rustup target add "$triple" >/dev/null 2>&1 || { log "rustup target add $triple failed"; exit 1; }
  flags_var="CARGO_TARGET_$(echo "$triple" | tr 'a-z-' 'A-Z_')_RUSTFLAGS"
  flags=""
  unset MACOSX_DEPLOYMENT_TARGET # set below for macOS alone
  case "$platform" in
    # musl's static C runtime allows no shared library: the C library and the CLI link musl
    # dynamically, as every program on a musl distribution does.
    *-musl) flags="-C target-feature=-crt-static" ;;
    darwin-*)
      # The oldest macOS each architecture's Rust target supports; zig's default is its own
      # newest.
      if [[ "$platform" == darwin-arm64 ]]; then export MACOSX_DEPLOYMENT_TARGET=11.0; else export MACOSX_DEPLOYMENT_TARGET=10.12; fi
      stubs="$CARGO_TARGET_DIR/macos-stubs/$triple"
      rm -rf "$stubs"
      python3 "$ROOT/scripts/package/macos-stubs.py" "$stubs" "$triple"
      flags="-C link-arg=-F$stubs" ;;
  esac
  # napi-rs links a Windows GNU addon against libnode: an import library naming node.exe,
  # which exports N-API and libuv.
  [[ "$platform" == win32-* ]] && export LIBNODE_PATH="$(bash "$ROOT/scripts/package/node-import-lib.sh")"
  crates=(-p oxmcp-cli -p oxmcp-c -p oxmcp-node -p oxmcp-java -p oxmcp-kotlin)
  log "$platform: cargo build --release --target $triple ${crates[*]}"
  strip_cli='--config=profile.release.package.oxmcp-cli.strip="symbols"'
  if [[ -n "$zig" ]]; then
    (cd "$ROOT" && env "$flags_var=$flags" cargo zigbuild --quiet --release "$strip_cli" --target "$zig" "${crates[@]}")
  else
    (cd "$ROOT" && env "$flags_var=$flags" cargo build --quiet --release "$strip_cli" --target "$triple" "${crates[@]}")
  fi
  # The wheel: maturin drives the same cargo build (same target, flags and profile), so the
  # engine is not compiled again.
  case "$platform" in
    *-gnu) wheel_args=(--zig --compatibility manylinux2014) tag="manylinux_2_17_${triple%%-*}" ;;
    *-musl) wheel_args=(--zig --compatibility musllinux_1_2) tag="musllinux_1_2_${triple%%-*}" ;;
    darwin-x64) wheel_args=(--zig) tag=macosx_10_12_x86_64 ;;
    darwin-arm64) wheel_args=(--zig) tag=macosx_11_0_arm64 ;;
    win32-*) wheel_args=() tag=win_amd64 ;;
  esac
  rm -f "$out"/oxmcp-"$VERSION"-cp39-abi3-*"$tag"*.whl
  (cd "$ROOT" && env "$flags_var=$flags" maturin build --quiet --release "${wheel_args[@]}" --target "$triple" \
    -m bindings-python/Cargo.toml -o "$out") >&2
  wheel="$(ls "$out"/oxmcp-"$VERSION"-cp39-abi3-*"$tag"*.whl 2>/dev/null)" ||
    { log "$platform: maturin made no wheel tagged $tag: $(ls "$out"/*.whl)"; exit 1; }
  ext="$(unzip -Z1 "$wheel" | grep -E '^oxmcp/_oxmcp\.(abi3\.so|pyd)$')" || { log "$platform: no extension module in $wheel"; exit 1; }
  unzip -p "$wheel" "$ext" >"$CARGO_TARGET_DIR/$triple/release/wheel-${ext##*/}"
  python3 "$ROOT/scripts/package/inspect.py" "$platform" "$CARGO_TARGET_DIR/$triple/release/wheel-${ext##*/}" PyInit__oxmcp

  built="$CARGO_TARGET_DIR/$triple/release"
  case "$platform" in
    win32-*) exe=oxmcp.exe shared=(oxmcp.dll liboxmcp.dll.a) static=liboxmcp.a prefix="" suffix=.dll ;;
    darwin-*) exe=oxmcp shared=(liboxmcp.dylib) static=liboxmcp.a prefix=lib suffix=.dylib ;;
    *) exe=oxmcp shared=(liboxmcp.so) static=liboxmcp.a prefix=lib suffix=.so ;;
  esac
  lib() { echo "$prefix$1$suffix"; } # a cdylib's file name on the platform
  python3 "$ROOT/scripts/package/inspect.py" "$platform" "$built/$exe"
  python3 "$ROOT/scripts/package/inspect.py" "$platform" "$built/${shared[0]}" oxmcp_version oxmcp_runtime_new oxmcp_client_connect
  python3 "$ROOT/scripts/package/inspect.py" --addon "$platform" "$built/$(lib oxmcp_node)" napi_register_module_v1
  python3 "$ROOT/scripts/package/inspect.py" "$platform" "$built/$(lib oxmcp_java)" Java_dev_oxmcp_Native_clientCall
  python3 "$ROOT/scripts/package/inspect.py" "$platform" "$built/$(lib oxmcp_kotlin)" ffi_oxmcp_kotlin_uniffi_contract_version

  # The libraries the jars and the nupkg carry, kept per version so that the platforms of
  # earlier runs join them (packed after the loop, below).
  natives="$out/.natives/$VERSION"
  mkdir -p "$natives/java/native/$java" "$natives/nuget/runtimes/$rid/native"
  install -m 644 "$built/$(lib oxmcp_java)" "$natives/java/native/$java/"
  install -m 644 "$built/${shared[0]}" "$natives/nuget/runtimes/$rid/native/"
  if [[ -n "$jna" ]]; then
    mkdir -p "$natives/kotlin/$jna"
    install -m 644 "$built/$(lib oxmcp_kotlin)" "$natives/kotlin/$jna/"
  fi
  # The npm platform package, as scripts/package/node.sh makes linux-x64-gnu's.
  stage="$(mktemp -d)"
  install -m 644 "$built/$(lib oxmcp_node)" "$stage/oxmcp.$npm.node"
  node "$ROOT/scripts/package/npm-manifests.mjs" "$ROOT/bindings-node/package.json" "$VERSION" platform "$stage" "$npm"
  (cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
  rm -rf "$stage"

  cli="$out/oxmcp-$VERSION-$platform${exe#oxmcp}"
  install -m 755 "$built/$exe" "$cli"
  stage="$(mktemp -d)"
  sdk="$stage/oxmcp-c-$VERSION"
  mkdir -p "$sdk/include" "$sdk/lib"
  cp "$ROOT/bindings-c/include/oxmcp.h" "$sdk/include/"
  for lib in "${shared[@]}" "$static"; do cp "$built/$lib" "$sdk/lib/"; done
  printf 'oxmcp %s for C, %s: include/oxmcp.h and lib/ (%s). See bindings-c/README.md.\n' \
    "$VERSION" "$platform" "$(cd "$sdk/lib" && echo *)" >"$sdk/README.md"
  mtime="@${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct)}"
  find "$stage" -exec touch -d "$mtime" {} +
  if [[ "$platform" == win32-* ]]; then
    archive="$out/oxmcp-c-$VERSION-$platform.zip"
    rm -f "$archive"
    (cd "$stage" && python3 -m zipfile -c "$archive" "oxmcp-c-$VERSION")
  else
    archive="$out/oxmcp-c-$VERSION-$platform.tar.gz"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$mtime" -C "$stage" -cf - "oxmcp-c-$VERSION" | gzip -6n >"$archive"
  fi
  rm -rf "$stage"
  log "$platform: $(basename "$wheel") $(du -h "$wheel" | cut -f1), $(basename "$cli") $(du -h "$cli" | cut -f1), $(basename "$archive") $(du -h "$archive" | cut -f1) ($((SECONDS - start)) s)"
done

# The packages that carry every platform: npm's main package (its loader, native.cjs, names
# every platform's package; node.sh also remakes linux-x64-gnu's, from the same build), the
# Java and Kotlin jars and the nupkg, with the libraries of every platform built so far.
natives="$out/.natives/$VERSION"
log "the npm main package, the jars and the nupkg for: $(cd "$natives/nuget/runtimes" && echo *)"
OXMCP_DIST="$out" bash "$ROOT/scripts/package/node.sh"
for artifact in java kotlin dotnet; do
  OXMCP_DIST="$out" OXMCP_NATIVES="$natives" bash "$ROOT/scripts/package/$artifact.sh"
done

(cd "$out" && rm -f SHA256SUMS && sha256sum -- oxmcp-* OxMcp.* >SHA256SUMS)
log "dist/release:"
(cd "$out" && ls -l --block-size=K) >&2
echo "release: $(grep -c . "$out/SHA256SUMS") files for ${#platforms[@]} platforms in $out at version $VERSION"
