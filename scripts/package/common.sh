# Sourced by scripts/package.sh and each scripts/package/<artifact>.sh: where things are,
# the one version every artifact carries, and the release build of the native libraries.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIST="${OXMCP_DIST:-$ROOT/dist}"
# The version of every artifact: the workspace's, in Cargo.toml ([workspace.package]).
VERSION="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml")"
[[ -n "$VERSION" ]] || { echo "package: no [workspace.package] version in Cargo.toml" >&2; exit 1; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# Every native artifact links against glibc 2.17 (zig as the linker), the floor of
# manylinux2014, so the same files load on any Linux x86_64 distribution of the last decade.
TRIPLE="x86_64-unknown-linux-gnu"
ZIG_TARGET="$TRIPLE.2.17"
NATIVE="$CARGO_TARGET_DIR/$TRIPLE/release"
# Release artifacts carry no debug info and no symbol table beyond the exported ones.
export CARGO_PROFILE_RELEASE_DEBUG=0
export CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_INCREMENTAL=0
# Build tools of their own (maturin with zig, cargo-zigbuild, auditwheel), in a venv under dist/.
TOOLS="$DIST/.tools"
export PATH="$TOOLS/bin:$PATH"
log() { printf '[package] %s\n' "$*" >&2; }
