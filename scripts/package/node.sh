#!/usr/bin/env bash
# The npm packages, the way napi-rs projects ship them: `oxmcp` (JavaScript, ESM + CJS,
# .d.ts) names a platform package per platform (the .node addon alone, os/cpu/libc-
# restricted) as an optional dependency, so `npm install` needs no build step. This builds
# `oxmcp` and `oxmcp-linux-x64-gnu`; scripts/release.sh the other platforms' packages.
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
node "$ROOT/scripts/package/npm-manifests.mjs" "$src/package.json" "$VERSION" main "$stage/oxmcp"
node "$ROOT/scripts/package/npm-manifests.mjs" "$src/package.json" "$VERSION" platform "$stage/platform" linux-x64-gnu
for pkg in oxmcp platform; do
  (cd "$stage/$pkg" && npm pack --silent --pack-destination "$DIST" >/dev/null)
done
ls "$DIST/oxmcp-$VERSION.tgz" "$DIST/oxmcp-linux-x64-gnu-$VERSION.tgz" >/dev/null
