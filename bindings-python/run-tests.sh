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
# One target directory for every cargo build of the workspace (maturin honours it).
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" "$venv/bin/pip" install -q --disable-pip-version-check "$here"
cd "$here"
# The OAuth tests run a real authorization server (oidc-provider, from npm).
bash "$root/tests/auth/install.sh"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider tests
