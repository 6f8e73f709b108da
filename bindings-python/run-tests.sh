#!/usr/bin/env bash
# Builds and installs the Python package the way a user does (`pip install ./bindings-python`
# into a fresh venv), then runs its pytest suite. Ends with pytest's summary line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
venv="$here/.venv"
# Concurrent runs (several developers on one machine) take turns with the venv.
exec 9>"$here/.run-tests.lock"
flock 9
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements-test.txt"
# The wheel scripts/package.sh built when the test command names its dist/ (OXMCP_DIST),
# else a build from source; one target directory for every cargo build (maturin honours it).
wheel="$(ls "${OXMCP_DIST:-/nonexistent}"/oxmcp-*-cp39-abi3-*.whl 2>/dev/null || true)"
if [[ -n "$wheel" ]]; then
  "$venv/bin/pip" install -q --disable-pip-version-check "$wheel"
else
  CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" "$venv/bin/pip" install -q --disable-pip-version-check "$here"
fi
cd "$here"
# The OAuth tests run a real authorization server (oidc-provider, from npm).
bash "$root/tests/auth/install.sh"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider tests
