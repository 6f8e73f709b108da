#!/usr/bin/env bash
# The C SDK tarball as a user gets it: no Rust toolchain, nothing from the source tree but the
# example program.
#
#   DIST=/abs/dist VERSION=0.1.0 WORK=/empty/scratch OXMCP=/path/to/oxmcp bash tests/packages/c/run.sh
#
# Unpacks $DIST/oxmcp-c-$VERSION-linux-x86_64.tar.gz under $WORK/prefix, then builds
# bindings-c/examples/quickstart.c (copied into $WORK):
#  - with gcc and pkg-config, against liboxmcp.so (rpath from `pkg-config --variable=libdir`)
#    and against liboxmcp.a with `pkg-config --static` (which proves Libs.private);
#  - with CMake, find_package(oxmcp $VERSION EXACT), against oxmcp::oxmcp and
#    oxmcp::oxmcp_static; a request for another minor version must not be found;
# runs each against `$OXMCP everything-server --stdio` (it prints "OK: ...hello from C..."),
# and checks that pkg-config's and CMake's version and the library's oxmcp_version() are
# $VERSION. Everything is written under $WORK. Prints a line per check, ends with
# "N passed, M failed".
set -uo pipefail

: "${DIST:?}" "${VERSION:?}" "${WORK:?}" "${OXMCP:?}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"

source "$HERE/../checks.sh"
cd "$WORK" || exit 1

TARBALL="$DIST/oxmcp-c-$VERSION-linux-x86_64.tar.gz"
PREFIX="$WORK/prefix"
unpack() {
  mkdir -p "$PREFIX" && tar -xzf "$TARBALL" -C "$PREFIX" --strip-components=1 &&
    for f in include/oxmcp.h lib/liboxmcp.so lib/liboxmcp.a lib/pkgconfig/oxmcp.pc \
        lib/cmake/oxmcp/oxmcpConfig.cmake lib/cmake/oxmcp/oxmcpConfigVersion.cmake; do
      [[ -f "$PREFIX/$f" ]] || { echo "missing $f"; return 1; }
    done
}
check "unpack $(basename "$TARBALL")" unpack || summary
# Its top directory is oxmcp-c-$VERSION.
check "tarball top directory is oxmcp-c-$VERSION" \
  bash -c "[[ \"\$(tar -tzf '$TARBALL' | cut -d/ -f1 | sort -u)\" == 'oxmcp-c-$VERSION' ]]"

cp "$REPO/bindings-c/examples/quickstart.c" "$WORK/quickstart.c"
cat >"$WORK/version.c" <<'EOF'
#include <stdio.h>
#include "oxmcp.h"
int main(void) { printf("%s\n", oxmcp_version()); return 0; }
EOF

# Runs a quickstart binary against the everything-server; it must print OK: ...hello from C.
quickstart_ok() {
  local out
  out="$(timeout 120 "$1" "$OXMCP")" || { echo "exit $?: $out"; return 1; }
  echo "$out"
  grep -q '^OK: .*hello from C' <<<"$out"
}
# A binary must (not) load liboxmcp.so, and then from the unpacked prefix.
uses_shared_lib() { # uses_shared_lib BINARY [PREFIX]
  readelf -d "$1" | grep -q 'NEEDED.*\[liboxmcp\.so\]' || { echo "no NEEDED liboxmcp.so"; return 1; }
  local loaded
  loaded="$(ldd "$1" | sed -n 's/^[[:space:]]*liboxmcp\.so => \([^ ]*\) .*/\1/p')"
  echo "loads $loaded"
  [[ -n "$loaded" && "$loaded" -ef "${2:-$PREFIX}/lib/liboxmcp.so" ]]
}
no_shared_lib() { [[ -x "$1" ]] && ! readelf -d "$1" | grep -q 'NEEDED.*liboxmcp'; }
version_is() { local v; v="$("$1")" && echo "$v" && [[ "$v" == "$VERSION" ]]; }

# --- pkg-config ------------------------------------------------------------------------------
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
check "pkg-config --modversion oxmcp is $VERSION" bash -c '[[ "$(pkg-config --modversion oxmcp)" == "$0" ]]' "$VERSION"
LIBDIR="$(pkg-config --variable=libdir oxmcp)"
CFLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror)

check "gcc quickstart.c \$(pkg-config --cflags --libs oxmcp)" \
  bash -c 'gcc "${@:2}" quickstart.c $(pkg-config --cflags --libs oxmcp) -Wl,-rpath,"$0" -o quickstart-pc' "$LIBDIR" "${CFLAGS[@]}"
check "pkg-config quickstart loads liboxmcp.so from the prefix" uses_shared_lib ./quickstart-pc
check "pkg-config quickstart against everything-server" quickstart_ok ./quickstart-pc
check "gcc version.c \$(pkg-config ...): oxmcp_version() is $VERSION" \
  bash -c 'gcc "${@:2}" version.c $(pkg-config --cflags --libs oxmcp) -Wl,-rpath,"$0" -o version-pc && ./version-pc | grep -qx "$VERSION"' \
  "$LIBDIR" "${CFLAGS[@]}"

# Static, as the tarball's README says: the archive by its path, then Libs.private.
check "gcc quickstart.c liboxmcp.a \$(pkg-config --libs-only-l --static oxmcp)" \
  bash -c 'gcc "${@:2}" quickstart.c $(pkg-config --cflags oxmcp) "$0/liboxmcp.a" $(pkg-config --libs-only-l --static oxmcp | sed "s/-loxmcp//") -o quickstart-pc-static' \
  "$LIBDIR" "${CFLAGS[@]}"
check "static quickstart does not load liboxmcp.so" no_shared_lib ./quickstart-pc-static
check "static quickstart against everything-server" quickstart_ok ./quickstart-pc-static

# --- CMake -----------------------------------------------------------------------------------
mkdir -p "$WORK/cmake-app"
cp quickstart.c version.c "$WORK/cmake-app/"
cat >"$WORK/cmake-app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(oxmcp_consumer C)
find_package(oxmcp ${WANT_VERSION} EXACT REQUIRED)
file(WRITE "${CMAKE_BINARY_DIR}/found-version.txt" "${oxmcp_VERSION}")

add_executable(quickstart quickstart.c)
target_link_libraries(quickstart PRIVATE oxmcp::oxmcp)
add_executable(quickstart_static quickstart.c)
target_link_libraries(quickstart_static PRIVATE oxmcp::oxmcp_static)
add_executable(version version.c)
target_link_libraries(version PRIVATE oxmcp::oxmcp)
EOF
check "cmake configure: find_package(oxmcp $VERSION EXACT)" \
  cmake -S "$WORK/cmake-app" -B "$WORK/cmake-build" -DCMAKE_PREFIX_PATH="$PREFIX" -DWANT_VERSION="$VERSION" \
  -DCMAKE_BUILD_TYPE=Release
check "cmake: oxmcp_VERSION is $VERSION" bash -c '[[ "$(cat "$0/found-version.txt")" == "$1" ]]' "$WORK/cmake-build" "$VERSION"
check "cmake --build (oxmcp::oxmcp, oxmcp::oxmcp_static)" cmake --build "$WORK/cmake-build"
check "cmake quickstart (oxmcp::oxmcp) loads liboxmcp.so from the prefix" uses_shared_lib "$WORK/cmake-build/quickstart"
check "cmake quickstart (oxmcp::oxmcp) against everything-server" quickstart_ok "$WORK/cmake-build/quickstart"
check "cmake quickstart_static does not load liboxmcp.so" no_shared_lib "$WORK/cmake-build/quickstart_static"
check "cmake quickstart_static (oxmcp::oxmcp_static) against everything-server" quickstart_ok "$WORK/cmake-build/quickstart_static"
check "cmake version: oxmcp_version() is $VERSION" version_is "$WORK/cmake-build/version"

# The version file refuses another minor (0.x: minor releases may break) or major version.
IFS=. read -r major minor _ <<<"${VERSION%%[-+]*}"
other="$major.$((minor + 1))"
check "cmake: find_package(oxmcp $other) is not found" \
  bash -c '! cmake -S "$0" -B "$1" -DCMAKE_PREFIX_PATH="$2" -DWANT_VERSION="$3"' \
  "$WORK/cmake-app" "$WORK/cmake-build-other" "$PREFIX" "$other"

# The prefix copied elsewhere works from there (nothing in it records where it was unpacked).
moved_prefix_ok() {
  local moved="$WORK/elsewhere/oxmcp"
  mkdir -p "$WORK/elsewhere" && cp -a "$PREFIX" "$moved" &&
    [[ "$(PKG_CONFIG_PATH="$moved/lib/pkgconfig" pkg-config --variable=libdir oxmcp)" -ef "$moved/lib" ]] &&
    cmake -S "$WORK/cmake-app" -B "$WORK/cmake-build-moved" -DCMAKE_PREFIX_PATH="$moved" -DWANT_VERSION="$VERSION" &&
    cmake --build "$WORK/cmake-build-moved" --target version &&
    uses_shared_lib "$WORK/cmake-build-moved/version" "$moved" &&
    version_is "$WORK/cmake-build-moved/version"
}
check "a copy of the prefix elsewhere serves pkg-config and CMake from there" moved_prefix_ok

summary
