# Sourced by compare.sh and soak.sh: builds oxmcp's release programs and rmcp's, the
# Python venv (bench/.venv: oxmcp from ./bindings-python, the official SDK), the Node
# suite folder (bench/suite/node: the packed oxmcp binding, the official TypeScript SDK)
# and, with $with_kotlin=1, the Kotlin programs (bench/kotlin/build.sh: the release
# liboxmcp_kotlin, the official Kotlin SDK). Expects $bench and $root (and $with_rmcp=0 to
# skip rmcp); leaves $tarball (the packed Node binding).

echo "== building oxmcp (release) and rmcp's benchmark programs" >&2
cargo build --release -q -p oxmcp-bench >&2
if [ "${with_rmcp:-1}" = 1 ]; then
    cargo build --release -q --manifest-path bench/rmcp/Cargo.toml --target-dir bench/rmcp/target >&2
fi

echo "== Python: oxmcp (pip install ./bindings-python) and the official SDK in bench/.venv" >&2
if [ ! -x bench/.venv/bin/python ]; then python3 -m venv bench/.venv; fi
bench/.venv/bin/pip install -q --disable-pip-version-check -r bindings-python/requirements-test.txt >&2
bench/.venv/bin/pip install -q --disable-pip-version-check --force-reinstall --no-deps ./bindings-python >&2

echo "== Node: the oxmcp binding (npm run build, npm pack) and the official TypeScript SDK" >&2
(cd bindings-node && npm install --no-audit --no-fund --loglevel=error >&2 && npm run -s build >&2)
mkdir -p bench/.scratch
tarball="$(cd bindings-node && npm pack --silent --pack-destination "$bench/.scratch" | tail -1)"
(cd bench/suite/node && npm install --no-audit --no-fund --loglevel=error >&2 \
  && npm install --no-save --no-audit --no-fund --loglevel=error "$bench/.scratch/$tarball" >&2)

if [ "${with_kotlin:-0}" = 1 ]; then
    echo "== Kotlin: liboxmcp_kotlin (release) and its uniffi Kotlin, the official Kotlin SDK (Maven)" >&2
    bash "$bench/kotlin/build.sh" >&2
fi
