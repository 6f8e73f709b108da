#!/usr/bin/env bash
# The Python artifacts: an abi3 wheel (CPython >= 3.9) tagged manylinux_2_17 (maturin links
# with zig against glibc 2.17), checked by auditwheel, and the sdist.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
log "maturin build (wheel, manylinux2014 through zig)"
maturin build --quiet --release --zig --compatibility manylinux2014 -m bindings-python/Cargo.toml -o "$DIST"
log "maturin sdist"
maturin sdist -m bindings-python/Cargo.toml -o "$DIST" >&2
wheel="$(ls "$DIST"/oxmcp-"$VERSION"-cp39-abi3-*.whl)"
# auditwheel names the highest manylinux tag the wheel's symbols allow: it must be 2_17.
auditwheel show "$wheel" | tee "$DIST/.auditwheel.txt" >&2
grep -q 'manylinux_2_17_x86_64' "$DIST/.auditwheel.txt" || { log "auditwheel does not accept the wheel as manylinux_2_17"; exit 1; }
