#!/usr/bin/env bash
# Node consumer of dist/: a scratch npm project outside the workspace, `npm install` of the
# two tarballs (the package and its platform package; zod, typescript and @types/node come
# from the registry, nothing is built), then the quickstart in ESM (stdio) and CommonJS
# (HTTP), and `tsc --strict` on a TypeScript client that is then run.
# Env: DIST, VERSION, WORK, OXMCP (see ../run.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
examples="$here/../../../bindings-node/examples"
dir="$WORK/node"
mkdir -p "$dir"
cd "$dir"
echo '{ "name": "scratch", "version": "1.0.0", "private": true, "type": "module" }' >package.json
npm install --no-audit --no-fund --loglevel=error \
  "$DIST/oxmcp-$VERSION.tgz" "$DIST/oxmcp-linux-x64-gnu-$VERSION.tgz" zod@4 typescript@5 @types/node@20

check() { # check NAME OUTPUT PATTERN...: every pattern is a line of OUTPUT
  local name="$1" out="$2"
  shift 2
  for want in "$@"; do
    grep -qxF -- "$want" <<<"$out" || { printf '%s: no line %q in\n%s\n' "$name" "$want" "$out"; exit 1; }
  done
  echo "ok: $name"
}

# The addon came with the platform package, not with the main one.
check layout "$(find node_modules/oxmcp node_modules/oxmcp-linux-x64-gnu -name '*.node' | sort)" \
  "node_modules/oxmcp-linux-x64-gnu/oxmcp.linux-x64-gnu.node"
check versions "$(node -p "require('oxmcp/package.json').version + ' ' + require('oxmcp-linux-x64-gnu/package.json').version")" \
  "$VERSION $VERSION"

cp "$examples/quickstart-server.mjs" "$examples/quickstart-client.mjs" .
check "ESM quickstart (stdio)" "$(node quickstart-client.mjs)" \
  "tools: [ 'add' ]" "progress 50" "add -> 3" "note -> Note todo" "aborted: true"

cp "$here/quickstart.cjs" "$here/typed.ts" .
check "CommonJS quickstart (HTTP)" "$(node quickstart.cjs)" "add -> 5" "note -> Note cjs" "era: stateless"

cat >tsconfig.json <<'JSON'
{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext",
  "outDir": "out", "skipLibCheck": false, "types": ["node"] }, "files": ["typed.ts"] }
JSON
node_modules/.bin/tsc --strict -p tsconfig.json
echo "ok: tsc --strict"
check "TypeScript client" "$(OXMCP="$OXMCP" node out/typed.js)" "echo -> hello" "tools > 5: true"
