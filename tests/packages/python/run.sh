#!/usr/bin/env bash
# Python consumer of dist/: a fresh venv outside the workspace, `pip install` of the wheel
# (pydantic comes from PyPI; nothing is compiled), then the README's quickstart server and
# client over stdio and HTTP. Runs on the system's python3 and, where the machine has one,
# on CPython 3.9 too, the abi3 wheel's floor. Env: DIST, VERSION, WORK (see ../run.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
readme="$here/../../../bindings-python/README.md"
wheel="$(ls "$DIST"/oxmcp-"$VERSION"-cp39-abi3-manylinux*_x86_64.whl)"
pythons=(python3)
for floor in /usr/bin/python3.9 /root/.pyenv/versions/3.9*/bin/python3.9; do
  [[ -x "$floor" ]] && { pythons+=("$floor"); break; }
done
for python in "${pythons[@]}"; do
  dir="$WORK/python-$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  mkdir -p "$dir"
  echo "== $("$python" --version) in $dir"
  "$python" -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q --disable-pip-version-check "$wheel"
  got="$("$dir/venv/bin/python" -c 'import oxmcp; print(oxmcp.__version__)')"
  [[ "$got" == "$VERSION" ]] || { echo "oxmcp.__version__ is $got, not $VERSION"; exit 1; }
  (cd "$dir" && venv/bin/python "$here/quickstart.py" "$readme")
done
