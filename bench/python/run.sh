#!/usr/bin/env bash
# Runs the Python benchmark (bench.py) with the bindings-python venv, which holds the oxmcp
# package and the official SDK (mcp==2.3.0). Arguments are passed to bench.py (try --help).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="$root/bindings-python/.venv/bin/python"
if [ ! -x "$py" ]; then
    echo "error: $py not found: run bindings-python/run-tests.sh first (it builds the venv with oxmcp and mcp)" >&2
    exit 1
fi
if ! "$py" -c "import oxmcp, mcp" 2>/dev/null; then
    echo "error: the venv lacks oxmcp or mcp: run bindings-python/run-tests.sh first" >&2
    exit 1
fi
exec "$py" "$here/bench.py" "$@"
