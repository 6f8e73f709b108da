#!/usr/bin/env bash
# The C SDK for users without a Rust toolchain:
#
#   bash scripts/package/c.sh    ->  dist/oxmcp-c-$VERSION-linux-x86_64.tar.gz
#
# It unpacks to oxmcp-c-$VERSION/, a prefix of its own that works wherever it is put:
#   include/oxmcp.h                     the committed header (bindings-c/include)
#   lib/liboxmcp.so, lib/liboxmcp.a     the release build in $NATIVE (glibc 2.17 floor)
#   lib/pkgconfig/oxmcp.pc              prefix taken from ${pcfiledir}
#   lib/cmake/oxmcp/oxmcpConfig.cmake   imported targets oxmcp::oxmcp and oxmcp::oxmcp_static,
#                                       found from the file's own location
#   lib/cmake/oxmcp/oxmcpConfigVersion.cmake
#   README.md                           how to build against it
# Needs the release libraries (built by scripts/package.sh), tar, gzip, binutils and cmake
# (for the version file; installed with apt-get when missing). tests/packages/c/run.sh
# builds and runs a program against the tarball, with pkg-config and with CMake.
source "$(dirname "$0")/common.sh"

NAME="oxmcp-c-$VERSION"
TARBALL="$DIST/$NAME-linux-x86_64.tar.gz"

# What a program linked against liboxmcp.a needs besides it: the Rust standard library's
# system libraries for linux-gnu. glibc before 2.34 keeps pthread, dl, rt and util apart
# from libc, and the libraries are built for glibc 2.17, so each is named.
STATIC_LIBS=(pthread dl rt util m gcc_s)

for lib in liboxmcp.so liboxmcp.a; do
  [[ -f "$NATIVE/$lib" ]] || { log "c: $NATIVE/$lib is missing (build the release libraries first)"; exit 1; }
done
if ! command -v cmake >/dev/null 2>&1; then
  log "c: apt-get install cmake"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake) >/dev/null
fi

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
PREFIX="$STAGE/$NAME"
mkdir -p "$PREFIX/include" "$PREFIX/lib/pkgconfig" "$PREFIX/lib/cmake/oxmcp"

cp "$ROOT/bindings-c/include/oxmcp.h" "$PREFIX/include/"
install -m 0755 "$NATIVE/liboxmcp.so" "$PREFIX/lib/"
install -m 0644 "$NATIVE/liboxmcp.a" "$PREFIX/lib/"
# The archive's objects keep debug sections (a sixth of its size): release artifacts carry none.
strip --strip-debug "$PREFIX/lib/liboxmcp.a"

# --- pkg-config ------------------------------------------------------------------------------
private=""
for l in "${STATIC_LIBS[@]}"; do private+=" -l$l"; done
cat >"$PREFIX/lib/pkgconfig/oxmcp.pc" <<EOF
# Relocatable: the prefix is found from where this file is.
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: oxmcp
Description: The oxmcp Model Context Protocol engine (C ABI)
Version: $VERSION
Cflags: -I\${includedir}
Libs: -L\${libdir} -loxmcp
Libs.private:$private
EOF

# --- CMake -----------------------------------------------------------------------------------
# A shared library without a SONAME must be linked by name (-loxmcp), not by its path, or
# the program would record the absolute path it was linked from: CMake's IMPORTED_NO_SONAME.
static_cmake="$(IFS=';'; echo "${STATIC_LIBS[*]}")" # CMake lists are ;-separated
soname="$(readelf -d "$PREFIX/lib/liboxmcp.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')"
if [[ -n "$soname" ]]; then
  soname_prop="IMPORTED_SONAME \"$soname\""
else
  soname_prop="IMPORTED_NO_SONAME TRUE"
fi
cat >"$PREFIX/lib/cmake/oxmcp/oxmcpConfig.cmake" <<EOF
# oxmcp $VERSION, the Model Context Protocol engine (C ABI).
#
#   find_package(oxmcp REQUIRED)
#   target_link_libraries(app PRIVATE oxmcp::oxmcp)          # liboxmcp.so
#   target_link_libraries(app PRIVATE oxmcp::oxmcp_static)   # liboxmcp.a and its system libraries
#
# Everything is found from this file's location (<prefix>/lib/cmake/oxmcp), so the prefix can
# be moved as a whole.
get_filename_component(_oxmcp_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

foreach(_oxmcp_file include/oxmcp.h lib/liboxmcp.so lib/liboxmcp.a)
  if(NOT EXISTS "\${_oxmcp_prefix}/\${_oxmcp_file}")
    set(oxmcp_FOUND FALSE)
    set(oxmcp_NOT_FOUND_MESSAGE "\${_oxmcp_prefix}/\${_oxmcp_file} is missing")
    unset(_oxmcp_prefix)
    return()
  endif()
endforeach()

if(NOT TARGET oxmcp::oxmcp)
  add_library(oxmcp::oxmcp SHARED IMPORTED)
  set_target_properties(oxmcp::oxmcp PROPERTIES
    IMPORTED_LOCATION "\${_oxmcp_prefix}/lib/liboxmcp.so"
    $soname_prop
    INTERFACE_INCLUDE_DIRECTORIES "\${_oxmcp_prefix}/include")
endif()

if(NOT TARGET oxmcp::oxmcp_static)
  add_library(oxmcp::oxmcp_static STATIC IMPORTED)
  set_target_properties(oxmcp::oxmcp_static PROPERTIES
    IMPORTED_LOCATION "\${_oxmcp_prefix}/lib/liboxmcp.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "\${_oxmcp_prefix}/include"
    INTERFACE_LINK_LIBRARIES "$static_cmake")
endif()

set(oxmcp_INCLUDE_DIRS "\${_oxmcp_prefix}/include")
set(oxmcp_LIBRARY_DIR "\${_oxmcp_prefix}/lib")
unset(_oxmcp_prefix)
EOF
# The version file: 0.x releases are compatible within a minor version; a 64-bit consumer only.
cat >"$STAGE/version.cmake" <<'EOF'
include(CMakePackageConfigHelpers)
write_basic_package_version_file("${OUT}" VERSION "${VERSION}" COMPATIBILITY SameMinorVersion)
EOF
cmake -DOUT="$PREFIX/lib/cmake/oxmcp/oxmcpConfigVersion.cmake" -DVERSION="$VERSION" -DCMAKE_SIZEOF_VOID_P=8 \
  -P "$STAGE/version.cmake"

# --- README ----------------------------------------------------------------------------------
cat >"$PREFIX/README.md" <<EOF
# oxmcp $VERSION for C (Linux x86_64)

The oxmcp Model Context Protocol engine as a C library: MCP clients and servers over stdio
and Streamable HTTP, with JSON in and out. No Rust toolchain is needed to use it. The
libraries run on any x86_64 Linux with glibc 2.17 or newer.

    include/oxmcp.h          the API; each function's comment gives its ownership and threading rules
    lib/liboxmcp.so          shared library
    lib/liboxmcp.a           static library
    lib/pkgconfig/oxmcp.pc   for pkg-config
    lib/cmake/oxmcp/         for CMake's find_package(oxmcp)

Unpack it anywhere (call that directory PREFIX); nothing in it records where it was built.

## pkg-config

    export PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
    gcc app.c \$(pkg-config --cflags --libs oxmcp) -Wl,-rpath,\$(pkg-config --variable=libdir oxmcp) -o app

Without the rpath, put PREFIX/lib on LD_LIBRARY_PATH when running the program, or copy
liboxmcp.so where the dynamic loader looks. Linking the static library instead:

    gcc app.c \$(pkg-config --cflags oxmcp) PREFIX/lib/liboxmcp.a \$(pkg-config --libs-only-l --static oxmcp | sed 's/-loxmcp//') -o app

## CMake

    find_package(oxmcp $VERSION REQUIRED)
    target_link_libraries(app PRIVATE oxmcp::oxmcp)           # or oxmcp::oxmcp_static

and configure with -DCMAKE_PREFIX_PATH=PREFIX.

## A first program

    #include <stdio.h>
    #include "oxmcp.h"
    int main(void) { printf("oxmcp %s\n", oxmcp_version()); return 0; }

A client and a server need a runtime (oxmcp_runtime_new); completions arrive through
callbacks on the runtime's threads; stop them with oxmcp_runtime_shutdown before exiting.
The project's bindings-c/examples/quickstart.c connects to a server over stdio and calls a
tool; bindings-c/README.md describes the whole API.

License: MIT OR Apache-2.0.
EOF

# --- the tarball -----------------------------------------------------------------------------
mkdir -p "$DIST"
mtime="@${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$mtime" -C "$STAGE" -cf - "$NAME" |
  gzip -6n >"$TARBALL.tmp"
mv "$TARBALL.tmp" "$TARBALL"
log "c: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
