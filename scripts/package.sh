#!/usr/bin/env bash
# Builds every artifact a user installs without a Rust toolchain into dist/ (git-ignored),
# for linux x86_64, all at the workspace's version (Cargo.toml, [workspace.package]):
#
#   oxmcp-V-cp39-abi3-manylinux_2_17_x86_64.*.whl, oxmcp-V.tar.gz   Python wheel and sdist
#   oxmcp-V.tgz, oxmcp-linux-x64-gnu-V.tgz                          npm package + its platform package
#   oxmcp-V.jar (+ -sources, -javadoc, .pom)                         Java, JNI library inside; also mvn-installed
#   oxmcp-kotlin-V.jar (+ -sources, .pom)                            Kotlin, uniffi library inside; likewise
#   OxMcp.V.nupkg                                                    .NET, managed assembly + native library
#   oxmcp-c-V-linux-x86_64.tar.gz                                    C: header, .so, .a, pkg-config, CMake
#   oxmcp                                                            the CLI, one binary
#
# Native code links with zig against glibc 2.17 (manylinux2014's floor); the build tools
# (maturin, cargo-zigbuild, zig, auditwheel) are installed into dist/.tools from PyPI.
# Usage: bash scripts/package.sh
source "$(dirname "$0")/package/common.sh"
here="$ROOT/scripts/package"
mkdir -p "$DIST"
source "$ROOT/scripts/ensure-toolchain.sh"

# The tools, reinstalled when their pinned list changes.
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$TOOLS/bin/maturin" || "$(cat "$TOOLS/.stamp" 2>/dev/null)" != "$want" ]]; then
  log "build tools into $TOOLS"
  rm -rf "$TOOLS"
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" >"$TOOLS/.stamp"
fi
log "version $VERSION"
# Nothing of an earlier build (another version's files) stays beside this one's.
(cd "$DIST" && rm -f -- *.whl *.tar.gz *.tgz *.jar *.pom *.nupkg oxmcp)

# maturin and napi each drive their own cargo build; the C ABI, JNI and uniffi libraries and CLI share
# one. All three use the same target, profile and linker, so the engine compiles once.
bash "$here/python.sh"
bash "$here/node.sh"
log "cargo zigbuild: the C ABI, the JNI and uniffi libraries and the CLI"
# The CLI's own strip setting in Cargo.toml outranks CARGO_PROFILE_RELEASE_STRIP (common.sh).
strip_cli='--config=profile.release.package.oxmcp-cli.strip="symbols"'
(cd "$ROOT" && cargo zigbuild --quiet --release "$strip_cli" --target "$ZIG_TARGET" -p oxmcp-c -p oxmcp-java -p oxmcp-kotlin -p oxmcp-cli)
bash "$here/cli.sh"
bash "$here/c.sh"
bash "$here/java.sh"
bash "$here/kotlin.sh"
bash "$here/dotnet.sh"

log "dist/:"
(cd "$DIST" && ls -l --block-size=K -- *.whl *.tar.gz *.tgz *.jar *.pom *.nupkg oxmcp) >&2
echo "package: $(cd "$DIST" && ls -- *.whl *.tar.gz *.tgz *.jar *.pom *.nupkg oxmcp | wc -l) artifacts in $DIST at version $VERSION"
