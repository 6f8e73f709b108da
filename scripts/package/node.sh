#!/usr/bin/env bash
# The npm packages, the way napi-rs projects ship them: `oxmcp` (JavaScript, ESM + CJS,
# .d.ts) names `oxmcp-linux-x64-gnu` (the .node addon alone, os/cpu/libc-restricted) as an
# optional dependency, so `npm install` of the two tarballs needs no build step.
source "$(dirname "$0")/common.sh"
src="$ROOT/bindings-node"
cd "$src"
[[ -x node_modules/.bin/napi ]] || npm install --no-audit --no-fund --loglevel=error
log "napi build (zig, glibc 2.17)"
node_modules/.bin/napi build --platform --release -x --target "$ZIG_TARGET" --js native.cjs --dts native.d.ts >&2
addon="oxmcp.linux-x64-gnu.node"
[[ -f "$addon" && -f native.cjs && -f native.d.ts ]] || { log "napi made no $addon/native.cjs/native.d.ts"; exit 1; }

stage="$DIST/.npm"
rm -rf "$stage"
mkdir -p "$stage/oxmcp" "$stage/platform"
cp -r index.cjs index.mjs index.d.ts native.cjs native.d.ts lib README.md "$stage/oxmcp/"
cp "$addon" "$stage/platform/"
node "$ROOT/scripts/package/npm-manifests.mjs" "$src/package.json" "$VERSION" "$stage/oxmcp" "$stage/platform" "$addon"
for pkg in oxmcp platform; do
  (cd "$stage/$pkg" && npm pack --silent --pack-destination "$DIST" >/dev/null)
done
ls "$DIST/oxmcp-$VERSION.tgz" "$DIST/oxmcp-linux-x64-gnu-$VERSION.tgz" >/dev/null
