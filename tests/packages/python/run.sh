#!/usr/bin/env bash
# Python consumer of dist/, installed the way a user installs from PyPI: the wheels and the
# sdist of dist/ are served by a local pypiserver (PyPI's own small index server, on a free
# loopback port, stopped by pid), and a fresh venv outside the workspace runs plain
# `pip install oxmcp` against it. pypiserver sends what it does not hold (pydantic) on to
# pypi.org; oxmcp itself can only come from the local index. Nothing is compiled. Then:
#
# - `pip download --only-binary :all: --platform TAG oxmcp` resolves, for every wheel's
#   platform tag in dist/ and dist/release/, that wheel (every platform after
#   scripts/release.sh, the host's in the test command), and a platform with no wheel
#   resolves nothing;
# - the README's quickstart server and client over stdio and HTTP, on the system's python3
#   and, where the machine has one, on CPython 3.9 too, the abi3 wheel's floor.
#
# Env: DIST, VERSION, WORK (see ../run.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
readme="$here/../../../bindings-python/README.md"
log() { printf '[packages/python] %s\n' "$*" >&2; }

# The index: what a release uploads to PyPI (the wheels and the sdist), nothing else.
index="$WORK/index"
mkdir -p "$index"
cp "$DIST"/oxmcp-"$VERSION"-*.whl "$DIST/oxmcp-$VERSION.tar.gz" "$index/"
# The other platforms' wheels, when scripts/release.sh made them.
for wheel in "$DIST"/release/oxmcp-"$VERSION"-*.whl; do
  if [[ -f "$wheel" ]]; then cp -n "$wheel" "$index/"; fi
done
python3 -m venv "$WORK/pypiserver"
"$WORK/pypiserver/bin/pip" install -q --disable-pip-version-check pypiserver==2.4.2
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$WORK/pypiserver/bin/pypi-server" run -i 127.0.0.1 -p "$port" "$index" >"$WORK/pypiserver.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
url="http://127.0.0.1:$port/simple/"
for _ in $(seq 100); do
  curl -fsS "$url" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$WORK/pypiserver.log"; exit 1; }
  sleep 0.1
done
log "pypiserver $url serving: $(cd "$index" && echo *)"
pip_index=(--disable-pip-version-check --index-url "$url")

# Every wheel's platform resolves to that wheel alone; a platform with none resolves nothing.
for wheel in "$index"/*.whl; do
  name="$(basename "$wheel")"
  tags="${name%.whl}"
  tags="${tags##*-abi3-}" # one or more platforms, e.g. manylinux2014_x86_64.manylinux_2_17_x86_64
  for platform in ${tags//./ }; do
    got="$WORK/download-$platform"
    python3 -m pip download -q "${pip_index[@]}" --only-binary :all: --no-deps --python-version 3.11 \
      --platform "$platform" -d "$got" oxmcp=="$VERSION"
    [[ "$(ls "$got")" == "$name" ]] || { log "--platform $platform resolved $(ls "$got"), not $name"; exit 1; }
    echo "ok: pip download --platform $platform -> $name"
  done
done
if python3 -m pip download -q "${pip_index[@]}" --only-binary :all: --no-deps --platform solaris_2_11_sparc \
  -d "$WORK/download-none" oxmcp=="$VERSION" 2>/dev/null; then
  log "a platform with no wheel resolved $(ls "$WORK/download-none")"
  exit 1
fi
echo "ok: pip download --platform solaris_2_11_sparc resolves nothing"

pythons=(python3)
for floor in /usr/bin/python3.9 /root/.pyenv/versions/3.9*/bin/python3.9; do
  [[ -x "$floor" ]] && { pythons+=("$floor"); break; }
done
for python in "${pythons[@]}"; do
  dir="$WORK/python-$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  mkdir -p "$dir"
  echo "== $("$python" --version) in $dir"
  "$python" -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q "${pip_index[@]}" --only-binary oxmcp oxmcp
  got="$("$dir/venv/bin/python" -c 'import oxmcp; print(oxmcp.__version__)')"
  [[ "$got" == "$VERSION" ]] || { echo "oxmcp.__version__ is $got, not $VERSION"; exit 1; }
  # The wheel pip chose is the host's, from the local index.
  "$dir/venv/bin/pip" download -q "${pip_index[@]}" --no-deps --only-binary :all: -d "$dir/chosen" oxmcp=="$VERSION"
  echo "ok: pip install oxmcp -> $(ls "$dir/chosen")"
  (cd "$dir" && venv/bin/python "$here/quickstart.py" "$readme")
done
